/**
 * Reading a /v1 endpoint's JSON body before the platform decodes it with the endpoint's payload
 * schema: the rules every surface shares (http/Body.ts — the size limit, Content-Encoding, UTF-8,
 * nesting depth, storable text) and the Content-Type check, each refused as a 413 or 422 problem in
 * the API's words. The request the endpoint then sees answers its body from what was read, so the
 * platform parses that text (and the Idempotency step fingerprints the parsed value, `requestJson`).
 * Endpoints without a JSON payload pass through untouched.
 *
 * This module is the declaration (the middleware the endpoints name, and the parsed body); the
 * reading is `JsonBodyLive.ts`, so the API declaration — and the typed client built from it — does
 * not load the server's body reader.
 */
import { HttpApiMiddleware } from "effect/http-api"
import type { HttpServerRequest } from "effect/http"
import { Effect } from "effect"
import { ProblemFailure } from "./ProblemFailure.js"

export class JsonBody extends HttpApiMiddleware.Service<JsonBody>()("JsonBody", {
  error: ProblemFailure
}) {}

const parsed = new WeakMap<HttpServerRequest.HttpServerRequest, unknown>()

/** The parsed JSON body of a request read by `JsonBody` (`undefined` for one without). */
export const requestJson = (request: HttpServerRequest.HttpServerRequest): unknown => parsed.get(request)

/** The request as the endpoint sees it: its body the text read, declared as JSON. */
export const withBody = (request: HttpServerRequest.HttpServerRequest, text: string, json: unknown) => {
  const read: HttpServerRequest.HttpServerRequest = Object.create(request, {
    text: { value: Effect.succeed(text) },
    headers: { value: { ...request.headers, "content-type": "application/json" } }
  })
  parsed.set(read, json)
  // The outer steps (V1Problems, answering a refused body) see the request as it came.
  parsed.set(request, json)
  return read
}
