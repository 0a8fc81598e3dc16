/**
 * What the pipeline knows of one request, shared by its steps: the ids, the path and its surface,
 * the headers every step adds, and the Node response when Node serves it. The headers go on the
 * Node response as they become known (Node merges them into the response's own at `writeHead`), so
 * a response that names none of them leaves as it is: no copy of its headers per request.
 */
import { HttpServerRequest, type HttpServerResponse } from "effect/http"
import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import { ServerResponse } from "node:http"
import { nodeIncoming } from "../Body.js"
import { surfaceOf } from "../Surfaces.js"

export interface Served {
  readonly request: HttpServerRequest.HttpServerRequest
  readonly requestId: string
  readonly path: string
  readonly surface: ReturnType<typeof surfaceOf>
  readonly started: number
  /** Every header the pipeline adds, set once on whatever response leaves. */
  readonly headers: Record<string, string>
  /** The Node response, when served by Node (see the top of this file). */
  readonly node: ServerResponse | undefined
  /** The work's exit reached the pipeline (Node path: the deadline no longer answers). */
  settled: boolean
  /** The deadline answered on the Node response (whatever the work does later is not sent). */
  timedOut: boolean
  /** What left (the request span's status), once it is known. */
  response: HttpServerResponse.HttpServerResponse | undefined
}

const nodeResponseOf = (request: HttpServerRequest.HttpServerRequest): ServerResponse | undefined => {
  if (nodeIncoming(request) === undefined) return undefined
  const response = NodeHttpServerRequest.toServerResponse(request)
  return response instanceof ServerResponse ? response : undefined
}

/** The record of a request that starts now (`started`: its access-log clock, 0 without one). */
export const makeServed = (request: HttpServerRequest.HttpServerRequest, requestId: string, path: string, started: number): Served => ({
  request,
  requestId,
  path,
  surface: surfaceOf(path),
  started,
  headers: {},
  node: nodeResponseOf(request),
  settled: false,
  timedOut: false,
  response: undefined
})

/** One header of the pipeline, on whatever response leaves (and on the Node response at once). */
export const addHeader = (served: Served, name: string, value: string) => {
  served.headers[name] = value
  served.node?.setHeader(name, value)
}
