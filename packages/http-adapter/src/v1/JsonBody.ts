/**
 * Reading a /v1 endpoint's JSON body before the platform decodes it with the endpoint's payload
 * schema: the rules every surface shares (http/Body.ts — the size limit, Content-Encoding, UTF-8,
 * nesting depth, storable text) and the Content-Type check, each refused as a 413 or 422 problem in
 * the API's words. The request the endpoint then sees answers its body from what was read, so the
 * platform parses that text (and the Idempotency step fingerprints the parsed value, `requestJson`).
 * Endpoints without a JSON payload pass through untouched.
 */
import { HttpApiMiddleware } from "effect/http-api"
import { HttpMethod, HttpServerRequest } from "effect/http"
import { Effect, Layer } from "effect"
import { isJsonType, parseJsonBody, readBodyText } from "../http/Body.js"
import { ServerConfig } from "../http/ServerConfig.js"
import { refusedBody } from "./Declare.js"
import { problem, ProblemFailure, validationFailed } from "./ProblemFailure.js"

export class JsonBody extends HttpApiMiddleware.Service<JsonBody>()("JsonBody", {
  error: ProblemFailure
}) {}

const parsed = new WeakMap<HttpServerRequest.HttpServerRequest, unknown>()

/** The parsed JSON body of a request read by `JsonBody` (`undefined` for one without). */
export const requestJson = (request: HttpServerRequest.HttpServerRequest): unknown => parsed.get(request)

/** The request as the endpoint sees it: its body the text read, declared as JSON. */
const withBody = (request: HttpServerRequest.HttpServerRequest, text: string, json: unknown) => {
  const read: HttpServerRequest.HttpServerRequest = Object.create(request, {
    text: { value: Effect.succeed(text) },
    headers: { value: { ...request.headers, "content-type": "application/json" } }
  })
  parsed.set(read, json)
  // The outer steps (V1Problems, answering a refused body) see the request as it came.
  parsed.set(request, json)
  return read
}

/** Reads and checks the body: 413 over the limit, 422 for a body that is not JSON of the API's rules. */
const readJson = (maxBodyBytes: number) =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const contentType = request.headers["content-type"]
    if (!isJsonType(contentType)) {
      return yield* validationFailed([{
        code: "unsupported_media_type",
        location: "header",
        message: `Expected Content-Type application/json, got ${contentType === undefined ? "none" : JSON.stringify(contentType)}.`,
        path: "/content-type"
      }], "The request body must be JSON.")
    }
    const text = yield* readBodyText(maxBodyBytes).pipe(
      Effect.mapError((e) =>
        e._tag === "BodyTooLarge"
          ? problem("PAYLOAD_TOO_LARGE", `The request body exceeds ${maxBodyBytes} bytes.`)
          : validationFailed([{
            code: e.status === 415 ? "unsupported_encoding" : "unreadable_body",
            location: e.location,
            message: e.message,
            path: e.location === "header" ? "/content-encoding" : ""
          }], e.message)
      )
    )
    const result = parseJsonBody(text)
    if ("refused" in result) {
      return yield* validationFailed([{ ...result.refused, location: "body" }], result.refused.code === "malformed_json"
        ? "The request body is not valid JSON."
        : result.refused.message)
    }
    return { request, text, json: result.ok }
  })

export const JsonBodyLive = Layer.effect(
  JsonBody,
  Effect.map(ServerConfig, (config) => (httpEffect, { endpoint }) =>
    endpoint.payload.has("application/json") && HttpMethod.hasBody(endpoint.method)
      ? Effect.flatMap(
        Effect.mapError(readJson(config.maxBodyBytes), (p) => refusedBody(endpoint, p)),
        ({ json, request, text }) => Effect.provideService(httpEffect, HttpServerRequest.HttpServerRequest, withBody(request, text, json))
      )
      : httpEffect)
)
