/**
 * Route access on /v1: each handler states its `Requirement`, core decides (identity/Access.ts),
 * and a refusal leaves as the problem core named.
 */
import { type AccessDenied, accountOf, decide, type Principal, Requirement } from "@switchboard/core/credentials"
import { type AccountId } from "@switchboard/core/shared"
import { Effect, Either } from "effect"
import { CurrentPrincipal } from "./Authn.js"
import { problem } from "./Problems.js"

/** The caller, if allowed to use a route with `requirement`. */
export const authorize = (requirement: Requirement): Effect.Effect<Principal, import("./Problems.js").ProblemFailure, CurrentPrincipal> =>
  Effect.flatMap(CurrentPrincipal, (principal) => {
    const decision = decide(principal, requirement)
    return Either.isRight(decision) ? Effect.succeed(principal) : Effect.fail(refusal(decision.left))
  })

/** A refusal of core's access rules as its problem; a missing scope adds the RFC 6750 challenge from its field. */
export const refusal = ({ code, detail, scope }: AccessDenied) =>
  problem(code, detail, scope === undefined ? {} : {
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
