/**
 * The request-ids step: every request gets a new request id and a trace id (its valid
 * `traceparent`'s, else a new one), recorded on the request for handlers and logs
 * (RequestContext.ts) and sent back as `X-Request-ID` and `X-Trace-ID`.
 *
 * The ids are made without an effect: a UUIDv7 from the wall clock and 10 random bytes cut from a
 * pooled CSPRNG buffer (core's `makeRandomPool`, as `SecretsLive` uses). These ids correlate logs;
 * they are not secrets, and tests need not seed them.
 */
import type { HttpServerRequest } from "effect/http"
import { formatTypeId, hexOf, IdKinds, makeRandomPool, uuidv7Bytes } from "@switchboard/core/shared"
import { type RequestInfo, setRequestInfo, traceIdOf } from "../RequestContext.js"
import { addHeader, type Served } from "./Served.js"

const random = makeRandomPool()

/** A new `sb_req_…` id. */
export const newRequestId = (): string => formatTypeId(IdKinds.request, uuidv7Bytes(Date.now(), random(10)))

/** A new W3C trace id: 32 hex digits, time-ordered, never all zero. */
export const newTraceId = (): string => hexOf(uuidv7Bytes(Date.now(), random(10)))

/** The ids of a request that starts now, recorded on it (`traceId`: its exported span's, when traced). */
export const assignRequestIds = (request: HttpServerRequest.HttpServerRequest, traceId?: string): RequestInfo => {
  const ids: RequestInfo = { requestId: newRequestId(), traceId: traceId ?? traceIdOf(request.headers["traceparent"]) ?? newTraceId() }
  setRequestInfo(request, ids)
  return ids
}

/** The ids' headers, first on every response. */
export const addRequestIdHeaders = (served: Served, ids: RequestInfo) => {
  addHeader(served, "x-request-id", ids.requestId)
  addHeader(served, "x-trace-id", ids.traceId)
}
