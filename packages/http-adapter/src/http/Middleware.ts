/**
 * The global middleware: the request pipeline every request of every surface passes through, as
 * named steps (each in `pipeline/`, which says what it does and why), in this order:
 *
 * 1. in-flight: the request is counted in (out when its fiber ends);
 * 2. request span and ids: with spans exported, the request's span (pipeline/RequestSpan.ts);
 *    `X-Request-ID` and `X-Trace-ID` on every response (with tracing on, the request span's trace,
 *    and the request id on the span);
 * 3. lifecycle: a deprecated operation's `Deprecation`, `Sunset` and `Link` headers;
 * 4. URL checks: unusable text in the path or query → 422;
 * 5. rate limits (/v1): the policy headers, 429 over the quota;
 * 6. the deadline (REQUEST_TIMEOUT_MS): 504 REQUEST_TIMEOUT at once, the work interrupted;
 * 7. the answer: every failure rendered in its surface's format (404/405/422 for unknown routes,
 *    503/504 for an unavailable database, 500 for a defect; never a stack trace), the pipeline's
 *    headers on whatever leaves, the access-log line and the request's count toward its project.
 *
 * The per-request work is built once here (no fork, no effect per step); `bench/` measures it.
 * `makeGlobalMiddleware` gives the function that wraps the whole application (the router's
 * `HttpEffect`, unknown routes included), as `HttpMiddleware` does: whatever the application fails
 * with leaves as an answer, so the wrapped effect never fails.
 */
import { HttpRouter, HttpServerRequest, type HttpServerResponse } from "effect/http"
import { RateLimiter } from "@switchboard/core/shared"
import { Context, Effect, Option } from "effect"
import type * as Types from "effect/Types"
import { makeAccessLog } from "./AccessLog.js"
import { makeDeadline } from "./pipeline/Deadline.js"
import { makeFailures } from "./pipeline/Failures.js"
import { InFlight } from "./pipeline/InFlight.js"
import { makeLifecycleHeaders } from "./pipeline/Lifecycle.js"
import { makeRateLimit } from "./pipeline/RateLimit.js"
import { makeCountRequest, RequestCounter } from "./pipeline/RequestCounts.js"
import { makeRequestSpans } from "./pipeline/RequestSpan.js"
import { addRequestIdHeaders, assignRequestIds } from "./pipeline/RequestIds.js"
import { makeRespond } from "./pipeline/Respond.js"
import { makeServed } from "./pipeline/Served.js"
import { checkUrl, type RouteTable } from "./pipeline/UrlChecks.js"
import { ServerConfig } from "./ServerConfig.js"
import { Telemetry } from "./Telemetry.js"

export const makeGlobalMiddleware = (table: RouteTable) =>
  Effect.gen(function*() {
    const config = yield* ServerConfig
    const inFlight = yield* InFlight
    // Observability (server/Observability.ts), when configured: the request metrics are one more
    // writer of the access log's kind, and a traced request's span gets its ids.
    const telemetry = Option.getOrUndefined(yield* Effect.serviceOption(Telemetry))
    const log = makeAccessLog(config, table) // undefined when ACCESS_LOG=off: no cost per request
    const recorder = telemetry?.requests
    const access: typeof log = log === undefined ? recorder : recorder === undefined ? log : (method, path, status, requestId, startedMs) => {
      log(method, path, status, requestId, startedMs)
      recorder(method, path, status, requestId, startedMs)
    }
    const spans = telemetry?.tracer === undefined ? undefined : makeRequestSpans(telemetry.tracer, table)
    const lifecycle = makeLifecycleHeaders(table, config.docsUrl)
    const rateLimit = makeRateLimit(yield* RateLimiter, config)
    const failures = makeFailures(table, config.docsUrl)
    const counter = Option.getOrUndefined(yield* Effect.serviceOption(RequestCounter)) // absent: no count per request
    const deadline = makeDeadline(config.requestTimeoutMs, failures, makeRespond(access, failures, counter && makeCountRequest(counter.tally)))

    return <E, R>(
      app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
    ): Effect.Effect<HttpServerResponse.HttpServerResponse, never, R | HttpServerRequest.HttpServerRequest> =>
      Effect.withFiber((fiber) => {
        const request = Context.getUnsafe(fiber.context, HttpServerRequest.HttpServerRequest)
        inFlight.enter()
        const q = request.url.indexOf("?")
        const path = q === -1 ? request.url : request.url.slice(0, q)
        // The request span (only while spans are exported) becomes the fiber's parent span.
        const span = spans?.start(fiber, request, path)
        const ids = assignRequestIds(request, span?.traceId)
        if (span !== undefined && span.sampled) span.attribute("http.request.id", ids.requestId)
        const served = makeServed(request, ids.requestId, path, access === undefined ? 0 : performance.now())
        addRequestIdHeaders(served, ids)
        lifecycle(served)
        const leave = span === undefined ? inFlight.leave : () => {
          spans!.end(span, fiber, served)
          inFlight.leave()
        }
        return deadline(served, fiber, rateLimit(served, fiber, checkUrl(served, app)), leave)
      })
  })

/**
 * The pipeline as the router's global middleware (around every route and unknown route alike).
 */
export const layerGlobalMiddleware = (table: RouteTable) =>
  HttpRouter.middleware(
    Effect.map(makeGlobalMiddleware(table), (pipeline) =>
      // The router's types let a global middleware handle no error (they could not say which were
      // handled); this one answers every failure, so its effect never fails at all.
      pipeline as (
        app: Effect.Effect<HttpServerResponse.HttpServerResponse, Types.unhandled>
      ) => Effect.Effect<HttpServerResponse.HttpServerResponse, Types.unhandled, HttpServerRequest.HttpServerRequest>),
    { global: true }
  )
