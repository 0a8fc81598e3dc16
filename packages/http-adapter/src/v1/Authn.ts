/** Bearer authentication of /v1 routes: the middleware and the principal it provides. */
import { HttpApiMiddleware, HttpApiSecurity } from "effect/http-api"
import type { Principal } from "@switchboard/core/credentials"
import { Context } from "effect"
import { ProblemFailure } from "./Problems.js"

/** The authenticated caller of a /v1 request. */
export class CurrentPrincipal extends Context.Service<CurrentPrincipal, Principal>()("http/CurrentPrincipal") {}

/** Bearer authentication (docs/api-notes/credentials.md): every /v1 route outside /v1/auth uses it. */
export class Authn extends HttpApiMiddleware.Service<Authn, { provides: CurrentPrincipal }>()("Authn", {
  error: ProblemFailure,
  security: { bearer: HttpApiSecurity.bearer }
}) {}
