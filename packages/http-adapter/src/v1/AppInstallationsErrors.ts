/**
 * The app installation feature's rows of the /v1 error table (see Problems.ts): a refused
 * assertion → 401 `APP_INSTALLATION_ASSERTION_INVALID` (with a `WWW-Authenticate` challenge, as
 * every 401), a used jti → 409 `APP_INSTALLATION_ASSERTION_REPLAYED`, changed app settings → 409
 * `APP_INSTALLATION_CONFIG_CHANGED`, no deliverable code → 409
 * `APP_INSTALLATION_DELIVERY_UNAVAILABLE`, a bad field → 422.
 */
import type { AppInstallationError } from "@switchboard/core/oauth"
import { type ErrorTable, problem, validationFailed } from "./ProblemFailure.js"

export const appInstallationsErrors: ErrorTable<AppInstallationError> = {
  AppInstallationAssertionInvalid: (e) =>
    problem("APP_INSTALLATION_ASSERTION_INVALID", `The client assertion was refused: ${e.reason}.`, {
      headers: { "www-authenticate": `Bearer realm="api", error="invalid_client"` }
    }),
  AppInstallationAssertionReplayed: () =>
    problem("APP_INSTALLATION_ASSERTION_REPLAYED", "This client assertion's jti was used before; sign a new assertion with a new jti."),
  AppInstallationConfigChanged: (e) =>
    problem("APP_INSTALLATION_CONFIG_CHANGED", "The app's settings changed after the installation request was made; create a new request.", {
      extra: { installationRequestId: e.requestId, requestAppVersion: e.requestVersion, appVersion: e.currentVersion }
    }),
  AppInstallationDeliveryUnavailable: (e) => problem("APP_INSTALLATION_DELIVERY_UNAVAILABLE", `No credential can be delivered: ${e.reason}.`),
  InvalidAppInstallationRequest: (e) =>
    validationFailed([{ code: "invalid_value", location: "json", message: e.message, path: `/${e.field}` }], `${e.field} ${e.message}`)
}
