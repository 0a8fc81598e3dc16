/**
 * Failure rendering: every failure that reaches the pipeline leaves as its surface's error format
 * (Surfaces.ts) — a problem document on /v1 (RFC 9457, with the request id), the envelope on the
 * Dashboard and management APIs, RFC 6749 JSON on the OAuth endpoints — never as a stack trace or
 * an empty body (docs/errors.md). What each failure becomes:
 * - a problem, an envelope or an OAuth failure from a handler: itself (a 5xx problem is logged);
 * - a parameter the platform could not decode: 422 with one issue per parameter;
 * - a URL no route takes: 404, 405 or 422 (UrlChecks.ts); an unreadable body: 422;
 * - an interruption (the client went away, or the server is stopping): 503, logged at debug;
 * - core's `DatabaseUnavailable` (the store adapter classifies its driver's errors): 503, or 504
 *   UPSTREAM_TIMEOUT when the database did not answer in time, both with Retry-After;
 * - any other defect: 500 INTERNAL_ERROR, logged at error level.
 * Each logged failure is one line with the request id; the cause's trace only at debug level.
 */
import { HttpApiError } from "effect/http-api"
import { HttpServerError, type HttpServerResponse } from "effect/http"
import { causeSummary } from "@switchboard/core/internal"
import { databaseUnavailableOf, issueLines } from "@switchboard/core/shared"
import { ProblemCatalog } from "../ProblemCatalog.js"
import { Cause, Effect, Option } from "effect"
import { problem, ProblemFailure, renderProblem, validationFailed } from "../../v1/ProblemFailure.js"
import { EnvelopeFailure, OAuthFailure, problemOnSurface, renderEnvelopeFailure, renderOAuthFailure } from "../Surfaces.js"
import type { Served } from "./Served.js"
import { type RouteTable, routeNotFound } from "./UrlChecks.js"

/** A short, single-line description of a failure for the log (no stack). */
const summary = (cause: Cause.Cause<unknown>): string => {
  const e = Cause.squash(cause)
  if (e instanceof ProblemFailure) return `${e.code}: ${typeof e.detail === "string" ? e.detail : ""}`.slice(0, 300)
  return causeSummary(cause)
}

export interface Failures {
  /** A problem in the format of the request's surface. */
  readonly render: (served: Served, p: ProblemFailure) => HttpServerResponse.HttpServerResponse
  /** One structured line per failed request (the cause's trace only at debug level). */
  readonly logFailure: (served: Served, level: "warning" | "error", message: string, cause: Cause.Cause<unknown>, status: number) => Effect.Effect<void>
  /** The answer to a failed request (logged as it says above). */
  readonly failed: (served: Served, cause: Cause.Cause<unknown>) => Effect.Effect<HttpServerResponse.HttpServerResponse>
}

export const makeFailures = (table: RouteTable, docsUrl: string): Failures => {
  const render = (served: Served, p: ProblemFailure) =>
    served.surface === "v1" ? renderProblem(p, docsUrl, served.requestId) : problemOnSurface(served.surface, p, docsUrl)

  const logFailure = (served: Served, level: "warning" | "error", message: string, cause: Cause.Cause<unknown>, status: number) =>
    Effect.andThen(
      (level === "error" ? Effect.logError(message) : Effect.logWarning(message)).pipe(
        Effect.annotateLogs({ requestId: served.requestId, method: served.request.method, path: served.path, status, error: summary(cause) })
      ),
      Effect.logDebug(Cause.pretty(cause)).pipe(Effect.annotateLogs({ requestId: served.requestId }))
    )

  const failed = (served: Served, cause: Cause.Cause<unknown>): Effect.Effect<HttpServerResponse.HttpServerResponse> => {
    const request = served.request
    const failure = Cause.findErrorOption(cause)
    // What failed. The platform's HttpApi turns an error its endpoint does not declare (an
    // undecodable parameter among them) into a defect: such a defect is answered as the failure.
    const e: unknown = Option.isSome(failure) ? failure.value : Cause.hasDies(cause) ? Cause.squash(cause) : undefined
    // A success its schema cannot encode is the server's failure (500 below), not the request's.
    if (HttpApiError.HttpApiSchemaError.is(e) && e.kind !== "Body" && e.kind !== "ResponseHeaders") {
      // The platform decodes path, query and headers; tell them apart by the first key.
      const query = new URL(request.url, "http://localhost").searchParams
      const locationOf = (key: unknown) =>
        typeof key === "string" && query.has(key) ? "query" as const
        : typeof key === "string" && key.toLowerCase() in request.headers ? "header" as const
        : "param" as const
      return Effect.succeed(render(served, validationFailed(issueLines(e.cause).map((i) => ({
        code: i.message === "is missing" ? "missing" : "invalid_value",
        location: locationOf(i.path[0]),
        message: i.message,
        path: i.path.map((p) => `/${String(p)}`).join("")
      })), "A request parameter is not valid.")))
    }
    if (e instanceof ProblemFailure) {
      const status = ProblemCatalog[e.code].status
      return status >= 500
        ? Effect.as(logFailure(served, "warning", e.code === "REQUEST_TIMEOUT" ? "request deadline passed" : "request failed", cause, status), render(served, e))
        : Effect.succeed(render(served, e))
    }
    if (e instanceof EnvelopeFailure) return Effect.succeed(renderEnvelopeFailure(e))
    if (e instanceof OAuthFailure) return Effect.succeed(renderOAuthFailure(e))
    if (HttpServerError.isHttpServerError(e) && e.reason._tag === "RouteNotFound") return Effect.succeed(render(served, routeNotFound(table, request)))
    if (HttpServerError.isHttpServerError(e) && e.reason._tag === "RequestParseError") {
      return Effect.succeed(render(served, validationFailed([{
        code: "malformed_body",
        location: "body",
        message: "The request body could not be read.",
        path: ""
      }])))
    }
    // The client went away (or the server is stopping): nothing failed, and nobody reads the answer.
    if (Cause.hasInterruptsOnly(cause)) {
      return Effect.as(
        Effect.logDebug("request interrupted"),
        render(served, problem("UPSTREAM_UNAVAILABLE", "The request was interrupted.", { headers: { "retry-after": "1" } }))
      )
    }
    const outage = databaseUnavailableOf(Cause.squash(cause))?.reason
    if (outage === "timeout") {
      return Effect.as(
        logFailure(served, "warning", "database timed out", cause, 504),
        render(served, problem("UPSTREAM_TIMEOUT", "The database did not answer in time; retry shortly.", { headers: { "retry-after": "5" } }))
      )
    }
    if (outage === "unavailable") {
      return Effect.as(
        logFailure(served, "warning", "database unavailable", cause, 503),
        render(served, problem("UPSTREAM_UNAVAILABLE", "The database is unavailable; retry shortly.", { headers: { "retry-after": "5" } }))
      )
    }
    return Effect.as(
      logFailure(served, "error", "unhandled failure", cause, 500),
      render(served, problem("INTERNAL_ERROR", "An unexpected error occurred."))
    )
  }

  return { render, logFailure, failed }
}
