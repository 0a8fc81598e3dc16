/** The one table from core errors to /v1 problems (DESIGN.md §4), assembled from each feature's rows. */
import { problem, ProblemFailure, validationFailed } from "./ProblemFailure.js"
import { organizationsErrors } from "./OrganizationsErrors.js"
import { projectsErrors } from "./ProjectsErrors.js"
import { projectApiKeysErrors } from "./ProjectApiKeysErrors.js"
import { accountSecurityErrors } from "./AccountSecurityErrors.js"
import { uploadsErrors } from "./UploadsErrors.js"
import { accessTokensErrors } from "./AccessTokensErrors.js"
import { voiceErrors } from "./VoiceErrors.js"
import { billingErrors } from "./BillingErrors.js"
import { oAuthProviderErrors } from "./OAuthProviderErrors.js"
import { webhooksErrors } from "./WebhooksErrors.js"

export * from "./ProblemFailure.js"

/** What a domain error means on the wire: error tag → problem. */
export type ErrorTable = Readonly<Record<string, (e: { readonly _tag: string } & Record<string, unknown>) => ProblemFailure>>

const features: ErrorTable = {
  ...organizationsErrors,
  ...projectsErrors,
  ...projectApiKeysErrors,
  ...accountSecurityErrors,
  ...uploadsErrors,
  ...accessTokensErrors,
  ...voiceErrors,
  ...billingErrors,
  ...webhooksErrors,
  ...oAuthProviderErrors
}

/**
 * Core error tag → problem: the identity slice's rows below plus each feature's table
 * (`v1/<Feature>Errors.ts`). The only place /v1 learns what a domain error means on the wire.
 */
export const problemOfDomainError = (e: { readonly _tag: string } & Record<string, unknown>): ProblemFailure => {
  const row = features[e._tag]
  if (row !== undefined) return row(e)
  switch (e._tag) {
    case "AccountNotFound":
      return problem("ACCOUNT_NOT_FOUND", "The account does not exist.")
    case "AccountDeleted":
      return problem("ACCOUNT_DELETED", "The account of this credential has been deleted.")
    case "EmailTaken":
      return problem("FAILED_PRECONDITION", "An account with this email already exists.")
    case "AccountServiceKeyNotFound":
      return problem("ACCOUNT_SERVICE_KEY_NOT_FOUND", `No service key ${String(e.serviceKeyId)} on this account.`)
    case "AccountServiceKeyLimitReached":
      return problem(
        "ACCOUNT_SERVICE_KEY_LIMIT_REACHED",
        `An account can have at most ${String(e.limit)} live service keys; revoke one first.`
      )
    case "InvalidInput":
      return validationFailed(
        [{ code: "invalid_value", location: "json", message: String(e.message), path: `/${String(e.field)}` }],
        `${String(e.field)} ${String(e.message)}`
      )
    case "InvalidCredential":
      return problem("NOT_AUTHENTICATED", String(e.message), {
        headers: { "www-authenticate": `Bearer realm="api", error="invalid_token"` }
      })
    case "IdempotencyUnavailable":
      return problem("IDEMPOTENCY_UNAVAILABLE", "The idempotency store is unavailable; retry shortly.", {
        headers: { "retry-after": "1" }
      })
    default:
      return problem("INTERNAL_ERROR", "An unexpected error occurred.")
  }
}
