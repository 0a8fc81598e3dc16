/**
 * Verifies a JWT access token (docs/api-notes/credentials.md): EdDSA only, signed by a key
 * of our published set (picked by `kid`), `typ: at+jwt`, issuer `{DASHBOARD_URL}/api/auth`,
 * audience `{API_URL}`, `exp` required and checked against Clock, `sub` an existing, non-deleted
 * account, `jti` the token id, `scope` space-separated. Every failure is an `InvalidCredential`
 * (`expired`, `malformed` or `unknown`) with a message saying what was wrong; a deleted account
 * is `AccountDeleted`.
 *
 * A token minted by the OAuth token endpoint names its grant (`grant_id`) and token family
 * (`family_id`): it works only while they are live (docs/api-notes/oauth.md:
 * revocation reaches API servers within about a minute). Their liveness is one cached lookup
 * (≤ the credential cache TTL, at most 60 s); a withdrawal or family revocation drops it at once,
 * here through `invalidate` and in every process through `CredentialRevocations`.
 */
import { Clock, Context, Duration, Effect, Layer, Option, Redacted, Schema, Stream } from "effect"
import * as jose from "jose"
import { ACCESS_TOKEN_TYP, parseScope } from "../oauth/AccessTokenClaims.js"
import { makeGrantLivenessCache, type Liveness } from "../oauth/GrantLivenessCache.js"
import { OAuthGrantsRepo, OAuthTokensRepo } from "../oauth/OAuthProviderPorts.js"
import { SIGNING_ALG } from "../oauth/SigningKeyMaterial.js"
import { SigningKeys } from "../oauth/SigningKeys.js"
import { TokenAudience } from "../oauth/TokenAudience.js"
import { AccountId } from "../shared/Identifiers.js"
import { Principal } from "./Access.js"
import { CredentialCachePolicy } from "./CredentialCache.js"
import { AccountDeleted, InvalidCredential } from "../accounts/Errors.js"
import { AccountsRepo, CredentialRevocations } from "../accounts/Ports.js"
import { fn } from "../internal/Traced.js"

/** What a verified access token says. Times in epoch seconds. */
export interface VerifiedAccessToken {
  readonly accountId: AccountId
  readonly scopes: ReadonlyArray<string>
  readonly tokenId: string
  readonly issuer: string
  readonly audience: string
  readonly issuedAt: number
  readonly expiresAt: number
  /** The OAuth client it was issued to (`client_id`), if any. */
  readonly clientId: string | null
  /** The OAuth grant and token family it was issued under, if any (session tokens have none). */
  readonly grantId: string | null
  readonly familyId: string | null
  /** The Dashboard session a session token was minted for (`sid`), if it says (required SSO). */
  readonly sessionId?: string
}

const optionalString = (value: unknown): string | null | undefined =>
  value === undefined ? null : typeof value === "string" && value.length > 0 && value.length <= 256 ? value : undefined

const invalid = (reason: InvalidCredential["reason"], message: string) => new InvalidCredential({ reason, message })

const isAccountId = Schema.is(AccountId)

/** What jose's refusal means to the caller. */
const rejection = (e: unknown): InvalidCredential => {
  if (e instanceof jose.errors.JWTExpired) return invalid("expired", "The access token has expired.")
  if (e instanceof jose.errors.JWSSignatureVerificationFailed) {
    return invalid("unknown", "The access token's signature is not valid.")
  }
  if (e instanceof jose.errors.JOSEAlgNotAllowed) return invalid("unknown", `Access tokens must be signed with ${SIGNING_ALG}.`)
  if (e instanceof jose.errors.JWTClaimValidationFailed) {
    if (e.reason === "missing") return invalid("malformed", `The access token has no "${e.claim}" claim.`)
    switch (e.claim) {
      case "iss":
        return invalid("unknown", "The access token was issued by another issuer.")
      case "aud":
        return invalid("unknown", "The access token is not meant for this API (aud).")
      case "typ":
        return invalid("unknown", `The token is not an access token (typ must be ${ACCESS_TOKEN_TYP}).`)
      case "nbf":
        return invalid("unknown", "The access token is not valid yet (nbf).")
      default:
        return invalid("malformed", `The access token's "${e.claim}" claim is not valid.`)
    }
  }
  return invalid("malformed", "The access token is not a well-formed JWT.")
}

export class AccessTokenVerifier extends Context.Service<AccessTokenVerifier>()("core/AccessTokenVerifier", {
  make: Effect.gen(function*() {
    const keys = yield* SigningKeys
    const accounts = yield* AccountsRepo
    const grants = yield* OAuthGrantsRepo
    const tokens = yield* OAuthTokensRepo
    const revocations = yield* CredentialRevocations
    const policy = yield* CredentialCachePolicy
    const liveness = makeGrantLivenessCache({ ttlMillis: Duration.toMillis(policy.ttl), maxEntries: policy.maxEntries })
    // Read once when the service is built: the server provides the tag from its configuration.
    const { audience, issuer } = yield* TokenAudience

    // Every revocation, wherever it happened, drops the grant or family from this process's cache.
    yield* revocations.subscribe.pipe(
      Stream.runForEach((id) => Effect.flatMap(Clock.currentTimeMillis, (now) => Effect.sync(() => liveness.drop(id, now)))),
      Effect.forkScoped({ startImmediately: true })
    )

    /** Whether the family (else the grant) the token names is live: cached, else one lookup. */
    const isLive = (grantId: string, familyId: string | null, now: number) =>
      Effect.gen(function*() {
        const id = familyId ?? grantId
        const cached = liveness.get(id, now)
        if (cached !== undefined) return cached.live && cached.grantId === grantId
        let loaded: Liveness
        if (familyId !== null) {
          const family = yield* tokens.findFamily(familyId)
          loaded = Option.match(family, {
            onNone: () => ({ live: false, grantId }),
            onSome: (f) => ({ live: f.revokedAt === null, grantId: f.grantId })
          })
        } else {
          const grant = yield* grants.findById(grantId)
          loaded = { live: Option.isSome(grant) && grant.value.revokedAt === null, grantId }
        }
        liveness.set(id, loaded, now)
        return loaded.live && loaded.grantId === grantId
      })

    /** The grant or family was revoked: stop serving it from this process's cache now. */
    const invalidate = (id: string): Effect.Effect<void> =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => Effect.sync(() => liveness.drop(id, now)))

    const verifyToken = fn("AccessTokenVerifier.verifyToken")(function*(token: Redacted.Redacted<string>): Effect.fn.Return<
      VerifiedAccessToken,
      InvalidCredential | AccountDeleted
    > {
      const jwt = Redacted.value(token)
      let header: jose.ProtectedHeaderParameters
      try {
        header = jose.decodeProtectedHeader(jwt)
      } catch {
        return yield* invalid("malformed", "The access token is not a well-formed JWT.")
      }
      // Checked before any key is looked up: `none`, HS256 keyed with our public key, … never get further.
      if (header.alg !== SIGNING_ALG) return yield* invalid("unknown", `Access tokens must be signed with ${SIGNING_ALG}.`)
      if (typeof header.kid !== "string" || header.kid.length === 0) {
        return yield* invalid("malformed", "The access token's header has no kid.")
      }
      const key = yield* keys.publicKeyFor(header.kid)
      if (Option.isNone(key)) return yield* invalid("unknown", "The access token was signed with an unknown key.")

      const now = yield* Clock.currentTimeMillis
      const { payload } = yield* Effect.tryPromise({
        try: () =>
          jose.jwtVerify(jwt, key.value, {
            algorithms: [SIGNING_ALG],
            issuer,
            audience,
            typ: ACCESS_TOKEN_TYP,
            requiredClaims: ["exp", "sub", "jti"],
            currentDate: new Date(now)
          }),
        catch: rejection
      })

      if (typeof payload.jti !== "string" || payload.jti.length === 0) {
        return yield* invalid("malformed", "The access token's \"jti\" claim is not valid.")
      }
      const scopes = parseScope(payload.scope)
      if (scopes === undefined) return yield* invalid("malformed", "The access token's \"scope\" claim is not valid.")
      const sub = payload.sub
      if (!isAccountId(sub)) return yield* invalid("unknown", "The access token's subject is not an account.")
      const clientId = optionalString(payload.client_id)
      const grantId = optionalString(payload.grant_id)
      const familyId = optionalString(payload.family_id)
      if (clientId === undefined || grantId === undefined || familyId === undefined || (familyId !== null && grantId === null)) {
        return yield* invalid("malformed", "The access token's client_id, grant_id or family_id claim is not valid.")
      }
      if (grantId !== null && !(yield* isLive(grantId, familyId, now))) {
        return yield* invalid("revoked", "The access token's grant was revoked.")
      }
      const account = yield* accounts.findById(sub)
      if (Option.isNone(account)) return yield* invalid("unknown", "The access token's account does not exist.")
      if (account.value.deletedAt !== null) return yield* new AccountDeleted({ accountId: sub })
      return {
        accountId: sub,
        scopes,
        tokenId: payload.jti,
        issuer,
        audience,
        issuedAt: typeof payload.iat === "number" ? payload.iat : Math.floor(now / 1000),
        expiresAt: payload.exp as number,
        clientId,
        grantId,
        familyId,
        ...(typeof payload.sid === "string" && payload.sid.length <= 64 && grantId === null ? { sessionId: payload.sid } : {})
      } satisfies VerifiedAccessToken
    })

    const verify = (token: Redacted.Redacted<string>): Effect.Effect<Principal, InvalidCredential | AccountDeleted> =>
      Effect.map(verifyToken(token), (t) => Principal.AccessToken({
        accountId: t.accountId,
        scopes: t.scopes,
        tokenId: t.tokenId,
        // A token that names no grant or client was minted for a Dashboard session (first party).
        origin: t.grantId === null && t.clientId === null ? "session" : "grant",
        ...(t.sessionId === undefined ? {} : { sessionId: t.sessionId })
      }))

    return { verify, verifyToken, invalidate, cachedLiveness: () => liveness.size() } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(Layer.provide([SigningKeys.layer]))
}
