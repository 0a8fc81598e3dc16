/**
 * Access to the billing routes (core billing/BillingAccess.ts decides): what the handlers check
 * first, and the `Requires` of the billing endpoints that take a body (v1/Declare.ts).
 */
import { decideBilling } from "@switchboard/core/billing"
import { accountOf, type Principal } from "@switchboard/core/credentials"
import { Effect, Result } from "effect"
import { refusal } from "./Access.js"
import { CurrentPrincipal } from "./Authn.js"
import { problem, type ProblemFailure } from "./Problems.js"

/** The caller, if `decideBilling` lets it use a billing route. */
export const authorizeBilling = (route: Parameters<typeof decideBilling>[1]) =>
  Effect.flatMap(CurrentPrincipal, (principal) => {
    const decision = decideBilling(principal, route)
    return Result.isSuccess(decision) ? Effect.succeed(principal) : Effect.fail(refusal(decision.failure))
  })

/** The account of an organization route (decideBilling refused project keys already). */
export const accountFor = (principal: Principal) => {
  const accountId = accountOf(principal)
  return accountId === undefined
    ? Effect.fail(problem("FORBIDDEN", "Organization billing needs an account credential."))
    : Effect.succeed(accountId)
}

/**
 * `Requires` of a billing route: `scope` on the path's project (`organizationRoute`: an
 * organization's route, which needs an account credential).
 */
export const billingAccess = (scope: "billing:read" | "billing:write", organizationRoute: boolean) =>
  (params: Readonly<Record<string, string | undefined>>) =>
    Effect.flatMap(
      authorizeBilling({ scope, organizationRoute, ...(params.projectId === undefined ? {} : { projectId: params.projectId as never }) }),
      (principal): Effect.Effect<unknown, ProblemFailure> => organizationRoute ? accountFor(principal) : Effect.succeed(principal)
    )
