/**
 * How a /v1 failure leaves the HttpApi: every one is a `ProblemFailure`, rendered by the global
 * middleware (http/pipeline/Failures.ts) like the failures of every other surface. The platform
 * answers any failure of an endpoint itself — encoded by the endpoint's error schemas, else as a
 * defect — so this middleware, the outermost of every /v1 endpoint, hands a problem on as the
 * request's defect before the platform encodes it. A body the endpoint's payload schema refuses
 * becomes the 422 problem with one issue per failure (`location` "json"), as every validation
 * message of the API. Declaring `ProblemFailure` as its error is what lets handlers and `Authn`
 * fail with it.
 */
import { HttpApiError, HttpApiMiddleware } from "effect/http-api"
import { Effect, Layer } from "effect"
import { issuesOf } from "./Pipeline.js"
import { ProblemFailure, validationFailed } from "./Problems.js"

export class V1Problems extends HttpApiMiddleware.Service<V1Problems>()("V1Problems", {
  error: ProblemFailure
}) {}

export const V1ProblemsLive = Layer.succeed(
  V1Problems,
  (httpEffect) =>
    Effect.catch(httpEffect, (e) =>
      e instanceof ProblemFailure
        ? Effect.die(e)
        : HttpApiError.HttpApiSchemaError.is(e) && e.kind === "Payload"
        ? Effect.die(validationFailed(issuesOf(e.cause, "json")))
        : Effect.fail(e))
)
