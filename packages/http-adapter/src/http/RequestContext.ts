/**
 * Per-request facts the global middleware establishes: the request id and the trace id. Held in a
 * FiberRef (set with `Effect.locally` around each request) so handlers built once at start can read
 * them without a per-request context.
 */
import { Effect, FiberRef } from "effect"

export interface RequestInfo {
  readonly requestId: string
  readonly traceId: string
}

export const RequestInfoRef: FiberRef.FiberRef<RequestInfo> = FiberRef.unsafeMake<RequestInfo>({ requestId: "", traceId: "" })

export const RequestContext = FiberRef.get(RequestInfoRef)

export const withRequestInfo = (info: RequestInfo) => <A, E, R>(self: Effect.Effect<A, E, R>) =>
  Effect.locally(self, RequestInfoRef, info)

/** W3C trace context: a valid `traceparent` keeps its trace id (all-zero or malformed ones are ignored). */
export const traceIdOf = (traceparent: string | undefined): string | undefined => {
  if (traceparent === undefined) return undefined
  const m = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/.exec(traceparent.trim())
  if (m === null || m[1] === "ff" || /^0+$/.test(m[2]!) || /^0+$/.test(m[3]!)) return undefined
  return m[2]
}
