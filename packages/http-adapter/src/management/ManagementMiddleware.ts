/**
 * The steps every management endpoint shares (routes/ManagementPipeline.ts says what each one
 * does), as HttpApi middleware, outermost first:
 *
 * - `ManagementFailures` (on the API): every failure leaves as its envelope. A handler's or a
 *   step's `EnvelopeFailure` is handed on as the request's defect before the platform would encode
 *   it, and the global middleware renders it (http/pipeline/Failures.ts), as it did for the raw
 *   routes; a query or body the declaration refuses becomes the 422 envelope in the words the raw
 *   routes used (a query's: its declared `QueryRefusal`; a body's: each wrong field).
 * - `ManagementGuard`: TLS, Basic credentials, the rate limit and closing projects, by the
 *   endpoint's declared `Use`; it provides the project (`ManagedProject`) to the handler.
 * - `ManagementJsonBody`: an endpoint with a JSON body has it read once by the rules every surface
 *   shares; the request the platform then decodes answers its body from the text read (the pattern
 *   of v1/JsonBody.ts). An `OptionalBody` endpoint sent none is handed `{}`.
 */
import { HttpApiError, HttpApiMiddleware, type HttpApiEndpoint } from "effect/http-api"
import { HttpMethod, HttpServerRequest } from "effect/http"
import type { ProjectRecord } from "@switchboard/core/projects"
import { Context, Effect, Layer, Result, Schema, SchemaAST } from "effect"
import { ServerConfig } from "../http/ServerConfig.js"
import { EnvelopeFailure, envelopeFailure } from "../http/Surfaces.js"
import { issuesMessage, makeManagementGuard, readJsonBody } from "../routes/ManagementPipeline.js"
import { payloadParseOptions } from "../v1/Pipeline.js"
import { bodyIsOptional, queryRefusal, useOf } from "./ManagementDeclare.js"

/** The project a management request acts on (its credentials' project), for the handler. */
export class ManagedProject extends Context.Service<ManagedProject, ProjectRecord>()("http/ManagedProject") {}

export class ManagementFailures extends HttpApiMiddleware.Service<ManagementFailures>()("ManagementFailures", {
  error: EnvelopeFailure
}) {}

export class ManagementGuard extends HttpApiMiddleware.Service<ManagementGuard, { provides: ManagedProject }>()("ManagementGuard", {
  error: EnvelopeFailure
}) {}

export class ManagementJsonBody extends HttpApiMiddleware.Service<ManagementJsonBody>()("ManagementJsonBody", {
  error: EnvelopeFailure
}) {}

const invalid = (message: string) => envelopeFailure(422, "VALIDATION_FAILED", message)

/** The members of a declared query that take one value (an array member may repeat). */
const singleMembers = (endpoint: HttpApiEndpoint.Top): ReadonlyArray<string> => {
  const ast = endpoint.query === undefined ? undefined : SchemaAST.toType(endpoint.query.ast)
  if (ast === undefined || ast._tag !== "Objects") return []
  return ast.propertySignatures.filter((p) => p.type._tag !== "Arrays").map((p) => String(p.name))
}

/** A refused query: a single-valued member sent twice is named, else the endpoint's message. */
const queryFailure = (endpoint: HttpApiEndpoint.Top) =>
  Effect.map(HttpServerRequest.HttpServerRequest, (request) => {
    const params = new URL(request.url, "http://localhost").searchParams
    const repeated = singleMembers(endpoint).find((key) => params.getAll(key).length > 1)
    return invalid(repeated === undefined ? queryRefusal(endpoint) : `${repeated}: send it at most once.`)
  })

const parsed = new WeakMap<HttpServerRequest.HttpServerRequest, unknown>()

/**
 * A refused body: each wrong field, decoded again (only on a refusal) with the endpoint's JSON
 * schema itself, every issue reported (the platform decodes a union of the payload schemas).
 */
const bodyFailure = (endpoint: HttpApiEndpoint.Top, error: HttpApiError.HttpApiSchemaError) =>
  Effect.map(HttpServerRequest.HttpServerRequest, (request) => {
    const schemas = endpoint.payload.get("application/json")?.schemas ?? []
    if (schemas.length === 1) {
      const decoded = Schema.decodeUnknownResult(schemas[0] as Schema.Codec<unknown, unknown>, payloadParseOptions)(parsed.get(request))
      if (Result.isFailure(decoded)) return invalid(issuesMessage(decoded.failure))
    }
    return invalid(issuesMessage(error.cause))
  })

export const ManagementFailuresLive = Layer.succeed(
  ManagementFailures,
  (httpEffect, { endpoint }) =>
    Effect.catch(httpEffect, (e) =>
      e instanceof EnvelopeFailure
        ? Effect.die(e)
        : HttpApiError.HttpApiSchemaError.is(e) && e.kind === "Query"
        ? Effect.flatMap(queryFailure(endpoint), Effect.die)
        : HttpApiError.HttpApiSchemaError.is(e) && e.kind === "Payload"
        ? Effect.flatMap(bodyFailure(endpoint, e), Effect.die)
        : Effect.fail(e))
)

export const ManagementGuardLive = Layer.effect(
  ManagementGuard,
  Effect.map(makeManagementGuard, ({ guard }) => (httpEffect, { endpoint }) => {
    const use = useOf(endpoint)
    return Effect.flatMap(guard(use), (project) => Effect.provideService(httpEffect, ManagedProject, project))
  })
)

/** The request as the endpoint sees it: its body the text read, declared as JSON. */
const withBody = (request: HttpServerRequest.HttpServerRequest, text: string, json: unknown) => {
  const read: HttpServerRequest.HttpServerRequest = Object.create(request, {
    text: { value: Effect.succeed(text) },
    headers: { value: { ...request.headers, "content-type": "application/json" } }
  })
  parsed.set(read, json)
  // `ManagementFailures` sees the request as it came.
  parsed.set(request, json)
  return read
}

/** No body at all: no Content-Type, and no length or a zero one. */
const sentNoBody = (request: HttpServerRequest.HttpServerRequest) =>
  request.headers["content-type"] === undefined &&
  (request.headers["content-length"] === undefined || request.headers["content-length"] === "0")

export const ManagementJsonBodyLive = Layer.effect(
  ManagementJsonBody,
  Effect.map(ServerConfig, (config) => (httpEffect, { endpoint }) => {
    if (!endpoint.payload.has("application/json") || !HttpMethod.hasBody(endpoint.method)) return httpEffect
    const optional = bodyIsOptional(endpoint)
    return Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
      optional && sentNoBody(request)
        ? Effect.provideService(httpEffect, HttpServerRequest.HttpServerRequest, withBody(request, "{}", {}))
        : Effect.flatMap(
          readJsonBody(config.maxBodyBytes),
          ({ json, text }) => Effect.provideService(httpEffect, HttpServerRequest.HttpServerRequest, withBody(request, text, json))
        ))
  })
)

/** The three middleware's implementations, for `HttpApiBuilder.layer(ManagementApi)`. */
export const ManagementMiddlewareLive = Layer.mergeAll(ManagementFailuresLive, ManagementGuardLive, ManagementJsonBodyLive)
