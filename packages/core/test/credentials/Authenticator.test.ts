import { describe, expect, it } from "@effect/vitest"
import { SwitchboardCore } from "@switchboard/core"
import { Accounts, AccountsRepo, AccountServiceKeysRepo } from "@switchboard/core/accounts"
import { AccountServiceKeys, Authenticator, MAX_CREDENTIAL_LENGTH, Principal } from "@switchboard/core/credentials"
import { sha256Hex } from "@switchboard/core/internal"
import { AccountId, CROCKFORD, formatTypeId, IdKinds, ServiceKeyId, uuidv7Bytes } from "@switchboard/core/shared"
import { accountFixture, TestkitLive } from "@switchboard/testkit"
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

/** A valid-looking 52-character secret made of one repeated Crockford character. */
const secretOf = (c: string) => c.repeat(52)
const idPart = (keyId: string) => keyId.slice("sb_ask_".length)
const fixedId = (kind: typeof IdKinds.accountServiceKey | typeof IdKinds.projectApiKey, fill: number) =>
  formatTypeId(kind, uuidv7Bytes(T0, new Uint8Array(10).fill(fill)))

interface Fixture {
  readonly accountId: string
  readonly valid: { readonly keyId: string; readonly credential: string }
  readonly revoked: { readonly keyId: string; readonly credential: string }
}

/** At T0: an account with a live key and a revoked key. */
const fixture = Effect.gen(function*() {
  yield* TestClock.setTime(T0)
  const account = yield* (yield* Accounts).create({ email: "auth@example.com" })
  const keys = yield* AccountServiceKeys
  const valid = yield* keys.create({ accountId: account.accountId, name: "valid", expiresAt: null })
  const revoked = yield* keys.create({ accountId: account.accountId, name: "revoked", expiresAt: null })
  yield* keys.revoke(account.accountId, revoked.serviceKey.serviceKeyId)
  return {
    accountId: account.accountId,
    valid: { keyId: valid.serviceKey.serviceKeyId, credential: Redacted.value(valid.secret) },
    revoked: { keyId: revoked.serviceKey.serviceKeyId, credential: Redacted.value(revoked.secret) }
  } satisfies Fixture
})

type Expected = "ok" | "malformed" | "unknown" | "expired" | "revoked" | "unsupported"

interface Case {
  readonly name: string
  readonly credential: (f: Fixture) => string
  readonly expected: Expected
}

const otherSecret = (credential: string) => {
  const secret = credential.slice(-52)
  return secret === secretOf("a") ? secretOf("b") : secretOf("a")
}

const cases: ReadonlyArray<Case> = [
  { name: "a valid key", credential: (f) => f.valid.credential, expected: "ok" },
  { name: "a real key id with the wrong secret", credential: (f) => `${f.valid.keyId}_${otherSecret(f.valid.credential)}`, expected: "unknown" },
  {
    name: "a real key id with the secret of another key",
    credential: (f) => `${f.valid.keyId}_${f.revoked.credential.slice(-52)}`,
    expected: "unknown"
  },
  { name: "an unknown key id", credential: () => `${fixedId(IdKinds.accountServiceKey, 1)}_${secretOf("x")}`, expected: "unknown" },
  { name: "a garbage string", credential: () => "not a credential", expected: "malformed" },
  { name: "a single word", credential: () => "hunter2", expected: "malformed" },
  { name: "the empty string", credential: () => "", expected: "malformed" },
  { name: "sb_ask_ alone", credential: () => "sb_ask_", expected: "malformed" },
  { name: "a key id without a secret", credential: (f) => f.valid.keyId, expected: "malformed" },
  { name: "a key id and an underscore", credential: (f) => `${f.valid.keyId}_`, expected: "malformed" },
  { name: "a secret one character short", credential: (f) => f.valid.credential.slice(0, -1), expected: "malformed" },
  { name: "a secret one character long", credential: (f) => `${f.valid.credential}0`, expected: "malformed" },
  { name: "a secret with a character outside the alphabet", credential: (f) => `${f.valid.credential.slice(0, -1)}u`, expected: "malformed" },
  { name: "an upper-case key id", credential: (f) => `sb_ask_${idPart(f.valid.keyId).toUpperCase()}_${f.valid.credential.slice(-52)}`, expected: "malformed" },
  { name: "an upper-case credential", credential: (f) => f.valid.credential.toUpperCase(), expected: "malformed" },
  { name: "a key id starting with 8", credential: (f) => `sb_ask_8${idPart(f.valid.credential).slice(1)}`, expected: "malformed" },
  { name: "a leading space", credential: (f) => ` ${f.valid.credential}`, expected: "malformed" },
  { name: "a trailing newline", credential: (f) => `${f.valid.credential}\n`, expected: "malformed" },
  { name: "the Bearer scheme left in", credential: (f) => `Bearer ${f.valid.credential}`, expected: "malformed" },
  { name: "a credential longer than the limit", credential: () => `a.${"b".repeat(MAX_CREDENTIAL_LENGTH)}.c`, expected: "malformed" },
  { name: "a revoked key", credential: (f) => f.revoked.credential, expected: "revoked" },
  {
    name: "a revoked key id with the wrong secret",
    credential: (f) => `${f.revoked.keyId}_${otherSecret(f.revoked.credential)}`,
    expected: "unknown"
  },
  // Verified for real: no such project API key.
  { name: "a project-key-shaped credential", credential: () => `${fixedId(IdKinds.projectApiKey, 2)}_${secretOf("k")}`, expected: "unknown" },
  {
    name: "a JWT-shaped string",
    // No kid: the verifier cannot even pick a key.
    credential: () => "eyJhbGciOiJFZERTQSIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJzYl9hY2NfMDEifQ.c2lnbmF0dXJlLWJ5dGVz",
    expected: "malformed"
  },
  { name: "an unsigned JWT-shaped string", credential: () => "eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.", expected: "unknown" }
]

const authenticate = (credential: string) =>
  Effect.flatMap(Authenticator, (a) => a.authenticate(Redacted.make(credential)))

const reasonOf = (credential: string) =>
  authenticate(credential).pipe(
    Effect.map(() => "ok" as const),
    Effect.catchTag("InvalidCredential", (e) => Effect.succeed(e.reason))
  )

describe("Authenticator", () => {
  it.effect("the fixture credentials have the expected shapes", () =>
    Effect.gen(function*() {
      const f = yield* fixture
      expect(f.valid.credential).toMatch(new RegExp(`^${f.valid.keyId}_[${CROCKFORD}]{52}$`))
      expect(f.valid.credential.length).toBe(7 + 26 + 1 + 52)
      expect(`${fixedId(IdKinds.projectApiKey, 2)}_${secretOf("k")}`).toMatch(/^sb_sk_[0-7][0-9a-hjkmnp-tv-z]{25}_[0-9a-hjkmnp-tv-z]{52}$/)
    }).pipe(Effect.provide(Env)))

  it.effect.each(cases)("$name → $expected", (c) =>
    Effect.gen(function*() {
      const f = yield* fixture
      const credential = c.credential(f)
      if (c.expected === "ok") {
        const principal = asAccountPrincipal(yield* authenticate(credential))
        expect(principal).toEqual(
          Principal.Account({ accountId: AccountId.make(f.accountId), serviceKeyId: ServiceKeyId.make(f.valid.keyId) })
        )
        expect(principal._tag).toBe("Account")
      } else {
        const result = yield* Effect.result(authenticate(credential))
        expect(Result.isFailure(result)).toBe(true)
        if (Result.isFailure(result)) {
          expect(result.failure._tag).toBe("InvalidCredential")
          if (result.failure._tag === "InvalidCredential") {
            expect(result.failure.reason).toBe(c.expected)
            // The message never echoes the presented credential.
            if (credential.length > 0) expect(result.failure.message).not.toContain(credential)
          }
        }
      }
    }).pipe(Effect.provide(Env)))

  it.effect("a key is valid one millisecond before expiresAt and expired from expiresAt on", () =>
    Effect.gen(function*() {
      const f = yield* fixture
      const expiresAt = at(T0 + 3_600_000)
      const created = yield* (yield* AccountServiceKeys).create({
        accountId: AccountId.make(f.accountId),
        name: "hourly",
        expiresAt
      })
      const credential = Redacted.value(created.secret)
      expect(yield* reasonOf(credential)).toBe("ok")
      yield* TestClock.setTime(DateTime.toEpochMillis(expiresAt) - 1)
      const principal = asAccountPrincipal(yield* authenticate(credential))
      expect(principal.serviceKeyId).toBe(created.serviceKey.serviceKeyId)
      yield* TestClock.adjust("1 millis")
      expect(yield* reasonOf(credential)).toBe("expired")
      yield* TestClock.adjust("30 days")
      expect(yield* reasonOf(credential)).toBe("expired")
      // The other, never-expiring key is unaffected.
      expect(yield* reasonOf(f.valid.credential)).toBe("ok")
    }).pipe(Effect.provide(Env)))

  it.effect("cached: only a secret verified before is answered from memory; a wrong one, expiry and revocation still refuse", () =>
    Effect.gen(function*() {
      const f = yield* fixture
      const auth = yield* Authenticator
      const keys = yield* AccountServiceKeys
      // Expires within the cache's TTL (30 s), so the entry is still held when it does.
      const expiresAt = at(T0 + 10_000)
      const created = yield* keys.create({ accountId: AccountId.make(f.accountId), name: "memo", expiresAt })
      const credential = Redacted.value(created.secret)
      const wrong = `${created.serviceKey.serviceKeyId}_${otherSecret(credential)}`
      // Nothing verified yet: the synchronous check does not know it.
      expect(auth.cached(credential, T0)).toBeUndefined()
      expect(yield* reasonOf(credential)).toBe("ok")
      const principal = auth.cached(credential, T0)
      expect(principal).toEqual(Principal.Account({ accountId: AccountId.make(f.accountId), serviceKeyId: created.serviceKey.serviceKeyId }))
      // The same key id with another secret: not from memory, and refused in full.
      expect(auth.cached(wrong, T0)).toBeUndefined()
      expect(yield* reasonOf(wrong)).toBe("unknown")
      expect(auth.cached(credential, T0)).toBeDefined()
      // Expiry applies at its instant, cached or not.
      expect(auth.cached(credential, DateTime.toEpochMillis(expiresAt) - 1)).toBeDefined()
      expect(auth.cached(credential, DateTime.toEpochMillis(expiresAt))).toBeUndefined()
      // Revocation drops it at once.
      yield* keys.revoke(AccountId.make(f.accountId), created.serviceKey.serviceKeyId)
      expect(auth.cached(credential, T0)).toBeUndefined()
      expect(yield* reasonOf(credential)).toBe("revoked")
    }).pipe(Effect.provide(Env)))

  it.effect("a revoked key that has also expired is refused", () =>
    Effect.gen(function*() {
      const f = yield* fixture
      const keys = yield* AccountServiceKeys
      const created = yield* keys.create({ accountId: AccountId.make(f.accountId), name: "k", expiresAt: at(T0 + 1000) })
      yield* keys.revoke(AccountId.make(f.accountId), created.serviceKey.serviceKeyId)
      yield* TestClock.adjust("1 hour")
      const reason = yield* reasonOf(Redacted.value(created.secret))
      expect(["revoked", "expired"]).toContain(reason)
    }).pipe(Effect.provide(Env)))

  it.effect("a key of a deleted account is AccountDeleted", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(T0)
      const account = accountFixture({ createdAt: at(T0 - 86_400_000), deletedAt: at(T0 - 1000) })
      yield* (yield* AccountsRepo).insert(account)
      const secret = "0123456789abcdefghjkmnpqrstvwxyz0123456789abcdefghjk"
      expect(secret).toHaveLength(52)
      const serviceKeyId = ServiceKeyId.make(fixedId(IdKinds.accountServiceKey, 9))
      yield* (yield* AccountServiceKeysRepo).insert({
        serviceKey: {
          serviceKeyId,
          accountId: account.accountId,
          name: "before deletion",
          createdAt: at(T0 - 3_600_000),
          expiresAt: null,
          revokedAt: null
        },
        secretHash: yield* sha256Hex(secret),
        limit: 20,
        now: at(T0 - 3_600_000)
      })
      const result = yield* Effect.result(authenticate(`${serviceKeyId}_${secret}`))
      expect(result).toEqual(Result.fail(expect.objectContaining({ _tag: "AccountDeleted", accountId: account.accountId })))
      // The wrong secret for the same key still says nothing about the account.
      expect(yield* reasonOf(`${serviceKeyId}_${secretOf("z")}`)).toBe("unknown")
    }).pipe(Effect.provide(Env)))

  it.effect("the same key inserted for a live account authenticates (control for the deleted-account case)", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(T0)
      const account = accountFixture({ createdAt: at(T0 - 86_400_000) })
      yield* (yield* AccountsRepo).insert(account)
      const secret = "0123456789abcdefghjkmnpqrstvwxyz0123456789abcdefghjk"
      const serviceKeyId = ServiceKeyId.make(fixedId(IdKinds.accountServiceKey, 9))
      yield* (yield* AccountServiceKeysRepo).insert({
        serviceKey: { serviceKeyId, accountId: account.accountId, name: "k", createdAt: at(T0), expiresAt: null, revokedAt: null },
        secretHash: yield* sha256Hex(secret),
        limit: 20,
        now: at(T0)
      })
      const principal = asAccountPrincipal(yield* authenticate(`${serviceKeyId}_${secret}`))
      expect(principal).toEqual(Principal.Account({ accountId: account.accountId, serviceKeyId }))
    }).pipe(Effect.provide(Env)))
})
