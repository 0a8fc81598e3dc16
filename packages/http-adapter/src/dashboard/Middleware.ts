/**
 * The steps of every Dashboard API endpoint, outermost first:
 * - `DashboardEnvelopes`: every failure leaves as its envelope, rendered by the global middleware
 *   (http/pipeline/Failures.ts) — a failure is handed on as the request's defect before the
 *   platform would encode it; a 5xx is logged with the operation's name;
 * - `DashboardAccess`: the endpoint's declared access (dashboard/Declare.ts) — authentication (a
 *   session or an OAuth access token, 401), a token's scope or a session-only operation (403) —
 *   then the caller is provided to the handler, which runs knowing how it authenticated
 *   (`withAuthentication`, for required SSO);
 * - `DashboardBody`: the CSRF rules of a cookie-authenticated request, and the body read once by
 *   its Content-Type (JSON, form or multipart: routes/DashboardBody.ts, with its coercion and its
 *   413, 415 and 422 answers) and checked by the payload schema; the endpoint then sees a request
 *   whose body is the equivalent JSON text, which the platform decodes (as v1/JsonBody.ts does).
 */
import { HttpApiError, HttpApiMiddleware } from "effect/http-api"
import { HttpServerRequest } from "effect/http"
import { Sessions } from "@switchboard/core/dashboard"
import { OAuthGrants } from "@switchboard/core/oauth"
import { ServerSecret } from "@switchboard/core/shared"
import { Context, Effect, Layer, Option } from "effect"
import { ServerConfig } from "../http/ServerConfig.js"
import { EnvelopeFailure } from "../http/Surfaces.js"
import { authorize, checkCsrf, type DashboardCaller, withAuthentication } from "../routes/DashboardAccess.js"
import { checkedBodyValue, readDashboardBody, refusedBody } from "../routes/DashboardBody.js"
import { accessOf } from "./Declare.js"

/** The caller of a Dashboard request: none only on a public endpoint. */
export class CurrentDashboardCaller extends Context.Service<CurrentDashboardCaller, Option.Option<DashboardCaller>>()(
  "switchboard/dashboard/CurrentCaller"
) {}

/** The caller of an endpoint that is not public (its handler reads it). */
export const currentCaller: Effect.Effect<DashboardCaller, never, CurrentDashboardCaller> = Effect.flatMap(
  CurrentDashboardCaller,
  (caller) => Option.isSome(caller) ? Effect.succeed(caller.value) : Effect.die(new Error("a public Dashboard operation read its caller"))
)

export class DashboardEnvelopes extends HttpApiMiddleware.Service<DashboardEnvelopes>()("DashboardEnvelopes", {
  error: EnvelopeFailure
}) {}

export class DashboardAccess extends HttpApiMiddleware.Service<DashboardAccess, { provides: CurrentDashboardCaller }>()("DashboardAccess", {
  error: EnvelopeFailure
}) {}

export class DashboardBody extends HttpApiMiddleware.Service<DashboardBody, { requires: CurrentDashboardCaller }>()("DashboardBody", {
  error: EnvelopeFailure
}) {}

export const DashboardEnvelopesLive = Layer.succeed(DashboardEnvelopes, (httpEffect, { endpoint }) =>
  Effect.catch(httpEffect, (e) => {
    // The body was checked against the payload schema already; a refusal of the platform's decoding is answered alike.
    const failure = e instanceof EnvelopeFailure
      ? e
      : HttpApiError.HttpApiSchemaError.is(e) && e.kind === "Payload"
      ? refusedBody(e.cause)
      : undefined
    if (failure === undefined) return Effect.fail(e)
    return Effect.andThen(
      failure.status >= 500 ? Effect.logError("dashboard operation failed", { operation: endpoint.identifier, message: failure.message }) : Effect.void,
      Effect.die(failure)
    )
  }))

export const DashboardAccessLive = Layer.effect(
  DashboardAccess,
  Effect.gen(function*() {
    const services = Context.pick(Sessions, OAuthGrants)(yield* Effect.context<Sessions | OAuthGrants>())
    return (httpEffect, { endpoint }) => {
      const access = accessOf(endpoint)
      return Effect.flatMap(Effect.provideContext(authorize(access), services), (caller) => {
        const handler = Effect.provideService(httpEffect, CurrentDashboardCaller, caller)
        return Option.isSome(caller) ? withAuthentication(caller.value, handler) : handler
      })
    }
  })
)

/** The request as the endpoint sees it: its body the JSON text of what was read. */
const withJsonBody = (request: HttpServerRequest.HttpServerRequest, text: string): HttpServerRequest.HttpServerRequest =>
  Object.create(request, {
    text: { value: Effect.succeed(text) },
    headers: { value: { ...request.headers, "content-type": "application/json" } }
  })

export const DashboardBodyLive = Layer.effect(
  DashboardBody,
  Effect.gen(function*() {
    const services = Context.pick(ServerConfig, ServerSecret)(yield* Effect.context<ServerConfig | ServerSecret>())
    return (httpEffect, { endpoint }) =>
      Effect.gen(function*() {
        const caller = yield* CurrentDashboardCaller
        const schema = endpoint.payload.get("application/json")?.schemas[0]
        if (schema === undefined) {
          yield* Effect.provideContext(checkCsrf(caller, undefined), services)
          return yield* httpEffect
        }
        const raw = yield* Effect.provideContext(readDashboardBody, services)
        yield* Effect.provideContext(checkCsrf(caller, raw), services)
        const sent = yield* checkedBodyValue(schema, raw)
        const request = yield* HttpServerRequest.HttpServerRequest
        return yield* Effect.provideService(httpEffect, HttpServerRequest.HttpServerRequest, withJsonBody(request, JSON.stringify(sent)))
      })
  })
)
