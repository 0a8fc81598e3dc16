/** The app installation flow's domain errors (docs/app-installation.md; no HTTP knowledge, the adapters map them). */
import { Schema } from "effect"

/**
 * The client assertion does not authenticate the app: malformed, not signed by one of the app's
 * registered keys, wrong issuer, subject or audience, expired, too long-lived, or an unknown app.
 * `reason` is for the log and the problem's detail; it never carries key material.
 */
export class AppInstallationAssertionInvalid extends Schema.TaggedError<AppInstallationAssertionInvalid>()(
  "AppInstallationAssertionInvalid",
  { reason: Schema.String }
) {}

/** The assertion's `jti` was already used by this app (within the assertion's lifetime). */
export class AppInstallationAssertionReplayed extends Schema.TaggedError<AppInstallationAssertionReplayed>()(
  "AppInstallationAssertionReplayed",
  { appId: Schema.String }
) {}

/** The app's settings changed after the request was made: the customer approved (or would approve) another configuration. */
export class AppInstallationConfigChanged extends Schema.TaggedError<AppInstallationConfigChanged>()(
  "AppInstallationConfigChanged",
  { requestId: Schema.String, requestVersion: Schema.String, currentVersion: Schema.String }
) {}

/**
 * No credential can be delivered for this code: unknown, expired, of another app, denied, not
 * approved, or the credential could not be made (the project is gone or closing, the approver
 * left its organization, the project's key limit is reached).
 */
export class AppInstallationDeliveryUnavailable extends Schema.TaggedError<AppInstallationDeliveryUnavailable>()(
  "AppInstallationDeliveryUnavailable",
  { reason: Schema.String }
) {}

/** A request body field is not acceptable (`field` is its JSON path without the leading slash). */
export class InvalidAppInstallationRequest extends Schema.TaggedError<InvalidAppInstallationRequest>()(
  "InvalidAppInstallationRequest",
  { field: Schema.String, message: Schema.String }
) {}

/** No such installation request for this account (unknown, expired, or claimed by another account). */
export class InstallationRequestNotFound extends Schema.TaggedError<InstallationRequestNotFound>()(
  "InstallationRequestNotFound",
  { requestId: Schema.String }
) {}

/** The request was already approved or denied. */
export class InstallationRequestDecided extends Schema.TaggedError<InstallationRequestDecided>()(
  "InstallationRequestDecided",
  { requestId: Schema.String, status: Schema.String }
) {}

/** The errors of the two public /v1 operations. */
export type AppInstallationError =
  | AppInstallationAssertionInvalid
  | AppInstallationAssertionReplayed
  | AppInstallationConfigChanged
  | AppInstallationDeliveryUnavailable
  | InvalidAppInstallationRequest
