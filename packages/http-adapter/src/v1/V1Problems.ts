/**
 * How a /v1 failure leaves the HttpApi: every one is a `ProblemFailure`, rendered by the global
 * middleware (http/pipeline/Failures.ts) like the failures of every other surface. The platform
 * answers any failure of an endpoint itself — encoded by the endpoint's error schemas, else as a
 * defect — so this middleware, the outermost of every /v1 endpoint, hands a problem on as the
 * request's defect before the platform encodes it. Declaring `ProblemFailure` as its error is
 * what lets handlers and `Authn` fail with it.
 */
import { HttpApiMiddleware } from "effect/http-api"
import { Effect, Layer } from "effect"
import { ProblemFailure } from "./Problems.js"

export class V1Problems extends HttpApiMiddleware.Service<V1Problems>()("V1Problems", {
  error: ProblemFailure
}) {}

export const V1ProblemsLive = Layer.succeed(
  V1Problems,
  (httpEffect) => Effect.catch(httpEffect, (e) => e instanceof ProblemFailure ? Effect.die(e) : Effect.fail(e))
)
