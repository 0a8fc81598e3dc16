/**
 * The request-span step (only while spans are exported, server/Observability.ts): one server span
 * per request, made here on the application's tracer rather than by the platform's tracing
 * middleware, which costs a cached read about twice as much (a continuation frame more, its
 * attributes from a parsed `URL`, the request's headers scanned for span attributes; see
 * bench/README.md "tracing.ts").
 *
 * - Named `METHOD /declared/route` (`METHOD` alone for an unknown route); its parent is the
 *   request's `traceparent` (or B3) when it has one, and it is the fiber's parent span, so the
 *   spans of services, statements and outbound calls descend from it (the router adds
 *   `http.route` to it, the pipeline `http.request.id`).
 * - Ended when the request's fiber ends (after the response was written), with the attributes of
 *   OpenTelemetry's HTTP server spans, set once: `http.request.method`, `url.path`, `url.query`
 *   (redacted as the platform does), `url.scheme`, `server.address`, `server.port`,
 *   `user_agent.original`, `client.address`, `http.response.status_code`. A 5xx answer fails the
 *   span (as OpenTelemetry asks of server spans), as does a request interrupted before it was
 *   answered (the client went away).
 */
import { Clock, Context, Exit, Option, Tracer } from "effect"
import type { Fiber } from "effect"
import { HttpServerError, type HttpServerRequest, HttpTraceContext, UrlParams } from "effect/http"
import { makeRouteOf } from "../AccessLog.js"
import type { Served } from "./Served.js"
import type { RouteTable } from "./UrlChecks.js"

/** `METHOD /declared/route` (`METHOD` alone for an unknown route), the route of a (method, path) remembered, bounded. */
export const spanNameOf = (table: RouteTable) => {
  const routeOf = makeRouteOf(table)
  return (method: string, path: string): string => {
    const route = routeOf(method, path)
    return route === "-" ? method : `${method} ${route}`
  }
}

export interface RequestSpans {
  /** Starts the span of the request the fiber serves and makes it the fiber's parent span. */
  readonly start: (fiber: Fiber.Fiber<unknown, unknown>, request: HttpServerRequest.HttpServerRequest, path: string) => Tracer.Span
  /** Ends it, when the request's fiber ends: the attributes, and the outcome of `served.response`. */
  readonly end: (span: Tracer.Span, fiber: Fiber.Fiber<unknown, unknown>, served: Served) => void
}

const noLinks: Array<Tracer.SpanLink> = []

/** The host and port of a `Host` header (`[v6]:port` too), without parsing a URL. */
const hostAndPort = (host: string): [string, number | undefined] => {
  const close = host.startsWith("[") ? host.indexOf("]") : -1
  const colon = host.indexOf(":", close === -1 ? 0 : close)
  const name = close === -1 ? (colon === -1 ? host : host.slice(0, colon)) : host.slice(1, close)
  const port = colon === -1 ? undefined : Number(host.slice(colon + 1))
  return [name.toLowerCase(), port !== undefined && Number.isInteger(port) ? port : undefined]
}

/** The host of an absolute URL (a request without a `Host` header: a web handler's, HTTP/1.0). */
const authorityOf = (url: string): string | undefined => {
  const authority = /^[a-z][a-z\d+.-]*:\/\/([^/?#]*)/i.exec(url)?.[1]
  return authority === undefined ? undefined : authority.slice(authority.lastIndexOf("@") + 1)
}

/** The span's exit: failed for a 5xx answer (without a stack: it is a status, not a throw) or no answer at all. */
const exitOf = (fiber: Fiber.Fiber<unknown, unknown>, served: Served): Exit.Exit<unknown, unknown> => {
  const response = served.response
  if (response === undefined) return Exit.interrupt(fiber.id)
  if (response.status < 500 || response.status >= 600) return Exit.succeed(response)
  const limit = Error.stackTraceLimit
  Error.stackTraceLimit = 0
  try {
    return Exit.fail(new HttpServerError.HttpServerError({ reason: new HttpServerError.ResponseError({ request: served.request, response }) }))
  } finally {
    Error.stackTraceLimit = limit
  }
}

export const makeRequestSpans = (tracer: Tracer.Tracer, table: RouteTable): RequestSpans => {
  const nameOf = spanNameOf(table)
  return {
    start: (fiber, request, path) => {
      const parent = Option.getOrUndefined(HttpTraceContext.fromHeaders(request.headers))
      const span = tracer.span({
        name: nameOf(request.method, path),
        parent: parent === undefined ? Option.none() : Option.some(parent),
        annotations: Context.empty(),
        links: noLinks,
        startTime: fiber.getRef(Clock.Clock).currentTimeNanosUnsafe(),
        kind: "server",
        root: false,
        sampled: parent === undefined ? true : parent.sampled
      })
      fiber.setContext(Context.add(fiber.context, Tracer.ParentSpan, span))
      return span
    },
    end: (span, fiber, served) => {
      if (span.sampled) {
        const request = served.request
        span.attribute("http.request.method", request.method)
        span.attribute("url.path", served.path)
        const q = request.url.indexOf("?")
        if (q !== -1 && q < request.url.length - 1) {
          span.attribute("url.query", UrlParams.redactUrl(request.url.slice(q), fiber.getRef(UrlParams.CurrentRedactedNames)).slice(1))
        }
        const scheme = request.protocol ?? (/^https:/i.test(request.originalUrl) ? "https" : "http")
        span.attribute("url.scheme", scheme)
        const host = request.headers["host"] ?? authorityOf(request.originalUrl)
        if (host !== undefined && host !== "") {
          const [address, port] = hostAndPort(host)
          span.attribute("server.address", address)
          span.attribute("server.port", port ?? (scheme === "https" ? 443 : 80))
        }
        const agent = request.headers["user-agent"]
        if (agent !== undefined) span.attribute("user_agent.original", agent)
        if (Option.isSome(request.remoteAddress)) span.attribute("client.address", request.remoteAddress.value)
        if (served.response !== undefined) span.attribute("http.response.status_code", served.response.status)
      }
      span.end(fiber.getRef(Clock.Clock).currentTimeNanosUnsafe(), exitOf(fiber, served))
    }
  }
}
