/**
 * The one table from core errors to Dashboard envelopes (SPEC.md § Errors, "Dashboard and
 * management API": 401, 403, 404, 409, 422, 5xx). Errors with a meaning of their own on this
 * surface are listed here; every other domain error takes the status and code of its /v1 problem
 * (the shared table), so both surfaces say the same thing — except that "gone" is 404 here
 * ("resource not found or already deleted").
 */
import { problemEntry } from "@switchboard/core/shared"
import { EnvelopeFailure, envelopeFailure } from "../http/Surfaces.js"
import { ProblemFailure, problemOfDomainError } from "../v1/Problems.js"

type Tagged = { readonly _tag: string } & Record<string, unknown>

const own: Readonly<Record<string, (e: Tagged) => EnvelopeFailure>> = {
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
    envelopeFailure(429, "TOO_MANY_ATTEMPTS", `Too many failed sign-ins; try again in ${String(e.retryAfterSeconds)} seconds.`, {
      "retry-after": String(e.retryAfterSeconds)
    }),
  PasswordRejected: (e) => envelopeFailure(422, "VALIDATION_FAILED", String(e.message)),
  EmailTaken: () => envelopeFailure(409, "EMAIL_TAKEN", "An account with this email already exists."),
  NotAnOrganizationOwner: () => envelopeFailure(403, "FORBIDDEN", "Diagnostics are for owners of an organization."),
  ProjectNotFound: (e) => envelopeFailure(404, "PROJECT_NOT_FOUND", `No project ${String(e.projectId)}.`),
  ProjectDeleted: (e) => envelopeFailure(404, "PROJECT_DELETED", `Project ${String(e.projectId)} has been deleted.`),
  ProjectClosing: (e) => envelopeFailure(409, "PROJECT_CLOSING", `Project ${String(e.projectId)} is being deleted.`),
  ProjectOrganizationNotFound: (e) => envelopeFailure(404, "ORGANIZATION_NOT_FOUND", `No organization ${String(e.organizationId)}.`),
  OrganizationNotFound: (e) => envelopeFailure(404, "ORGANIZATION_NOT_FOUND", `No organization ${String(e.organizationId)}.`),
  OrganizationActionForbidden: (e) => envelopeFailure(403, "FORBIDDEN", String(e.message)),
  MemberAlreadyExists: () => envelopeFailure(409, "MEMBER_ALREADY_EXISTS", "That person is already a member."),
  SlugUnavailable: (e) => envelopeFailure(409, "SLUG_TAKEN", `The slug ${String(e.slug)} is not available.`),
  OAuthAppNotFound: (e) => envelopeFailure(404, "OAUTH_APP_NOT_FOUND", `No OAuth app ${String(e.clientId)}.`),
  OAuthGrantNotFound: (e) => envelopeFailure(404, "OAUTH_CONSENT_NOT_FOUND", `No access granted to ${String(e.clientId)}.`),
  OAuthAppIsPublic: () => envelopeFailure(409, "OAUTH_APP_IS_PUBLIC", "A public app has no client secret to rotate."),
  InvalidOAuthApp: (e) => envelopeFailure(422, "VALIDATION_FAILED", `${String(e.field)}: ${String(e.message)}`),
  ManagementWebhookNotFound: (e) => envelopeFailure(404, "WEBHOOK_NOT_FOUND", `No webhook ${String(e.webhookId)}.`),
  WebhookUrlInvalid: (e) => envelopeFailure(422, "VALIDATION_FAILED", `webhookUrl: ${String(e.message)}`),
  WebhookUrlTaken: () => envelopeFailure(409, "WEBHOOK_URL_TAKEN", "An active webhook with this URL exists."),
  WebhookLimitReached: () => envelopeFailure(409, "WEBHOOK_LIMIT_REACHED", "The project has as many webhooks as it may.")
}

/** A problem of the /v1 table as an envelope. */
export const envelopeOfProblem = (p: ProblemFailure): EnvelopeFailure => {
  const entry = problemEntry(p.code)
  const status = entry.status === 410 ? 404 : entry.status
  return envelopeFailure(status, p.code, p.detail ?? entry.title, p.headers)
}

/** Any failure of a Dashboard handler as an envelope failure. */
export const envelopeOfError = (e: unknown): EnvelopeFailure => {
  if (e instanceof EnvelopeFailure) return e
  if (e instanceof ProblemFailure) return envelopeOfProblem(e)
  const tagged = e as Tagged
  const row = own[tagged._tag]
  if (row !== undefined) return row(tagged)
  return envelopeOfProblem(problemOfDomainError(tagged))
}
