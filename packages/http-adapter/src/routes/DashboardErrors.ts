/**
 * The one table from core errors to Dashboard envelopes (docs/errors.md; Dashboard and
 * management API: 401, 403, 404, 409, 422, 5xx). Errors no /v1 operation raises have a row of
 * their own (`own`, exhaustive over them); /v1 errors with a meaning of their own on this surface
 * are overridden (`overrides`); every other domain error takes the status and code of its /v1
 * problem (the shared table), so both surfaces say the same thing — except that "gone" is 404
 * here ("resource not found or already deleted").
 */
import { type DashboardError } from "@switchboard/core/dashboard"
import { type ManagementWebhookError } from "@switchboard/core/events"
import type { InstallationRequestDecided, InstallationRequestNotFound } from "@switchboard/core/oauth"
import { problemEntry } from "../http/ProblemCatalog.js"
import { applyRow, rowOf } from "../http/ErrorTable.js"
import { EnvelopeFailure, envelopeFailure, type EnvelopeTable, type PartialEnvelopeTable } from "../http/Surfaces.js"
import { ProblemFailure, problemOfDomainError, type V1DomainError } from "../v1/Problems.js"

/** The core errors of Dashboard operations that no /v1 operation raises: each needs its own row. */
export type DashboardOnlyError = DashboardError | ManagementWebhookError | InstallationRequestNotFound | InstallationRequestDecided

/** Every core error a Dashboard operation can raise. */
export type DashboardDomainError = DashboardOnlyError | V1DomainError

const own: EnvelopeTable<DashboardOnlyError> = {
  InvalidSignIn: () => envelopeFailure(401, "INVALID_CREDENTIALS", "The email or password is wrong."),
  TotpCodeRequired: () =>
    envelopeFailure(401, "TOTP_REQUIRED", "This account has two-factor authentication: send the code from the authenticator app."),
  TotpCodeInvalid: (e) =>
    envelopeFailure(
      401,
      "INVALID_TOTP_CODE",
      e.reason === "reused" ? "That code was used already; wait for the next one." : "The authentication code is wrong."
    ),
  SignInLocked: (e) =>
    envelopeFailure(429, "TOO_MANY_ATTEMPTS", `Too many failed sign-ins; try again in ${e.retryAfterSeconds} seconds.`, {
      "retry-after": String(e.retryAfterSeconds)
    }),
  PasswordRejected: (e) => envelopeFailure(422, "VALIDATION_FAILED", e.message),
  NotAnOrganizationOwner: () => envelopeFailure(403, "FORBIDDEN", "Diagnostics are for owners of an organization."),
  ManagementWebhookNotFound: (e) => envelopeFailure(404, "WEBHOOK_NOT_FOUND", `No webhook ${e.webhookId}.`),
  WebhookUrlTaken: () => envelopeFailure(409, "WEBHOOK_URL_TAKEN", "An active webhook with this URL exists."),
  InstallationRequestNotFound: (e) => envelopeFailure(404, "INSTALLATION_REQUEST_NOT_FOUND", `No installation request ${e.requestId.slice(0, 100)}.`),
  InstallationRequestDecided: (e) =>
    envelopeFailure(409, "INSTALLATION_REQUEST_DECIDED", `The installation request is ${e.status}; the app must make a new one.`)
}

const overrides: PartialEnvelopeTable<V1DomainError> = {
  EmailTaken: () => envelopeFailure(409, "EMAIL_TAKEN", "An account with this email already exists."),
  ProjectNotFound: (e) => envelopeFailure(404, "PROJECT_NOT_FOUND", `No project ${e.projectId}.`),
  ProjectDeleted: (e) => envelopeFailure(404, "PROJECT_DELETED", `Project ${e.projectId} has been deleted.`),
  ProjectClosing: (e) => envelopeFailure(409, "PROJECT_CLOSING", `Project ${e.projectId} is being deleted.`),
  ProjectOrganizationNotFound: (e) => envelopeFailure(404, "ORGANIZATION_NOT_FOUND", `No organization ${e.organizationId}.`),
  OrganizationNotFound: (e) => envelopeFailure(404, "ORGANIZATION_NOT_FOUND", `No organization ${e.organizationId}.`),
  OrganizationActionForbidden: (e) => envelopeFailure(403, "FORBIDDEN", e.message),
  MemberAlreadyExists: () => envelopeFailure(409, "MEMBER_ALREADY_EXISTS", "That person is already a member."),
  SlugUnavailable: (e) => envelopeFailure(409, "SLUG_TAKEN", `The slug ${e.slug} is not available.`),
  OAuthAppNotFound: (e) => envelopeFailure(404, "OAUTH_APP_NOT_FOUND", `No OAuth app ${e.clientId}.`),
  OAuthGrantNotFound: (e) => envelopeFailure(404, "OAUTH_CONSENT_NOT_FOUND", `No access granted to ${e.clientId}.`),
  OAuthAppIsPublic: () => envelopeFailure(409, "OAUTH_APP_IS_PUBLIC", "A public app has no client secret to rotate."),
  InvalidOAuthApp: (e) => envelopeFailure(422, "VALIDATION_FAILED", `${e.field}: ${e.message}`),
  WebhookUrlInvalid: (e) => envelopeFailure(422, "VALIDATION_FAILED", `webhookUrl: ${e.message}`),
  WebhookLimitReached: () => envelopeFailure(409, "WEBHOOK_LIMIT_REACHED", "The project has as many webhooks as it may.")
}

/** Every Dashboard row: the own rows and the overrides (for the coverage test). */
export const dashboardErrorRows: PartialEnvelopeTable<DashboardDomainError> = { ...overrides, ...own }

/** A problem of the /v1 table as an envelope. */
export const envelopeOfProblem = (p: ProblemFailure): EnvelopeFailure => {
  const entry = problemEntry(p.code)
  const status = entry.status === 410 ? 404 : entry.status
  return envelopeFailure(status, p.code, p.detail ?? entry.title, p.headers)
}

const isDashboardOnly = (e: DashboardDomainError): e is DashboardOnlyError => Object.hasOwn(own, e._tag)

/** A core error of a Dashboard operation as its envelope: its own row, an override, or its /v1 problem. */
export const envelopeOfDomainError = (e: DashboardDomainError): EnvelopeFailure =>
  isDashboardOnly(e)
    ? applyRow(own, e)
    : rowOf<V1DomainError, EnvelopeFailure>(overrides, e)?.(e) ?? envelopeOfProblem(problemOfDomainError(e))

/** What a Dashboard handler may fail with: a core error of the table, a /v1 problem, an envelope. */
export type DashboardFailure = DashboardDomainError | ProblemFailure | EnvelopeFailure

/** Any failure of a Dashboard handler as an envelope failure. */
export const envelopeOfError = (e: DashboardFailure): EnvelopeFailure => {
  if (e instanceof EnvelopeFailure) return e
  if (e instanceof ProblemFailure) return envelopeOfProblem(e)
  return envelopeOfDomainError(e)
}
