/**
 * The global middleware (DESIGN.md §4 HTTP): every response gets `X-Request-ID` and `X-Trace-ID`,
 * and every failure — problems, decode errors, unknown routes, wrong methods, defects — is rendered
 * here as a problem document. Nothing leaves as a stack trace or an empty error body.
 */
import { HttpApiError, HttpApp, HttpServerError, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { causeSummary, sha256HexSync } from "@switchboard/core/internal"
import {
  policyHeader,
  ProblemCatalog,
  RateLimiter,
  type RateLimitPolicy,
  stateHeader
} from "@switchboard/core/shared"
import { Cause, Clock, Context, DateTime, Effect, Exit, Fiber, FiberRef, Option } from "effect"
import { lifecycleHeaders, lifecycles } from "../v1/Lifecycle.js"
import { makeAccessLog } from "./AccessLog.js"
import { illFormedText } from "./Body.js"
import { EnvelopeFailure, OAuthFailure, problemOnSurface, renderEnvelopeFailure, renderOAuthFailure, surfaceOf } from "./Surfaces.js"
import { ProblemFailure, problem, renderProblem, validationFailed } from "../v1/Problems.js"
import { setRequestInfo, traceIdOf } from "./RequestContext.js"
import { newRequestId, newTraceId } from "./RequestIds.js"
import { ServerConfig } from "./ServerConfig.js"

/**
 * How many requests are being served: shutdown waits for zero before closing the database. A plain
 * counter (no effect per request): the global middleware counts a request in when it starts and out
 * when its fiber ends, after its response was written.
 */
export interface InFlightCounter {
  readonly current: () => number
  readonly enter: () => void
  readonly leave: () => void
}
export class InFlight extends Context.Tag("http/InFlight")<InFlight, InFlightCounter>() {}

export const makeInFlightCounter = (): InFlightCounter => {
  let n = 0
  return { current: () => n, enter: () => void n++, leave: () => void n-- }
}

/** Known routes as (method, pattern) so an unknown method on a known path answers 405 with Allow. */
export interface RouteTable {
  readonly routes: ReadonlyArray<{ readonly method: string; readonly pattern: RegExp; readonly path?: string; readonly operationId?: string }>
}

export const routePattern = (path: string) =>
  new RegExp(`^${path.split("/").map((seg) => (seg.startsWith(":") ? "[^/]+" : seg.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))).join("/")}/?$`)

const allowedMethods = (table: RouteTable, pathname: string) => {
  const methods = new Set<string>()
  for (const r of table.routes) if (r.pattern.test(pathname)) methods.add(r.method)
  if (methods.has("GET")) methods.add("HEAD")
  return [...methods].sort()
}

/**
 * Whether a defect comes from a database that cannot be reached (→ 503) or did not answer in time
 * (→ 504 UPSTREAM_TIMEOUT): connection errors, the server's `statement_timeout` (57014), the
 * client's query or connect timeout, a pool that could not hand out a connection in time.
 */
export const databaseOutage = (defect: unknown): "unavailable" | "timeout" | undefined => {
  const seen = new Set<unknown>()
  let current: unknown = defect
  while (typeof current === "object" && current !== null && !seen.has(current)) {
    seen.add(current)
    const c = current as { _tag?: unknown; code?: unknown; message?: unknown; cause?: unknown }
    if (c.code === "57014" || (typeof c.message === "string" && /Query read timeout|statement timeout/i.test(c.message))) return "timeout"
    if (typeof c.code === "string" && /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|57P0[1-3]|08\d{3})$/.test(c.code)) return "unavailable"
    if (c._tag === "DatabaseUnavailable") return "unavailable"
    if (typeof c.message === "string" && /Connection terminated|connect ECONNREFUSED|timeout exceeded when trying to connect|Connection timed out/i.test(c.message)) {
      return "unavailable"
    }
    current = c.cause
  }
  return undefined
}

/** A short, single-line description of a failure for the log (no stack). */
const summary = (cause: Cause.Cause<unknown>): string => {
  const e = Cause.squash(cause)
  if (e instanceof ProblemFailure) return `${e.code}: ${typeof e.detail === "string" ? e.detail : ""}`.slice(0, 300)
  return causeSummary(cause)
}

/** The first unusable part of a request URL: a path segment or query parameter. */
export const urlIssue = (url: string): { code: string; location: "param" | "query"; message: string; path: string } | undefined => {
  const q = url.indexOf("?")
  const path = q === -1 ? url : url.slice(0, q)
  if (path.includes("%")) {
    for (const segment of path.split("/")) {
      let decoded: string
      try {
        decoded = decodeURIComponent(segment)
      } catch {
        return { code: "invalid_value", location: "param", message: "A path segment is not valid percent-encoded UTF-8.", path: "" }
      }
      const why = illFormedText(decoded)
      if (why !== undefined) return { code: "invalid_text", location: "param", message: `A path segment ${why}.`, path: "" }
    }
  }
  if (q !== -1 && q < url.length - 1) {
    for (const [key, value] of new URLSearchParams(url.slice(q + 1))) {
      const why = illFormedText(key) ?? illFormedText(value)
      if (why !== undefined) {
        return { code: "invalid_text", location: "query", message: `The query parameter ${why}.`, path: `/${key.replace(/[\u0000-\u001f]/g, "?").slice(0, 64)}` }
      }
    }
  }
  return undefined
}

/**
 * The rate-limit key of a /v1 request: the presented credential (its hash — limits are per
 * credential, API.md §0), or the client address when none was sent.
 */
const rateLimitKey = (request: HttpServerRequest.HttpServerRequest, memo: Map<string, string>): string => {
  const bearer = /^Bearer[ ]+(\S{1,8192})\s*$/i.exec(request.headers["authorization"] ?? "")?.[1]
  if (bearer === undefined) return `ip:${Option.getOrElse(request.remoteAddress, () => "unknown")}`
  // The hash of a credential seen recently is remembered (no hashing per request; issue 12).
  let key = memo.get(bearer)
  if (key === undefined) {
    if (memo.size >= RATE_LIMIT_KEY_MEMO) memo.clear()
    key = `credential:${sha256HexSync(bearer).slice(0, 40)}`
    memo.set(bearer, key)
  }
  return key
}

const RATE_LIMIT_KEY_MEMO = 10_000

/**
 * Runs `work` (which never fails) with a deadline: past `ms`, the caller gets `onTimeout` at once and
 * the work is interrupted in the background — a frozen database must not hold the answer too. One
 * forked fiber and one timer per request (cheaper than a race of fibers); the work's pre-response
 * handlers (the management API's headers) come back to the caller when it finishes.
 */
const withDeadline = <A, R>(work: Effect.Effect<A, never, R>, ms: number, onTimeout: () => ProblemFailure): Effect.Effect<A, ProblemFailure, R> =>
  Effect.flatMap(Effect.fork(Effect.interruptible(work)), (fiber) =>
    Effect.async<A, ProblemFailure>((resume) => {
      let done = false
      const timer = setTimeout(() => {
        if (done) return
        done = true
        resume(Effect.zipRight(Fiber.interruptFork(fiber), Effect.fail(onTimeout())))
      }, ms)
      fiber.addObserver((exit) => {
        clearTimeout(timer)
        if (done) return
        done = true
        if (Exit.isFailure(exit)) return resume(Effect.failCause(exit.cause as Cause.Cause<never>))
        // Only the pre-response handlers come back (a full join diffs every fiber-local value).
        const handlers = fiber.getFiberRef(HttpApp.currentPreResponseHandlers)
        resume(Option.isNone(handlers) ? Effect.succeed(exit.value) : Effect.as(FiberRef.set(HttpApp.currentPreResponseHandlers, handlers), exit.value))
      })
      return Effect.sync(() => clearTimeout(timer))
    }))

export const makeGlobalMiddleware = (table: RouteTable) =>
  Effect.gen(function*() {
    const config = yield* ServerConfig
    const inFlight = yield* InFlight
    const limiter = yield* RateLimiter
    const policy: RateLimitPolicy = { name: "default", quota: config.rateLimitQuota, windowSeconds: config.rateLimitWindowSeconds }
    const policyValue = policyHeader(policy)
    // Deprecated operations (v1/Lifecycle.ts): only their routes are matched on each request.
    const deprecated = table.routes.flatMap((r) => {
      const lifecycle = r.operationId === undefined ? undefined : lifecycles[r.operationId]
      return lifecycle === undefined ? [] : [{ ...r, headers: lifecycleHeaders(lifecycle, config.docsUrl, r.operationId!) }]
    })
    const timeoutProblem = () =>
      problem("REQUEST_TIMEOUT", `The request did not finish within ${config.requestTimeoutMs} ms; retry shortly.`, {
        headers: { "retry-after": "1" }
      })
    const rateLimitKeys = new Map<string, string>()
    const access = makeAccessLog(config, table) // undefined when ACCESS_LOG=off: no cost per request
    return (app: HttpApp.Default): HttpApp.Default =>
      Effect.withFiberRuntime((fiber) => {
        const request = Context.unsafeGet(fiber.currentContext, HttpServerRequest.HttpServerRequest)
        // Counted out when the request's fiber ends, after its response was written.
        inFlight.enter()
        fiber.addObserver(inFlight.leave)
        const started = access === undefined ? 0 : performance.now()
        const requestId = newRequestId()
        const traceId = traceIdOf(request.headers["traceparent"]) ?? newTraceId()
        setRequestInfo(request, { requestId, traceId })
        // Every header this middleware adds, set once on whatever response leaves.
        const headers: Record<string, string> = { "x-request-id": requestId, "x-trace-id": traceId }
        const q = request.url.indexOf("?")
        const path = q === -1 ? request.url : request.url.slice(0, q)
        const surface = surfaceOf(path)
        const render = (p: ProblemFailure) =>
          surface === "v1" ? renderProblem(p, config.docsUrl, requestId) : problemOnSurface(surface, p, config.docsUrl)
        for (const d of deprecated) {
          if (d.method === request.method && d.pattern.test(path)) Object.assign(headers, d.headers)
        }
        // Rate limits on /v1 (API.md §0): every response carries the state; over the quota → 429.
        // Inside the guarded region: a limiter that cannot reach its store fails like any other use
        // of the database (503 + Retry-After), never as an empty 500.
        const limited = path === "/v1" || path.startsWith("/v1/")
        // Text no parameter can hold (U+0000, lone surrogates, broken percent-encoding) is refused
        // here, for every route of every surface, before a handler or the database sees it.
        const urlProblem = request.url.includes("%") || q !== -1 ? urlIssue(request.url) : undefined
        const checked: HttpApp.Default<unknown> = urlProblem === undefined
          ? app
          : Effect.fail(validationFailed([urlProblem], "A request parameter is not valid."))
        const now = DateTime.unsafeMake(Context.get(fiber.currentDefaultServices, Clock.Clock).unsafeCurrentTimeMillis())
        const guarded: HttpApp.Default<unknown> = limited
          ? Effect.flatMap(limiter.hit(rateLimitKey(request, rateLimitKeys), policy, now), (state) => {
            headers["ratelimit-policy"] = policyValue
            headers["ratelimit"] = stateHeader(policy, state)
            return state.allowed
              ? checked
              : Effect.fail(problem("RATE_LIMITED", `At most ${policy.quota} requests per ${policy.windowSeconds} s for this credential.`, {
                headers: { "retry-after": String(state.resetSeconds) }
              }))
          })
          : checked
        /** One structured line per failed request (the cause's trace only at debug level). */
        const logFailure = (level: "warning" | "error", message: string, cause: Cause.Cause<unknown>, status: number) =>
          Effect.zipRight(
            (level === "error" ? Effect.logError(message) : Effect.logWarning(message)).pipe(
              Effect.annotateLogs({ requestId, method: request.method, path, status, error: summary(cause) })
            ),
            Effect.logDebug(Cause.pretty(cause)).pipe(Effect.annotateLogs({ requestId }))
          )
        /** Whatever leaves: its headers. (Cached records are dropped by the writes that change them.) */
        const finish = (response: HttpServerResponse.HttpServerResponse) => {
          access?.(request.method, path, response.status, requestId, started)
          return HttpServerResponse.setHeaders(response, headers)
        }
        const failed = (cause: Cause.Cause<unknown>): Effect.Effect<HttpServerResponse.HttpServerResponse> => {
          const failure = Cause.failureOption(cause)
          if (Option.isSome(failure)) {
            const e = failure.value as unknown
            if (e instanceof ProblemFailure) {
              const status = ProblemCatalog[e.code].status
              return status >= 500
            ? Effect.as(logFailure("warning", e.code === "REQUEST_TIMEOUT" ? "request deadline passed" : "request failed", cause, status), render(e))
            : Effect.succeed(render(e))
            }
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
              // The path has a route's shape for this very method, yet the router refused it: a
              // parameter is unusable (over 100 characters, `..`, undecodable) → 422, not 405.
              if (allow.includes(request.method)) {
                return Effect.succeed(render(validationFailed([{
                  code: "invalid_value",
                  location: "param",
                  message: "A path parameter is not valid: at most 100 characters, percent-encoded UTF-8, not . or ..",
                  path: ""
                }], "A path parameter is not valid.")))
              }
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
          const outage = databaseOutage(defect)
          if (outage === "timeout") {
            return Effect.as(
              logFailure("warning", "database timed out", cause, 504),
              render(problem("UPSTREAM_TIMEOUT", "The database did not answer in time; retry shortly.", { headers: { "retry-after": "5" } }))
            )
          }
          if (outage === "unavailable") {
            return Effect.as(
              logFailure("warning", "database unavailable", cause, 503),
              render(problem("UPSTREAM_UNAVAILABLE", "The database is unavailable; retry shortly.", { headers: { "retry-after": "5" } }))
            )
          }
          return Effect.as(
            logFailure("error", "unhandled failure", cause, 500),
            render(problem("INTERNAL_ERROR", "An unexpected error occurred."))
          )

        }
        // The request deadline (REQUEST_TIMEOUT_MS): the work runs in its own fiber and always
        // succeeds with its exit, so its failures are rendered here like any other.
        return Effect.matchCauseEffect(withDeadline(Effect.exit(guarded), config.requestTimeoutMs, timeoutProblem), {
          onFailure: (cause) => Effect.map(failed(cause), finish),
          onSuccess: (exit) => Exit.isSuccess(exit) ? Effect.succeed(finish(exit.value)) : Effect.map(failed(exit.cause), finish)
        })
      })
  })
