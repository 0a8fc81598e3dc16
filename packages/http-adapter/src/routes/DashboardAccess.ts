/**
 * Who is calling the Dashboard API, and may they (docs/api-notes/dashboard-api.md):
 *
 * - `Authorization: Bearer <opaque access token>` from the OAuth token endpoint: its scopes, through
 *   `OAuthGrants.verifyAccessToken`. A header that is sent wins over a cookie; an unknown, expired or
 *   revoked token is 401 (`WWW-Authenticate: Bearer … error="invalid_token"`).
 * - the `sb_session` cookie of a signed-in session: every scope.
 * - neither: 401 with a bare `Bearer` challenge.
 *
 * A valid token without the operation's scope is 403 whose message contains
 * `insufficient_scope: <scope>` (and the RFC 6750 challenge). Session-only operations refuse
 * tokens (403). State-changing requests on the cookie pass the CSRF rules of `DashboardSession`.
 */
import { HttpServerRequest } from "effect/http"
import { Principal } from "@switchboard/core/credentials"
import { type Session, Sessions } from "@switchboard/core/dashboard"
import { OAuthGrants } from "@switchboard/core/oauth"
import { type AuthenticationFacts, CurrentAuthentication } from "@switchboard/core/sso"
import { type AccountId, type ServerSecret } from "@switchboard/core/shared"
import { Effect, Option } from "effect"
import { ServerConfig } from "../http/ServerConfig.js"
import { type EnvelopeFailure, envelopeFailure } from "../http/Surfaces.js"
import type { RawBody } from "./DashboardBody.js"
import type { Access } from "../dashboard/Declare.js"
import { CSRF_HEADER, currentSession, isCsrfTokenOf, isSameOrigin, isUnsafeMethod } from "./DashboardSession.js"

export type DashboardCaller =
  | { readonly _tag: "Session"; readonly accountId: AccountId; readonly session: Session }
  | {
    readonly _tag: "Token"
    readonly accountId: AccountId
    readonly scopes: ReadonlyArray<string>
    readonly clientId: string
    readonly grantId: string
  }

/** The caller as the core's principal (membership rules are the account's). */
export const principalOf = (caller: DashboardCaller): Principal & { readonly accountId: AccountId } =>
  Principal.AccessToken({
    accountId: caller.accountId,
    scopes: caller._tag === "Token" ? caller.scopes : [],
    tokenId: caller._tag === "Token" ? caller.grantId : caller.session.sessionId,
    origin: caller._tag === "Token" ? "grant" : "session"
  }) as Principal & { readonly accountId: AccountId }

/** Whether the caller holds a scope (a session holds all). */
export const hasScope = (caller: DashboardCaller, scope: string) => caller._tag === "Session" || caller.scopes.includes(scope)

const REALM = `Bearer realm="dashboard"`

export const notAuthenticated = (message: string, error?: "invalid_token" | "invalid_request") =>
  envelopeFailure(401, "NOT_AUTHENTICATED", message, {
    "www-authenticate": error === undefined ? REALM : `${REALM}, error="${error}"`
  })

export const insufficientScope = (scope: string) =>
  envelopeFailure(403, "INSUFFICIENT_SCOPE", `The access token lacks a scope this operation needs (insufficient_scope: ${scope}).`, {
    "www-authenticate": `${REALM}, error="insufficient_scope", scope="${scope}"`
  })

/** The caller of the request, if it sent a credential (a bad bearer token fails 401). */
export const authenticate: Effect.Effect<
  Option.Option<DashboardCaller>,
  EnvelopeFailure,
  HttpServerRequest.HttpServerRequest | Sessions | OAuthGrants
> = Effect.gen(function*() {
  const request = yield* HttpServerRequest.HttpServerRequest
  const authorization = request.headers["authorization"]
  if (authorization !== undefined) {
    const bearer = /^Bearer[ ]+([\x21-\x7e]{1,4096})\s*$/i.exec(authorization)?.[1]
    if (bearer === undefined) return yield* notAuthenticated("Send Authorization: Bearer <access token>.", "invalid_request")
    const verified = yield* (yield* OAuthGrants).verifyAccessToken(bearer)
    if (Option.isNone(verified)) {
      return yield* notAuthenticated("The access token is unknown, expired or revoked.", "invalid_token")
    }
    const t = verified.value
    return Option.some<DashboardCaller>({ _tag: "Token", accountId: t.accountId, scopes: t.scopes, clientId: t.clientId, grantId: t.grantId })
  }
  const session = yield* currentSession
  return Option.map(session, (s): DashboardCaller => ({ _tag: "Session", accountId: s.accountId, session: s }))
})

/**
 * Required SSO (core sso/SsoEnforcement.ts): `handler` runs knowing how the caller authenticated —
 * its session, whose SSO sign-ins core asks for when needed, or an access token.
 */
export const withAuthentication = <A, E, R>(caller: DashboardCaller, handler: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> => {
  const facts: AuthenticationFacts = caller._tag === "Session"
    ? { method: "session", ssoOrganizations: [], sessionId: caller.session.sessionId }
    : { method: "access_token", ssoOrganizations: [] }
  return Effect.provideService(handler, CurrentAuthentication, facts)
}

/** The caller an operation with `access` admits; none only for public operations (run its work `withAuthentication`). */
export const authorize = (access: Access) =>
  Effect.gen(function*() {
    // Public operations ignore credentials: a stale token must not break the health check.
    if (access._tag === "Public") return Option.none<DashboardCaller>()
    const caller = yield* authenticate
    if (Option.isNone(caller)) return yield* notAuthenticated("Sign in, or send Authorization: Bearer <access token>.")
    const c = caller.value
    if (access._tag === "Session" && c._tag === "Token") {
      return yield* envelopeFailure(403, "SESSION_REQUIRED", "This operation needs a signed-in session; OAuth access tokens cannot use it.")
    }
    if (access._tag === "Scope" && !hasScope(c, access.scope)) return yield* insufficientScope(access.scope)
    return caller
  })

/**
 * The CSRF rules for a request authenticated by the session cookie (see `DashboardSession`): a
 * valid token in `X-CSRF-Token` or the `_csrf` field; for JSON (or no body), alternatively a
 * same-origin `Origin`/`Referer` or `X-Requested-With`.
 */
export const checkCsrf = (
  caller: Option.Option<DashboardCaller>,
  raw: RawBody | undefined
): Effect.Effect<void, EnvelopeFailure, HttpServerRequest.HttpServerRequest | ServerConfig | ServerSecret> =>
  Effect.gen(function*() {
    if (Option.isNone(caller) || caller.value._tag !== "Session") return
    const request = yield* HttpServerRequest.HttpServerRequest
    if (!isUnsafeMethod(request.method)) return
    const config = yield* ServerConfig
    const presented = request.headers[CSRF_HEADER] ?? raw?.csrf
    if (yield* isCsrfTokenOf(caller.value.session.sessionId, presented)) return
    const isForm = raw?.kind === "form" || raw?.kind === "multipart"
    if (!isForm && (isSameOrigin(request, config) || request.headers["x-requested-with"] !== undefined)) return
    return yield* envelopeFailure(
      403,
      "CSRF_CHECK_FAILED",
      isForm
        ? "The form lacks a valid _csrf token (GET /api/auth/get-session gives it)."
        : "Send X-CSRF-Token (from GET /api/auth/get-session), a same-origin Origin, or X-Requested-With with cookie-authenticated requests."
    )
  })
