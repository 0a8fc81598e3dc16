/**
 * The errors of organization SSO (docs/sso.md). No HTTP knowledge: `v1/SsoErrors.ts` maps them to
 * problems (`OrganizationSsoRequired` lives in organizations/, where membership is decided).
 */
import { Schema } from "effect"

/** The organization has no SSO connection (`what`: asked about the connection or its sync status). */
export class SsoNotConfigured extends Schema.TaggedError<SsoNotConfigured>()("SsoNotConfigured", {
  organizationId: Schema.String,
  what: Schema.Literals(["sso", "connection"])
}) {}

/** `expectedVersion` is not the connection's version (or a connection exists where none was expected). */
export class SsoVersionConflict extends Schema.TaggedError<SsoVersionConflict>()("SsoVersionConflict", {
  organizationId: Schema.String,
  currentVersion: Schema.NullOr(Schema.Number)
}) {}

/** The connection is not in a state that allows the operation (not ready, no verified domain, …). */
export class SsoPreconditionFailed extends Schema.TaggedError<SsoPreconditionFailed>()("SsoPreconditionFailed", {
  message: Schema.String
}) {}

/** None of the organization's plans includes SSO (the `organization_sso` entitlement). */
export class SsoSubscriptionRequired extends Schema.TaggedError<SsoSubscriptionRequired>()("SsoSubscriptionRequired", {
  organizationId: Schema.String
}) {}

/** `returnTo` is not an address we send people back to. */
export class InvalidReturnTo extends Schema.TaggedError<InvalidReturnTo>()("InvalidReturnTo", {
  message: Schema.String
}) {}

/** A configuration value is refused (issuer, client id, domains, …). */
export class InvalidSsoConfiguration extends Schema.TaggedError<InvalidSsoConfiguration>()("InvalidSsoConfiguration", {
  field: Schema.String,
  message: Schema.String
}) {}

/** The identity provider (or DNS) could not be reached in time, or answered nonsense. */
export class SsoUpstreamFailure extends Schema.TaggedError<SsoUpstreamFailure>()("SsoUpstreamFailure", {
  message: Schema.String,
  timedOut: Schema.Boolean
}) {}

/**
 * The callback refused the sign-in: unknown or expired state, a provider error, an ID token that
 * does not verify (signature, issuer, audience, nonce, expiry), an email outside the verified
 * domains, no account and no JIT, or a purpose the account does not meet.
 */
export class SsoSignInRejected extends Schema.TaggedError<SsoSignInRejected>()("SsoSignInRejected", {
  reason: Schema.String
}) {}

/** The SSO settings can only be changed by an owner (admins may read them). */
export class SsoActionForbidden extends Schema.TaggedError<SsoActionForbidden>()("SsoActionForbidden", {
  message: Schema.String
}) {}

export type SsoError =
  | SsoNotConfigured
  | SsoVersionConflict
  | SsoPreconditionFailed
  | SsoSubscriptionRequired
  | InvalidReturnTo
  | InvalidSsoConfiguration
  | SsoUpstreamFailure
  | SsoSignInRejected
  | SsoActionForbidden
