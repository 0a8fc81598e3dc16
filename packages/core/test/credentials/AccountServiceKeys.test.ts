import { describe, expect, it } from "@effect/vitest"
import { SwitchboardCore } from "@switchboard/core"
import { Accounts, IdentityLimits } from "@switchboard/core/accounts"
import { AccountServiceKeys, Authenticator, parseCredential, Principal } from "@switchboard/core/credentials"
import { type AccountId, formatTypeId, IdKinds, ServiceKeyId, uuidv7Bytes } from "@switchboard/core/shared"
import { TestkitLive } from "@switchboard/testkit"
import { DateTime, Effect, Result, Layer, Redacted } from "effect"
import { TestClock } from "effect/testing"

/** The principal of a service key, narrowed (the test fails on any other kind). */
const asAccountPrincipal = (p: Principal) => {
  if (p._tag !== "Account") throw new Error(`expected an account principal, got ${p._tag}`)
  return p
}

const T0 = Date.parse("2030-01-01T00:00:00.000Z")
const at = (ms: number) => DateTime.makeUnsafe(ms) as DateTime.Utc

const Env = SwitchboardCore.pipe(Layer.provideMerge(TestkitLive))

/** Sets the clock to T0 and creates an account (fresh memory store per test). */
const setup = (email = "owner@example.com") =>
  Effect.gen(function*() {
    yield* TestClock.setTime(T0)
    const accounts = yield* Accounts
    const account = yield* accounts.create({ email })
    return account.accountId
  })

const createN = (accountId: AccountId, n: number) =>
  Effect.forEach(Array.from({ length: n }, (_, i) => i), (i) =>
    Effect.flatMap(AccountServiceKeys, (keys) => keys.create({ accountId, name: `key ${i}`, expiresAt: null })))

describe("AccountServiceKeys", () => {
  it.effect("create returns a key whose credential parses with the same key id and authenticates", () =>
    Effect.gen(function*() {
      const accountId = yield* setup()
      const keys = yield* AccountServiceKeys
      const expiresAt = at(T0 + 86_400_000)
      const created = yield* keys.create({ accountId, name: "ci", expiresAt })
      expect(created.serviceKey).toEqual({
        serviceKeyId: created.serviceKey.serviceKeyId,
        accountId,
        name: "ci",
        createdAt: at(T0),
        expiresAt,
        revokedAt: null
      })
      const parsed = parseCredential(Redacted.value(created.secret))
      expect(parsed?._tag).toBe("AccountServiceKey")
      if (parsed?._tag !== "AccountServiceKey") return
      expect(parsed.keyId).toBe(created.serviceKey.serviceKeyId)
      const principal = asAccountPrincipal(yield* (yield* Authenticator).authenticate(created.secret))
      expect(principal).toEqual(Principal.Account({ accountId, serviceKeyId: created.serviceKey.serviceKeyId }))
    }).pipe(Effect.provide(Env)))

  it.effect("two keys get distinct ids and secrets", () =>
    Effect.gen(function*() {
      const accountId = yield* setup()
      const [a, b] = yield* createN(accountId, 2)
      expect(a!.serviceKey.serviceKeyId).not.toBe(b!.serviceKey.serviceKeyId)
      expect(Redacted.value(a!.secret)).not.toBe(Redacted.value(b!.secret))
    }).pipe(Effect.provide(Env)))

  it.effect("expiresAt null creates a key that never expires", () =>
    Effect.gen(function*() {
      const accountId = yield* setup()
      const keys = yield* AccountServiceKeys
      const created = yield* keys.create({ accountId, name: "forever", expiresAt: null })
      expect(created.serviceKey.expiresAt).toBeNull()
      yield* TestClock.adjust("3650 days")
      const principal = asAccountPrincipal(yield* (yield* Authenticator).authenticate(created.secret))
      expect(principal.serviceKeyId).toBe(created.serviceKey.serviceKeyId)
    }).pipe(Effect.provide(Env)))

  it.effect("expiresAt equal to now or in the past is InvalidInput on expiresAt; one millisecond ahead is fine", () =>
    Effect.gen(function*() {
      const accountId = yield* setup()
      const keys = yield* AccountServiceKeys
      for (const expiresAt of [at(T0), at(T0 - 1), at(T0 - 86_400_000)]) {
        const result = yield* Effect.result(keys.create({ accountId, name: "bad", expiresAt }))
        expect(Result.isFailure(result)).toBe(true)
        if (Result.isFailure(result)) {
          expect(result.failure._tag).toBe("InvalidInput")
          if (result.failure._tag === "InvalidInput") expect(result.failure.field).toBe("expiresAt")
        }
      }
      expect(yield* keys.list(accountId)).toEqual([])
      const ok = yield* keys.create({ accountId, name: "soon", expiresAt: at(T0 + 1) })
      expect(ok.serviceKey.expiresAt).toEqual(at(T0 + 1))
    }).pipe(Effect.provide(Env)))

  it.effect("list is newest first, excludes revoked keys and includes expired ones", () =>
    Effect.gen(function*() {
      const accountId = yield* setup()
      const keys = yield* AccountServiceKeys
      const first = yield* keys.create({ accountId, name: "first", expiresAt: at(T0 + 5_000) })
      yield* TestClock.adjust("1 second")
      const second = yield* keys.create({ accountId, name: "second", expiresAt: null })
      yield* TestClock.adjust("1 second")
      const third = yield* keys.create({ accountId, name: "third", expiresAt: null })
      yield* TestClock.adjust("1 second")
      const fourth = yield* keys.create({ accountId, name: "fourth", expiresAt: null })
      yield* keys.revoke(accountId, third.serviceKey.serviceKeyId)
      yield* TestClock.adjust("10 seconds") // `first` is now expired
      const listed = yield* keys.list(accountId)
      expect(listed.map((k) => k.name)).toEqual(["fourth", "second", "first"])
      expect(listed.map((k) => k.serviceKeyId)).toEqual([
        fourth.serviceKey.serviceKeyId,
        second.serviceKey.serviceKeyId,
        first.serviceKey.serviceKeyId
      ])
      expect(listed.every((k) => k.revokedAt === null)).toBe(true)
    }).pipe(Effect.provide(Env)))

  it.effect("list shows only the account's own keys", () =>
    Effect.gen(function*() {
      const mine = yield* setup()
      const theirs = yield* (yield* Accounts).create({ email: "other@example.com" })
      const keys = yield* AccountServiceKeys
      yield* keys.create({ accountId: mine, name: "mine", expiresAt: null })
      yield* keys.create({ accountId: theirs.accountId, name: "theirs", expiresAt: null })
      expect((yield* keys.list(mine)).map((k) => k.name)).toEqual(["mine"])
      expect((yield* keys.list(theirs.accountId)).map((k) => k.name)).toEqual(["theirs"])
    }).pipe(Effect.provide(Env)))

  it.effect("revoking twice returns the same revokedAt even after the clock moved", () =>
    Effect.gen(function*() {
      const accountId = yield* setup()
      const keys = yield* AccountServiceKeys
      const created = yield* keys.create({ accountId, name: "k", expiresAt: null })
      yield* TestClock.adjust("1 minute")
      const first = yield* keys.revoke(accountId, created.serviceKey.serviceKeyId)
      expect(first.revokedAt).toEqual(at(T0 + 60_000))
      expect(first.serviceKeyId).toBe(created.serviceKey.serviceKeyId)
      yield* TestClock.adjust("1 hour")
      const second = yield* keys.revoke(accountId, created.serviceKey.serviceKeyId)
      expect(second).toEqual(first)
      expect(second.revokedAt).toEqual(at(T0 + 60_000))
    }).pipe(Effect.provide(Env)))

  it.effect("revoking an unknown id or another account's key is AccountServiceKeyNotFound", () =>
    Effect.gen(function*() {
      const accountId = yield* setup()
      const other = yield* (yield* Accounts).create({ email: "other@example.com" })
      const keys = yield* AccountServiceKeys
      const theirs = yield* keys.create({ accountId: other.accountId, name: "theirs", expiresAt: null })
      const unknown = ServiceKeyId.make(
        formatTypeId(IdKinds.accountServiceKey, uuidv7Bytes(T0, new Uint8Array(10).fill(7)))
      )
      for (const serviceKeyId of [unknown, theirs.serviceKey.serviceKeyId]) {
        const result = yield* Effect.result(keys.revoke(accountId, serviceKeyId))
        expect(result).toEqual(Result.fail(expect.objectContaining({ _tag: "AccountServiceKeyNotFound", serviceKeyId })))
      }
      // The other account's key is untouched and still works.
      expect((yield* keys.list(other.accountId))[0]?.revokedAt).toBeNull()
      const principal = asAccountPrincipal(yield* (yield* Authenticator).authenticate(theirs.secret))
      expect(principal.accountId).toBe(other.accountId)
    }).pipe(Effect.provide(Env)))

  it.effect("the 21st live key is AccountServiceKeyLimitReached (limit 20); revoking one frees a slot", () =>
    Effect.gen(function*() {
      const accountId = yield* setup()
      const keys = yield* AccountServiceKeys
      const created = yield* createN(accountId, 20)
      const over = yield* Effect.result(keys.create({ accountId, name: "21st", expiresAt: null }))
      expect(over).toEqual(Result.fail(expect.objectContaining({ _tag: "AccountServiceKeyLimitReached", limit: 20 })))
      expect(yield* keys.list(accountId)).toHaveLength(20)
      yield* keys.revoke(accountId, created[3]!.serviceKey.serviceKeyId)
      const again = yield* keys.create({ accountId, name: "21st", expiresAt: null })
      expect(again.serviceKey.name).toBe("21st")
      const full = yield* Effect.result(keys.create({ accountId, name: "22nd", expiresAt: null }))
      expect(Result.isFailure(full) && full.failure._tag).toBe("AccountServiceKeyLimitReached")
    }).pipe(Effect.provide(Env)))

  it.effect("the limit is per account", () =>
    Effect.gen(function*() {
      const accountId = yield* setup()
      const other = yield* (yield* Accounts).create({ email: "other@example.com" })
      yield* createN(accountId, 20)
      const theirs = yield* (yield* AccountServiceKeys).create({ accountId: other.accountId, name: "x", expiresAt: null })
      expect(theirs.serviceKey.accountId).toBe(other.accountId)
    }).pipe(Effect.provide(Env)))

  it.effect("an expired key does not count toward the limit", () =>
    Effect.gen(function*() {
      const accountId = yield* setup()
      const keys = yield* AccountServiceKeys
      yield* keys.create({ accountId, name: "short-lived", expiresAt: at(T0 + 1_000) })
      yield* createN(accountId, 19)
      const full = yield* Effect.result(keys.create({ accountId, name: "over", expiresAt: null }))
      expect(Result.isFailure(full) && full.failure._tag).toBe("AccountServiceKeyLimitReached")
      yield* TestClock.adjust("1 second") // the short-lived key expires exactly now
      const created = yield* keys.create({ accountId, name: "replacement", expiresAt: null })
      expect(created.serviceKey.name).toBe("replacement")
      // The expired key is still listed (unrevoked), so 21 keys are listed, 20 of them live.
      expect(yield* keys.list(accountId)).toHaveLength(21)
    }).pipe(Effect.provide(Env)))

  /** Creates keys until the cap is hit; returns how many were created and the error's limit. */
  const fillUp = Effect.gen(function*() {
    const accountId = yield* setup()
    const keys = yield* AccountServiceKeys
    let created = 0
    for (;;) {
      const result = yield* Effect.result(keys.create({ accountId, name: `k${created}`, expiresAt: null }))
      if (Result.isFailure(result)) {
        expect(result.failure._tag).toBe("AccountServiceKeyLimitReached")
        return { created, limit: result.failure._tag === "AccountServiceKeyLimitReached" ? result.failure.limit : -1 }
      }
      created += 1
      if (created > 50) return { created, limit: -1 }
    }
  })

  it.effect("overriding IdentityLimits in the layer changes the cap", () =>
    Effect.gen(function*() {
      expect(yield* fillUp).toEqual({ created: 2, limit: 2 })
    }).pipe(
      Effect.provide(
        SwitchboardCore.pipe(
          Layer.provide(Layer.succeed(IdentityLimits, { maxServiceKeysPerAccount: 2 })),
          Layer.provideMerge(TestkitLive)
        )
      )
    ))

  it.effect("overriding IdentityLimits with Effect.provideService around the program changes the cap", () =>
    Effect.gen(function*() {
      expect(yield* fillUp).toEqual({ created: 3, limit: 3 })
    }).pipe(Effect.provide(Env), Effect.provideService(IdentityLimits, { maxServiceKeysPerAccount: 3 })))

  it.effect("without an override the default cap is 20", () =>
    Effect.gen(function*() {
      expect(yield* fillUp).toEqual({ created: 20, limit: 20 })
    }).pipe(Effect.provide(Env)))

  it.effect("a key for an account that does not exist is AccountNotFound", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(T0)
      const ghost = (yield* Effect.flatMap(Accounts, (a) => a.create({ email: "ghost@example.com" }))).accountId
      // A second, separate store has never seen `ghost`.
      const result = yield* Effect.result(
        Effect.flatMap(AccountServiceKeys, (keys) => keys.create({ accountId: ghost, name: "x", expiresAt: null })).pipe(
          Effect.provide(Env, { local: true })
        )
      )
      expect(Result.isFailure(result) && result.failure._tag).toBe("AccountNotFound")
    }).pipe(Effect.provide(Env)))
})
