/**
 * The global middleware (DESIGN.md §4 HTTP): every response gets `X-Request-ID` and `X-Trace-ID`,
 * and every failure — problems, decode errors, unknown routes, wrong methods, defects — is rendered
 * here as a problem document. Nothing leaves as a stack trace or an empty error body.
 *
 * Why this file is long: it is the one step every request of every surface passes through — ids,
 * deadline, rate limits, lifecycle headers and the rendering of every kind of failure — kept in
 * one place so that the per-request work is built once and measured as one piece (issue 12).
 */
import { HttpApiError, HttpApp, HttpServerError, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { causeSummary, sha256HexSync } from "@switchboard/core/internal"
import { RateLimiter, type RateLimitPolicy } from "@switchboard/core/shared"
import { ProblemCatalog } from "./ProblemCatalog.js"
import { policyHeader, stateHeader } from "./RateLimitHeaders.js"
import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import { Cause, Clock, Context, DateTime, Effect, Exit, Fiber, FiberRef, Option, Runtime } from "effect"
import { ServerResponse } from "node:http"
import { lifecycleHeaders, lifecycles } from "../v1/Lifecycle.js"
import { makeAccessLog } from "./AccessLog.js"
import { illFormedText, nodeIncoming } from "./Body.js"
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
 * credential, API.md §0), or the client address when none was sent. Remembered by the whole
 * `Authorization` value, so a credential seen recently costs one map lookup (no parsing, no hashing
 * per request; issue 12).
 */
const rateLimitKey = (request: HttpServerRequest.HttpServerRequest, memo: Map<string, string>): string => {
  const header = request.headers["authorization"]
  if (header !== undefined) {
    const known = memo.get(header)
    if (known !== undefined) return known
  }
  const bearer = /^Bearer[ ]+(\S{1,8192})\s*$/i.exec(header ?? "")?.[1]
  if (bearer === undefined) return `ip:${Option.getOrElse(request.remoteAddress, () => "unknown")}`
  if (memo.size >= RATE_LIMIT_KEY_MEMO) memo.clear()
  const key = `credential:${sha256HexSync(bearer).slice(0, 40)}`
  memo.set(header!, key)
  return key
}

const RATE_LIMIT_KEY_MEMO = 10_000

/**
 * Runs `work` (which never fails) with a deadline: past `ms`, the caller gets a failed exit with
 * `onTimeout()` at once and the work is interrupted in the background — a frozen database must not
 * hold the answer too. One forked fiber and one timer per request (cheaper than a race of fibers);
 * the work's pre-response handlers (the management API's headers) come back to the caller when it
 * finishes.
 */
const withDeadline = <A, E, R>(
  work: Effect.Effect<Exit.Exit<A, E>, never, R>,
  ms: number,
  onTimeout: () => ProblemFailure
): Effect.Effect<Exit.Exit<A, E | ProblemFailure>, never, R> =>
  Effect.flatMap(Effect.fork(Effect.interruptible(work)), (fiber) =>
    Effect.async<Exit.Exit<A, E | ProblemFailure>>((resume) => {
      let done = false
      const timer = setTimeout(() => {
        if (done) return
        done = true
        resume(Effect.as(Fiber.interruptFork(fiber), Exit.fail(onTimeout())))
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

/** What the global middleware knows of one request. */
interface Served {
  readonly request: HttpServerRequest.HttpServerRequest
  readonly requestId: string
  readonly path: string
  readonly surface: ReturnType<typeof surfaceOf>
  readonly started: number
  /** Every header this middleware adds, set once on whatever response leaves. */
  readonly headers: Record<string, string>
  /**
   * The Node response, when served by Node: the headers go on it as they become known
   * (`setHeader`; Node merges them into the response's own at `writeHead`), so a response that
   * does not name one of them leaves as it is — no copy of its headers per request.
   */
  readonly node: ServerResponse | undefined
  /** The work's exit reached the middleware (Node path: the deadline no longer answers). */
  settled: boolean
  /** The deadline answered on the Node response (whatever the work does later is not sent). */
  timedOut: boolean
}

const nodeResponseOf = (request: HttpServerRequest.HttpServerRequest): ServerResponse | undefined => {
  if (nodeIncoming(request) === undefined) return undefined
  const response = NodeHttpServerRequest.toServerResponse(request)
  return response instanceof ServerResponse ? response : undefined
}

const addHeader = (served: Served, name: string, value: string) => {
  served.headers[name] = value
  served.node?.setHeader(name, value)
}

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

    const render = (served: Served, p: ProblemFailure) =>
      served.surface === "v1" ? renderProblem(p, config.docsUrl, served.requestId) : problemOnSurface(served.surface, p, config.docsUrl)

    /** One structured line per failed request (the cause's trace only at debug level). */
    const logFailure = (served: Served, level: "warning" | "error", message: string, cause: Cause.Cause<unknown>, status: number) =>
      Effect.zipRight(
        (level === "error" ? Effect.logError(message) : Effect.logWarning(message)).pipe(
          Effect.annotateLogs({ requestId: served.requestId, method: served.request.method, path: served.path, status, error: summary(cause) })
        ),
        Effect.logDebug(Cause.pretty(cause)).pipe(Effect.annotateLogs({ requestId: served.requestId }))
      )

    /** Whatever leaves: its headers. (Cached records are dropped by the writes that change them.) */
    const finish = (served: Served, response: HttpServerResponse.HttpServerResponse): HttpServerResponse.HttpServerResponse => {
      access?.(served.request.method, served.path, response.status, served.requestId, served.started)
      if (served.node !== undefined) {
        // Already on the Node response; only a response naming one of them itself needs ours on top.
        let clash = false
        for (const name in served.headers) {
          if (name in response.headers) {
            clash = true
            break
          }
        }
        if (!clash) return response
      }
      return HttpServerResponse.setHeaders(response, served.headers)
    }

    const failed = (served: Served, cause: Cause.Cause<unknown>): Effect.Effect<HttpServerResponse.HttpServerResponse> => {
      const request = served.request
      const failure = Cause.failureOption(cause)
      if (Option.isSome(failure)) {
        const e = failure.value as unknown
        if (e instanceof ProblemFailure) {
          const status = ProblemCatalog[e.code].status
          return status >= 500
            ? Effect.as(logFailure(served, "warning", e.code === "REQUEST_TIMEOUT" ? "request deadline passed" : "request failed", cause, status), render(served, e))
            : Effect.succeed(render(served, e))
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
          return Effect.succeed(render(served, validationFailed(e.issues.map((i) => ({
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
            return Effect.succeed(render(served, validationFailed([{
              code: "invalid_value",
              location: "param",
              message: "A path parameter is not valid: at most 100 characters, percent-encoded UTF-8, not . or ..",
              path: ""
            }], "A path parameter is not valid.")))
          }
          return Effect.succeed(render(served, allow.length > 0
            ? problem("METHOD_NOT_ALLOWED", `${request.method} is not allowed here; use ${allow.join(", ")}.`, {
              headers: { allow: allow.join(", ") }
            })
            : problem("RESOURCE_NOT_FOUND", `No route for ${request.method} ${url.pathname}.`)))
        }
        if (e instanceof HttpServerError.RequestError) {
          return Effect.succeed(render(served, validationFailed([{
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
          render(served, problem("UPSTREAM_UNAVAILABLE", "The request was interrupted.", { headers: { "retry-after": "1" } }))
        )
      }
      const defect = Cause.squash(cause)
      const outage = databaseOutage(defect)
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

    const respond = (served: Served, exit: Exit.Exit<HttpServerResponse.HttpServerResponse, unknown>) => {
      served.settled = true
      // Answered already by the deadline: the platform writes nothing on an ended Node response.
      if (served.timedOut) return Effect.succeed(HttpServerResponse.empty({ status: 503 }))
      return Exit.isSuccess(exit) ? Effect.succeed(finish(served, exit.value)) : Effect.map(failed(served, exit.cause), (r) => finish(served, r))
    }

    /**
     * The deadline of a request served by Node: the answer is written on the Node response at once
     * (its work may be stuck where it cannot be interrupted — a frozen database must not hold the
     * answer too), logged like any failure, and the request's fiber is interrupted. No fiber is
     * forked per request for this (issue 12: a fork, its fiber-local copies and an async resume
     * cost ~20 µs on every request).
     */
    const onDeadline = (served: Served, fiber: Fiber.RuntimeFiber<unknown, unknown>) => {
      const node = served.node!
      if (served.settled || node.headersSent || node.writableEnded || node.destroyed) return
      served.timedOut = true
      const p = timeoutProblem()
      const response = finish(served, render(served, p))
      node.writeHead(response.status, { ...response.headers })
      node.end(response.body._tag === "Uint8Array" ? response.body.body : undefined)
      const runtime = Runtime.make({ context: fiber.currentContext, fiberRefs: fiber.getFiberRefs(), runtimeFlags: Runtime.defaultRuntimeFlags })
      Runtime.runFork(runtime)(logFailure(served, "warning", "request deadline passed", Cause.fail(p), response.status))
      fiber.unsafeInterruptAsFork(fiber.id())
    }

    const overQuota = (resetSeconds: number) =>
      Effect.fail(problem("RATE_LIMITED", `At most ${policy.quota} requests per ${policy.windowSeconds} s for this credential.`, {
        headers: { "retry-after": String(resetSeconds) }
      }))

    return (app: HttpApp.Default): HttpApp.Default =>
      Effect.withFiberRuntime((fiber) => {
        const request = Context.unsafeGet(fiber.currentContext, HttpServerRequest.HttpServerRequest)
        // Counted out when the request's fiber ends, after its response was written.
        inFlight.enter()
        const requestId = newRequestId()
        const traceId = traceIdOf(request.headers["traceparent"]) ?? newTraceId()
        setRequestInfo(request, { requestId, traceId })
        const q = request.url.indexOf("?")
        const path = q === -1 ? request.url : request.url.slice(0, q)
        const served: Served = {
          request,
          requestId,
          path,
          surface: surfaceOf(path),
          started: access === undefined ? 0 : performance.now(),
          headers: {},
          node: nodeResponseOf(request),
          settled: false,
          timedOut: false
        }
        addHeader(served, "x-request-id", requestId)
        addHeader(served, "x-trace-id", traceId)
        for (const d of deprecated) {
          if (d.method === request.method && d.pattern.test(path)) {
            for (const [name, value] of Object.entries(d.headers)) addHeader(served, name, value)
          }
        }
        // Text no parameter can hold (U+0000, lone surrogates, broken percent-encoding) is refused
        // here, for every route of every surface, before a handler or the database sees it.
        const urlProblem = request.url.includes("%") || q !== -1 ? urlIssue(request.url) : undefined
        const checked: HttpApp.Default<unknown> = urlProblem === undefined
          ? app
          : Effect.fail(validationFailed([urlProblem], "A request parameter is not valid."))
        // Rate limits on /v1 (API.md §0): every response carries the state; over the quota → 429.
        // Inside the guarded region: a limiter that cannot reach its store fails like any other use
        // of the database (503 + Retry-After), never as an empty 500.
        const limited = path === "/v1" || path.startsWith("/v1/")
        const guarded: HttpApp.Default<unknown> = limited
          ? Effect.flatMap(
            limiter.hit(
              rateLimitKey(request, rateLimitKeys),
              policy,
              DateTime.unsafeMake(Context.get(fiber.currentDefaultServices, Clock.Clock).unsafeCurrentTimeMillis())
            ),
            (state) => {
              addHeader(served, "ratelimit-policy", policyValue)
              addHeader(served, "ratelimit", stateHeader(policy, state))
              return state.allowed ? checked : overQuota(state.resetSeconds)
            }
          )
          : checked
        // The request deadline (REQUEST_TIMEOUT_MS). Served by Node: a timer answers on the Node
        // response (onDeadline). Otherwise (a web handler) the work runs in its own fiber. Either
        // way the work's exit comes here, so its failures are rendered like any other.
        if (served.node !== undefined) {
          const timer = setTimeout(onDeadline, config.requestTimeoutMs, served, fiber)
          fiber.addObserver(() => {
            clearTimeout(timer)
            inFlight.leave()
          })
          return Effect.flatMap(Effect.exit(guarded), (exit) => respond(served, exit))
        }
        fiber.addObserver(inFlight.leave)
        return Effect.flatMap(withDeadline(Effect.exit(guarded), config.requestTimeoutMs, timeoutProblem), (exit) => respond(served, exit))
      })
  })
