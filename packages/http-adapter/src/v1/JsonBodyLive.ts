/** The server side of `JsonBody` (JsonBody.ts): reading and checking a /v1 endpoint's JSON body. */
import { HttpMethod, HttpServerRequest } from "effect/http"
import { Effect, Layer } from "effect"
import { isJsonType, parseJsonBody, readBodyText } from "../http/Body.js"
import { ServerConfig } from "../http/ServerConfig.js"
import { refusedBody } from "./Declare.js"
import { JsonBody, withBody } from "./JsonBody.js"
import { problem, validationFailed } from "./ProblemFailure.js"

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
