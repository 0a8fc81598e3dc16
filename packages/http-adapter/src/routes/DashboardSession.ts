/**
 * The Dashboard's session cookie and CSRF rules (docs/api-notes/dashboard-api.md sign-in
 * component):
 *
 * - `sb_session` carries the opaque session token: `HttpOnly`, `SameSite=Lax`, `Path=/`, and
 *   `Secure` when the request came over TLS (or through a trusted proxy that says so) or the
 *   Dashboard's public URL is https.
 * - A state-changing request authenticated by the cookie must prove it comes from our own pages:
 *   a valid `X-CSRF-Token` header or `_csrf` form field (an HMAC of the session id under the
 *   server secret, handed out by `GET /api/auth/get-session` and embedded in our forms), or — for
 *   JSON, which browsers only send cross-origin after a CORS preflight we never grant — an
 *   `Origin` of the Dashboard or the custom header `X-Requested-With`.
 * - Before a session exists (the sign-in and sign-up forms) the token is double-submitted: a
 *   random `sb_csrf` cookie whose value the form repeats.
 */
import { HttpServerRequest, HttpServerResponse } from "effect/http"
import { type Session, Sessions } from "@switchboard/core/dashboard"
import { base64url, constantTimeEqual } from "@switchboard/core/internal"
import { mac, type ServerSecret } from "@switchboard/core/shared"
import { Effect, Option } from "effect"
import type { ServerConfigShape } from "../http/ServerConfig.js"

export const SESSION_COOKIE = "sb_session"
/** The double-submit cookie of the forms shown before sign-in. */
export const CSRF_COOKIE = "sb_csrf"
/** The form field and the header that carry a CSRF token. */
export const CSRF_FIELD = "_csrf"
export const CSRF_HEADER = "x-csrf-token"

/** The session token the request's cookie carries, if any. */
export const sessionToken: Effect.Effect<Option.Option<string>, never, HttpServerRequest.HttpServerRequest> = Effect.map(
  HttpServerRequest.HttpServerRequest,
  (request) => Option.fromNullishOr(request.cookies[SESSION_COOKIE]).pipe(Option.filter((t) => t.length > 0 && t.length <= 256))
)

/** The live session of the request's cookie. */
export const currentSession: Effect.Effect<Option.Option<Session>, never, HttpServerRequest.HttpServerRequest | Sessions> = Effect.gen(
  function*() {
    const token = yield* sessionToken
    if (Option.isNone(token)) return Option.none()
    const sessions = yield* Sessions
    return yield* sessions.resolve(token.value)
  }
)

/** Whether the request reached us over TLS (directly, or through a trusted proxy). */
export const cameOverTls = (request: HttpServerRequest.HttpServerRequest, config: ServerConfigShape): boolean => {
  const socket = (request.source as { readonly socket?: { readonly encrypted?: boolean } } | undefined)?.socket
  if (socket?.encrypted === true) return true
  return config.trustProxy && (request.headers["x-forwarded-proto"] ?? "").split(",")[0]?.trim().toLowerCase() === "https"
}

/** Whether cookies we set must be `Secure`. */
export const secureCookies = (request: HttpServerRequest.HttpServerRequest, config: ServerConfigShape): boolean =>
  config.dashboardUrl.toLowerCase().startsWith("https:") || cameOverTls(request, config)

/** Sets the session cookie (its lifetime is the session's). */
export const withSessionCookie = (
  response: HttpServerResponse.HttpServerResponse,
  token: string,
  expiresAt: Date,
  secure: boolean
) =>
  HttpServerResponse.setCookieUnsafe(response, SESSION_COOKIE, token, {
    httpOnly: true,
    sameSite: "lax",
    path: "/",
    secure,
    expires: expiresAt
  })

/** Removes the session cookie. */
export const withoutSessionCookie = (response: HttpServerResponse.HttpServerResponse, secure: boolean) =>
  HttpServerResponse.setCookieUnsafe(response, SESSION_COOKIE, "", {
    httpOnly: true,
    sameSite: "lax",
    path: "/",
    secure,
    expires: new Date(0),
    maxAge: 0
  })

/** Sets the double-submit CSRF cookie of the pre-sign-in forms (a session cookie of the browser). */
export const withCsrfCookie = (response: HttpServerResponse.HttpServerResponse, value: string, secure: boolean) =>
  HttpServerResponse.setCookieUnsafe(response, CSRF_COOKIE, value, { httpOnly: true, sameSite: "lax", path: "/", secure })

/** The CSRF token bound to a session: HMAC-SHA-256 of its id under the server secret's CSRF subkey. */
export const csrfTokenFor = (sessionId: string): Effect.Effect<string, never, ServerSecret> =>
  Effect.map(mac("dashboard-csrf", sessionId), base64url)

/** Whether `presented` is the session's CSRF token. */
export const isCsrfTokenOf = (sessionId: string, presented: string | undefined) =>
  presented === undefined || presented.length === 0 || presented.length > 128
    ? Effect.succeed(false)
    : Effect.map(csrfTokenFor(sessionId), (expected) => constantTimeEqual(expected, presented))

/** Whether a double-submitted token matches the `sb_csrf` cookie. */
export const isDoubleSubmitted = (request: HttpServerRequest.HttpServerRequest, presented: string | undefined): boolean => {
  const cookie = request.cookies[CSRF_COOKIE]
  return cookie !== undefined && cookie.length >= 16 && presented !== undefined && constantTimeEqual(cookie, presented)
}

/** The origins our own pages are served from: the Dashboard's public URL, and the address asked for. */
const ownOrigins = (request: HttpServerRequest.HttpServerRequest, config: ServerConfigShape) => {
  const origins = new Set<string>()
  try {
    origins.add(new URL(config.dashboardUrl).origin)
  } catch {
    // A malformed DASHBOARD_URL matches nothing.
  }
  const host = request.headers["host"]
  if (host !== undefined && /^[A-Za-z0-9.[\]:-]{1,300}$/.test(host)) {
    origins.add(`${cameOverTls(request, config) ? "https" : "http"}://${host.toLowerCase()}`)
  }
  return origins
}

/** Whether the request's `Origin` (or, without one, `Referer`) is one of ours. */
export const isSameOrigin = (request: HttpServerRequest.HttpServerRequest, config: ServerConfigShape): boolean => {
  const origin = request.headers["origin"]
  const candidate = origin !== undefined && origin !== "null"
    ? origin
    : (() => {
      try {
        return request.headers["referer"] === undefined ? undefined : new URL(request.headers["referer"]).origin
      } catch {
        return undefined
      }
    })()
  return candidate !== undefined && ownOrigins(request, config).has(candidate.toLowerCase())
}

/** Whether the method changes state (CSRF checks apply). */
export const isUnsafeMethod = (method: string) => method !== "GET" && method !== "HEAD" && method !== "OPTIONS"
