import { describe, expect, it } from "@effect/vitest"
import { AccountsRepo } from "@switchboard/core/accounts"
import { AccessTokenVerifier } from "@switchboard/core/credentials"
import { SigningKeys, SigningKeysRepo } from "@switchboard/core/oauth"
import { fromBase64url } from "@switchboard/core/internal"
import { ServerSecretFromBytes, unseal } from "@switchboard/core/shared"
import { accountFixture, mintAccessToken } from "@switchboard/testkit"
import { Cause, DateTime, Effect, Exit, Layer, Redacted } from "effect"
import { TestClock } from "effect/testing"
import * as jose from "jose"
import { Env, T0 } from "./TestEnv.js"

const at = (ms: number) => DateTime.makeUnsafe(ms) as DateTime.Utc

const setup = Effect.gen(function*() {
  yield* TestClock.setTime(T0)
  const account = accountFixture({ createdAt: at(T0 - 86_400_000) })
  yield* (yield* AccountsRepo).insert(account)
  return account.accountId
})

const keys = SigningKeys
const stored = Effect.flatMap(SigningKeysRepo, (repo) => Effect.flatMap(DateTime.now, repo.listPublished))
const verify = (token: string) => Effect.flatMap(AccessTokenVerifier, (v) => v.verify(Redacted.make(token)))
const reasonOf = (token: string) =>
  verify(token).pipe(Effect.as("ok"), Effect.catch((e) => Effect.succeed(e._tag === "InvalidCredential" ? e.reason : e._tag)))
const kidOf = (token: string) => jose.decodeProtectedHeader(token).kid

/** Runs `self` as another server process would: its own SigningKeys instance (and cache) over the same store. */
const inOtherProcess = <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.provide(self, Layer.fresh(SigningKeys.layer))

/** Counts the key-set reads of the store, to see what the caches save. */
const countingReads = Effect.gen(function*() {
  const repo = yield* SigningKeysRepo
  const counter = { reads: 0 }
  const layer = Layer.succeed(SigningKeysRepo, {
    ...repo,
    listPublished: (now) => Effect.andThen(Effect.sync(() => counter.reads++), repo.listPublished(now))
  })
  return { counter, layer }
})

describe("SigningKeys", () => {
  it.effect("ensureCurrent creates one current and one next key, once; the JWKS publishes both without private members", () =>
    Effect.gen(function*() {
      yield* setup
      const signing = yield* keys
      expect((yield* signing.verificationKeys()).keys).toEqual([])
      yield* signing.ensureCurrent()
      yield* signing.ensureCurrent()
      const records = yield* stored
      expect(records.map((k) => k.state)).toEqual(["current", "next"])
      const jwks = yield* signing.verificationKeys()
      expect(jwks.keys.map((k) => k.kid)).toEqual(records.map((k) => k.kid))
      for (const jwk of jwks.keys) {
        expect(Object.keys(jwk).sort()).toEqual(["alg", "crv", "kid", "kty", "use", "x"])
        expect(jwk).toMatchObject({ kty: "OKP", crv: "Ed25519", alg: "EdDSA", use: "sig" })
        expect(jwk).not.toHaveProperty("d")
        // The kid is the RFC 7638 thumbprint of the public key.
        expect(jwk.kid).toBe(yield* Effect.promise(() => jose.calculateJwkThumbprint({ kty: "OKP", crv: "Ed25519", x: jwk.x })))
      }
    }).pipe(Effect.provide(Env)))

  it.effect("concurrent first starts in several processes end with exactly one current key", () =>
    Effect.gen(function*() {
      yield* setup
      yield* Effect.all(Array.from({ length: 4 }, () => inOtherProcess(Effect.flatMap(keys, (k) => k.ensureCurrent()))), {
        concurrency: "unbounded"
      })
      const records = yield* stored
      expect(records.filter((k) => k.state === "current")).toHaveLength(1)
      expect(records.filter((k) => k.state === "next")).toHaveLength(1)
    }).pipe(Effect.provide(Env)))

  it.effect("the stored private key is sealed: neither d nor the private JWK appear in it", () =>
    Effect.gen(function*() {
      yield* setup
      yield* (yield* keys).ensureCurrent()
      for (const record of yield* stored) {
        const plain = yield* unseal("signing-key", record.privateKeySealed)
        expect(plain).toBeDefined()
        const jwk = JSON.parse(new TextDecoder().decode(plain)) as jose.JWK
        expect(jwk.x).toBe(record.publicJwk.x)
        const d = jwk.d!
        expect(d).toMatch(/^[A-Za-z0-9_-]{43}$/)
        const sealed = record.privateKeySealed
        const asText = new TextDecoder("latin1").decode(sealed)
        expect(asText).not.toContain(d)
        expect(asText).not.toContain("\"kty\"")
        expect(Buffer.from(sealed).toString("base64url")).not.toContain(d)
        expect(Buffer.from(sealed).toString("base64")).not.toContain(d.replace(/-/g, "+").replace(/_/g, "/"))
        // Nor the 32 raw bytes of the seed.
        expect(Buffer.from(sealed).indexOf(Buffer.from(fromBase64url(d)!))).toBe(-1)
        // It is not readable with another purpose's key either.
        expect(yield* unseal("page-token", sealed)).toBeUndefined()
      }
    }).pipe(Effect.provide(Env)))

  it.effect("a key sealed under another server secret cannot sign (a defect naming SECRET_KEY)", () =>
    Effect.gen(function*() {
      yield* setup
      yield* (yield* keys).ensureCurrent()
      const exit = yield* inOtherProcess(Effect.flatMap(keys, (k) => k.sign({ exp: Math.floor(T0 / 1000) + 60 }))).pipe(
        Effect.provide(ServerSecretFromBytes(new Uint8Array(32).fill(9))),
        Effect.exit
      )
      expect(Exit.isFailure(exit)).toBe(true)
      if (Exit.isFailure(exit)) {
        expect(Cause.hasDies(exit.cause)).toBe(true)
        expect(Cause.pretty(exit.cause)).toContain("SECRET_KEY")
      }
    }).pipe(Effect.provide(Env)))

  it.effect("sign uses the current key with its kid; it refuses a missing exp or one beyond the longest lifetime", () =>
    Effect.gen(function*() {
      const accountId = yield* setup
      const signing = yield* keys
      yield* signing.ensureCurrent()
      const [current] = yield* stored
      const token = yield* mintAccessToken({ accountId })
      expect(jose.decodeProtectedHeader(token)).toEqual({ alg: "EdDSA", kid: current!.kid, typ: "at+jwt" })
      expect(jose.decodeJwt(token).iat).toBe(Math.floor(T0 / 1000))
      const now = Math.floor(T0 / 1000)
      expect(Exit.isFailure(yield* Effect.exit(signing.sign({ sub: "x" })))).toBe(true)
      expect(Exit.isFailure(yield* Effect.exit(signing.sign({ exp: now + 3601 })))).toBe(true)
      expect(Exit.isSuccess(yield* Effect.exit(signing.sign({ exp: now + 3600 })))).toBe(true)
    }).pipe(Effect.provide(Env)))

  it.effect("sign creates the first key when the store has none", () =>
    Effect.gen(function*() {
      const accountId = yield* setup
      const token = yield* mintAccessToken({ accountId })
      expect(yield* reasonOf(token)).toBe("ok")
      expect((yield* stored).map((k) => k.state)).toEqual(["current", "next"])
    }).pipe(Effect.provide(Env)))

  it.effect("rotation: the published next key starts signing; tokens of the retired key stay valid until they expire", () =>
    Effect.gen(function*() {
      const accountId = yield* setup
      const signing = yield* keys
      yield* signing.ensureCurrent()
      const [first, second] = yield* stored
      const before = yield* mintAccessToken({ accountId, expiresIn: "1 hour" })
      expect(kidOf(before)).toBe(first!.kid)

      yield* TestClock.adjust("10 minutes")
      const rotated = yield* signing.rotate()
      expect(rotated).toMatchObject({ retired: first!.kid, current: second!.kid })
      const jwks = (yield* signing.verificationKeys()).keys.map((k) => k.kid)
      // Current first, then the new next key, then the retired one.
      expect(jwks).toEqual([second!.kid, rotated.next, first!.kid])

      const after = yield* mintAccessToken({ accountId, expiresIn: "1 hour" })
      expect(kidOf(after)).toBe(second!.kid)
      expect(yield* reasonOf(before)).toBe("ok")
      expect(yield* reasonOf(after)).toBe("ok")

      // The old key's token expires on its own time; the key is still published for the grace.
      yield* TestClock.adjust("50 minutes")
      expect(yield* reasonOf(before)).toBe("expired")
      expect((yield* signing.verificationKeys()).keys.map((k) => k.kid)).toContain(first!.kid)
      // Retired + longest lifetime (1 h) + grace (5 min): dropped from the set.
      yield* TestClock.adjust("15 minutes")
      expect((yield* signing.verificationKeys()).keys.map((k) => k.kid)).toEqual([second!.kid, rotated.next])
      const retired = (yield* Effect.flatMap(SigningKeysRepo, (r) => r.listPublished(at(T0)))).find((k) => k.kid === first!.kid)
      expect(retired?.publishedUntil?.epochMilliseconds).toBe(T0 + 10 * 60_000 + 3_600_000 + 5 * 60_000)
    }).pipe(Effect.provide(Env)))

  it.effect("rotating a store without keys makes a current key at once and publishes a next one", () =>
    Effect.gen(function*() {
      const accountId = yield* setup
      const rotated = yield* (yield* keys).rotate()
      expect(rotated.retired).toBeNull()
      expect((yield* stored).map((k) => `${k.state}:${k.kid}`)).toEqual([`current:${rotated.current}`, `next:${rotated.next}`])
      const token = yield* mintAccessToken({ accountId })
      expect(kidOf(token)).toBe(rotated.current)
      expect(yield* reasonOf(token)).toBe("ok")
    }).pipe(Effect.provide(Env)))

  it.effect("a token signed by a newer key of another process verifies (one refresh on the unknown kid)", () =>
    Effect.gen(function*() {
      const accountId = yield* setup
      yield* (yield* keys).ensureCurrent()
      const { counter, layer } = yield* countingReads
      yield* Effect.gen(function*() {
        const here = yield* AccessTokenVerifier
        const mine = yield* mintAccessToken({ accountId })
        yield* here.verify(Redacted.make(mine))
        // Another process rotates twice: its current key was never in this process's cache.
        const theirs = yield* inOtherProcess(Effect.gen(function*() {
          const k = yield* keys
          yield* k.rotate()
          yield* k.rotate()
          return yield* mintAccessToken({ accountId })
        }))
        const readsBefore = counter.reads
        const principal = yield* here.verify(Redacted.make(theirs))
        expect(principal._tag).toBe("AccessToken")
        expect(counter.reads).toBe(readsBefore + 1)
      }).pipe(Effect.provide(Layer.fresh(AccessTokenVerifier.layer)), Effect.provide(layer))
    }).pipe(Effect.provide(Env)))

  it.effect("verification reads the key set once per cache period; unknown kids refresh at most once per cooldown", () =>
    Effect.gen(function*() {
      const accountId = yield* setup
      yield* (yield* keys).ensureCurrent()
      const { counter, layer } = yield* countingReads
      yield* Effect.gen(function*() {
        const tokens = yield* Effect.all(Array.from({ length: 20 }, () => mintAccessToken({ accountId })))
        const readsBefore = counter.reads
        for (const token of tokens) expect(yield* reasonOf(token)).toBe("ok")
        expect(counter.reads).toBe(readsBefore)

        // A flood of made-up kids: one refresh, then none until the cooldown has passed.
        const header = (kid: string) => Buffer.from(JSON.stringify({ alg: "EdDSA", kid, typ: "at+jwt" })).toString("base64url")
        const made = (i: number) => `${header(`made-up-${i}`)}.${tokens[0]!.split(".")[1]}.${tokens[0]!.split(".")[2]}`
        for (let i = 0; i < 10; i++) expect(yield* reasonOf(made(i))).toBe("unknown")
        expect(counter.reads).toBe(readsBefore + 1)
        yield* TestClock.adjust("1 second")
        expect(yield* reasonOf(made(99))).toBe("unknown")
        expect(counter.reads).toBe(readsBefore + 2)

        // After the cache period the set is read again.
        yield* TestClock.adjust("30 seconds")
        expect(yield* reasonOf(tokens[0]!)).toBe("ok")
        expect(counter.reads).toBe(readsBefore + 3)
      }).pipe(Effect.provide(Layer.fresh(Layer.mergeAll(AccessTokenVerifier.layer, SigningKeys.layer))), Effect.provide(layer))
    }).pipe(Effect.provide(Env)))
})
