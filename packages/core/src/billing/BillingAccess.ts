/**
 * Who may use the billing routes (docs/api-notes/credentials.md, docs/api-notes/billing.md),
 * decided in one pure function beside identity/Access.ts `decide`:
 * - an account service key: allowed (membership is checked by the service: 404 otherwise);
 * - an access token: needs `billing:read` (reads) or `billing:write` (changes);
 * - a project API key: never on organization routes; on its own project's billing reads with
 *   `project:read`; never on billing changes (they need an account).
 */
import { Result } from "effect"
import { type AccessDenied, denyScope, denyWith as deny, type Principal } from "../credentials/Access.js"

export interface BillingRoute {
  readonly scope: "billing:read" | "billing:write"
  /** Routes under `/v1/organizations/{organizationId}/billing`. */
  readonly organizationRoute: boolean
  /** The project of the route, if any. */
  readonly projectId?: string
}

const allow = Result.succeed<void>(undefined)

export const decideBilling = (principal: Principal | undefined, route: BillingRoute): Result.Result<void, AccessDenied> => {
  if (principal === undefined) return deny("NOT_AUTHENTICATED", "Send Authorization: Bearer <credential>.")
  switch (principal._tag) {
    case "Account":
      return allow
    case "AccessToken":
      return principal.scopes.includes(route.scope) ? allow : denyScope(route.scope)
    case "ProjectKey":
      if (route.organizationRoute || route.projectId === undefined) {
        return deny("FORBIDDEN", "Organization billing needs an account credential, not a project API key.")
      }
      if (route.projectId !== principal.projectId) return deny("RESOURCE_MISMATCH", "This project API key belongs to another project.")
      if (route.scope === "billing:write") {
        return deny("FORBIDDEN", "Billing changes need an account credential, not a project API key.")
      }
      return principal.permissions.includes("project:read")
        ? allow
        : deny("FORBIDDEN", "The project API key lacks the permission project:read.")
  }
}
