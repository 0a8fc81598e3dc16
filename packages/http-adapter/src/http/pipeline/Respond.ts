/**
 * The last step: whatever leaves — the work's response, or its failure rendered (Failures.ts) —
 * gets the pipeline's headers and its access-log line (AccessLog.ts; no writer with ACCESS_LOG=off,
 * so no cost per request) and its count toward its project (RequestCounts.ts; none with
 * REQUEST_COUNTS_FLUSH_SECONDS=0). Served by Node, the headers are on the Node response already
 * (Served.ts): only a response that names one of them itself gets them set on top.
 */
import { HttpServerResponse } from "effect/http"
import { type Context, Effect, Exit } from "effect"
import type { AccessLogWriter } from "../AccessLog.js"
import type { Failures } from "./Failures.js"
import type { makeCountRequest } from "./RequestCounts.js"
import type { Served } from "./Served.js"

export interface Respond {
  /**
   * Whatever leaves: its headers, its access-log line and its count (`context`: the request
   * fiber's, with the route it matched). (Cached records are dropped by the writes that change them.)
   */
  readonly finish: (served: Served, response: HttpServerResponse.HttpServerResponse, context: Context.Context<never>) => HttpServerResponse.HttpServerResponse
  /** The answer to the work's exit (nothing more once the deadline answered on the Node response). */
  readonly respond: (
    served: Served,
    exit: Exit.Exit<HttpServerResponse.HttpServerResponse, unknown>,
    context: Context.Context<never>
  ) => Effect.Effect<HttpServerResponse.HttpServerResponse>
}

export const makeRespond = (
  access: AccessLogWriter | undefined,
  failures: Failures,
  count?: ReturnType<typeof makeCountRequest>
): Respond => {
  const finish = (served: Served, response: HttpServerResponse.HttpServerResponse, context: Context.Context<never>): HttpServerResponse.HttpServerResponse => {
    access?.(served.request.method, served.path, response.status, served.requestId, served.started)
    count?.(context, response.status)
    if (served.node !== undefined) {
      // Already on the Node response; only a response naming one of them itself needs ours on top.
      let clash = false
      for (const name in served.headers) {
        if (name in response.headers) {
          clash = true
          break
        }
      }
      if (!clash) return (served.response = response)
    }
    return (served.response = HttpServerResponse.setHeaders(response, served.headers))
  }

  const respond = (served: Served, exit: Exit.Exit<HttpServerResponse.HttpServerResponse, unknown>, context: Context.Context<never>) => {
    served.settled = true
    // Answered already by the deadline: the platform writes nothing on an ended Node response.
    if (served.timedOut) return Effect.succeed(HttpServerResponse.empty({ status: 503 }))
    return Exit.isSuccess(exit)
      ? Effect.succeed(finish(served, exit.value, context))
      : Effect.map(failures.failed(served, exit.cause), (r) => finish(served, r, context))
  }

  return { finish, respond }
}
