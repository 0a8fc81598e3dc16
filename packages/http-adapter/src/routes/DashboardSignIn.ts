/**
 * The sign-in component (docs/api-notes/dashboard-api.md; outside the Dashboard API's operation
 * list):
 *
 * | route | what |
 * |---|---|
 * | `GET /sign-in?returnTo=<path>` | the sign-in page, always (even when signed in) |
 * | `POST /api/auth/sign-in/email` | `{email, password, code?, returnTo?}`: a new session |
 * | `POST /api/auth/sign-up/email` | `{email, password, name?|firstName?, lastName?}`: an account and a session |
 * | `POST /api/auth/sign-out` | ends the session |
 * | `GET /api/auth/get-session` | the session, its user and its CSRF token; `data: null` when signed out |
 * | `GET /api/auth/token` | a JWT access token for `/v1` (session only) |
 *
 * Bodies come in the three content types. A form post answers like a browser expects — 303 to
 * `returnTo` (same-origin relative paths only, else `/`) on success, the page again with a message
 * otherwise — and must carry the double-submit token the page embeds. A JSON post answers the
 * envelope; it cannot come from another site's page (JSON needs a CORS preflight we never grant),
 * and a cross-site `Origin` is refused anyway. Successful sign-ins always set a new session cookie.
 */
import { HttpServerRequest, HttpServerResponse } from "effect/http"
import { type AccountRecord, Accounts } from "@switchboard/core/accounts"
import { mintSessionAccessToken, type Session, Sessions, SignIn } from "@switchboard/core/dashboard"
import { type SigningKeys } from "@switchboard/core/oauth"
import { base64url } from "@switchboard/core/internal"
import { type Secrets, type ServerSecret } from "@switchboard/core/shared"
import { DateTime, Effect, Option, Redacted, Schema } from "effect"
import { ServerConfig } from "../http/ServerConfig.js"
import { type EnvelopeFailure, envelopeFailure } from "../http/Surfaces.js"
import { defaultPictureUrl } from "../v1/DefaultPicture.js"
import { checkCsrf, notAuthenticated } from "./DashboardAccess.js"
import { decodeBodyAs, type RawBody, readDashboardBody } from "./DashboardBody.js"
import { type DashboardFailure, envelopeOfError } from "./DashboardErrors.js"
import { safeReturnTo, signInPage } from "./DashboardPages.js"
import * as S from "./DashboardSchemas.js"
import {
  CSRF_COOKIE,
  csrfTokenFor,
  currentSession,
  isDoubleSubmitted,
  isSameOrigin,
  secureCookies,
  sessionToken,
  withCsrfCookie,
  withoutSessionCookie,
  withSessionCookie
} from "./DashboardSession.js"

export const signInRouteTable: ReadonlyArray<readonly [string, string]> = [
  ["GET", "/sign-in"],
  ["POST", "/api/auth/sign-in/email"],
  ["POST", "/api/auth/sign-up/email"],
  ["POST", "/api/auth/sign-out"],
  ["GET", "/api/auth/get-session"],
  ["GET", "/api/auth/token"]
]

const noStore = { "cache-control": "no-store" }

const envelope = <A, I>(schema: Schema.Codec<A, I>, value: A, headers: Record<string, string> = noStore) =>
  Effect.map(Effect.orDie(Schema.encodeEffect(schema)(value)), (data) => HttpServerResponse.jsonUnsafe({ succeed: true, data }, { headers }))

/** The name shown for an account. */
const nameOf = (a: AccountRecord) =>
  [a.firstName, a.lastName].filter((p): p is string => p !== null && p !== "").join(" ") || (a.email.split("@")[0] ?? a.email)

export const sessionInfo = (session: Session, account: AccountRecord, apiUrl: string) =>
  Effect.map(csrfTokenFor(session.sessionId), (csrfToken) => ({
    session: { createdAt: session.createdAt, expiresAt: session.expiresAt, authenticatedAt: session.authenticatedAt },
    user: { id: account.accountId, email: account.email, name: nameOf(account), picture: account.pictureUrl ?? defaultPictureUrl(apiUrl) },
    csrfToken
  }))

/** The page's double-submit token: the request's `sb_csrf` cookie, or a new one (then set). */
export const pageCsrf = (request: HttpServerRequest.HttpServerRequest) =>
  Effect.gen(function*() {
    const existing = request.cookies[CSRF_COOKIE]
    if (existing !== undefined && /^[A-Za-z0-9_-]{32,64}$/.test(existing)) return { token: existing, fresh: false }
    const crypto = globalThis.crypto.getRandomValues(new Uint8Array(32))
    return { token: base64url(crypto), fresh: true }
  })

const isForm = (raw: RawBody) => raw.kind === "form" || raw.kind === "multipart"

/** A JSON post must not come from another origin's page (when the browser says where it comes from). */
const refuseCrossOrigin = Effect.gen(function*() {
  const request = yield* HttpServerRequest.HttpServerRequest
  const config = yield* ServerConfig
  if (request.headers["origin"] !== undefined && !isSameOrigin(request, config)) {
    return yield* envelopeFailure(403, "CSRF_CHECK_FAILED", "Cross-origin sign-in requests are refused.")
  }
})

type Outcome = { readonly session: Session; readonly token: Redacted.Redacted<string>; readonly account: AccountRecord }

/** Sets the new session (ending one the browser still had) and answers form or JSON. */
const signedIn = (raw: RawBody, outcome: Outcome, returnTo: string | undefined) =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const config = yield* ServerConfig
    const sessions = yield* Sessions
    const previous = yield* sessionToken
    if (Option.isSome(previous)) yield* sessions.revoke(previous.value)
    const secure = secureCookies(request, config)
    const response = isForm(raw)
      ? HttpServerResponse.empty({ status: 303, headers: { location: safeReturnTo(returnTo), ...noStore } })
      : yield* envelope(S.SessionInfo, yield* sessionInfo(outcome.session, outcome.account, config.apiUrl))
    return withSessionCookie(response, Redacted.value(outcome.token), DateTime.toDateUtc(outcome.session.expiresAt), secure)
  })

/** The page again after a failed form post, with the error's message. */
const pageAfter = (failure: EnvelopeFailure, fields: { readonly email?: string | undefined; readonly returnTo?: string | undefined }) =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const config = yield* ServerConfig
    const csrf = yield* pageCsrf(request)
    const page = signInPage({
      csrfToken: csrf.token,
      returnTo: safeReturnTo(fields.returnTo),
      email: fields.email,
      message: failure.message,
      needsCode: failure.code === "TOTP_REQUIRED" || failure.code === "INVALID_TOTP_CODE"
    }, failure.status)
    const withHeaders = failure.headers === undefined ? page : HttpServerResponse.setHeaders(page, failure.headers)
    return csrf.fresh ? withCsrfCookie(withHeaders, csrf.token, secureCookies(request, config)) : withHeaders
  })

/** Runs a sign-in or sign-up post: reads, checks CSRF, decodes, calls `run`, answers. */
const credentialPost = <A extends { readonly email: string; readonly returnTo?: string | undefined }, I, E extends DashboardFailure, R>(
  schema: Schema.Codec<A, I>,
  run: (body: A) => Effect.Effect<Outcome, E, R>
) =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const raw = yield* readDashboardBody
    const fieldsOf = (): { email?: string; returnTo?: string } => {
      const v = raw.value as Record<string, unknown>
      return {
        ...(typeof v?.email === "string" ? { email: v.email.slice(0, 254) } : {}),
        ...(typeof v?.returnTo === "string" ? { returnTo: v.returnTo } : {})
      }
    }
    const answer = <X>(self: Effect.Effect<X, EnvelopeFailure, any>) =>
      isForm(raw) ? Effect.catch(self, (f) => pageAfter(f, fieldsOf())) : self
    return yield* answer(Effect.gen(function*() {
      if (isForm(raw)) {
        if (!isDoubleSubmitted(request, raw.csrf)) {
          return yield* envelopeFailure(403, "CSRF_CHECK_FAILED", "The form expired; please try again.")
        }
      } else {
        yield* refuseCrossOrigin
      }
      const body = yield* decodeBodyAs(schema, raw)
      const outcome = yield* Effect.mapError(run(body), envelopeOfError)
      return yield* signedIn(raw, outcome, body.returnTo)
    }))
  }).pipe(Effect.mapError(envelopeOfError))

export const signInRoutes = Effect.gen(function*() {
  const config = yield* ServerConfig
  const signIn = yield* SignIn
  const accounts = yield* Accounts

  const page = Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const url = new URL(request.url, "http://localhost")
    const csrf = yield* pageCsrf(request)
    const response = signInPage({ csrfToken: csrf.token, returnTo: safeReturnTo(url.searchParams.get("returnTo")) })
    return csrf.fresh ? withCsrfCookie(response, csrf.token, secureCookies(request, config)) : response
  })

  const signInPost = credentialPost(S.SignInBody, (body) =>
    signIn.signIn({ email: body.email, password: body.password, code: body.code }))

  const signUpPost = Effect.gen(function*() {
    if (!config.signUpEnabled) {
      return yield* envelopeFailure(403, "SIGN_UP_DISABLED", "Sign-up is turned off on this server; ask an administrator for an account.")
    }
    return yield* credentialPost(S.SignUpBody, (body) => {
      const [first, ...rest] = (body.name ?? "").trim().split(/\s+/)
      return signIn.signUp({
        email: body.email,
        password: body.password,
        firstName: body.firstName ?? (first === undefined || first === "" ? null : first),
        lastName: body.lastName ?? (rest.length > 0 ? rest.join(" ") : null)
      })
    })
  })

  const signOut = Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const sessions = yield* Sessions
    const raw = yield* readDashboardBody
    const session = yield* currentSession
    yield* checkCsrf(Option.map(session, (s) => ({ _tag: "Session" as const, accountId: s.accountId, session: s })), raw)
    const body = yield* decodeBodyAs(S.SignOutBody, raw)
    const token = yield* sessionToken
    if (Option.isSome(token)) yield* sessions.revoke(token.value)
    const response = isForm(raw)
      ? HttpServerResponse.empty({ status: 303, headers: { location: body.returnTo === undefined ? "/sign-in" : safeReturnTo(body.returnTo), ...noStore } })
      : HttpServerResponse.jsonUnsafe({ succeed: true, data: { signedOut: true } }, { headers: noStore })
    return withoutSessionCookie(response, secureCookies(request, config))
  }).pipe(Effect.mapError(envelopeOfError))

  const getSession = Effect.gen(function*() {
    const session = yield* currentSession
    if (Option.isNone(session)) return HttpServerResponse.jsonUnsafe({ succeed: true, data: null }, { headers: noStore })
    const account = yield* accounts.get(session.value.accountId)
    return yield* envelope(S.SessionInfo, yield* sessionInfo(session.value, account, config.apiUrl))
  }).pipe(Effect.mapError(envelopeOfError))

  const token = Effect.gen(function*() {
    const session = yield* currentSession
    if (Option.isNone(session)) return yield* notAuthenticated("Sign in first: the token is for a signed-in session.")
    const minted = yield* mintSessionAccessToken(session.value)
    return yield* envelope(S.AccessTokenData, {
      token: minted.token,
      tokenType: "Bearer" as const,
      expiresIn: Math.floor((minted.expiresAt - minted.issuedAt) / 1000),
      expiresAt: DateTime.makeUnsafe(minted.expiresAt) as DateTime.Utc,
      scope: minted.scopes.join(" ")
    }, { ...noStore, pragma: "no-cache" })
  }).pipe(Effect.mapError(envelopeOfError))

  return { page, signInPost, signUpPost, signOut, getSession, token }
})

/** What the sign-in routes need from the request's context. */
export type SignInRequirements = HttpServerRequest.HttpServerRequest | ServerConfig | Sessions | ServerSecret | SigningKeys | Secrets
