/** The OAuthProvider feature's core errors → problems (see Problems.ts). */
import { problem, validationFailed } from "./ProblemFailure.js"
import type { ErrorTable } from "./Problems.js"

export const oAuthProviderErrors: ErrorTable = {
  OAuthGrantNotFound: (e) => problem("RESOURCE_NOT_FOUND", `The account has not authorized the application ${String(e.clientId)}.`),
  OAuthAppNotFound: (e) => problem("RESOURCE_NOT_FOUND", `No OAuth application ${String(e.clientId)}.`),
  OAuthAppIsPublic: (e) => problem("FAILED_PRECONDITION", `The OAuth application ${String(e.clientId)} is public and has no secret.`),
  InvalidOAuthApp: (e) =>
    validationFailed(
      [{ code: "invalid_value", location: "json", message: String(e.message), path: `/${String(e.field)}` }],
      `${String(e.field)} ${String(e.message)}`
    )
}
