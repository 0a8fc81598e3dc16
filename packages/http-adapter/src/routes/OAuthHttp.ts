/**
 * What the OAuth endpoints share (docs/api-notes/oauth.md): statuses of protocol errors, reading
 * form bodies (`application/x-www-form-urlencoded` only, bounded, no repeated parameter, empty
 * values treated as absent), client authentication (Basic or body, exactly one), the redirects of
 * the authorization endpoint (`iss` and `state` on every one) and the headers every answer carries.
 */
import { HttpServerRequest, HttpServerResponse } from "effect/http"
import { clientCredentials, OAuthProvider, type OAuthProtocolError } from "@switchboard/core/oauth"
import { Effect, Redacted } from "effect"
import { illFormedText, readBodyText } from "../http/Body.js"
import { type OAuthErrorTable, oauthFailure, type OAuthFailure } from "../http/Surfaces.js"

/** Responses with tokens or about tokens are never cached (RFC 6749 §5.1). */
export const noStore = { "cache-control": "no-store", pragma: "no-cache" }

/** The realm of our Basic and Bearer challenges. */
export const REALM = "switchboard"

/** A form body over this is refused without reading further. */
export const MAX_FORM_BYTES = 64 * 1024

const basicChallenge = { "www-authenticate": `Basic realm="${REALM}"` }

const badRequest = (e: OAuthProtocolError) => oauthFailure(400, e.error, e.description)

/**
 * Core's protocol refusals on the token, revocation and introspection endpoints (RFC 6749 §5.2):
 * `invalid_client` 401 with a Basic challenge, `server_error` 500, `temporarily_unavailable` 503,
 * the others 400.
 */
export const protocolErrors: OAuthErrorTable = {
  invalid_request: badRequest,
  invalid_client: (e) => oauthFailure(401, e.error, e.description, basicChallenge),
  invalid_grant: badRequest,
  invalid_scope: badRequest,
  invalid_target: badRequest,
  consent_required: badRequest,
  invalid_token: badRequest,
  insufficient_scope: badRequest,
  // RFC 8628 §3.5: polling answers of the device grant.
  authorization_pending: badRequest,
  slow_down: badRequest,
  expired_token: badRequest,
  access_denied: badRequest,
  server_error: (e) => oauthFailure(500, e.error, e.description),
  temporarily_unavailable: (e) => oauthFailure(503, e.error, e.description, { "retry-after": "5" })
}

/** A core protocol refusal as the endpoint's failure, through `protocolErrors`. */
export const protocolFailure = (e: OAuthProtocolError): OAuthFailure => protocolErrors[e.error](e)

/** Runs a core effect, turning its protocol refusals into this surface's failures. */
export const protocol = <A, R>(self: Effect.Effect<A, OAuthProtocolError, R>) => Effect.mapError(self, protocolFailure)

export type Form = ReadonlyMap<string, string>

/** Parses form-encoded text: none when a parameter is repeated (empty values count as absent). */
export const parseForm = (text: string): { readonly form: Form } | { readonly repeated: string } => {
  const form = new Map<string, string>()
  for (const [key, value] of new URLSearchParams(text)) {
    if (value === "") continue
    if (form.has(key)) return { repeated: key }
    form.set(key, value)
  }
  return { form }
}

/** Reads the request's form body (RFC 6749 §3.2): anything else is `invalid_request`. */
export const readForm = Effect.gen(function*() {
  const request = yield* HttpServerRequest.HttpServerRequest
  const contentType = (request.headers["content-type"] ?? "").toLowerCase()
  if (!/^application\/x-www-form-urlencoded\s*(;|$)/.test(contentType)) {
    return yield* oauthFailure(400, "invalid_request", "The body must be application/x-www-form-urlencoded.")
  }
  const text = yield* readBodyText(MAX_FORM_BYTES).pipe(
    Effect.mapError((e) =>
      e._tag === "BodyTooLarge"
        ? oauthFailure(413, "invalid_request", `The body exceeds ${MAX_FORM_BYTES} bytes.`)
        : oauthFailure(e.status === 415 ? 415 : 400, "invalid_request", e.message)
    )
  )
  const parsed = parseForm(text)
  if ("repeated" in parsed) {
    return yield* oauthFailure(400, "invalid_request", `The parameter ${parsed.repeated.slice(0, 64)} must not be repeated.`)
  }
  for (const [name, value] of parsed.form) {
    const why = illFormedText(name) ?? illFormedText(value)
    if (why !== undefined) return yield* oauthFailure(400, "invalid_request", `The parameter ${JSON.stringify(name.slice(0, 64))} ${why}.`)
  }
  return parsed.form
})

/** A required form parameter. */
export const required = (form: Form, name: string) => {
  const value = form.get(name)
  return value === undefined ? Effect.fail(oauthFailure(400, "invalid_request", `${name} is required.`)) : Effect.succeed(value)
}

/**
 * Authenticates the client of a token, revocation or introspection request: HTTP Basic
 * (form-URL-decoded) or `client_id` + `client_secret` in the body, exactly one of them; public
 * clients send `client_id` alone. Every refusal of the credentials is 401 `invalid_client`.
 */
export const authenticateClient = (form: Form) =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const provider = yield* OAuthProvider
    const presented = clientCredentials({
      authorization: request.headers["authorization"],
      bodyClientId: form.get("client_id"),
      bodyClientSecret: form.get("client_secret")
    })
    switch (presented._tag) {
      case "Missing":
        return yield* oauthFailure(401, "invalid_client", "Client authentication is required.", basicChallenge)
      case "Invalid":
        return yield* presented.error === "invalid_client"
          ? oauthFailure(401, "invalid_client", presented.description, basicChallenge)
          : oauthFailure(400, presented.error, presented.description)
      case "Presented": {
        // Text no client id or secret can hold (U+0000, lone surrogates) is refused before any lookup.
        if (illFormedText(presented.client.clientId) !== undefined || illFormedText(Redacted.value(presented.client.secret ?? Redacted.make(""))) !== undefined) {
          return yield* oauthFailure(401, "invalid_client", "The client credentials are not valid.", basicChallenge)
        }
        return yield* protocol(provider.authenticateClient(presented.client))
      }
    }
  })

/** A JSON answer that must not be cached. */
export const jsonNoStore = (body: unknown, status = 200) =>
  HttpServerResponse.jsonUnsafe(body, { status, headers: noStore })

/**
 * The redirect URI with our parameters appended, leaving the registered URI's own query exactly
 * as it is (it was matched character for character).
 */
export const redirectTo = (redirectUri: string, params: ReadonlyArray<readonly [string, string]>) => {
  const query = new URLSearchParams(params.map(([k, v]): [string, string] => [k, v])).toString()
  return `${redirectUri}${redirectUri.includes("?") ? "&" : "?"}${query}`
}

/** A redirect of the authorization endpoint, never cached. */
export const redirectResponse = (location: string, status: 302 | 303) =>
  HttpServerResponse.empty({ status, headers: { location, ...noStore } })
