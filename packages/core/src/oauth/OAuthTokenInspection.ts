/**
 * Looking at tokens (docs/api-notes/oauth.md): introspection (RFC 7662), revocation (RFC 7009) and
 * userinfo (OIDC Core §5.3), for opaque tokens (by their hash) and JWT access tokens (verified,
 * with their grant's liveness). A live opaque access token is answered from memory once seen
 * (`OAuthTokenCache`: no statement; revocations drop it at once here, in other processes through
 * `CredentialRevocations`, bounded by the credential cache TTL).
 */
import { Clock, DateTime, Effect, Option, Redacted } from "effect"
import { CredentialRevocations } from "../accounts/Ports.js"
import { AccessTokenVerifier, type VerifiedAccessToken } from "../credentials/AccessTokenVerifier.js"
import { sha256Hex, sha256HexSync } from "../internal/Crypto.js"
import type { AccountId } from "../shared/Identifiers.js"
import { fn } from "../internal/Traced.js"
import { formatScope } from "./AccessTokenClaims.js"
import { oauthError, oauthInsufficientScope } from "./OAuthErrors.js"
import { MAX_OPAQUE_TOKEN_LENGTH, OAuthGrants } from "./OAuthGrants.js"
import { type OAuthTokenRecord, OAuthTokensRepo } from "./OAuthProviderPorts.js"
import type { OAuthApp } from "./OAuthSchema.js"
import { OAuthTokenCache } from "./OAuthTokenCache.js"
import { isAccountId, type OAuthTokenMinting, seconds } from "./OAuthTokenMinting.js"
import { TokenAudience } from "./TokenAudience.js"
import { issuesIdToken } from "./TokenPolicy.js"

/** RFC 7662 §2.2: an inactive token says nothing else. */
export const INACTIVE = { active: false } as const

const looksLikeJwt = (token: string) => /^[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]*$/.test(token)

export const makeOAuthTokenInspection = (minting: OAuthTokenMinting) =>
  Effect.gen(function*() {
    const tokens = yield* OAuthTokensRepo
    const grants = yield* OAuthGrants
    const verifier = yield* AccessTokenVerifier
    const { issuer } = yield* TokenAudience
    const { claimsOf } = minting
    const cache = yield* OAuthTokenCache
    const revocations = yield* CredentialRevocations

    /** A JWT access token of ours, verified (signature, claims, grant liveness); none otherwise. */
    const verifiedJwt = (token: string) =>
      verifier.verifyToken(Redacted.make(token)).pipe(
        Effect.map(Option.some<VerifiedAccessToken>),
        Effect.catchTags({ InvalidCredential: () => Effect.succeed(Option.none()), AccountDeleted: () => Effect.succeed(Option.none()) })
      )

    /** An opaque token's live record (not revoked, rotated or expired; account live); none otherwise. */
    const liveOpaque = (token: string) =>
      Effect.gen(function*() {
        if (token.length === 0 || token.length > MAX_OPAQUE_TOKEN_LENGTH) return Option.none<OAuthTokenRecord>()
        const tokenHash = sha256HexSync(token)
        const now = yield* Clock.currentTimeMillis
        const cached = cache.get(tokenHash, now)
        if (cached !== undefined) return Option.some(cached)
        // One lookup: the token with its account.
        const found = yield* tokens.findTokenWithAccountState(tokenHash)
        if (Option.isNone(found)) return Option.none<OAuthTokenRecord>()
        const t = found.value.token
        if (t.revokedAt !== null || t.rotatedAt !== null || DateTime.toEpochMillis(t.expiresAt) <= now) return Option.none<OAuthTokenRecord>()
        const account = found.value.account
        if (Option.isNone(account) || !isAccountId(t.accountId) || account.value.deletedAt !== null) return Option.none<OAuthTokenRecord>()
        cache.set(t, now)
        return Option.some(t)
      })

    /** RFC 7662: the caller's own live tokens are described; anything else is exactly `{active:false}`. */
    const introspect = fn("OAuthProvider.introspect")(function*(args: { readonly client: OAuthApp; readonly token: string }) {
      const { client, token } = args
      if (looksLikeJwt(token)) {
        const jwt = yield* verifiedJwt(token)
        if (Option.isNone(jwt) || jwt.value.clientId !== client.clientId) return INACTIVE
        const t = jwt.value
        return {
          active: true,
          scope: formatScope(t.scopes),
          client_id: client.clientId,
          sub: t.accountId,
          exp: t.expiresAt,
          iat: t.issuedAt,
          iss: t.issuer,
          aud: t.audience,
          jti: t.tokenId,
          token_type: "Bearer"
        }
      }
      const found = yield* liveOpaque(token)
      if (Option.isNone(found) || found.value.clientId !== client.clientId) return INACTIVE
      const t = found.value
      return {
        active: true,
        scope: formatScope(t.scopes),
        client_id: t.clientId,
        sub: t.accountId,
        exp: seconds(DateTime.toEpochMillis(t.expiresAt)),
        iat: seconds(DateTime.toEpochMillis(t.createdAt)),
        iss: issuer,
        ...(t.kind === "access" ? { token_type: "Bearer" } : {})
      }
    })

    /**
     * RFC 7009: revokes the caller's token. A refresh token takes its whole family (and so the access
     * tokens issued with it); an opaque access token only itself; a JWT access token its family (it
     * cannot be revoked alone). Unknown, foreign, expired or already revoked tokens: nothing happens.
     */
    const revoke = fn("OAuthProvider.revoke")(function*(args: { readonly client: OAuthApp; readonly token: string }) {
      const { client, token } = args
      if (looksLikeJwt(token)) {
        const jwt = yield* verifiedJwt(token)
        if (Option.isSome(jwt) && jwt.value.clientId === client.clientId && jwt.value.familyId !== null) {
          yield* grants.revokeFamily(jwt.value.familyId)
        }
        return
      }
      if (token.length === 0 || token.length > MAX_OPAQUE_TOKEN_LENGTH) return
      const tokenHash = yield* sha256Hex(token)
      const found = yield* tokens.findToken(tokenHash)
      if (Option.isNone(found) || found.value.clientId !== client.clientId || found.value.revokedAt !== null) return
      if (found.value.kind === "refresh") return yield* grants.revokeFamily(found.value.familyId)
      // This process forgets it before answering; the others when the announcement arrives.
      yield* tokens.revokeToken({ tokenHash, now: yield* DateTime.now })
      yield* cache.drop(tokenHash)
      yield* revocations.publish(tokenHash)
    })

    /** OIDC userinfo: the claims an access token with `openid` may see. */
    const userInfo = fn("OAuthProvider.userInfo")(function*(token: string) {
      let accountId: AccountId
      let scopes: ReadonlyArray<string>
      if (looksLikeJwt(token)) {
        const jwt = yield* verifiedJwt(token)
        if (Option.isNone(jwt) || jwt.value.grantId === null) {
          return yield* oauthError("invalid_token", "The access token is not valid.")
        }
        accountId = jwt.value.accountId
        scopes = jwt.value.scopes
      } else {
        const found = yield* liveOpaque(token)
        if (Option.isNone(found) || found.value.kind !== "access") return yield* oauthError("invalid_token", "The access token is not valid.")
        accountId = found.value.accountId
        scopes = found.value.scopes
      }
      if (!issuesIdToken(scopes)) return yield* oauthInsufficientScope("openid", "The access token lacks the openid scope.")
      const claims = yield* claimsOf(accountId, scopes)
      if (Option.isNone(claims)) return yield* oauthError("invalid_token", "The access token is not valid.")
      return claims.value
    })

    return { introspect, revoke, userInfo } as const
  })
