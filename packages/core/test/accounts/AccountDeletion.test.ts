import { describe, expect, it } from "@effect/vitest"
import { SwitchboardCore } from "@switchboard/core"
import {
  AccountProfile,
  Accounts,
  decodeBase32Rfc4648,
  PhoneVerifications,
  PhoneVerificationsRepo,
  TotpFactors,
  TotpFactorsRepo,
  totp
} from "@switchboard/core/accounts"
import { AccountServiceKeys, Authenticator, CredentialCache } from "@switchboard/core/credentials"
import { OrganizationsRepo } from "@switchboard/core/organizations"
import { type AccountId, formatTypeId, IdKinds, OrganizationId, uuidv7Bytes } from "@switchboard/core/shared"
import { SmsInbox, TestkitLive } from "@switchboard/testkit"
import { Context, DateTime, Effect, Result, Layer, Option, Redacted } from "effect"
import { TestClock } from "effect/testing"

const T0 = Date.parse("2030-01-01T00:00:15.000Z")
const Env = SwitchboardCore.pipe(Layer.provideMerge(TestkitLive))

/** An account with a service key (the credential, as a client holds it). */
const accountWithKey = (email: string) =>
  Effect.gen(function*() {
    const account = yield* (yield* Accounts).create({ email })
    const key = yield* (yield* AccountServiceKeys).create({ accountId: account.accountId, name: "main", expiresAt: null })
    return { accountId: account.accountId, secret: key.secret }
  })

const newOrganization = (owner: AccountId) =>
  Effect.gen(function*() {
    const now = yield* DateTime.now
    const organizationId = OrganizationId.make(
      formatTypeId(IdKinds.organization, uuidv7Bytes(DateTime.toEpochMillis(now), crypto.getRandomValues(new Uint8Array(10))))
    )
    yield* (yield* OrganizationsRepo).insert({ organizationId, name: "Acme", createdAt: now, updatedAt: now }, owner)
    return organizationId
  })

describe("AccountProfile.delete", () => {
  it.effect("returns the tombstone; a key verified (and cached) just before gets AccountDeleted at once", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(T0)
      const { accountId, secret } = yield* accountWithKey("leaving@example.com")
      const auth = yield* Authenticator
      expect((yield* auth.authenticate(secret))._tag).toBe("Account")
      expect((yield* CredentialCache).size()).toBe(1)
      yield* TestClock.adjust("1 second")
      const tombstone = yield* (yield* AccountProfile).delete(accountId)
      expect(tombstone.deletedAt).toEqual(DateTime.makeUnsafe(T0 + 1000))
      expect(tombstone.updatedAt).toEqual(DateTime.makeUnsafe(T0 + 1000))
      expect(tombstone.email).toBe("leaving@example.com")
      // Same instant: the cache's TTL has not run out, so only the drop can explain the refusal.
      const refused = yield* Effect.result(auth.authenticate(secret))
      expect(Result.isFailure(refused) && refused.failure._tag).toBe("AccountDeleted")
      // Deleting again returns the same tombstone.
      yield* TestClock.adjust("1 minute")
      expect(yield* (yield* AccountProfile).delete(accountId)).toEqual(tombstone)
    }).pipe(Effect.provide(Env)))

  it.live("another core instance on the same store, which had the key cached, refuses it too (CredentialRevocations)", () =>
    Effect.gen(function*() {
      const store = yield* Layer.build(TestkitLive)
      const a = yield* Layer.build(SwitchboardCore.pipe(Layer.provideMerge(Layer.succeedContext(store))))
      const b = yield* Layer.build(SwitchboardCore.pipe(Layer.provideMerge(Layer.succeedContext(store))))
      const on = (ctx: Context.Context<any>) => <X, E>(eff: Effect.Effect<X, E, any>) => Effect.provide(eff, ctx) as Effect.Effect<X, E>
      const { accountId, secret } = yield* on(a)(accountWithKey("two@example.com"))
      const authB = on(b)(Effect.flatMap(Authenticator, (s) => Effect.result(s.authenticate(secret))))
      expect(Result.isSuccess(yield* authB)).toBe(true)
      expect(yield* on(b)(Effect.map(CredentialCache, (c) => c.size()))).toBe(1)
      yield* on(a)(Effect.flatMap(AccountProfile, (p) => p.delete(accountId)))
      let refused = yield* authB
      for (let i = 0; i < 100 && Result.isSuccess(refused); i++) {
        yield* Effect.sleep("5 millis")
        refused = yield* authB
      }
      expect(Result.isFailure(refused) && refused.failure._tag).toBe("AccountDeleted")
    }))

  it.effect("is refused while the account owns an organization (also as one of two owners); nothing changes", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(T0)
      const { accountId, secret } = yield* accountWithKey("owner@example.com")
      const co = yield* accountWithKey("co-owner@example.com")
      const organizationId = yield* newOrganization(accountId)
      const orgs = yield* OrganizationsRepo
      yield* orgs.addMember({ organizationId, accountId: co.accountId, role: "owner", now: DateTime.makeUnsafe(T0) })
      for (const who of [accountId, co.accountId]) {
        const refused = yield* Effect.result((yield* AccountProfile).delete(who))
        expect(Result.isFailure(refused) && refused.failure).toMatchObject({ _tag: "AccountOwnsOrganizations", accountId: who })
        expect((yield* (yield* Accounts).get(who)).deletedAt).toBeNull()
      }
      expect((yield* (yield* Authenticator).authenticate(secret))._tag).toBe("Account")
      expect(Option.getOrThrow(yield* orgs.roleOf(organizationId, accountId))).toBe("owner")
    }).pipe(Effect.provide(Env)))

  it.effect("a plain member leaves its organizations; the organization stays with its owner", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(T0)
      const owner = yield* accountWithKey("boss@example.com")
      const member = yield* accountWithKey("member@example.com")
      const orgs = yield* OrganizationsRepo
      const first = yield* newOrganization(owner.accountId)
      const second = yield* newOrganization(owner.accountId)
      for (const [organizationId, role] of [[first, "member"], [second, "admin"]] as const) {
        yield* orgs.addMember({ organizationId, accountId: member.accountId, role, now: DateTime.makeUnsafe(T0) })
      }
      yield* (yield* AccountProfile).delete(member.accountId)
      for (const organizationId of [first, second]) {
        expect(Option.isNone(yield* orgs.roleOf(organizationId, member.accountId))).toBe(true)
        expect(Option.getOrThrow(yield* orgs.roleOf(organizationId, owner.accountId))).toBe("owner")
      }
      expect(yield* orgs.listForAccount(member.accountId, { after: undefined, limit: 10 })).toEqual([])
    }).pipe(Effect.provide(Env)))

  it.effect("ends the account's TOTP factors and pending phone verification; later enrollments are refused", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(T0)
      const { accountId } = yield* accountWithKey("secure@example.com")
      const factors = yield* TotpFactors
      const started = yield* factors.beginEnrollment(accountId)
      const key = decodeBase32Rfc4648(Redacted.value(started.secret))!
      yield* factors.confirmEnrollment(accountId, started.enrollmentToken, yield* totp(key, T0))
      yield* (yield* PhoneVerifications).start(accountId, "+15550100000")
      expect((yield* SmsInbox).messages).toHaveLength(1)
      yield* (yield* AccountProfile).delete(accountId)
      const stored = Option.getOrThrow(yield* (yield* TotpFactorsRepo).find(started.factorId))
      expect(stored.deletedAt).not.toBeNull()
      expect(stored.secretSealed).toBeNull()
      expect(yield* factors.hasVerifiedFactor(accountId)).toBe(false)
      expect(Option.isNone(yield* (yield* PhoneVerificationsRepo).find(accountId))).toBe(true)
      const enroll = yield* Effect.result(factors.beginEnrollment(accountId))
      expect(Result.isFailure(enroll) && enroll.failure._tag).toBe("AccountDeleted")
      yield* TestClock.adjust("2 minutes")
      const phone = yield* Effect.result((yield* PhoneVerifications).start(accountId, "+15550100000"))
      expect(Result.isFailure(phone) && phone.failure._tag).toBe("AccountDeleted")
    }).pipe(Effect.provide(Env)))
})
