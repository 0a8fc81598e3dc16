/**
 * The SSO feature's browser routes (docs/sso.md), outside the HttpApi declaration:
 *
 * - `GET /api/auth/sso/callback?code&state` — where identity providers send people back. On
 *   success: the Dashboard session cookie (a session marked as SSO for the organization) and a 303
 *   to the `returnTo` the sign-in began with. Refused: the Dashboard's envelope (these routes are on
 *   its surface, `/api/*`): 403 `FORBIDDEN` with the reason; 503/504 when the provider cannot be
 *   reached; never a session.
 * - `GET /api/auth/sso/start?organizationId&returnTo` — a 303 to the organization's provider (the
 *   `Link` of `ORGANIZATION_SSO_REQUIRED` points here; `returnTo` defaults to the Dashboard).
 */
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { OrganizationId } from "@switchboard/core/shared"
import { SsoSignIn } from "@switchboard/core/sso"
import { Context, DateTime, Effect, Redacted, Result, Schema } from "effect"
import { ServerConfig } from "../http/ServerConfig.js"
import { renderEnvelopeFailure } from "../http/Surfaces.js"
import { problem, type ProblemFailure } from "../v1/ProblemFailure.js"
import { ssoErrors } from "../v1/SsoErrors.js"
import { envelopeOfProblem } from "./DashboardErrors.js"
import { secureCookies, withSessionCookie } from "./DashboardSession.js"

export const SSO_PATHS = { callback: "/api/auth/sso/callback", start: "/api/auth/sso/start" } as const

/** A failure of these routes in the Dashboard surface's format (the envelope). */
const asProblem = (p: ProblemFailure) => Effect.succeed(renderEnvelopeFailure(envelopeOfProblem(p)))

const rowFor = (e: { readonly _tag: string }): ProblemFailure => {
  const row = (ssoErrors as Record<string, ((x: never) => ProblemFailure) | undefined>)[e._tag]
  return row === undefined ? problem("INTERNAL_ERROR", "The SSO sign-in failed.") : row(e as never)
}

/** The query parameter `name` given at most once, at most `max` characters. */
const single = (params: URLSearchParams, name: string, max: number): Result.Result<string | undefined, string> => {
  const values = params.getAll(name)
  if (values.length > 1) return Result.fail(`${name} may be given once`)
  if (values[0] !== undefined && values[0].length > max) return Result.fail(`${name} is too long`)
  return Result.succeed(values[0])
}

const callback = Effect.gen(function*() {
  const request = yield* HttpServerRequest.HttpServerRequest
  const config = yield* ServerConfig
  const params = new URL(request.url, "http://localhost").searchParams
  const state = single(params, "state", 256)
  const code = single(params, "code", 4096)
  const error = single(params, "error", 256)
  if (Result.isFailure(state) || Result.isFailure(code) || Result.isFailure(error) || state.success === undefined) {
    return yield* asProblem(problem("FORBIDDEN", "The sign-in state is missing or malformed."))
  }
  const result = yield* Effect.result((yield* SsoSignIn).complete({ state: state.success, code: code.success, error: error.success }))
  if (Result.isFailure(result)) return yield* asProblem(rowFor(result.failure))
  const done = result.success
  const response = HttpServerResponse.empty({ status: 303, headers: { location: done.returnTo, "cache-control": "no-store" } })
  return withSessionCookie(
    response,
    Redacted.value(done.sessionToken),
    new Date(DateTime.toEpochMillis(done.sessionExpiresAt)),
    secureCookies(request, config)
  )
})

const start = Effect.gen(function*() {
  const request = yield* HttpServerRequest.HttpServerRequest
  const config = yield* ServerConfig
  const params = new URL(request.url, "http://localhost").searchParams
  const organizationId = single(params, "organizationId", 64)
  const returnTo = single(params, "returnTo", 2048)
  const decoded = Result.flatMap(organizationId, (id) => Result.mapError(Schema.decodeUnknownResult(OrganizationId)(id), () => "organizationId is not an organization id"))
  if (Result.isFailure(decoded) || Result.isFailure(returnTo)) {
    return yield* asProblem(problem("INVALID_ARGUMENT", Result.isFailure(decoded) ? decoded.failure : "returnTo is not valid"))
  }
  const begun = yield* Effect.result((yield* SsoSignIn).begin({
    organizationId: decoded.success,
    purpose: "sign_in",
    returnTo: returnTo.success ?? `${config.dashboardUrl}/`
  }))
  if (Result.isFailure(begun)) return yield* asProblem(rowFor(begun.failure))
  return HttpServerResponse.empty({ status: 303, headers: { location: begun.success.url, "cache-control": "no-store" } })
})

export const SsoRoutes = HttpRouter.use((router) =>
  Effect.gen(function*() {
    // These services only: they are provided on every request.
    const context = Context.pick(SsoSignIn, ServerConfig)(yield* Effect.context<SsoSignIn | ServerConfig>())
    yield* router.add("GET", SSO_PATHS.callback, Effect.provide(callback, context))
    yield* router.add("GET", SSO_PATHS.start, Effect.provide(start, context))
  }))

export const ssoRouteTable: ReadonlyArray<readonly [string, string]> = [
  ["GET", SSO_PATHS.callback],
  ["GET", SSO_PATHS.start]
]
