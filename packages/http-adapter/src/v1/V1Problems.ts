/**
 * How a /v1 failure leaves the HttpApi: every one is a `ProblemFailure`, rendered by the global
 * middleware (http/pipeline/Failures.ts) like the failures of every other surface. The platform
 * answers any failure of an endpoint itself — encoded by the endpoint's error schemas, else as a
 * defect — so this middleware, the outermost of every /v1 endpoint, hands a problem on as the
 * request's defect before the platform encodes it. A body the endpoint's payload schema refuses
 * becomes the 422 problem with one issue per failure (`location` "json"), as every validation
 * message of the API; a query string its query schema refuses, the same with `location` "query". Declaring `ProblemFailure` as its error is what lets handlers and `Authn`
 * fail with it.
 */
import { HttpApiError, HttpApiMiddleware, type HttpApiEndpoint } from "effect/http-api"
import { HttpServerRequest } from "effect/http"
import { Effect, Layer, Result, Schema } from "effect"
import { refusedBody } from "./Declare.js"
import { requestJson } from "./JsonBody.js"
import { issuesOf, payloadParseOptions, queryParseOptions } from "./Pipeline.js"
import { ProblemFailure, validationFailed } from "./Problems.js"

export class V1Problems extends HttpApiMiddleware.Service<V1Problems>()("V1Problems", {
  error: ProblemFailure
}) {}

/**
 * The issues of a refused body. The platform decodes a payload as a union of the endpoint's
 * payload schemas, which reports only the failing literal of a body that has one wrong; the body
 * is decoded again with the endpoint's JSON schema itself, for every issue (this runs only on a
 * refusal).
 */
const bodyRefusal = (endpoint: HttpApiEndpoint.Top, error: HttpApiError.HttpApiSchemaError) =>
  Effect.map(HttpServerRequest.HttpServerRequest, (request) => {
    const schemas = endpoint.payload.get("application/json")?.schemas ?? []
    if (schemas.length === 1) {
      const decoded = Schema.decodeUnknownResult(schemas[0] as Schema.Codec<unknown, unknown>, payloadParseOptions)(requestJson(request))
      if (Result.isFailure(decoded)) return refusedBody(endpoint, validationFailed(issuesOf(decoded.failure, "json")))
    }
    return refusedBody(endpoint, validationFailed(issuesOf(error.cause, "json")))
  })

/**
 * The issues of a refused query string: decoded again with the endpoint's query schema, every
 * issue reported (the platform stops at the first), each with location `query`.
 */
const queryRefusal = (endpoint: HttpApiEndpoint.Top, error: HttpApiError.HttpApiSchemaError) =>
  Effect.map(HttpServerRequest.HttpServerRequest, (request) => {
    const params = HttpServerRequest.searchParamsFromURL(new URL(request.url, "http://localhost"))
    const schema = endpoint.query as Schema.Codec<unknown, unknown> | undefined
    const decoded = schema === undefined ? undefined : Schema.decodeUnknownResult(schema, queryParseOptions)(params)
    return validationFailed(
      issuesOf(decoded !== undefined && Result.isFailure(decoded) ? decoded.failure : error.cause, "query"),
      "The query string is not valid."
    )
  })

export const V1ProblemsLive = Layer.succeed(
  V1Problems,
  (httpEffect, { endpoint }) =>
    Effect.catch(httpEffect, (e) =>
      e instanceof ProblemFailure
        ? Effect.die(e)
        : HttpApiError.HttpApiSchemaError.is(e) && e.kind === "Payload"
        ? Effect.flatMap(bodyRefusal(endpoint, e), Effect.die)
        : HttpApiError.HttpApiSchemaError.is(e) && e.kind === "Query"
        ? Effect.flatMap(queryRefusal(endpoint, e), Effect.die)
        : Effect.fail(e))
)
