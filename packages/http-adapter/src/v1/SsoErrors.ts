/**
 * The SSO feature's rows of the /v1 error table (see Problems.ts): not configured → 404
 * `ORGANIZATION_SSO_NOT_FOUND` (`ORGANIZATION_CONNECTION_NOT_FOUND` for the sync status), a stale
 * `expectedVersion` → 409 `ORGANIZATION_SSO_CONFLICT`, a connection not ready → 412
 * `ORGANIZATION_SSO_PRECONDITION_FAILED`, no plan with SSO → 412 `SSO_SUBSCRIPTION_REQUIRED`, a
 * refused `returnTo` → 400 `INVALID_RETURN_TO`, an unreachable provider → 503/504, a refused sign-in
 * → 403 `FORBIDDEN`.
 */
import type { SsoError } from "@switchboard/core/sso"
import { type ErrorTable, problem, validationFailed } from "./ProblemFailure.js"

export const ssoErrors: ErrorTable<SsoError> = {
  SsoNotConfigured: (e) =>
    e.what === "connection"
      ? problem("ORGANIZATION_CONNECTION_NOT_FOUND", `Organization ${e.organizationId} has no SSO connection.`)
      : problem("ORGANIZATION_SSO_NOT_FOUND", `Organization ${e.organizationId} has no SSO connection.`),
  SsoVersionConflict: (e) =>
    problem("ORGANIZATION_SSO_CONFLICT", "expectedVersion is not the SSO configuration's current version; read it again.", {
      extra: { currentVersion: e.currentVersion === null ? null : String(e.currentVersion) }
    }),
  SsoPreconditionFailed: (e) => problem("ORGANIZATION_SSO_PRECONDITION_FAILED", e.message),
  SsoSubscriptionRequired: (e) =>
    problem("SSO_SUBSCRIPTION_REQUIRED", `No plan of organization ${e.organizationId} includes SSO; upgrade a project's plan.`),
  InvalidReturnTo: (e) => problem("INVALID_RETURN_TO", e.message),
  InvalidSsoConfiguration: (e) =>
    validationFailed([{ code: "invalid_value", location: "json", message: e.message, path: `/${e.field}` }], `${e.field} ${e.message}`),
  SsoUpstreamFailure: (e) =>
    problem(e.timedOut ? "UPSTREAM_TIMEOUT" : "UPSTREAM_UNAVAILABLE", `The identity provider could not be used: ${e.message}`),
  SsoSignInRejected: (e) => problem("FORBIDDEN", e.reason),
  SsoActionForbidden: (e) => problem("FORBIDDEN", e.message)
}
