/** Bearer authentication of /v1 routes: the middleware tag and the principal it provides. */
import { HttpApiMiddleware, HttpApiSecurity } from "@effect/platform"
import type { Principal } from "@switchboard/core/credentials"
import { Context } from "effect"
import { ProblemFailure } from "./Problems.js"

/** The authenticated caller of a /v1 request. */
export class CurrentPrincipal extends Context.Tag("http/CurrentPrincipal")<CurrentPrincipal, Principal>() {}

/** Bearer authentication (SPEC.md § Authentication): every /v1 route outside /v1/auth uses it. */
export class Authn extends HttpApiMiddleware.Tag<Authn>()("Authn", {
  failure: ProblemFailure,
  provides: CurrentPrincipal,
  security: { bearer: HttpApiSecurity.bearer }
}) {}
