/**
 * The authorization endpoint and the consent screen (docs/api-notes/oauth.md):
 *
 * - `GET /api/auth/oauth2/authorize`: the request is checked in `AuthorizationRequest.ts`'s order;
 *   an unknown client or an unregistered redirect URI shows an error page, every later error is
 *   redirected with `error`, `error_description`, `state` and `iss`. A signed-out user (and
 *   `prompt=login`) goes to `/sign-in?returnTo=<this request>` and comes back; `prompt=none`
 *   answers `login_required` / `consent_required` instead. A live grant covering the scopes skips
 *   the consent screen unless `prompt=consent`.
 * - `POST /api/auth/oauth2/consent`: the consent screen's form. Its CSRF token is an HMAC under the
 *   server secret of the session id, the time the page was shown and the exact request, so it works
 *   only for that session, that request and one hour. Approve → the grant gains the scopes and the
 *   app gets a code; deny → `access_denied`.
 *
 * `prompt=login` must not loop: the request sent through sign-in carries `sb_login_after` (the
 * time sign-in was asked for) instead, and a session authenticated before then signs in again.
 * A request back from sign-in (`sb_login_after` or `sb_signed_in`) whose consent is remembered
 * answers with a page that continues to the app rather than a redirect: the sign-in form's CSP
 * (`form-action 'self'`) would cut a redirect chain that ends at the app's origin.
 */
import { HttpServerRequest, HttpServerResponse } from "effect/http"
import { AccountsRepo } from "@switchboard/core/accounts"
import { type Session } from "@switchboard/core/dashboard"
import {
  type AuthorizationRequest,
  checkAuthorizationRequest,
  clientIdOf,
  type OAuthApp,
  OAuthProvider,
  type Params
} from "@switchboard/core/oauth"
import { base64url, constantTimeEqual } from "@switchboard/core/internal"
import { mac } from "@switchboard/core/shared"
import { Cause, Clock, DateTime, Effect, Option, Redacted } from "effect"
import { currentSession } from "./DashboardSession.js"
import { noStore, readForm, redirectResponse, redirectTo } from "./OAuthHttp.js"
import { consentPage, continuePage, errorPage } from "./OAuthPages.js"

export const AUTHORIZE_PATH = "/api/auth/oauth2/authorize"
export const CONSENT_PATH = "/api/auth/oauth2/consent"
/** Our own parameter on requests sent through sign-in for `prompt=login` (epoch ms). */
export const LOGIN_AFTER = "sb_login_after"
/** Our own parameter on requests sent through sign-in because nobody was signed in. */
export const SIGNED_IN = "sb_signed_in"
/** The longest `returnTo` the sign-in page keeps (DashboardPages.safeReturnTo). */
const RETURN_TO_MAX = 2048
/** How long a consent screen can be answered. */
const CONSENT_TTL_MS = 60 * 60 * 1000
const MAX_REQUEST_FIELD = 16 * 1024

const consentProof = (sessionId: string, issued: string, query: string) =>
  Effect.map(mac("oauth-consent", `${sessionId}\n${issued}\n${query}`), base64url)

/** The request's query as parameters, ours removed. */
const clientParams = (params: Params): Params => params.filter(([k]) => k !== LOGIN_AFTER && k !== SIGNED_IN)

/** The authorize URL (path and query) of `params`. */
const authorizeUrl = (params: Params) =>
  `${AUTHORIZE_PATH}?${new URLSearchParams(params.map(([k, v]): [string, string] => [k, v])).toString()}`

/** `params` with `prompt` changed (login removed or added) and the sign-in marker set. */
const withPrompt = (params: Params, prompt: ReadonlySet<string>, marker: readonly [string, string] | undefined): Params => {
  const kept = clientParams(params).filter(([k]) => k !== "prompt")
  return [
    ...kept,
    ...(prompt.size === 0 ? [] : [["prompt", [...prompt].join(" ")] as const]),
    ...(marker === undefined ? [] : [marker])
  ]
}

const parseLoginAfter = (params: Params): number | undefined => {
  const raw = params.find(([k]) => k === LOGIN_AFTER)?.[1]
  return raw !== undefined && /^\d{1,15}$/.test(raw) ? Number(raw) : undefined
}

/** Redirects of one validated request: every one carries `iss` and the caller's `state`. */
const responder = (request: { readonly redirectUri: string; readonly state: string | null }, issuer: string, status: 302 | 303) => ({
  error: (error: string, description: string) =>
    redirectResponse(
      redirectTo(request.redirectUri, [
        ["error", error],
        ["error_description", description],
        ...(request.state === null ? [] : [["state", request.state] as const]),
        ["iss", issuer]
      ]),
      status
    ),
  code: (code: string) =>
    redirectResponse(
      redirectTo(request.redirectUri, [
        ["code", code],
        ...(request.state === null ? [] : [["state", request.state] as const]),
        ["iss", issuer]
      ]),
      status
    )
})

/** Checks a request (steps 1–7): the page, the redirected error, or the valid request. */
const validate = (params: Params) =>
  Effect.gen(function*() {
    const provider = yield* OAuthProvider
    const client = clientIdOf(params)
    if ("_tag" in client) return client
    const app = yield* provider.findClient(client.clientId)
    const checked = checkAuthorizationRequest(params, Option.getOrUndefined(app), provider.resourceUrl)
    return checked._tag === "Valid" ? { ...checked, app: Option.getOrThrow(app) } : checked
  })

/** After validation nothing fails to the user's browser as JSON: an unexpected failure is a `server_error` redirect. */
const orServerError = <R>(
  self: Effect.Effect<HttpServerResponse.HttpServerResponse, never, R>,
  fallback: () => HttpServerResponse.HttpServerResponse
) =>
  Effect.catchCause(self, (cause) =>
    Cause.hasInterruptsOnly(cause)
      ? Effect.failCause(cause)
      : Effect.as(Effect.logError("authorization request failed", Cause.pretty(cause)), fallback()))

const authorizeValid = (
  params: Params,
  query: string,
  request: AuthorizationRequest,
  app: OAuthApp
) =>
  Effect.gen(function*() {
    const provider = yield* OAuthProvider
    const reply = responder(request, provider.issuer, 302)
    const session = yield* currentSession
    const loginAfter = parseLoginAfter(params)
    const forceLogin = request.prompt.has("login")
    const needsLogin = Option.isNone(session) || forceLogin ||
      (loginAfter !== undefined && DateTime.toEpochMillis(session.value.authenticatedAt) < loginAfter)
    if (needsLogin) {
      if (request.prompt.has("none")) return reply.error("login_required", "The user is not signed in.")
      const prompt = new Set<string>(request.prompt)
      prompt.delete("login")
      const now = yield* Clock.currentTimeMillis
      const marker = forceLogin
        ? [LOGIN_AFTER, String(now)] as const
        : loginAfter !== undefined
        ? [LOGIN_AFTER, String(loginAfter)] as const
        : [SIGNED_IN, "1"] as const
      const returnTo = authorizeUrl(withPrompt(params, prompt, marker))
      if (returnTo.length > RETURN_TO_MAX) {
        return reply.error("invalid_request", "The authorization request is too long to continue through sign-in.")
      }
      return HttpServerResponse.empty({
        status: 303,
        headers: { location: `/sign-in?returnTo=${encodeURIComponent(returnTo)}`, ...noStore }
      })
    }
    const s: Session = session.value
    if (!request.prompt.has("consent") && (yield* provider.hasConsent(s.accountId, request.clientId, request.scopes))) {
      const code = yield* provider.issueCode({ accountId: s.accountId, request, authTime: s.authenticatedAt, consented: false }).pipe(
        Effect.map(Option.some),
        // The grant was withdrawn meanwhile: ask for consent again.
        Effect.catchTag("OAuthProtocolError", () => Effect.succeed(Option.none<Redacted.Redacted<string>>()))
      )
      if (Option.isSome(code)) {
        const response = reply.code(Redacted.value(code.value))
        const backFromSignIn = params.some(([k]) => k === LOGIN_AFTER || k === SIGNED_IN)
        return backFromSignIn ? continuePage(app.name, response.headers["location"]!) : response
      }
    }
    if (request.prompt.has("none")) return reply.error("consent_required", "The user has not consented to these scopes.")
    const account = yield* Effect.flatMap(AccountsRepo, (repo) => repo.findById(s.accountId))
    const issued = String(yield* Clock.currentTimeMillis)
    const loginAgain = new Set<string>(request.prompt)
    loginAgain.add("login")
    return consentPage({
      app,
      scopes: request.scopes,
      accountEmail: Option.match(account, { onNone: () => "", onSome: (a) => a.email }),
      action: CONSENT_PATH,
      fields: { request: query, issued, proof: yield* consentProof(s.sessionId, issued, query) },
      switchAccountUrl: authorizeUrl(withPrompt(params, loginAgain, undefined))
    })
  })

/** `GET /api/auth/oauth2/authorize`. */
export const authorizeGet = Effect.gen(function*() {
  const request = yield* HttpServerRequest.HttpServerRequest
  const url = new URL(request.url, "http://localhost")
  const query = url.search.startsWith("?") ? url.search.slice(1) : url.search
  const params: Params = [...url.searchParams.entries()]
  const checked = yield* validate(params)
  switch (checked._tag) {
    case "ShowError":
      return errorPage(checked.error, checked.description)
    case "RedirectError": {
      const provider = yield* OAuthProvider
      return responder(checked, provider.issuer, 302).error(checked.error, checked.description)
    }
    case "Valid": {
      const provider = yield* OAuthProvider
      return yield* orServerError(
        authorizeValid(params, query, checked.request, checked.app),
        () => responder(checked.request, provider.issuer, 302).error("server_error", "The request could not be completed.")
      )
    }
  }
})

/** `POST /api/auth/oauth2/consent`: the consent screen's answer. */
export const consentPost = Effect.gen(function*() {
  const form = yield* readForm
  const query = form.get("request") ?? ""
  const issued = form.get("issued") ?? ""
  const proof = form.get("proof") ?? ""
  if (query.length === 0 || query.length > MAX_REQUEST_FIELD) return errorPage("invalid_request", "The consent form is incomplete.")
  const session = yield* currentSession
  // Signed out (or the session ended) while the screen was open: start the request over.
  if (Option.isNone(session)) return HttpServerResponse.empty({ status: 303, headers: { location: `${AUTHORIZE_PATH}?${query}`, ...noStore } })
  const now = yield* Clock.currentTimeMillis
  const shownAt = /^\d{1,15}$/.test(issued) ? Number(issued) : Number.NaN
  const expected = yield* consentProof(session.value.sessionId, issued, query)
  if (!constantTimeEqual(expected, proof) || !(shownAt <= now && now - shownAt < CONSENT_TTL_MS)) {
    return errorPage("access_denied", "The consent form expired or does not belong to this session. Start again from the app.", 403)
  }
  const params: Params = [...new URLSearchParams(query).entries()]
  const checked = yield* validate(params)
  switch (checked._tag) {
    case "ShowError":
      return errorPage(checked.error, checked.description)
    case "RedirectError": {
      const provider = yield* OAuthProvider
      return responder(checked, provider.issuer, 303).error(checked.error, checked.description)
    }
    case "Valid": {
      const provider = yield* OAuthProvider
      const reply = responder(checked.request, provider.issuer, 303)
      const decision = form.get("decision")
      if (decision === "deny") return reply.error("access_denied", "The user denied the request.")
      if (decision !== "approve") return errorPage("invalid_request", "The consent form has no decision.")
      const s = session.value
      return yield* orServerError(
        Effect.map(
          provider.issueCode({ accountId: s.accountId, request: checked.request, authTime: s.authenticatedAt, consented: true }).pipe(
            Effect.orDie
          ),
          (code) => reply.code(Redacted.value(code))
        ),
        () => reply.error("server_error", "The request could not be completed.")
      )
    }
  }
})
