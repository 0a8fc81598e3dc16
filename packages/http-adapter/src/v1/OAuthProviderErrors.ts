/** The OAuthProvider feature's rows of the /v1 error table: core error → problem (see Problems.ts). */
import type { OAuthAppError } from "@switchboard/core/oauth"
import { type ErrorTable, problem, validationFailed } from "./ProblemFailure.js"

export const oAuthProviderErrors: ErrorTable<OAuthAppError> = {
  OAuthGrantNotFound: (e) => problem("RESOURCE_NOT_FOUND", `The account has not authorized the application ${e.clientId}.`),
  OAuthAppNotFound: (e) => problem("RESOURCE_NOT_FOUND", `No OAuth application ${e.clientId}.`),
  OAuthAppIsPublic: (e) => problem("FAILED_PRECONDITION", `The OAuth application ${e.clientId} is public and has no secret.`),
  InvalidOAuthApp: (e) =>
    validationFailed(
      [{ code: "invalid_value", location: "json", message: e.message, path: `/${e.field}` }],
      `${e.field} ${e.message}`
    )
}
