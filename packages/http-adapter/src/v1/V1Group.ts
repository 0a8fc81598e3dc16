/** `v1Group`, which every feature's handlers build on. */
import { HttpApi, type HttpApiGroup } from "effect/http-api"
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
