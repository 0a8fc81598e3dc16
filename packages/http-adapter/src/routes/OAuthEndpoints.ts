/**
 * The OAuth provider's non-interactive endpoints (docs/api-notes/oauth.md):
 *
 * - `POST /api/auth/oauth2/token`: client authentication first, then `grant_type`
 *   `authorization_code`, `refresh_token` or `urn:ietf:params:oauth:grant-type:device_code`
 *   (RFC 8628 polling); anything else (`client_credentials` included) is `unsupported_grant_type`.
 *   Answers are `no-store`.
 * - `POST /api/auth/oauth2/device_authorization` (RFC 8628 §3.1): client authentication, optional
 *   `scope` (default: every scope the app may ask for) and `resource`; the device and user codes
 *   and the verification page's URIs (`routes/OAuthDevice.ts`).
 * - `POST /api/auth/oauth2/revoke` (RFC 7009): 200 with an empty body whatever the token was.
 * - `POST /api/auth/oauth2/introspect` (RFC 7662): the caller's own live tokens, else exactly
 *   `{"active":false}`.
 * - `GET|POST /api/auth/oauth2/userinfo`: a bearer access token in the Authorization header only;
 *   RFC 6750 challenges (no `error` without a token, `invalid_token`, 403 `insufficient_scope`).
 * - `GET /api/auth/jwks`, the two path-insertion discovery documents, and the advertised but
 *   disabled `POST /api/auth/oauth2/register` (403 `access_denied`).
 */
import { HttpServerRequest, HttpServerResponse } from "effect/http"
import { DEVICE_CODE_GRANT_TYPE, discoveryDocument, OAuthProvider, SigningKeys, tokenResponseBody } from "@switchboard/core/oauth"
import { Effect } from "effect"
import { oauthFailure } from "../http/Surfaces.js"
import { authenticateClient, jsonNoStore, noStore, protocol, readForm, REALM, required } from "./OAuthHttp.js"
import { deviceAuthorizationBody } from "./OAuthDevicePages.js"

export const tokenEndpoint = Effect.gen(function*() {
  const provider = yield* OAuthProvider
  const form = yield* readForm
  const client = yield* authenticateClient(form)
  const grantType = form.get("grant_type")
  switch (grantType) {
    case undefined:
      return yield* oauthFailure(400, "invalid_request", "grant_type is required.")
    case "authorization_code": {
      const code = yield* required(form, "code")
      const redirectUri = yield* required(form, "redirect_uri")
      const codeVerifier = yield* required(form, "code_verifier")
      const tokens = yield* protocol(provider.exchangeCode({ client, code, redirectUri, codeVerifier, resource: form.get("resource") }))
      return jsonNoStore(tokenResponseBody(tokens))
    }
    case "refresh_token": {
      const refreshToken = yield* required(form, "refresh_token")
      const tokens = yield* protocol(provider.refresh({ client, refreshToken, scope: form.get("scope"), resource: form.get("resource") }))
      return jsonNoStore(tokenResponseBody(tokens))
    }
    case DEVICE_CODE_GRANT_TYPE: {
      const deviceCode = yield* required(form, "device_code")
      const tokens = yield* protocol(provider.pollDevice({ client, deviceCode }))
      return jsonNoStore(tokenResponseBody(tokens))
    }
    default:
      return yield* oauthFailure(
        400,
        "unsupported_grant_type",
        `grant_type ${JSON.stringify(grantType.slice(0, 64))} is not supported; use authorization_code, refresh_token or ${DEVICE_CODE_GRANT_TYPE}.`
      )
  }
})

export const deviceAuthorizationEndpoint = Effect.gen(function*() {
  const provider = yield* OAuthProvider
  const form = yield* readForm
  const client = yield* authenticateClient(form)
  const started = yield* protocol(provider.startDevice({ client, scope: form.get("scope"), resource: form.get("resource") }))
  return jsonNoStore(deviceAuthorizationBody(started, provider.issuer))
})

export const revokeEndpoint = Effect.gen(function*() {
  const provider = yield* OAuthProvider
  const form = yield* readForm
  const client = yield* authenticateClient(form)
  const token = yield* required(form, "token")
  yield* provider.revoke({ client, token })
  return HttpServerResponse.empty({ status: 200, headers: noStore })
})

export const introspectEndpoint = Effect.gen(function*() {
  const provider = yield* OAuthProvider
  const form = yield* readForm
  const client = yield* authenticateClient(form)
  const token = yield* required(form, "token")
  return jsonNoStore(yield* provider.introspect({ client, token }))
})

const bearerChallenge = (attrs: string) => ({ "www-authenticate": `Bearer realm="${REALM}"${attrs}` })

export const userinfoEndpoint = Effect.gen(function*() {
  const provider = yield* OAuthProvider
  const request = yield* HttpServerRequest.HttpServerRequest
  const url = new URL(request.url, "http://localhost")
  if (url.searchParams.has("access_token")) {
    return yield* oauthFailure(400, "invalid_request", "Send the access token in the Authorization header, not the query.")
  }
  const header = request.headers["authorization"]
  if (header === undefined || header.trim() === "") {
    return yield* oauthFailure(401, "invalid_request", "An access token is required.", bearerChallenge(""))
  }
  const m = /^Bearer[ ]+([\x21-\x7e]{1,8192})\s*$/i.exec(header)
  if (m === null) {
    return yield* oauthFailure(401, "invalid_token", "The Authorization header must be Bearer <access token>.", bearerChallenge(`, error="invalid_token"`))
  }
  const claims = yield* provider.userInfo(m[1]!).pipe(
    Effect.mapError((e) =>
      e.error === "insufficient_scope"
        ? oauthFailure(403, e.error, e.description, bearerChallenge(`, error="insufficient_scope"${e.scope === undefined ? "" : `, scope="${e.scope}"`}`))
        : oauthFailure(401, "invalid_token", e.description, bearerChallenge(`, error="invalid_token"`))
    )
  )
  return jsonNoStore(claims)
})

/** Public key sets may be cached a little: the next key is published long before it signs. */
export const jwksEndpoint = Effect.gen(function*() {
  const keys = yield* SigningKeys
  return HttpServerResponse.jsonUnsafe(yield* keys.verificationKeys(), {
    headers: { "cache-control": "public, max-age=300" }
  })
})

export const discoveryEndpoint = Effect.gen(function*() {
  const provider = yield* OAuthProvider
  return HttpServerResponse.jsonUnsafe(discoveryDocument(provider.issuer), {
    headers: { "cache-control": "public, max-age=60" }
  })
})

export const registerEndpoint = Effect.fail(
  oauthFailure(403, "access_denied", "Dynamic client registration is disabled; create apps in the console at /console/account/apps.")
)
