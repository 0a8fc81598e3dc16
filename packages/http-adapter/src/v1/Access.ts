/**
 * Route access on /v1: each handler states its `Requirement`, core decides (credentials/Access.ts),
 * and a refusal leaves as the problem of its reason (`refusalProblems`).
 */
import {
  type AccessDenied, type AccessRefusal, accountOf, decide, type Principal, Requirement
} from "@switchboard/core/credentials"
import { type AccountId } from "@switchboard/core/shared"
import { Effect, Result } from "effect"
import type { ProblemCode } from "../http/ProblemCatalog.js"
import { CurrentPrincipal } from "./Authn.js"
import { problem } from "./Problems.js"

/** The caller, if allowed to use a route with `requirement`. */
export const authorize = (requirement: Requirement): Effect.Effect<Principal, import("./Problems.js").ProblemFailure, CurrentPrincipal> =>
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
  Effect.flatMap(authorize(requirement), (principal): Effect.Effect<AccountId, import("./Problems.js").ProblemFailure> => {
    const accountId = accountOf(principal)
    return accountId === undefined
      ? Effect.fail(problem("FORBIDDEN", "This operation needs an account credential."))
      : Effect.succeed(accountId)
  })
