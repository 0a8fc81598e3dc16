/**
 * The device flow's routes outside the OAuth endpoints proper (RFC 8628; core oauth/OAuthDeviceGrant.ts):
 *
 * - `GET /device[?user_code=…]` — the verification page. Signed out: to `/sign-in` and back.
 *   Without a code: a form to type it. With a live code: the consent screen (the app, the scopes,
 *   the code to compare with the device's); an unknown, expired or decided code: the form again
 *   with the reason. Code lookups are rate limited per account (20 per 5 minutes; 429 page).
 * - `POST /device` — the consent screen's answer. CSRF: an HMAC under the server secret of the
 *   session id, the time the page was shown and the user code (one hour). Approve → the grant gains
 *   the scopes and the device's next poll gets the tokens; deny → the device gets `access_denied`.
 * - `POST /v1/auth/device/code` (`deviceAuthorize`) and `POST /v1/auth/device/token`
 *   (`deviceToken`) — the contract's endpoints for command-line tools: no credential (the
 *   Authorization header is ignored); JSON or form bodies; the client is the body's `client_id`
 *   (with `client_secret` for a confidential app) or else the server's `DEVICE_CLIENT_ID`.
 *   Access tokens are JWTs for the API (`aud` = API_URL), so they work on /v1 within the consented
 *   scopes. `deviceToken` takes the device code or a refresh token (rotated on every use) and answers
 *   the tokens with the `user`. Failures are RFC 6749 JSON `{error, error_description}` — 400 for
 *   every protocol refusal (`authorization_pending`, `slow_down`, `expired_token`,
 *   `access_denied`, `invalid_grant`, `invalid_client`, …), 500 and 503 otherwise.
 */
import { HttpServerRequest, HttpServerResponse } from "effect/http"
import { AccountsRepo } from "@switchboard/core/accounts"
import { Sessions } from "@switchboard/core/dashboard"
import { base64url, constantTimeEqual } from "@switchboard/core/internal"
import { DEVICE_CODE_GRANT_TYPE, type IssuedTokens, OAuthProvider, type OAuthProtocolError, tokenResponseBody } from "@switchboard/core/oauth"
import { mac } from "@switchboard/core/shared"
import { Clock, Effect, Option, Redacted } from "effect"
import { illFormedText, readBodyText } from "../http/Body.js"
import { ServerConfig } from "../http/ServerConfig.js"
import { oauthFailure } from "../http/Surfaces.js"
import { currentSession } from "./DashboardSession.js"
import { type Form, jsonNoStore, MAX_FORM_BYTES, noStore, parseForm, protocolFailure, readForm } from "./OAuthHttp.js"
import { codeEntryPage, DEVICE_PAGE_PATH, deviceAuthorizationBody, deviceResultPage } from "./OAuthDevicePages.js"
import { consentPage, plainPage } from "./OAuthPages.js"

export const DEVICE_V1_PATHS = { code: "/v1/auth/device/code", token: "/v1/auth/device/token" } as const

/** How long the consent screen of a device request can be answered. */
const CONSENT_TTL_MS = 60 * 60 * 1000

const deviceProof = (sessionId: string, issued: string, userCode: string) =>
  Effect.map(mac("oauth-device-consent", `${sessionId}\n${issued}\n${userCode}`), base64url)

const signInFirst = (returnTo: string) =>
  HttpServerResponse.empty({ status: 303, headers: { location: `/sign-in?returnTo=${encodeURIComponent(returnTo)}`, ...noStore } })

const pageFor = (userCode: string) => `${DEVICE_PAGE_PATH}?user_code=${encodeURIComponent(userCode)}`

/** `GET /device[?user_code=…]`. */
export const devicePageGet = Effect.gen(function*() {
  const request = yield* HttpServerRequest.HttpServerRequest
  const params = new URL(request.url, "http://localhost").searchParams
  const typed = params.getAll("user_code")
  const userCode = typed.length === 1 && typed[0]!.length <= 32 && illFormedText(typed[0]!) === undefined ? typed[0]!.trim() : undefined
  const session = yield* currentSession
  if (Option.isNone(session)) return signInFirst(userCode === undefined ? DEVICE_PAGE_PATH : pageFor(userCode))
  if (typed.length === 0 || userCode === "") return codeEntryPage()
  if (userCode === undefined) return codeEntryPage({ error: "That is not a code.", status: 400 })
  const s = session.value
  const provider = yield* OAuthProvider
  const found = yield* provider.lookupDevice({ userCode, accountId: s.accountId })
  switch (found._tag) {
    case "Limited":
      return codeEntryPage({ error: `Too many codes tried; wait ${found.retryAfterSeconds} seconds.`, value: userCode, status: 429 })
    case "Unknown":
      return codeEntryPage({ error: "That code is not valid, has expired or was already used.", value: userCode, status: 400 })
    case "Found": {
      const account = yield* Effect.flatMap(AccountsRepo, (repo) => repo.findById(s.accountId))
      const issued = String(yield* Clock.currentTimeMillis)
      return consentPage({
        app: found.app,
        scopes: found.scopes,
        accountEmail: Option.match(account, { onNone: () => "", onSome: (a) => a.email }),
        action: DEVICE_PAGE_PATH,
        fields: { user_code: found.userCode, issued, proof: yield* deviceProof(s.sessionId, issued, found.userCode) },
        switchAccountUrl: `/sign-in?returnTo=${encodeURIComponent(pageFor(found.userCode))}`,
        note: `Check that your device shows the code ${found.userCode}.`
      })
    }
  }
})

/** `POST /device`: the consent screen's answer. */
export const devicePagePost = Effect.gen(function*() {
  const form = yield* readForm.pipe(Effect.catch(() => Effect.succeed(new Map<string, string>() as Form)))
  const userCode = form.get("user_code") ?? ""
  const issued = form.get("issued") ?? ""
  const proof = form.get("proof") ?? ""
  const decision = form.get("decision")
  if (userCode.length === 0 || userCode.length > 32) return codeEntryPage({ error: "The form is incomplete.", status: 400 })
  const session = yield* currentSession
  if (Option.isNone(session)) return signInFirst(pageFor(userCode))
  const s = session.value
  const now = yield* Clock.currentTimeMillis
  const shownAt = /^\d{1,15}$/.test(issued) ? Number(issued) : Number.NaN
  const expected = yield* deviceProof(s.sessionId, issued, userCode)
  if (!constantTimeEqual(expected, proof) || !(shownAt <= now && now - shownAt < CONSENT_TTL_MS)) {
    return plainPage("Request expired", `<h1>This form expired</h1><p class="error" role="alert">It does not belong to this session or is too old. <a href="${DEVICE_PAGE_PATH}">Enter the code again</a>.</p>`, 403)
  }
  if (decision !== "approve" && decision !== "deny") return codeEntryPage({ error: "The form has no decision.", status: 400 })
  const provider = yield* OAuthProvider
  const decided = yield* provider.decideDevice({ userCode, accountId: s.accountId, authTime: s.authenticatedAt, approve: decision === "approve" })
  return Option.match(decided, {
    onNone: () => deviceResultPage("gone"),
    onSome: (app) => deviceResultPage(decision === "approve" ? "approved" : "denied", app.name)
  })
})

/** The /v1 endpoints' body: JSON (an object of strings) or a form; empty is no parameters. */
const readParams = Effect.gen(function*() {
  const request = yield* HttpServerRequest.HttpServerRequest
  const contentType = (request.headers["content-type"] ?? "").toLowerCase()
  const text = yield* readBodyText(MAX_FORM_BYTES).pipe(
    Effect.mapError((e) => oauthFailure(400, "invalid_request", e._tag === "BodyTooLarge" ? `The body exceeds ${MAX_FORM_BYTES} bytes.` : e.message))
  )
  if (text.trim() === "") return new Map<string, string>() as Form
  if (/^application\/(?:[\w.+-]+\+)?json\s*(;|$)/.test(contentType)) {
    let parsed: unknown
    try {
      parsed = JSON.parse(text)
    } catch {
      return yield* oauthFailure(400, "invalid_request", "The body is not valid JSON.")
    }
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
      return yield* oauthFailure(400, "invalid_request", "The body must be a JSON object.")
    }
    const params = new Map<string, string>()
    for (const [name, value] of Object.entries(parsed)) {
      if (value === null || value === undefined || value === "") continue
      const why = typeof value !== "string" ? "must be a string" : illFormedText(name) ?? illFormedText(value)
      if (why !== undefined) return yield* oauthFailure(400, "invalid_request", `The parameter ${JSON.stringify(name.slice(0, 64))} ${why}.`)
      params.set(name, value as string)
    }
    return params as Form
  }
  if (/^application\/x-www-form-urlencoded\s*(;|$)/.test(contentType)) {
    const parsed = parseForm(text)
    if ("repeated" in parsed) return yield* oauthFailure(400, "invalid_request", `The parameter ${parsed.repeated.slice(0, 64)} must not be repeated.`)
    for (const [name, value] of parsed.form) {
      const why = illFormedText(name) ?? illFormedText(value)
      if (why !== undefined) return yield* oauthFailure(400, "invalid_request", `The parameter ${JSON.stringify(name.slice(0, 64))} ${why}.`)
    }
    return parsed.form
  }
  return yield* oauthFailure(400, "invalid_request", "The body must be JSON or application/x-www-form-urlencoded.")
})

/** The contract's failures: every protocol refusal 400 (no 401 on these endpoints), then 500 and 503. */
const v1Failure = (e: OAuthProtocolError) => {
  const f = protocolFailure(e)
  return f.status >= 500 ? f : oauthFailure(400, f.error, f.description)
}

/** The client of a /v1 device request: the body's, else the server's `DEVICE_CLIENT_ID`. */
const v1Client = (params: Form) =>
  Effect.gen(function*() {
    const config = yield* ServerConfig
    const provider = yield* OAuthProvider
    const clientId = params.get("client_id") ?? Option.getOrUndefined(config.deviceClientId)
    if (clientId === undefined) {
      return yield* oauthFailure(400, "invalid_client", "client_id is required (this server has no default device client: DEVICE_CLIENT_ID).")
    }
    const secret = params.get("client_secret")
    return yield* provider.authenticateClient({
      clientId,
      secret: secret === undefined ? null : Redacted.make(secret),
      viaBasic: false
    }).pipe(Effect.mapError(v1Failure))
  })

/** `deviceAuthorize`: the tokens it leads to are for the API (`resource` = API_URL). */
export const v1DeviceCode = Effect.gen(function*() {
  const params = yield* readParams
  const client = yield* v1Client(params)
  const provider = yield* OAuthProvider
  const started = yield* provider.startDevice({ client, scope: params.get("scope"), resource: provider.resourceUrl }).pipe(
    Effect.mapError(v1Failure)
  )
  return jsonNoStore(deviceAuthorizationBody(started, provider.issuer))
})

/** `DeviceTokenResponse`: the token response with the account it is for. */
const v1TokenBody = (t: IssuedTokens) => ({
  ...tokenResponseBody(t),
  user: { id: t.account.accountId, email: t.account.email, first_name: t.account.firstName, last_name: t.account.lastName },
  authentication_method: "device_code"
})

/** `deviceToken`: the device code's tokens (once), or a refresh token's rotation. */
export const v1DeviceToken = Effect.gen(function*() {
  const params = yield* readParams
  const grantType = params.get("grant_type")
  if (grantType !== DEVICE_CODE_GRANT_TYPE && grantType !== "refresh_token") {
    return yield* grantType === undefined
      ? oauthFailure(400, "invalid_request", "grant_type is required.")
      : oauthFailure(400, "unsupported_grant_type", `grant_type must be ${DEVICE_CODE_GRANT_TYPE} or refresh_token.`)
  }
  const client = yield* v1Client(params)
  const provider = yield* OAuthProvider
  if (grantType === "refresh_token") {
    const refreshToken = params.get("refresh_token")
    if (refreshToken === undefined) return yield* oauthFailure(400, "invalid_request", "refresh_token is required.")
    return jsonNoStore(v1TokenBody(yield* provider.refresh({ client, refreshToken, scope: params.get("scope") }).pipe(Effect.mapError(v1Failure))))
  }
  const deviceCode = params.get("device_code")
  if (deviceCode === undefined) return yield* oauthFailure(400, "invalid_request", "device_code is required.")
  return jsonNoStore(v1TokenBody(yield* provider.pollDevice({ client, deviceCode }).pipe(Effect.mapError(v1Failure))))
})

/** What these handlers use, taken from the application once. */
export type DeviceRouteNeeds = OAuthProvider | Sessions | AccountsRepo | ServerConfig
