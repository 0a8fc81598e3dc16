/**
 * The OAuth 2.1 / OpenID Connect provider's protocol (docs/api-notes/oauth.md):
 *
 * - client authentication: confidential clients by secret (Basic or body, compared as SHA-256 in
 *   constant time), public clients by `client_id` alone; anything else is `invalid_client`;
 * - authorization codes: 256 bits, stored hashed, single use, 60 s, bound to the client, redirect
 *   URI, PKCE challenge, scopes, nonce, resource, account, grant and sign-in time; a replayed code
 *   revokes its grant;
 * - tokens: opaque access tokens (`sb_oat_…`, stored hashed) by default, an EdDSA JWT access token
 *   for the API (`typ: at+jwt`, `aud` = the API's URL, naming its grant and family) when the request
 *   named `resource`; lifetimes from `TokenPolicy`; a refresh token (`sb_ort_…`, 30 days) only with
 *   `offline_access`, rotated on every use, reuse of a rotated-out one revokes its family; an
 *   `id_token` (EdDSA, `kid`) only with `openid`;
 * - introspection (RFC 7662), revocation (RFC 7009) and userinfo (OIDC Core §5.3).
 *
 * Each part has its module: `OAuthTokenMinting.ts` (tokens and claims), `OAuthCodeGrant.ts`
 * (consent, codes and their exchange), `OAuthRefreshGrant.ts` (rotation and reuse detection),
 * `OAuthTokenInspection.ts` (introspection, revocation, userinfo), `OAuthDeviceGrant.ts` (RFC 8628
 * device authorization); client authentication is here.
 */
import { Context, DateTime, Effect, Layer, Option, Redacted } from "effect"
import { constantTimeEqual, sha256HexSync } from "../internal/Crypto.js"
import { Ids } from "../shared/Ids.js"
import { fn } from "../internal/Traced.js"
import type { PresentedClient } from "./ClientCredentials.js"
import { DeviceCodesRepo } from "./DeviceCodes.js"
import { makeOAuthCodeGrant } from "./OAuthCodeGrant.js"
import { makeOAuthDeviceGrant } from "./OAuthDeviceGrant.js"
import { oauthError } from "./OAuthErrors.js"
import { OAuthClientCache } from "./OAuthClientCache.js"
import { OAuthTokensRepo } from "./OAuthProviderPorts.js"
import { makeOAuthRefreshGrant } from "./OAuthRefreshGrant.js"
import type { OAuthApp } from "./OAuthSchema.js"
import { makeOAuthTokenInspection } from "./OAuthTokenInspection.js"
import { makeOAuthTokenMinting } from "./OAuthTokenMinting.js"
import { SigningKeys } from "./SigningKeys.js"
import { TokenAudience } from "./TokenAudience.js"
import { DAY } from "./TokenPolicy.js"

export { INACTIVE } from "./OAuthTokenInspection.js"
export {
  ACCESS_TOKEN_PREFIX, CODE_PREFIX, type IssuedTokens, REFRESH_TOKEN_PREFIX, type TokenResponse, tokenResponseBody
} from "./OAuthTokenMinting.js"

export class OAuthProvider extends Context.Service<OAuthProvider>()("core/OAuthProvider", {
  make: Effect.gen(function*() {
    const apps = yield* OAuthClientCache
    const tokens = yield* OAuthTokensRepo
    const { audience, issuer } = yield* TokenAudience
    const minting = yield* makeOAuthTokenMinting
    const codeGrant = yield* makeOAuthCodeGrant(minting)
    const refreshGrant = yield* makeOAuthRefreshGrant(minting)
    const inspection = yield* makeOAuthTokenInspection(minting)
    const devices = yield* DeviceCodesRepo

    /** An app that exists (not removed). */
    const findClient = fn("OAuthProvider.findClient")(function*(clientId: string) {
      if (clientId.length === 0 || clientId.length > 128) return Option.none<OAuthApp>()
      return Option.map(yield* apps.find(clientId), (s) => s.app)
    })
    const deviceGrant = yield* makeOAuthDeviceGrant(minting, audience, findClient)

    /**
     * The secret last verified against each client record, by the record's identity: the record
     * lives in `OAuthClientCache` (≤ its TTL, dropped when the app changes), and a changed app is a
     * new record, so its old secret is hashed and compared again — and refused.
     */
    const verifiedSecrets = new WeakMap<object, string>()

    /**
     * Authenticates the calling client: a confidential client by its secret, a public client by its
     * id alone (sending a secret is refused). Every refusal is `invalid_client`.
     */
    const authenticateClient = fn("OAuthProvider.authenticateClient")(function*(presented: PresentedClient) {
      // Built only when refusing: constructing the error (schema check, stack) costs more than the rest.
      const refuse = () => oauthError("invalid_client", "Client authentication failed.")
      if (presented.clientId.length > 128) return yield* refuse()
      const found = yield* apps.find(presented.clientId)
      if (Option.isNone(found)) return yield* refuse()
      const { app, secretHash } = found.value
      const secret = presented.secret === null ? "" : Redacted.value(presented.secret)
      if (app.clientType === "public") {
        if (secret !== "") return yield* oauthError("invalid_client", "Public clients do not authenticate with a secret.")
        return app
      }
      if (secret === "" || secretHash === null) return yield* oauthError("invalid_client", "This client must authenticate with its secret.")
      // The very secret that last matched this record is accepted without hashing it again; any
      // other string is hashed and compared as always, so a wrong secret is never accepted.
      const matched = verifiedSecrets.get(found.value)
      if (matched !== undefined && constantTimeEqual(matched, secret)) return app
      if (secret.length > 256 || !constantTimeEqual(sha256HexSync(secret), secretHash)) return yield* refuse()
      verifiedSecrets.set(found.value, secret)
      return app
    })
    /** Deletes codes (device codes too) and tokens that expired more than a day ago. */
    const sweep = fn("OAuthProvider.sweep")(function*() {
      const now = yield* DateTime.now
      const before = DateTime.makeUnsafe(DateTime.toEpochMillis(now) - DAY) as DateTime.Utc
      return (yield* tokens.sweep({ before })) + (yield* devices.sweep({ before }))
    })

    return {
      findClient,
      authenticateClient,
      ...codeGrant,
      ...refreshGrant,
      ...deviceGrant,
      ...inspection,
      sweep,
      issuer,
      resourceUrl: audience
    } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(Layer.provide([Ids.layer, SigningKeys.layer, OAuthClientCache.layer]))
}
