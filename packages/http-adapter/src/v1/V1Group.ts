/** `v1Group`, which every feature's handlers build on, and the steps of an authenticated group. */
import { HttpApi, type HttpApiEndpoint, type HttpApiGroup } from "effect/http-api"
import { RouteAccess } from "./Access.js"
import { Authn } from "./Authn.js"
import { Idempotency } from "./Idempotency.js"
import { JsonBody } from "./JsonBody.js"
import { payloadParseOptions } from "./Pipeline.js"
import { V1Problems } from "./V1Problems.js"

/**
 * A feature's group as an API of its own, for `HttpApiBuilder.group`: the same id and middleware
 * as `V1Api`, so its handlers are the ones `V1Api` needs, without the handlers importing the
 * registry. The routes are built from this declaration, so `V1Problems` must be on it, and so must
 * the parse options: a path, query or header failure quotes the rejected value (`reportInput`), as
 * every validation message of the API does.
 */
export const v1Group = <const G extends HttpApiGroup.Constraint>(group: G) =>
  HttpApi.make("switchboard-v1")
    .add(group)
    .middleware(V1Problems)
    .annotate(HttpApi.ParamsParseOptions, { reportInput: true })
    .annotate(HttpApi.QueryParseOptions, { reportInput: true })
    .annotate(HttpApi.HeadersParseOptions, { reportInput: true })
    // A body is checked whole: every issue, an unknown member refused.
    .annotate(HttpApi.PayloadParseOptions, payloadParseOptions)

/**
 * The middleware of an authenticated group's endpoints, outermost first: bearer authentication
 * (`Authn`), the endpoint's declared access (`RouteAccess`, v1/Access.ts), the JSON body read and
 * checked (`JsonBody`), the Idempotency-Key protocol of the
 * endpoints that declare `Idempotent` (`Idempotency`); then the platform decodes the request and
 * the handler runs. A group applies it after adding its endpoints (`.pipe(authenticated)`).
 */
export const authenticated = <Id extends string, E extends HttpApiEndpoint.Constraint, TopLevel extends boolean>(
  group: HttpApiGroup.HttpApiGroup<Id, E, TopLevel>
): HttpApiGroup.HttpApiGroup<
  Id,
  HttpApiEndpoint.AddMiddleware<
    HttpApiEndpoint.AddMiddleware<HttpApiEndpoint.AddMiddleware<HttpApiEndpoint.AddMiddleware<E, Idempotency>, JsonBody>, RouteAccess>,
    Authn
  >,
  TopLevel
> => group.middleware(Idempotency).middleware(JsonBody).middleware(RouteAccess).middleware(Authn)
