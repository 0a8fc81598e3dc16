/**
 * Route access on /v1: each handler states its `Requirement`, core decides (identity/Access.ts),
 * and a refusal leaves as the problem core named.
 */
import { accountOf, type AccountId, decide, type Principal, Requirement } from "@switchboard/core"
import { Effect, Either } from "effect"
import { CurrentPrincipal } from "./Authn.js"
import { problem } from "./Problems.js"

/** The caller, if allowed to use a route with `requirement`. */
export const authorize = (requirement: Requirement): Effect.Effect<Principal, import("./Problems.js").ProblemFailure, CurrentPrincipal> =>
  Effect.flatMap(CurrentPrincipal, (principal) => {
    const decision = decide(principal, requirement)
    if (Either.isRight(decision)) return Effect.succeed(principal)
    const { code, detail } = decision.left
    const scope = /insufficient_scope: (\S+)\)/.exec(detail)?.[1]
    return Effect.fail(problem(code, detail, scope === undefined ? {} : {
      headers: { "www-authenticate": `Bearer realm="api", error="insufficient_scope", scope="${scope}"` }
    }))
  })

/** The acting account of an account route (`/v1/account/*` unless another requirement is given). */
export const actingAccount = (requirement: Requirement = Requirement.Account()) =>
  Effect.flatMap(authorize(requirement), (principal): Effect.Effect<AccountId, import("./Problems.js").ProblemFailure> => {
    const accountId = accountOf(principal)
    return accountId === undefined
      ? Effect.fail(problem("FORBIDDEN", "This operation needs an account credential."))
      : Effect.succeed(accountId)
  })
