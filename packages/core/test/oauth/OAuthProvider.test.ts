/**
 * The OAuth provider's services over the memory store, time driven by TestClock: the code flow,
 * every failure rule of docs/api-notes/oauth.md at the service level, expiry, rotation and
 * reuse detection, withdrawal (and how fast JWT access tokens of a withdrawn grant stop working).
 */
import { describe, expect, it } from "@effect/vitest"
import { AccountsRepo } from "@switchboard/core/accounts"
import { AccessTokenVerifier, CredentialRevocationsInProcess } from "@switchboard/core/credentials"
import {
  checkAuthorizationRequest,
  OAuthApps,
  OAuthAppsRepo,
  OAuthGrants,
  OAuthGrantsRepo,
  OAuthProvider,
  OAuthProviderCore,
  OAuthTokensRepo,
  type PresentedClient,
  s256,
  OAuthTokenCache,
  SigningKeys,
  type TokenResponse
} from "@switchboard/core/oauth"
import { sha256Hex } from "@switchboard/core/internal"
import { SecretsLive } from "@switchboard/core/shared"
import { accountFixture, MemoryState, TestServerSecret } from "@switchboard/testkit"
import { Context, DateTime, Effect, Layer, Option, Redacted } from "effect"
import { TestClock } from "effect/testing"
import * as jose from "jose"
import { StoreMemory, T0 } from "./TestEnv.js"

const Env = OAuthProviderCore.pipe(
  Layer.provideMerge(Layer.mergeAll(AccessTokenVerifier.layer, SigningKeys.layer, OAuthTokenCache.layer)),
  Layer.provideMerge(Layer.mergeAll(StoreMemory, SecretsLive, TestServerSecret, CredentialRevocationsInProcess))
)

const at = (ms: number) => DateTime.makeUnsafe(ms) as DateTime.Utc
const REDIRECT = "https://rp.example/cb"
const API = "http://127.0.0.1"
const VERIFIER = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
const ALL = ["openid", "profile", "email", "offline_access", "projects:read", "projects:write", "billing:write"]

const setup = (clientType: "confidential" | "public" = "confidential") =>
  Effect.gen(function*() {
    yield* TestClock.setTime(T0)
    yield* (yield* SigningKeys).ensureCurrent()
    const accounts = yield* AccountsRepo
    const owner = accountFixture({ createdAt: at(T0 - 86_400_000) })
    const user = accountFixture({ createdAt: at(T0 - 86_400_000), firstName: "Ada", lastName: "Lovelace" })
    yield* accounts.insert(owner)
    yield* accounts.insert(user)
    const created = yield* (yield* OAuthApps).create({
      ownerAccountId: owner.accountId,
      name: "RP",
      redirectUris: [REDIRECT],
      clientType,
      scopes: ALL
    })
    const secret = Option.map(created.clientSecret, Redacted.value)
    const presented: PresentedClient = {
      clientId: created.app.clientId,
      secret: Option.isSome(secret) ? Redacted.make(secret.value) : null,
      viaBasic: false
    }
    const client = yield* (yield* OAuthProvider).authenticateClient(presented)
    return { owner, user, app: created.app, client, secret, presented }
  })

type Setup = Effect.Success<ReturnType<typeof setup>>

/** A validated request and an issued code for `scopes`. */
const authorize = (s: Setup, scopes: ReadonlyArray<string>, o: { resource?: string; nonce?: string; consented?: boolean } = {}) =>
  Effect.gen(function*() {
    const provider = yield* OAuthProvider
    const params: Array<[string, string]> = [
      ["response_type", "code"],
      ["client_id", s.app.clientId],
      ["redirect_uri", REDIRECT],
      ["scope", scopes.join(" ")],
      ["state", "st"],
      ["code_challenge", yield* s256(VERIFIER)],
      ["code_challenge_method", "S256"]
    ]
    if (o.resource !== undefined) params.push(["resource", o.resource])
    if (o.nonce !== undefined) params.push(["nonce", o.nonce])
    const checked = checkAuthorizationRequest(params, s.app, API)
    if (checked._tag !== "Valid") return yield* Effect.die(new Error(`invalid request: ${JSON.stringify(checked)}`))
    const code = yield* provider.issueCode({
      accountId: s.user.accountId,
      request: checked.request,
      authTime: at(T0 - 1000),
      consented: o.consented ?? true
    })
    return Redacted.value(code)
  })

const exchange = (s: Setup, code: string, o: { verifier?: string; redirectUri?: string; resource?: string } = {}) =>
  Effect.flatMap(OAuthProvider, (p) =>
    p.exchangeCode({
      client: s.client,
      code,
      redirectUri: o.redirectUri ?? REDIRECT,
      codeVerifier: o.verifier ?? VERIFIER,
      resource: o.resource
    }))

const refresh = (s: Setup, rt: TokenResponse | string, scope?: string) =>
  Effect.flatMap(OAuthProvider, (p) =>
    p.refresh({ client: s.client, refreshToken: typeof rt === "string" ? rt : Redacted.value(Option.getOrThrow(rt.refreshToken)), scope }))

const errorOf = <A, R>(self: Effect.Effect<A, { readonly _tag: string; readonly error?: string }, R>) =>
  Effect.map(Effect.flip(self), (e) => e.error ?? e._tag)

const at_ = (t: TokenResponse) => Redacted.value(t.accessToken)
const opaqueLive = (token: string) => Effect.map(Effect.flatMap(OAuthGrants, (g) => g.verifyAccessToken(token)), Option.isSome)
const introspect = (s: Setup, token: string) => Effect.flatMap(OAuthProvider, (p) => p.introspect({ client: s.client, token }))

describe("OAuthProvider: the code flow", () => {
  it.effect("a code becomes an opaque access token, a refresh token and an EdDSA id_token with the gated claims", () =>
    Effect.gen(function*() {
      const s = yield* setup()
      const code = yield* authorize(s, ["openid", "profile", "email", "offline_access", "projects:read"], { nonce: "n-1" })
      expect(code).toMatch(/^sb_oac_[0-9a-z]{52}$/)
      const t = yield* exchange(s, code)
      expect(at_(t)).toMatch(/^sb_oat_[0-9a-z]{52}$/)
      expect(Redacted.value(Option.getOrThrow(t.refreshToken))).toMatch(/^sb_ort_[0-9a-z]{52}$/)
      expect(t.tokenType).toBe("Bearer")
      expect(t.expiresIn).toBe(3600)
      expect(t.scope).toBe("openid profile email offline_access projects:read")

      // The id_token verifies against the published keys (kid in the header) and carries the gated claims.
      const idToken = Option.getOrThrow(t.idToken)
      const { keys } = yield* (yield* SigningKeys).verificationKeys()
      const header = jose.decodeProtectedHeader(idToken)
      expect(header.alg).toBe("EdDSA")
      expect(keys.map((k) => k.kid)).toContain(header.kid)
      const jwk = keys.find((k) => k.kid === header.kid)!
      const { payload } = yield* Effect.promise(() =>
        jose.jwtVerify(idToken, jose.createLocalJWKSet({ keys: [jwk] }), { currentDate: new Date(T0), issuer: "http://127.0.0.1/api/auth", audience: s.app.clientId })
      )
      expect(payload).toMatchObject({
        sub: s.user.accountId,
        nonce: "n-1",
        auth_time: Math.floor((T0 - 1000) / 1000),
        name: "Ada Lovelace",
        picture: "http://127.0.0.1/assets/default-avatar.svg",
        email: s.user.email,
        email_verified: false,
        azp: s.app.clientId
      })
      expect(payload.exp! - payload.iat!).toBe(3600)

      // The access token works for the Dashboard API, introspection and userinfo.
      const verified = Option.getOrThrow(yield* (yield* OAuthGrants).verifyAccessToken(at_(t)))
      expect(verified).toMatchObject({ accountId: s.user.accountId, clientId: s.app.clientId, scopes: ["openid", "profile", "email", "offline_access", "projects:read"] })
      expect(yield* introspect(s, at_(t))).toEqual({
        active: true,
        scope: t.scope,
        client_id: s.app.clientId,
        sub: s.user.accountId,
        exp: Math.floor(T0 / 1000) + 3600,
        iat: Math.floor(T0 / 1000),
        iss: "http://127.0.0.1/api/auth",
        token_type: "Bearer"
      })
      const claims = yield* (yield* OAuthProvider).userInfo(at_(t))
      expect(claims).toEqual({
        sub: s.user.accountId,
        name: "Ada Lovelace",
        picture: "http://127.0.0.1/assets/default-avatar.svg",
        email: s.user.email,
        email_verified: false
      })
    }).pipe(Effect.provide(Env)))

  it.effect("without openid no id_token and no userinfo; without offline_access no refresh token; the lifetime follows the scopes", () =>
    Effect.gen(function*() {
      const s = yield* setup()
      const t = yield* exchange(s, yield* authorize(s, ["projects:write"]))
      expect(Option.isNone(t.idToken)).toBe(true)
      expect(Option.isNone(t.refreshToken)).toBe(true)
      expect(t.expiresIn).toBe(15 * 60)
      expect(yield* errorOf((yield* OAuthProvider).userInfo(at_(t)))).toBe("insufficient_scope")
      const billing = yield* exchange(s, yield* authorize(s, ["openid", "billing:write", "projects:read"]))
      expect(billing.expiresIn).toBe(5 * 60)
    }).pipe(Effect.provide(Env)))

  it.effect("resource = the API's URL gives a JWT access token /v1 accepts (at+jwt, aud = API, grant and family named)", () =>
    Effect.gen(function*() {
      const s = yield* setup()
      const t = yield* exchange(s, yield* authorize(s, ["projects:read", "offline_access"], { resource: API }))
      const jwt = at_(t)
      expect(jose.decodeProtectedHeader(jwt).typ).toBe("at+jwt")
      const claims = jose.decodeJwt(jwt)
      expect(claims).toMatchObject({ aud: API, sub: s.user.accountId, client_id: s.app.clientId, scope: "offline_access projects:read" })
      expect(typeof claims.grant_id).toBe("string")
      expect(typeof claims.family_id).toBe("string")
      const principal = yield* (yield* AccessTokenVerifier).verify(Redacted.make(jwt))
      expect(principal).toMatchObject({ _tag: "AccessToken", accountId: s.user.accountId, scopes: ["offline_access", "projects:read"] })
      // Refreshes stay JWTs for the same audience.
      const next = yield* refresh(s, t)
      expect(jose.decodeJwt(at_(next)).aud).toBe(API)
      expect(yield* introspect(s, at_(next))).toMatchObject({ active: true, aud: API, client_id: s.app.clientId })
    }).pipe(Effect.provide(Env)))

  it.effect("consent is remembered per grant: a covered request needs none; a wider one does", () =>
    Effect.gen(function*() {
      const s = yield* setup()
      const provider = yield* OAuthProvider
      expect(yield* provider.hasConsent(s.user.accountId, s.app.clientId, ["openid"])).toBe(false)
      expect(yield* errorOf(authorize(s, ["openid"], { consented: false }))).toBe("consent_required")
      yield* authorize(s, ["openid", "email"])
      expect(yield* provider.hasConsent(s.user.accountId, s.app.clientId, ["email"])).toBe(true)
      expect(yield* provider.hasConsent(s.user.accountId, s.app.clientId, ["email", "profile"])).toBe(false)
      const code = yield* authorize(s, ["openid"], { consented: false })
      expect((yield* exchange(s, code)).scope).toBe("openid")
      // A second consent adds to the same grant.
      yield* authorize(s, ["profile"])
      const [listed] = yield* (yield* OAuthGrants).listForAccount(s.user.accountId)
      expect(listed).toMatchObject({ clientId: s.app.clientId, name: "RP", scopes: ["openid", "profile", "email"] })
    }).pipe(Effect.provide(Env)))
})

describe("OAuthProvider: failure rules (docs/api-notes/oauth.md)", () => {
  it.effect("a reused code is invalid_grant and revokes the grant: the tokens of its first use die", () =>
    Effect.gen(function*() {
      const s = yield* setup()
      const code = yield* authorize(s, ["openid", "offline_access"])
      const first = yield* exchange(s, code)
      expect(yield* opaqueLive(at_(first))).toBe(true)
      expect(yield* errorOf(exchange(s, code))).toBe("invalid_grant")
      expect(yield* opaqueLive(at_(first))).toBe(false)
      expect(yield* errorOf(refresh(s, first))).toBe("invalid_grant")
      expect(yield* (yield* OAuthGrants).listForAccount(s.user.accountId)).toEqual([])
    }).pipe(Effect.provide(Env)))

  it.effect("a code expires after 60 s (TestClock)", () =>
    Effect.gen(function*() {
      const s = yield* setup()
      const fresh = yield* authorize(s, ["openid"])
      const stale = yield* authorize(s, ["openid"])
      yield* TestClock.adjust("59 seconds")
      yield* exchange(s, fresh)
      yield* TestClock.adjust("1 second")
      expect(yield* errorOf(exchange(s, stale))).toBe("invalid_grant")
    }).pipe(Effect.provide(Env)))

  it.effect("wrong verifier, redirect mismatch, another client's code, a malformed verifier, an unknown code", () =>
    Effect.gen(function*() {
      const s = yield* setup()
      expect(yield* errorOf(exchange(s, yield* authorize(s, ["openid"]), { verifier: `${VERIFIER.slice(0, -1)}Y` }))).toBe("invalid_grant")
      expect(yield* errorOf(exchange(s, yield* authorize(s, ["openid"]), { redirectUri: `${REDIRECT}/` }))).toBe("invalid_grant")
      expect(yield* errorOf(exchange(s, yield* authorize(s, ["openid"]), { verifier: "short" }))).toBe("invalid_request")
      expect(yield* errorOf(exchange(s, "sb_oac_nope"))).toBe("invalid_grant")
      expect(yield* errorOf(exchange(s, yield* authorize(s, ["openid"]), { resource: API }))).toBe("invalid_target")
      const other = yield* (yield* OAuthApps).create({
        ownerAccountId: s.owner.accountId,
        name: "Other",
        redirectUris: [REDIRECT],
        clientType: "public",
        scopes: ["openid"]
      })
      const code = yield* authorize(s, ["openid"])
      const otherClient = yield* (yield* OAuthProvider).authenticateClient({ clientId: other.app.clientId, secret: null, viaBasic: false })
      expect(yield* errorOf(exchange({ ...s, client: otherClient }, code))).toBe("invalid_grant")
    }).pipe(Effect.provide(Env)))

  it.effect("client authentication: wrong secret, missing secret, a public client with a secret, a removed app are invalid_client", () =>
    Effect.gen(function*() {
      const s = yield* setup()
      const provider = yield* OAuthProvider
      const auth = (p: Partial<PresentedClient>) => errorOf(provider.authenticateClient({ ...s.presented, ...p }))
      expect(yield* auth({ secret: Redacted.make("sb_cs_wrong") })).toBe("invalid_client")
      expect(yield* auth({ secret: null })).toBe("invalid_client")
      // The secret that just matched is remembered: nothing near it passes, before or after it matches again.
      const secret = Option.getOrThrow(s.secret)
      for (const near of [secret.slice(0, -1), `${secret}x`, `${secret.slice(0, -1)}${secret.endsWith("a") ? "b" : "a"}`, secret.toUpperCase()]) {
        yield* provider.authenticateClient(s.presented)
        expect(yield* auth({ secret: Redacted.make(near) })).toBe("invalid_client")
      }
      // A new secret: the old one, remembered a moment ago, no longer passes; the new one does.
      const rotated = Redacted.value((yield* (yield* OAuthApps).rotateSecret(s.owner.accountId, s.app.clientId)).clientSecret)
      expect(yield* auth({ secret: Redacted.make(secret) })).toBe("invalid_client")
      expect((yield* provider.authenticateClient({ ...s.presented, secret: Redacted.make(rotated) })).clientId).toBe(s.app.clientId)
      expect(yield* auth({ secret: Redacted.make(secret) })).toBe("invalid_client")
      expect(yield* auth({ clientId: "sb_app_unknown" })).toBe("invalid_client")
      const pub = yield* (yield* OAuthApps).create({
        ownerAccountId: s.owner.accountId,
        name: "Public",
        redirectUris: [REDIRECT],
        clientType: "public",
        scopes: ["openid"]
      })
      expect(Option.isNone(pub.clientSecret)).toBe(true)
      yield* provider.authenticateClient({ clientId: pub.app.clientId, secret: null, viaBasic: false })
      expect(yield* errorOf(provider.authenticateClient({ clientId: pub.app.clientId, secret: Redacted.make("x"), viaBasic: false }))).toBe("invalid_client")
      yield* (yield* OAuthApps).remove(s.owner.accountId, s.app.clientId)
      expect(yield* auth({})).toBe("invalid_client")
    }).pipe(Effect.provide(Env)))

  it.effect("refresh rotates; reusing a rotated-out token is invalid_grant and revokes the family, not the grant's other families", () =>
    Effect.gen(function*() {
      const s = yield* setup()
      const t0 = yield* exchange(s, yield* authorize(s, ["openid", "offline_access"]))
      const otherFamily = yield* exchange(s, yield* authorize(s, ["openid", "offline_access"]))
      const t1 = yield* refresh(s, t0)
      expect(Redacted.value(Option.getOrThrow(t1.refreshToken))).not.toBe(Redacted.value(Option.getOrThrow(t0.refreshToken)))
      expect(Option.isSome(t1.idToken)).toBe(true)
      expect(yield* opaqueLive(at_(t1))).toBe(true)
      expect(yield* errorOf(refresh(s, t0))).toBe("invalid_grant")
      expect(yield* opaqueLive(at_(t1))).toBe(false)
      expect(yield* errorOf(refresh(s, t1))).toBe("invalid_grant")
      expect(yield* introspect(s, Redacted.value(Option.getOrThrow(t1.refreshToken)))).toEqual({ active: false })
      // The grant and its other family live on.
      expect(yield* opaqueLive(at_(otherFamily))).toBe(true)
      yield* refresh(s, otherFamily)
    }).pipe(Effect.provide(Env)))

  it.effect("a refresh token this process issued rotates in one write that checks the account it signed for: a new name, a deleted account, a reuse", () =>
    Effect.gen(function*() {
      const s = yield* setup()
      const accounts = (yield* MemoryState).table<string, typeof s.user>("accounts")
      const nameOf = (t: TokenResponse) => jose.decodeJwt(Option.getOrThrow(t.idToken)).name
      const t0 = yield* exchange(s, yield* authorize(s, ["openid", "profile", "offline_access"]))
      // t1 is issued by this process's refresh grant, so remembered: its rotation needs no read.
      const t1 = yield* refresh(s, t0)
      expect(nameOf(t1)).toBe("Ada Lovelace")
      // The name changes between two refreshes: the id_token carries the new one, not the remembered one.
      accounts.set(s.user.accountId, { ...s.user, firstName: "Augusta" })
      const t2 = yield* refresh(s, t1)
      expect(nameOf(t2)).toBe("Augusta Lovelace")
      const t3 = yield* refresh(s, t2)
      expect(nameOf(t3)).toBe("Augusta Lovelace")
      // A deleted account: refused, and nothing rotated; back again, the token works.
      accounts.set(s.user.accountId, { ...s.user, firstName: "Augusta", deletedAt: at(T0 + 1) })
      expect(yield* errorOf(refresh(s, t3))).toBe("invalid_grant")
      accounts.set(s.user.accountId, { ...s.user, firstName: "Augusta" })
      const t4 = yield* refresh(s, t3)
      expect(yield* opaqueLive(at_(t4))).toBe(true)
      // A rotated-out token comes back: the family dies, the latest tokens too.
      expect(yield* errorOf(refresh(s, t2))).toBe("invalid_grant")
      expect(yield* opaqueLive(at_(t4))).toBe(false)
      expect(yield* errorOf(refresh(s, t4))).toBe("invalid_grant")
    }).pipe(Effect.provide(Env)))

  it.effect("concurrent refreshes with one token: exactly one is issued; the other is a reuse and takes the family, the winner's tokens too", () =>
    Effect.gen(function*() {
      const s = yield* setup()
      const t0 = yield* exchange(s, yield* authorize(s, ["openid", "offline_access"]))
      const outcomes = yield* Effect.all([refresh(s, t0), refresh(s, t0), refresh(s, t0)].map(Effect.result), { concurrency: "unbounded" })
      const issued = outcomes.filter((o) => o._tag === "Success").map((o) => o.success)
      expect(issued).toHaveLength(1)
      for (const o of outcomes) if (o._tag === "Failure") expect(o.failure.error).toBe("invalid_grant")
      const winner = issued[0]!
      // The leak was detected: the winner's access and refresh tokens are dead.
      expect(yield* opaqueLive(at_(winner))).toBe(false)
      expect(yield* introspect(s, at_(winner))).toEqual({ active: false })
      expect(yield* errorOf(refresh(s, winner))).toBe("invalid_grant")
    }).pipe(Effect.provide(Env)))

  it.effect("a deleted account's tokens: introspection inactive, refresh refused, userinfo invalid_token (seen at once)", () =>
    Effect.gen(function*() {
      const s = yield* setup()
      const t0 = yield* exchange(s, yield* authorize(s, ["openid", "offline_access"]))
      expect(yield* introspect(s, at_(t0))).toMatchObject({ active: true })
      const accounts = (yield* MemoryState).table<string, typeof s.user>("accounts")
      accounts.set(s.user.accountId, { ...s.user, deletedAt: at(T0 + 1) })
      expect(yield* introspect(s, at_(t0))).toEqual({ active: false })
      expect(yield* introspect(s, Redacted.value(Option.getOrThrow(t0.refreshToken)))).toEqual({ active: false })
      expect(yield* errorOf(refresh(s, t0))).toBe("invalid_grant")
      expect(yield* errorOf((yield* OAuthProvider).userInfo(at_(t0)))).toBe("invalid_token")
      // Nothing was rotated by the refused refresh: the account coming back makes it work again.
      accounts.set(s.user.accountId, s.user)
      expect((yield* refresh(s, t0)).scope).toBe("openid offline_access")
    }).pipe(Effect.provide(Env)))

  it.effect("refresh scope: widening is invalid_scope (the token stays usable); narrowing recomputes the lifetime", () =>
    Effect.gen(function*() {
      const s = yield* setup()
      const t0 = yield* exchange(s, yield* authorize(s, ["openid", "offline_access", "projects:write", "projects:read"]))
      expect(t0.expiresIn).toBe(15 * 60)
      expect(yield* errorOf(refresh(s, t0, "openid billing:write"))).toBe("invalid_scope")
      expect(yield* errorOf(refresh(s, t0, "openid profile"))).toBe("invalid_scope")
      const narrow = yield* refresh(s, t0, "openid projects:read")
      expect(narrow.scope).toBe("openid projects:read")
      expect(narrow.expiresIn).toBe(3600)
      // The new refresh token keeps the original grant: widening back is allowed.
      const back = yield* refresh(s, narrow)
      expect(back.scope).toBe("openid offline_access projects:read projects:write")
    }).pipe(Effect.provide(Env)))

  it.effect("expired tokens under TestClock: an access token after its lifetime, a refresh token after 30 days", () =>
    Effect.gen(function*() {
      const s = yield* setup()
      const t = yield* exchange(s, yield* authorize(s, ["openid", "offline_access", "billing:write"]))
      expect(t.expiresIn).toBe(300)
      yield* TestClock.adjust("299 seconds")
      expect(yield* opaqueLive(at_(t))).toBe(true)
      yield* TestClock.adjust("1 second")
      expect(yield* opaqueLive(at_(t))).toBe(false)
      expect(yield* introspect(s, at_(t))).toEqual({ active: false })
      expect(yield* errorOf((yield* OAuthProvider).userInfo(at_(t)))).toBe("invalid_token")
      const t1 = yield* refresh(s, t)
      yield* TestClock.adjust("30 days")
      expect(yield* errorOf(refresh(s, t1))).toBe("invalid_grant")
      // A JWT access token expires too.
      const jwt = yield* exchange(s, yield* authorize(s, ["projects:read"], { resource: API }))
      yield* TestClock.adjust("1 hour")
      expect(yield* Effect.flip((yield* AccessTokenVerifier).verify(Redacted.make(at_(jwt))))).toMatchObject({ reason: "expired" })
    }).pipe(Effect.provide(Env)))
})

/**
 * The memory store with one hook: `race.before` runs just before a refresh's rotation write, as
 * another request would between the refresh's read and its write.
 */
const race: { before: ((repo: OAuthTokensRepo["Service"], tokenHash: string) => Effect.Effect<void>) | undefined } = { before: undefined }
const RacingTokens = Layer.effect(
  OAuthTokensRepo,
  Effect.map(OAuthTokensRepo, (repo) =>
    OAuthTokensRepo.of({
      ...repo,
      rotateRefreshToken: (args) =>
        Effect.andThen(race.before === undefined ? Effect.void : race.before(repo, args.tokenHash), repo.rotateRefreshToken(args))
    }))
)
const RacingEnv = OAuthProviderCore.pipe(
  Layer.provideMerge(Layer.mergeAll(AccessTokenVerifier.layer, SigningKeys.layer, OAuthTokenCache.layer)),
  Layer.provideMerge(RacingTokens.pipe(
    Layer.provideMerge(Layer.mergeAll(StoreMemory, SecretsLive, TestServerSecret, CredentialRevocationsInProcess))
  ))
)

describe("OAuthProvider: refresh racing another request between its read and its write", () => {
  it.effect("another use of the same token wins: this one is refused as a reuse and the family dies", () =>
    Effect.gen(function*() {
      const s = yield* setup()
      const t0 = yield* exchange(s, yield* authorize(s, ["openid", "offline_access"]))
      const sibling = yield* exchange(s, yield* authorize(s, ["openid", "offline_access"]))
      race.before = (repo, tokenHash) => repo.markRotated({ tokenHash, now: at(T0) })
      const refused = yield* Effect.flip(refresh(s, t0)).pipe(Effect.ensuring(Effect.sync(() => (race.before = undefined))))
      expect(refused.error).toBe("invalid_grant")
      expect(refused.description).toContain("already used")
      // The family is revoked: its first access token is dead; the grant's other family lives.
      expect(yield* opaqueLive(at_(t0))).toBe(false)
      expect(yield* opaqueLive(at_(sibling))).toBe(true)
    }).pipe(Effect.provide(RacingEnv)))

  it.effect("a revocation of the family wins: refused as revoked, the token left unrotated", () =>
    Effect.gen(function*() {
      const s = yield* setup()
      const t0 = yield* exchange(s, yield* authorize(s, ["openid", "offline_access"]))
      const tokens = yield* OAuthTokensRepo
      const rtHash = yield* sha256Hex(Redacted.value(Option.getOrThrow(t0.refreshToken)))
      const familyId = Option.getOrThrow(yield* tokens.findToken(rtHash)).familyId
      race.before = (repo) => repo.revokeFamily({ familyId, now: at(T0) })
      const refused = yield* Effect.flip(refresh(s, t0)).pipe(Effect.ensuring(Effect.sync(() => (race.before = undefined))))
      expect(refused.error).toBe("invalid_grant")
      expect(refused.description).toContain("revoked")
      expect(Option.getOrThrow(yield* tokens.findToken(rtHash)).rotatedAt).toBeNull()
      expect(yield* errorOf(refresh(s, t0))).toBe("invalid_grant")
    }).pipe(Effect.provide(RacingEnv)))

  it.effect("no race: the same hook-wrapped store refreshes normally", () =>
    Effect.gen(function*() {
      const s = yield* setup()
      const t0 = yield* exchange(s, yield* authorize(s, ["openid", "offline_access"]))
      const t1 = yield* refresh(s, t0)
      expect(yield* opaqueLive(at_(t1))).toBe(true)
    }).pipe(Effect.provide(RacingEnv)))
})

describe("OAuthProvider: introspection, revocation, userinfo", () => {
  it.effect("introspection shows only the caller's live tokens; refresh tokens have no token_type", () =>
    Effect.gen(function*() {
      const s = yield* setup()
      const t = yield* exchange(s, yield* authorize(s, ["openid", "offline_access"]))
      const rt = Redacted.value(Option.getOrThrow(t.refreshToken))
      const info = yield* introspect(s, rt)
      expect(info).toMatchObject({ active: true, client_id: s.app.clientId, scope: "openid offline_access" })
      expect(info).not.toHaveProperty("token_type")
      const other = yield* (yield* OAuthApps).create({ ownerAccountId: s.owner.accountId, name: "O", redirectUris: [REDIRECT], clientType: "public", scopes: ["openid"] })
      const stranger = yield* (yield* OAuthProvider).authenticateClient({ clientId: other.app.clientId, secret: null, viaBasic: false })
      expect(yield* introspect({ ...s, client: stranger }, at_(t))).toEqual({ active: false })
      expect(yield* introspect(s, "sb_oat_unknown")).toEqual({ active: false })
      expect(yield* introspect(s, "a.b.c")).toEqual({ active: false })
    }).pipe(Effect.provide(Env)))

  it.effect("revoking a refresh token takes its family; an access token only itself; another client's token nothing", () =>
    Effect.gen(function*() {
      const s = yield* setup()
      const provider = yield* OAuthProvider
      const t = yield* exchange(s, yield* authorize(s, ["openid", "offline_access"]))
      const u = yield* exchange(s, yield* authorize(s, ["openid", "offline_access"]))
      yield* provider.revoke({ client: s.client, token: at_(u) })
      expect(yield* opaqueLive(at_(u))).toBe(false)
      yield* refresh(s, u)

      const other = yield* (yield* OAuthApps).create({ ownerAccountId: s.owner.accountId, name: "O", redirectUris: [REDIRECT], clientType: "public", scopes: ["openid"] })
      const stranger = yield* provider.authenticateClient({ clientId: other.app.clientId, secret: null, viaBasic: false })
      yield* provider.revoke({ client: stranger, token: Redacted.value(Option.getOrThrow(t.refreshToken)) })
      expect(yield* opaqueLive(at_(t))).toBe(true)

      yield* provider.revoke({ client: s.client, token: Redacted.value(Option.getOrThrow(t.refreshToken)) })
      expect(yield* opaqueLive(at_(t))).toBe(false)
      expect(yield* errorOf(refresh(s, t))).toBe("invalid_grant")
      // Unknown and repeated revocations are fine.
      yield* provider.revoke({ client: s.client, token: "sb_ort_unknown" })
      yield* provider.revoke({ client: s.client, token: Redacted.value(Option.getOrThrow(t.refreshToken)) })
    }).pipe(Effect.provide(Env)))
})

describe("OAuthGrants: withdrawal", () => {
  it.effect("withdrawing revokes the consent and every live code, access and refresh token; JWTs stop at once", () =>
    Effect.gen(function*() {
      const s = yield* setup()
      const grants = yield* OAuthGrants
      const verifier = yield* AccessTokenVerifier
      const opaque = yield* exchange(s, yield* authorize(s, ["openid", "offline_access"]))
      const jwt = yield* exchange(s, yield* authorize(s, ["projects:read"], { resource: API }))
      const pending = yield* authorize(s, ["openid"])
      yield* verifier.verify(Redacted.make(at_(jwt)))
      expect(verifier.cachedLiveness()).toBe(1)

      yield* grants.withdraw(s.user.accountId, s.app.clientId)
      expect(yield* opaqueLive(at_(opaque))).toBe(false)
      expect(yield* errorOf(refresh(s, opaque))).toBe("invalid_grant")
      expect(yield* errorOf(exchange(s, pending))).toBe("invalid_grant")
      expect(yield* Effect.flip(verifier.verify(Redacted.make(at_(jwt))))).toMatchObject({ reason: "revoked" })
      expect(yield* grants.listForAccount(s.user.accountId)).toEqual([])
      expect(yield* (yield* OAuthProvider).hasConsent(s.user.accountId, s.app.clientId, ["openid"])).toBe(false)
      expect(yield* errorOf(grants.withdraw(s.user.accountId, s.app.clientId))).toBe("OAuthGrantNotFound")
      // Consenting again starts a new grant; the old tokens stay dead.
      const again = yield* exchange(s, yield* authorize(s, ["openid"]))
      expect(yield* opaqueLive(at_(again))).toBe(true)
      expect(yield* opaqueLive(at_(opaque))).toBe(false)
    }).pipe(Effect.provide(Env)))

  it.effect("another process's cached liveness is dropped by the revocation announcement; without it, after the cache TTL", () =>
    Effect.gen(function*() {
      const s = yield* setup()
      const jwt = at_(yield* exchange(s, yield* authorize(s, ["projects:read"], { resource: API })))
      const grantId = jose.decodeJwt(jwt).grant_id as string
      // A second verifier (another server process) over the same store and announcements.
      const other = Context.get(yield* Layer.build(Layer.fresh(AccessTokenVerifier.layer)), AccessTokenVerifier)
      yield* Effect.yieldNow
      yield* other.verify(Redacted.make(jwt))
      yield* (yield* OAuthGrants).withdraw(s.user.accountId, s.app.clientId)
      for (let i = 0; i < 5; i++) yield* Effect.yieldNow
      expect(yield* Effect.flip(other.verify(Redacted.make(jwt)))).toMatchObject({ reason: "revoked" })

      // Revoked behind every cache's back (no announcement): a cached "live" lasts at most the TTL (30 s).
      const jwt2 = at_(yield* exchange(s, yield* authorize(s, ["projects:read"], { resource: API })))
      const verifier = yield* AccessTokenVerifier
      yield* verifier.verify(Redacted.make(jwt2))
      const grant2 = jose.decodeJwt(jwt2).grant_id as string
      expect(grant2).not.toBe(grantId)
      yield* (yield* OAuthGrantsRepo).revoke({ grantId: grant2, now: yield* DateTime.now })
      yield* verifier.verify(Redacted.make(jwt2))
      yield* TestClock.adjust("30 seconds")
      expect(yield* Effect.flip(verifier.verify(Redacted.make(jwt2)))).toMatchObject({ reason: "revoked" })
    }).pipe(Effect.scoped, Effect.provide(Env)))
})

describe("OAuthApps", () => {
  it.effect("the secret is shown once and stored hashed; rotation replaces it; public apps have none to rotate", () =>
    Effect.gen(function*() {
      const s = yield* setup()
      const apps = yield* OAuthApps
      const secret = Option.getOrThrow(s.secret)
      expect(secret).toMatch(/^sb_cs_[0-9a-z]{52}$/)
      const stored = Option.getOrThrow(yield* (yield* OAuthAppsRepo).find(s.app.clientId))
      expect(stored.secretHash).toBe(yield* sha256Hex(secret))
      const rotated = yield* apps.rotateSecret(s.owner.accountId, s.app.clientId)
      const provider = yield* OAuthProvider
      expect(yield* errorOf(provider.authenticateClient(s.presented))).toBe("invalid_client")
      yield* provider.authenticateClient({ ...s.presented, secret: rotated.clientSecret })
      const pub = yield* apps.create({ ownerAccountId: s.owner.accountId, name: "P", redirectUris: [REDIRECT], clientType: "public", scopes: ["openid"] })
      expect(yield* errorOf(apps.rotateSecret(s.owner.accountId, pub.app.clientId))).toBe("OAuthAppIsPublic")
    }).pipe(Effect.provide(Env)))

  it.effect("another process's cached client record is dropped when the secret rotates (announced on commit)", () =>
    Effect.gen(function*() {
      const s = yield* setup()
      // Another server process: its own provider and client cache over the same store and announcements.
      const other = Context.get(yield* Layer.build(Layer.fresh(OAuthProvider.layer)), OAuthProvider)
      yield* Effect.yieldNow
      yield* other.authenticateClient(s.presented)
      const rotated = yield* (yield* OAuthApps).rotateSecret(s.owner.accountId, s.app.clientId)
      for (let i = 0; i < 5; i++) yield* Effect.yieldNow
      expect(yield* errorOf(other.authenticateClient(s.presented))).toBe("invalid_client")
      yield* other.authenticateClient({ ...s.presented, secret: rotated.clientSecret })
    }).pipe(Effect.scoped, Effect.provide(Env)))

  it.effect("settings are validated; only the owner sees and changes an app; removal revokes its grants", () =>
    Effect.gen(function*() {
      const s = yield* setup()
      const apps = yield* OAuthApps
      const create = (o: Partial<Parameters<typeof apps.create>[0]>) =>
        Effect.map(Effect.flip(apps.create({ ownerAccountId: s.owner.accountId, name: "N", redirectUris: [REDIRECT], clientType: "public", scopes: ["openid"], ...o })), (e) =>
          e._tag === "InvalidOAuthApp" ? e.field : e._tag)
      expect(yield* create({ name: " " })).toBe("name")
      expect(yield* create({ redirectUris: [] })).toBe("redirectUris")
      expect(yield* create({ redirectUris: ["http://rp.example/cb"] })).toBe("redirectUris/0")
      expect(yield* create({ redirectUris: ["https://rp.example/cb#frag"] })).toBe("redirectUris/0")
      expect(yield* create({ redirectUris: [REDIRECT, REDIRECT] })).toBe("redirectUris")
      expect(yield* create({ scopes: ["openid", "admin"] })).toBe("scopes")
      expect(yield* create({ logoUri: "javascript:alert(1)" })).toBe("logoUri")
      expect(yield* create({ clientType: "other" as never })).toBe("clientType")
      yield* TestClock.adjust("1 second")
      const ok = yield* apps.create({
        ownerAccountId: s.owner.accountId,
        name: "Native",
        redirectUris: ["com.example.app:/cb", "http://127.0.0.1:5000/cb"],
        clientType: "public",
        scopes: ["projects:read", "openid"]
      })
      expect(ok.app.scopes).toEqual(["openid", "projects:read"])
      expect(DateTime.toEpochMillis(ok.app.createdAt)).toBe(T0 + 1000)

      expect(yield* errorOf(apps.get(s.user.accountId, s.app.clientId))).toBe("OAuthAppNotFound")
      expect(yield* errorOf(apps.update(s.user.accountId, s.app.clientId, { name: "x" }))).toBe("OAuthAppNotFound")
      const updated = yield* apps.update(s.owner.accountId, s.app.clientId, { name: "RP 2", logoUri: "https://rp.example/l.png" })
      expect(updated).toMatchObject({ name: "RP 2", logoUri: "https://rp.example/l.png", redirectUris: [REDIRECT] })
      expect(yield* apps.get(s.owner.accountId, s.app.clientId)).toEqual(updated)
      expect((yield* apps.list(s.owner.accountId)).map((a) => a.clientId)).toEqual([ok.app.clientId, s.app.clientId])

      const t = yield* exchange(s, yield* authorize(s, ["openid", "offline_access"]))
      yield* apps.remove(s.owner.accountId, s.app.clientId)
      expect(yield* opaqueLive(at_(t))).toBe(false)
      expect(yield* errorOf(apps.get(s.owner.accountId, s.app.clientId))).toBe("OAuthAppNotFound")
      expect(yield* (yield* OAuthGrants).listForAccount(s.user.accountId)).toEqual([])
    }).pipe(Effect.provide(Env)))

  it.effect("sweep deletes what expired more than a day ago", () =>
    Effect.gen(function*() {
      const s = yield* setup()
      const t = yield* exchange(s, yield* authorize(s, ["openid"]))
      const hash = yield* sha256Hex(at_(t))
      yield* TestClock.adjust("2 hours")
      expect(yield* (yield* OAuthProvider).sweep()).toBe(0)
      yield* TestClock.adjust("1 day")
      expect(yield* (yield* OAuthProvider).sweep()).toBeGreaterThanOrEqual(2)
      expect(Option.isNone(yield* (yield* OAuthTokensRepo).findToken(hash))).toBe(true)
    }).pipe(Effect.provide(Env)))
})
