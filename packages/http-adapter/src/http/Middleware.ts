/**
 * The global middleware (DESIGN.md §4 HTTP): every response gets `X-Request-ID` and `X-Trace-ID`,
 * and every failure — problems, decode errors, unknown routes, wrong methods, defects — is rendered
 * here as a problem document. Nothing leaves as a stack trace or an empty error body.
 */
import { HttpApiError, HttpApp, HttpServerError, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Ids, IdKinds, policyHeader, RateLimiter, type RateLimitPolicy, sha256Hex, stateHeader } from "@switchboard/core"
import { Cause, Context, DateTime, Effect, Option, Ref } from "effect"
import { lifecycleHeaders, lifecycles } from "../v1/Lifecycle.js"
import { EnvelopeFailure, OAuthFailure, problemOnSurface, renderEnvelopeFailure, renderOAuthFailure, surfaceOf } from "./Surfaces.js"
import { ProblemFailure, problem, renderProblem, validationFailed } from "../v1/Problems.js"
import { traceIdOf, withRequestInfo } from "./RequestContext.js"
import { ServerConfig } from "./ServerConfig.js"

/** How many requests are being served: shutdown waits for zero before closing the database. */
export class InFlight extends Context.Tag("http/InFlight")<InFlight, Ref.Ref<number>>() {}

/** Known routes as (method, pattern) so an unknown method on a known path answers 405 with Allow. */
export interface RouteTable {
  readonly routes: ReadonlyArray<{ readonly method: string; readonly pattern: RegExp; readonly operationId?: string }>
}

export const routePattern = (path: string) =>
  new RegExp(`^${path.split("/").map((seg) => (seg.startsWith(":") ? "[^/]+" : seg.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))).join("/")}/?$`)

const allowedMethods = (table: RouteTable, pathname: string) => {
  const methods = new Set<string>()
  for (const r of table.routes) if (r.pattern.test(pathname)) methods.add(r.method)
  if (methods.has("GET")) methods.add("HEAD")
  return [...methods].sort()
}

/** Whether a defect comes from a database that cannot be reached (→ 503, DESIGN.md §4). */
const isUnavailable = (defect: unknown): boolean => {
  const seen = new Set<unknown>()
  let current: unknown = defect
  while (typeof current === "object" && current !== null && !seen.has(current)) {
    seen.add(current)
    const c = current as { _tag?: unknown; code?: unknown; message?: unknown; cause?: unknown }
    if (typeof c.code === "string" && /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|57P0[1-3]|08\d{3})$/.test(c.code)) return true
    if (c._tag === "DatabaseUnavailable") return true
    if (typeof c.message === "string" && /Connection terminated|connect ECONNREFUSED|timeout exceeded when trying to connect/i.test(c.message)) return true
    current = c.cause
  }
  return false
}

/**
 * The rate-limit key of a /v1 request: the presented credential (its hash — limits are per
 * credential, API.md §0), or the client address when none was sent.
 */
const rateLimitKey = (request: HttpServerRequest.HttpServerRequest) => {
  const bearer = /^Bearer[ ]+(\S{1,8192})\s*$/i.exec(request.headers["authorization"] ?? "")?.[1]
  return bearer === undefined
    ? Effect.succeed(`ip:${Option.getOrElse(request.remoteAddress, () => "unknown")}`)
    : Effect.map(sha256Hex(bearer), (h) => `credential:${h.slice(0, 40)}`)
}

export const makeGlobalMiddleware = (table: RouteTable) =>
  Effect.gen(function*() {
    const config = yield* ServerConfig
    const ids = yield* Ids
    const inFlight = yield* InFlight
    const limiter = yield* RateLimiter
    const policy: RateLimitPolicy = { name: "default", quota: config.rateLimitQuota, windowSeconds: config.rateLimitWindowSeconds }
    // Deprecated operations (v1/Lifecycle.ts): only their routes are matched on each request.
    const deprecated = table.routes.flatMap((r) => {
      const lifecycle = r.operationId === undefined ? undefined : lifecycles[r.operationId]
      return lifecycle === undefined ? [] : [{ ...r, headers: lifecycleHeaders(lifecycle, config.docsUrl, r.operationId!) }]
    })
    return (app: HttpApp.Default): HttpApp.Default =>
      Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        const requestId = yield* ids.typeId(IdKinds.request)
        const traceId = traceIdOf(request.headers["traceparent"]) ?? (yield* newTraceId(ids))
        yield* HttpApp.appendPreResponseHandler((_req, res) =>
          Effect.succeed(HttpServerResponse.setHeaders(res, { "x-request-id": requestId, "x-trace-id": traceId })))
        const path = request.url.split("?")[0] ?? ""
        const surface = surfaceOf(path)
        const render = (p: ProblemFailure) =>
          surface === "v1" ? renderProblem(p, config.docsUrl, requestId) : problemOnSurface(surface, p, config.docsUrl)
        for (const d of deprecated) {
          if (d.method === request.method && d.pattern.test(path)) {
            yield* HttpApp.appendPreResponseHandler((_req, res) => Effect.succeed(HttpServerResponse.setHeaders(res, d.headers)))
          }
        }
        // Rate limits on /v1 (API.md §0): every response carries the state; over the quota → 429.
        const limited = path === "/v1" || path.startsWith("/v1/")
        let guarded: HttpApp.Default<unknown> = app
        if (limited) {
          const state = yield* limiter.hit(yield* rateLimitKey(request), policy, yield* DateTime.now)
          yield* HttpApp.appendPreResponseHandler((_req, res) =>
            Effect.succeed(HttpServerResponse.setHeaders(res, {
              "ratelimit-policy": policyHeader(policy),
              ratelimit: stateHeader(policy, state)
            })))
          if (!state.allowed) {
            guarded = Effect.fail(problem("RATE_LIMITED", `At most ${policy.quota} requests per ${policy.windowSeconds} s for this credential.`, {
              headers: { "retry-after": String(state.resetSeconds) }
            }))
          }
        }
        return yield* guarded.pipe(
          Effect.catchAllCause((cause) => {
            const failure = Cause.failureOption(cause)
            if (Option.isSome(failure)) {
              const e = failure.value as unknown
              if (e instanceof ProblemFailure) return Effect.succeed(render(e))
              if (e instanceof EnvelopeFailure) return Effect.succeed(renderEnvelopeFailure(e))
              if (e instanceof OAuthFailure) return Effect.succeed(renderOAuthFailure(e))
              if (e instanceof HttpApiError.HttpApiDecodeError) {
                // The platform decodes path, query and headers; tell them apart by the first key.
                const query = new URL(request.url, "http://localhost").searchParams
                const locationOf = (key: unknown) =>
                  typeof key === "string" && query.has(key) ? "query" as const
                  : typeof key === "string" && key.toLowerCase() in request.headers ? "header" as const
                  : "param" as const
                return Effect.succeed(render(validationFailed(e.issues.map((i) => ({
                  code: i._tag === "Missing" ? "missing" : "invalid_value",
                  location: locationOf(i.path[0]),
                  message: i.message,
                  path: i.path.map((p) => `/${String(p)}`).join("")
                })), "A request parameter is not valid.")))
              }
              if (e instanceof HttpServerError.RouteNotFound) {
                const url = new URL(request.url, "http://localhost")
                const allow = allowedMethods(table, url.pathname)
                return Effect.succeed(render(allow.length > 0
                  ? problem("METHOD_NOT_ALLOWED", `${request.method} is not allowed here; use ${allow.join(", ")}.`, {
                    headers: { allow: allow.join(", ") }
                  })
                  : problem("RESOURCE_NOT_FOUND", `No route for ${request.method} ${url.pathname}.`)))
              }
              if (e instanceof HttpServerError.RequestError) {
                return Effect.succeed(render(validationFailed([{
                  code: "malformed_body",
                  location: "body",
                  message: "The request body could not be read.",
                  path: ""
                }])))
              }
            }
            // The client went away (or the server is stopping): nothing failed, and nobody reads the answer.
            if (Cause.isInterruptedOnly(cause)) {
              return Effect.as(
                Effect.logDebug("request interrupted"),
                render(problem("UPSTREAM_UNAVAILABLE", "The request was interrupted.", { headers: { "retry-after": "1" } }))
              )
            }
            const defect = Cause.squash(cause)
            if (isUnavailable(defect)) {
              return Effect.as(
                Effect.logWarning("database unavailable", Cause.pretty(cause)),
                render(problem("UPSTREAM_UNAVAILABLE", "The database is unavailable; retry shortly.", { headers: { "retry-after": "5" } }))
              )
            }
            return Effect.as(
              Effect.logError("unhandled failure", Cause.pretty(cause)),
              render(problem("INTERNAL_ERROR", "An unexpected error occurred."))
            )
          }),
          withRequestInfo({ requestId, traceId })
        )
      }).pipe((self) =>
        Effect.acquireUseRelease(Ref.update(inFlight, (n) => n + 1), () => self, () => Ref.update(inFlight, (n) => n - 1))
      )
  })

const newTraceId = (ids: Ids) =>
  Effect.map(ids.uuidv7(), (uuid) => uuid.replace(/-/g, "")) // time-ordered, 128 bits, never all zero
