/**
 * `GET /api/auth/token` (docs/api-notes/credentials.md, docs/api-notes/dashboard-api.md): a JWT
 * access token for the versioned API, minted for a signed-in Dashboard session. It carries every
 * business scope (a session may do everything its account may), `iss` `{DASHBOARD_URL}/api/auth`,
 * `aud` `{API_URL}`, `typ: at+jwt`, and the token policy's lifetime for those scopes — with
 * `billing:write` among them, 5 minutes (docs/api-notes/oauth.md).
 */
import { Clock, Effect } from "effect"
import { ACCESS_TOKEN_TYP, accessTokenClaims } from "../oauth/AccessTokenClaims.js"
import { businessScopes } from "../oauth/Scopes.js"
import { SigningKeys } from "../oauth/SigningKeys.js"
import { TokenAudience } from "../oauth/TokenAudience.js"
import { accessTokenLifetime } from "../oauth/TokenPolicy.js"
import { base64url } from "../internal/Crypto.js"
import { Secrets } from "../shared/Secrets.js"
import type { Session } from "./Sessions.js"

export interface SessionAccessToken {
  readonly token: string
  readonly scopes: ReadonlyArray<string>
  readonly issuedAt: number
  readonly expiresAt: number
}

export const mintSessionAccessToken = (session: Session): Effect.Effect<SessionAccessToken, never, SigningKeys | Secrets> =>
  Effect.gen(function*() {
    const keys = yield* SigningKeys
    const { audience, issuer } = yield* TokenAudience
    const now = yield* Clock.currentTimeMillis
    const scopes = [...businessScopes]
    const expiresAt = now + accessTokenLifetime(scopes)
    const tokenId = `sb_at_${base64url(yield* Effect.flatMap(Secrets, (s) => s.randomBytes(16)))}`
    const token = yield* keys.sign(
      // `sid`: the session, so its SSO sign-in carries over to /v1 (core sso/SsoEnforcement.ts).
      { ...accessTokenClaims({ issuer, audience, accountId: session.accountId, scopes, tokenId, issuedAt: now, expiresAt }), sid: session.sessionId },
      { typ: ACCESS_TOKEN_TYP }
    )
    return { token, scopes, issuedAt: now, expiresAt }
  })
