/**
 * The request span of http/pipeline/RequestSpan.ts on its own, in-process (the exported span of a
 * served request is checked end to end by test/server/Observability.test.ts): its name, its
 * parent from `traceparent`, that it is the fiber's parent span while the request runs, its HTTP
 * attributes (the query redacted), and its exit for a success, a 5xx answer and no answer.
 */
import { Context, Effect, Exit, Option, Tracer } from "effect"
import { HttpServerRequest, HttpServerResponse } from "effect/http"
import { describe, expect, it } from "vitest"
import { routeTable } from "../../src/Http.js"
import { makeRequestSpans } from "../../src/http/pipeline/RequestSpan.js"
import { makeServed } from "../../src/http/pipeline/Served.js"
import { recordingTracer } from "../support/RecordingTracer.js"

/** Serves `url` through the step: starts the span, runs `during` with it as the parent span, answers `status` (none: no answer). */
const serve = (url: string, headers: Record<string, string>, status: number | undefined) => {
  const { spans, tracer } = recordingTracer()
  const steps = makeRequestSpans(tracer, routeTable)
  const request = HttpServerRequest.fromWeb(new Request(url, { headers }))
  const path = new URL(url).pathname
  let parentDuring: Tracer.AnySpan | undefined
  Effect.runSync(Effect.withFiber((fiber) => {
    const span = steps.start(fiber, request, path)
    parentDuring = Context.getOrUndefined(fiber.context, Tracer.ParentSpan)
    const served = makeServed(request, "sb_req_test", path, 0)
    if (status !== undefined) served.response = HttpServerResponse.empty({ status })
    steps.end(span, fiber, served)
    return Effect.void
  }))
  expect(spans).toHaveLength(1)
  return { ...spans[0]!, parentDuring }
}

describe("the request span", () => {
  it("is a server span named by its declared route, the fiber's parent span, with the HTTP attributes", () => {
    const r = serve("http://api.example:8080/v1/account?a=1&X-Amz-Signature=secret", { "user-agent": "probe/1" }, 200)
    expect([r.options.name, r.options.kind, r.options.sampled, Option.isNone(r.options.parent)]).toEqual(["GET /v1/account", "server", true, true])
    expect(r.parentDuring).toBe(r.span)
    expect(Object.fromEntries(r.span.attributes)).toEqual({
      "http.request.method": "GET",
      "url.path": "/v1/account",
      "url.query": "a=1&X-Amz-Signature=REDACTED",
      "url.scheme": "http",
      "server.address": "api.example",
      "server.port": 8080,
      "user_agent.original": "probe/1",
      "http.response.status_code": 200
    })
    expect(r.exit !== undefined && Exit.isSuccess(r.exit)).toBe(true)
  })

  it("continues a traceparent's trace, follows its sampled flag, and names an unknown route by its method", () => {
    const traceparent = `00-${"a".repeat(32)}-${"b".repeat(16)}-00`
    const r = serve("http://localhost/no/such/route", { traceparent }, 404)
    expect(r.options.name).toBe("GET")
    expect([r.span.traceId, Option.getOrUndefined(r.options.parent)?.spanId, r.options.sampled]).toEqual(["a".repeat(32), "b".repeat(16), false])
  })

  it("fails for a 5xx answer and for no answer (interrupted), and not for a 4xx", () => {
    const failed = serve("http://localhost/v1/account", {}, 503)
    expect(failed.exit !== undefined && Exit.isFailure(failed.exit)).toBe(true)
    expect(failed.span.attributes.get("http.response.status_code")).toBe(503)
    const gone = serve("http://localhost/v1/account", {}, undefined)
    expect(gone.exit !== undefined && Exit.isFailure(gone.exit) && Exit.hasInterrupts(gone.exit)).toBe(true)
    const refused = serve("http://localhost/v1/account", {}, 401)
    expect(refused.exit !== undefined && Exit.isSuccess(refused.exit)).toBe(true)
  })
})
