import { describe, expect, it } from "@effect/vitest"
import { AccountsRepo } from "@switchboard/core/accounts"
import { AccessTokenVerifier, Principal } from "@switchboard/core/credentials"
import { SigningKeys, TokenAudience } from "@switchboard/core/oauth"
import { base64url } from "@switchboard/core/internal"
import { AccountId, formatTypeId, IdKinds, uuidv7Bytes } from "@switchboard/core/shared"
import {
  accessTokenPayload,
  type AccessTokenForgery,
  accountFixture,
  forgeAccessToken,
  mintAccessToken,
  type MintAccessTokenOptions,
  mintExpiredAccessToken
} from "@switchboard/testkit"
import { DateTime, Effect, Layer, Redacted } from "effect"
import { TestClock } from "effect/testing"
import { Env, T0 } from "./TestEnv.js"

const at = (ms: number) => DateTime.makeUnsafe(ms) as DateTime.Utc

interface Fixture {
  readonly accountId: string
  readonly deletedAccountId: string
}

/** At T0: signing keys, a live account and a deleted one. */
const fixture = Effect.gen(function*() {
  yield* TestClock.setTime(T0)
  yield* (yield* SigningKeys).ensureCurrent()
  const accounts = yield* AccountsRepo
  const live = accountFixture({ createdAt: at(T0 - 86_400_000) })
  const deleted = accountFixture({ createdAt: at(T0 - 86_400_000), deletedAt: at(T0 - 1000) })
  yield* accounts.insert(live)
  yield* accounts.insert(deleted)
  return { accountId: live.accountId, deletedAccountId: deleted.accountId } satisfies Fixture
})

const verify = (token: string) => Effect.flatMap(AccessTokenVerifier, (v) => v.verify(Redacted.make(token)))

type Outcome = "ok" | "malformed" | "unknown" | "expired" | "AccountDeleted"

const outcomeOf = (token: string) =>
  verify(token).pipe(
    Effect.map(() => "ok" as Outcome),
    Effect.catchTags({
      InvalidCredential: (e) => Effect.succeed(e.reason as Outcome),
      AccountDeleted: () => Effect.succeed("AccountDeleted" as Outcome)
    })
  )

const json = (value: unknown) => base64url(new TextEncoder().encode(JSON.stringify(value)))

/** Replaces the last character of the signature, so it no longer verifies. */
const tamperSignature = (token: string) => {
  const last = token.at(-2) === "A" ? "B" : "A"
  return `${token.slice(0, -2)}${last}${token.at(-1)}`
}

const mint = (f: Fixture, o: Partial<MintAccessTokenOptions> = {}) => mintAccessToken({ accountId: f.accountId, ...o })
const forge = (f: Fixture, forgery: AccessTokenForgery, o: Partial<MintAccessTokenOptions> = {}) =>
  forgeAccessToken({ accountId: f.accountId, ...o }, forgery)

interface Case {
  readonly name: string
  readonly token: (f: Fixture) => Effect.Effect<string, never, any>
  readonly expected: Outcome
}

const unknownAccount = formatTypeId(IdKinds.account, uuidv7Bytes(T0, new Uint8Array(10).fill(3)))

const cases: ReadonlyArray<Case> = [
  { name: "a valid token", token: (f) => mint(f, { scopes: ["projects:read"] }), expected: "ok" },
  { name: "a valid token without scope claim", token: (f) => mint(f, { omit: ["scope"] }), expected: "ok" },
  { name: "a valid token listing our audience among others", token: (f) => mint(f, { audience: ["https://other.example", "http://127.0.0.1"] }), expected: "ok" },
  { name: "a valid token signed without SigningKeys.sign's checks", token: (f) => forge(f, { signer: "store" }), expected: "ok" },
  { name: "an expired token", token: (f) => mintExpiredAccessToken({ accountId: f.accountId }), expected: "expired" },
  { name: "a token for another audience", token: (f) => mint(f, { audience: "https://api.other.example" }), expected: "unknown" },
  { name: "a token for the dashboard (aud = issuer)", token: (f) => mint(f, { audience: "http://127.0.0.1/api/auth" }), expected: "unknown" },
  { name: "a token from another issuer", token: (f) => mint(f, { issuer: "https://evil.example/api/auth" }), expected: "unknown" },
  { name: "a token whose issuer has a trailing slash", token: (f) => mint(f, { issuer: "http://127.0.0.1/api/auth/" }), expected: "unknown" },
  { name: "a token with a bad signature", token: (f) => Effect.map(mint(f), tamperSignature), expected: "unknown" },
  { name: "a token signed by another key under our kid", token: (f) => forge(f, { signer: "foreign", kid: "current" }), expected: "unknown" },
  { name: "a token signed by an unknown key", token: (f) => forge(f, { signer: "foreign", kid: "own" }), expected: "unknown" },
  { name: "an unsigned token (alg none)", token: (f) => forge(f, { signer: "none" }), expected: "unknown" },
  { name: "HS256 keyed with our public key", token: (f) => forge(f, { signer: "hs256-public-key" }), expected: "unknown" },
  { name: "a token without typ (e.g. an ID token)", token: (f) => mint(f, { typ: null }), expected: "unknown" },
  { name: "a token of another typ", token: (f) => mint(f, { typ: "JWT" }), expected: "unknown" },
  { name: "a token without sub", token: (f) => forge(f, { signer: "store" }, { omit: ["sub"] }), expected: "malformed" },
  { name: "a token without exp", token: (f) => forge(f, { signer: "store" }, { omit: ["exp"] }), expected: "malformed" },
  { name: "a token without jti", token: (f) => forge(f, { signer: "store" }, { omit: ["jti"] }), expected: "malformed" },
  { name: "a token without iss", token: (f) => forge(f, { signer: "store" }, { omit: ["iss"] }), expected: "malformed" },
  { name: "a token without aud", token: (f) => forge(f, { signer: "store" }, { omit: ["aud"] }), expected: "malformed" },
  { name: "a token whose exp is not a number", token: (f) => forge(f, { signer: "store" }, { claims: { exp: "soon" } }), expected: "malformed" },
  { name: "a token whose scope is not a string", token: (f) => mint(f, { claims: { scope: ["projects:read"] } }), expected: "malformed" },
  { name: "a token whose scope has a control character", token: (f) => mint(f, { claims: { scope: "projects:read\u0000" } }), expected: "malformed" },
  { name: "a token not valid yet (nbf)", token: (f) => mint(f, { claims: { nbf: Math.floor(T0 / 1000) + 600 } }), expected: "unknown" },
  { name: "a token whose sub is not an account id", token: (f) => mint(f, { claims: { sub: "sb_sk_01" } }), expected: "unknown" },
  { name: "a token of an account that does not exist", token: (f) => mint(f, { accountId: unknownAccount }), expected: "unknown" },
  { name: "a token of a deleted account", token: (f) => mint(f, { accountId: f.deletedAccountId }), expected: "AccountDeleted" },
  {
    name: "an EdDSA header without kid",
    token: (f) =>
      Effect.map(accessTokenPayload({ accountId: f.accountId }), (p) => `${json({ alg: "EdDSA", typ: "at+jwt" })}.${json(p)}.c2lnbmF0dXJl`),
    expected: "malformed"
  },
  { name: "a header that is not JSON", token: () => Effect.succeed(`${base64url(new TextEncoder().encode("{alg"))}.e30.c2ln`), expected: "malformed" },
  { name: "garbage in three parts", token: () => Effect.succeed("aaa.bbb.ccc"), expected: "malformed" },
  { name: "a payload that is not JSON", token: (f) => Effect.map(mint(f), (t) => `${t.split(".")[0]}.bm90IGpzb24.${t.split(".")[2]}`), expected: "unknown" },
  { name: "two tokens glued together", token: (f) => Effect.map(mint(f), (t) => `${t}.${t}`), expected: "malformed" },
  { name: "the empty string", token: () => Effect.succeed(""), expected: "malformed" }
]

describe("AccessTokenVerifier", () => {
  it.effect.each(cases)("$name → $expected", (c) =>
    Effect.gen(function*() {
      const f = yield* fixture
      const token = yield* c.token(f)
      const outcome = yield* outcomeOf(token)
      expect(outcome).toBe(c.expected)
      if (outcome !== "ok" && outcome !== "AccountDeleted") {
        const error = yield* Effect.flip(verify(token))
        expect(error._tag).toBe("InvalidCredential")
        // A message a person can act on, never echoing the token.
        expect(error.message.length).toBeGreaterThan(10)
        if (token.length > 0) expect(error.message).not.toContain(token)
      }
    }).pipe(Effect.provide(Env)))

  it.effect("a valid token becomes an AccessToken principal with its account, scopes and token id", () =>
    Effect.gen(function*() {
      const f = yield* fixture
      const token = yield* mint(f, { scopes: ["projects:read", "billing:write", "projects:read"], tokenId: "at_1" })
      const principal = yield* verify(token)
      expect(principal).toEqual(Principal.AccessToken({
        accountId: AccountId.make(f.accountId),
        scopes: ["projects:read", "billing:write"],
        tokenId: "at_1",
        origin: "session"
      }))
      const scopeless = yield* verify(yield* mint(f, { tokenId: "at_2" }))
      expect(scopeless).toEqual(Principal.AccessToken({ accountId: AccountId.make(f.accountId), scopes: [], tokenId: "at_2", origin: "session" }))
    }).pipe(Effect.provide(Env)))

  it.effect("exp is checked against Clock: valid until the second before exp, expired from exp on", () =>
    Effect.gen(function*() {
      const f = yield* fixture
      const token = yield* mint(f, { expiresIn: "5 minutes" })
      expect(yield* outcomeOf(token)).toBe("ok")
      yield* TestClock.adjust("4 minutes")
      yield* TestClock.adjust("59 seconds")
      expect(yield* outcomeOf(token)).toBe("ok")
      yield* TestClock.adjust("1 second")
      expect(yield* outcomeOf(token)).toBe("expired")
      const error = yield* Effect.flip(verify(token))
      expect(error).toMatchObject({ _tag: "InvalidCredential", reason: "expired", message: "The access token has expired." })
    }).pipe(Effect.provide(Env)))

  it.effect("a deleted account is AccountDeleted, naming the account", () =>
    Effect.gen(function*() {
      const f = yield* fixture
      const error = yield* Effect.flip(verify(yield* mint(f, { accountId: f.deletedAccountId })))
      expect(error).toMatchObject({ _tag: "AccountDeleted", accountId: f.deletedAccountId })
    }).pipe(Effect.provide(Env)))

  it.effect("issuer and audience come from TokenAudience", () =>
    Effect.gen(function*() {
      const f = yield* fixture
      const target = { issuer: "https://dash.example.com/api/auth", audience: "https://api.example.com" }
      const ours = yield* mint(f, { issuer: target.issuer, audience: target.audience })
      const defaults = yield* mint(f)
      const verifyThere = (token: string) =>
        outcomeOf(token).pipe(Effect.provide(Layer.fresh(Layer.effect(AccessTokenVerifier, AccessTokenVerifier.make))), Effect.provideService(TokenAudience, target))
      expect(yield* verifyThere(ours)).toBe("ok")
      expect(yield* verifyThere(defaults)).toBe("unknown")
      // The tokens the fixture mints follow TokenAudience as well.
      const minted = yield* mint(f).pipe(Effect.provideService(TokenAudience, target))
      expect(yield* verifyThere(minted)).toBe("ok")
    }).pipe(Effect.provide(Env)))
})
