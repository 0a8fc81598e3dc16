/**
 * Route access on /v1: each handler states its `Requirement`, core decides (credentials/Access.ts),
 * and a refusal leaves as the problem of its reason (`refusalProblems`). Every authenticated
 * endpoint also declares who may call it (`Requires`, v1/Declare.ts), which `RouteAccess` checks
 * before the query and the body are read: a caller that may not use the endpoint is refused
 * whatever it sent, and learns nothing from their validation.
 */
import { HttpApiMiddleware } from "effect/http-api"
import { HttpRouter } from "effect/http"
import {
  type AccessDenied, type AccessRefusal, accountOf, decide, type Principal, type ProjectPermission, Requirement
} from "@switchboard/core/credentials"
import { type AccountId } from "@switchboard/core/shared"
import { Context, Effect, Layer, Result } from "effect"
import { Requires } from "./Declare.js"
import type { ProblemCode } from "../http/ProblemCatalog.js"
import { CurrentPrincipal } from "./Authn.js"
import { problem, ProblemFailure } from "./Problems.js"

/** The caller, if allowed to use a route with `requirement`. */
export const authorize = (requirement: Requirement): Effect.Effect<Principal, ProblemFailure, CurrentPrincipal> =>
  Effect.flatMap(CurrentPrincipal, (principal) => {
    const decision = decide(principal, requirement)
    return Result.isSuccess(decision) ? Effect.succeed(principal) : Effect.fail(refusal(decision.failure))
  })

/**
 * The problem of each reason core refuses access for: the problem of the same name. The type is the
 * compile-time check that every reason is a key of the ProblemCatalog (`R & ProblemCode` is `never`
 * for one that is not) and that none is left without its problem.
 */
export const refusalProblems: { readonly [R in AccessRefusal]: R & ProblemCode } = {
  NOT_AUTHENTICATED: "NOT_AUTHENTICATED",
  FORBIDDEN: "FORBIDDEN",
  RESOURCE_MISMATCH: "RESOURCE_MISMATCH",
  INSUFFICIENT_SCOPE: "INSUFFICIENT_SCOPE"
}

/** A refusal of core's access rules as its problem; a missing scope adds the RFC 6750 challenge from its field. */
export const refusal = ({ code, detail, scope }: AccessDenied) =>
  problem(refusalProblems[code], detail, scope === undefined ? {} : {
    headers: { "www-authenticate": `Bearer realm="api", error="insufficient_scope", scope="${scope}"` }
  })

/** The acting account of an account route (`/v1/account/*` unless another requirement is given). */
export const actingAccount = (requirement: Requirement = Requirement.Account({})) =>
  Effect.flatMap(authorize(requirement), (principal): Effect.Effect<AccountId, ProblemFailure> => {
    const accountId = accountOf(principal)
    return accountId === undefined
      ? Effect.fail(problem("FORBIDDEN", "This operation needs an account credential."))
      : Effect.succeed(accountId)
  })

/** The caller of a route under /v1/projects/{projectId}, if allowed (core credentials/Access.ts). */
export const onProject = (projectId: string, permission: ProjectPermission, accountOnly = false, mintsCredential = false) =>
  authorize(Requirement.Project({ projectId, permission, accountOnly, mintsCredential }))

/** `Requires` of an account route: the acting account with `requirement` (`actingAccount`). */
export const accountAccess = (requirement?: Requirement) => () => actingAccount(requirement)

/** `Requires` of a route under /v1/projects/{projectId}: `permission` on the path's project (`onProject`). */
export const projectAccess = (permission: ProjectPermission, accountOnly = false, mintsCredential = false) =>
  (params: Readonly<Record<string, string | undefined>>) => onProject(params.projectId ?? "", permission, accountOnly, mintsCredential)

/** Checks an endpoint's declared `Requires` before its body is read (inside `Authn`). */
export class RouteAccess extends HttpApiMiddleware.Service<RouteAccess, { requires: CurrentPrincipal }>()("RouteAccess", {
  error: ProblemFailure
}) {}

export const RouteAccessLive = Layer.succeed(RouteAccess, (httpEffect, { endpoint }) => {
  const requires = Context.getOrUndefined(endpoint.annotations, Requires)
  return requires === undefined ? httpEffect : Effect.andThen(Effect.flatMap(HttpRouter.params, requires), httpEffect)
})
