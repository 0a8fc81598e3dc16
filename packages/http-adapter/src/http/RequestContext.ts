/**
 * Per-request facts the global middleware establishes: the request id and the trace id. Kept beside
 * the request (on the platform's underlying request object, so a `modify`d request finds them too),
 * so handlers built once at start read them with no per-request context or fiber-local copy;
 * outside a request, the `RequestInfoRef` reference's value (empty ids unless provided).
 */
import { HttpServerRequest } from "effect/http"
import { Setting } from "@switchboard/core/internal"
import { Context, Effect } from "effect"

export interface RequestInfo {
  readonly requestId: string
  readonly traceId: string
}

/** The ids outside a request (empty unless provided, e.g. by a job that acts for one). */
export class RequestInfoRef extends Setting<RequestInfoRef>()("http/RequestInfo", {
  defaultValue: (): RequestInfo => ({ requestId: "", traceId: "" })
}) {}

/**
 * Where the ids live on the platform's request object: a symbol-keyed property (every request gets
 * the same one, so the objects keep one shape; cheaper than a WeakMap entry per request).
 */
const infoKey: unique symbol = Symbol.for("switchboard/RequestInfo")
type Carrier = { [infoKey]?: RequestInfo }

/** Records the ids of `request` (the global middleware, once per request). */
export const setRequestInfo = (request: HttpServerRequest.HttpServerRequest, info: RequestInfo): void => {
  const source = request.source
  if (typeof source === "object" && source !== null) (source as Carrier)[infoKey] = info
}

/** The current request's ids. */
export const RequestContext: Effect.Effect<RequestInfo> = Effect.contextWith((context: Context.Context<never>) => {
  const source = Context.getOrUndefined(context, HttpServerRequest.HttpServerRequest)?.source
  const info = typeof source === "object" && source !== null ? (source as Carrier)[infoKey] : undefined
  return Effect.succeed(info ?? Context.get(context, RequestInfoRef))
})

/** W3C trace context: a valid `traceparent` keeps its trace id (all-zero or malformed ones are ignored). */
export const traceIdOf = (traceparent: string | undefined): string | undefined => {
  if (traceparent === undefined) return undefined
  const m = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/.exec(traceparent.trim())
  if (m === null || m[1] === "ff" || /^0+$/.test(m[2]!) || /^0+$/.test(m[3]!)) return undefined
  return m[2]
}
