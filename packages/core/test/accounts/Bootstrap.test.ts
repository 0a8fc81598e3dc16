import { describe, expect, it } from "@effect/vitest"
import { SwitchboardCore } from "@switchboard/core"
import { Accounts, AccountsRepo, bootstrapIfEmpty, PasswordHasher, provisionAccount } from "@switchboard/core/accounts"
import { AccountServiceKeys, Authenticator, parseCredential, Principal } from "@switchboard/core/credentials"
import { AccountId } from "@switchboard/core/shared"
import { TestkitLive } from "@switchboard/testkit"
import { Effect, Layer, Option, Redacted } from "effect"
import { TestClock } from "effect/testing"

/** The principal of a service key, narrowed (the test fails on any other kind). */
const asAccountPrincipal = (p: Principal) => {
  if (p._tag !== "Account") throw new Error(`expected an account principal, got ${p._tag}`)
  return p
}

const T0 = Date.parse("2030-01-01T00:00:00.000Z")
const Env = SwitchboardCore.pipe(Layer.provideMerge(TestkitLive))
const email = "admin@example.com"

const storedHash = (accountId: string) =>
  Effect.gen(function*() {
    const record = yield* (yield* AccountsRepo).findById(AccountId.make(accountId))
    expect(Option.isSome(record)).toBe(true)
    const hash = Option.getOrThrow(record).passwordHash
    expect(hash).not.toBeNull()
    return hash ?? ""
  })

describe("Bootstrap", () => {
  it.effect("on an empty store: an account, a generated password and a working never-expiring service key", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(T0)
      expect(yield* (yield* Accounts).isEmpty).toBe(true)
      const result = yield* bootstrapIfEmpty({ email, password: Option.none() })
      expect(Option.isSome(result)).toBe(true)
      const provisioned = Option.getOrThrow(result)
      expect(provisioned.email).toBe(email)
      expect(provisioned.accountId).toMatch(/^sb_acc_[0-7][0-9a-hjkmnp-tv-z]{25}$/)

      const password = Redacted.value(provisioned.password)
      expect(password.length).toBeGreaterThanOrEqual(32)
      expect(password).toMatch(/^[0-9a-hjkmnp-tv-z]+$/)
      const hasher = yield* PasswordHasher
      const hash = yield* storedHash(provisioned.accountId)
      expect(hash).not.toContain(password)
      expect(yield* hasher.verify(provisioned.password, hash)).toBe(true)
      expect(yield* hasher.verify(Redacted.make(`${password}x`), hash)).toBe(false)

      const principal = asAccountPrincipal(yield* (yield* Authenticator).authenticate(provisioned.serviceKey))
      expect(principal._tag).toBe("Account")
      expect(principal.accountId).toBe(provisioned.accountId)
      const parsed = parseCredential(Redacted.value(provisioned.serviceKey))
      expect(parsed?._tag === "AccountServiceKey" && parsed.keyId).toBe(principal.serviceKeyId)

      const keys = yield* (yield* AccountServiceKeys).list(AccountId.make(provisioned.accountId))
      expect(keys).toHaveLength(1)
      expect(keys[0]).toMatchObject({ name: "bootstrap", expiresAt: null, revokedAt: null, serviceKeyId: principal.serviceKeyId })

      // The key never expires.
      yield* TestClock.adjust("3650 days")
      expect(asAccountPrincipal(yield* (yield* Authenticator).authenticate(provisioned.serviceKey))).toEqual(
        Principal.Account({ accountId: principal.accountId, serviceKeyId: principal.serviceKeyId })
      )
    }).pipe(Effect.provide(Env)))

  it.effect("a second call returns none and creates nothing", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(T0)
      const first = yield* bootstrapIfEmpty({ email, password: Option.none() })
      expect(Option.isSome(first)).toBe(true)
      const second = yield* bootstrapIfEmpty({ email: "second@example.com", password: Option.none() })
      expect(Option.isNone(second)).toBe(true)
      const third = yield* bootstrapIfEmpty({ email, password: Option.some(Redacted.make("another password")) })
      expect(Option.isNone(third)).toBe(true)
      expect(Option.isNone(yield* (yield* AccountsRepo).findByEmail("second@example.com"))).toBe(true)
      // The first account still has exactly its one key, and its password is unchanged.
      const accountId = AccountId.make(Option.getOrThrow(first).accountId)
      expect(yield* (yield* AccountServiceKeys).list(accountId)).toHaveLength(1)
      const hash = yield* storedHash(accountId)
      expect(yield* (yield* PasswordHasher).verify(Option.getOrThrow(first).password, hash)).toBe(true)
    }).pipe(Effect.provide(Env)))

  it.effect("a store that already has an account is not bootstrapped", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(T0)
      yield* (yield* Accounts).create({ email: "existing@example.com" })
      expect(Option.isNone(yield* bootstrapIfEmpty({ email, password: Option.none() }))).toBe(true)
      expect(Option.isNone(yield* (yield* AccountsRepo).findByEmail(email))).toBe(true)
    }).pipe(Effect.provide(Env)))

  it.effect("with a given password: that password is returned and the stored hash verifies it", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(T0)
      const given = "correct horse battery staple"
      const result = yield* bootstrapIfEmpty({ email, password: Option.some(Redacted.make(given)) })
      const provisioned = Option.getOrThrow(result)
      expect(Redacted.value(provisioned.password)).toBe(given)
      const hasher = yield* PasswordHasher
      const hash = yield* storedHash(provisioned.accountId)
      expect(hash).not.toContain(given)
      expect(yield* hasher.verify(Redacted.make(given), hash)).toBe(true)
      expect(yield* hasher.verify(Redacted.make("correct horse battery stapler"), hash)).toBe(false)
      const principal = asAccountPrincipal(yield* (yield* Authenticator).authenticate(provisioned.serviceKey))
      expect(principal.accountId).toBe(provisioned.accountId)
    }).pipe(Effect.provide(Env)))

  it.effect("generated passwords differ between stores", () =>
    Effect.gen(function*() {
      const once = Effect.map(bootstrapIfEmpty({ email, password: Option.none() }), (r) =>
        Redacted.value(Option.getOrThrow(r).password)).pipe(Effect.provide(Env))
      const a = yield* once
      const b = yield* once
      expect(a).not.toBe(b)
    }))

  it.effect("two concurrent bootstraps of the same empty store: exactly one wins", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(T0)
      const results = yield* Effect.all(
        [bootstrapIfEmpty({ email, password: Option.none() }), bootstrapIfEmpty({ email, password: Option.none() })],
        { concurrency: "unbounded" }
      )
      expect(results.filter(Option.isSome)).toHaveLength(1)
      const winner = Option.getOrThrow(results.find(Option.isSome) ?? Option.none())
      const principal = asAccountPrincipal(yield* (yield* Authenticator).authenticate(winner.serviceKey))
      expect(principal.accountId).toBe(winner.accountId)
    }).pipe(Effect.provide(Env)))

  it.effect("provisionAccount names the key as asked and works on a non-empty store", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(T0)
      yield* (yield* Accounts).create({ email: "existing@example.com" })
      const provisioned = yield* provisionAccount({ email: "ops@example.com", password: Option.none(), keyName: "cli" })
      const keys = yield* (yield* AccountServiceKeys).list(AccountId.make(provisioned.accountId))
      expect(keys.map((k) => k.name)).toEqual(["cli"])
      const again = yield* Effect.result(provisionAccount({ email: "OPS@example.com", password: Option.none(), keyName: "cli" }))
      expect(again._tag === "Failure" && again.failure._tag).toBe("EmailTaken")
    }).pipe(Effect.provide(Env)))
})
