/** The platforms context's domain errors (no HTTP knowledge; the adapters map them). */
import { Schema } from "effect"
import type { ProjectClosing, ProjectDeleted, ProjectNotFound } from "../projects/Errors.js"

export class OperationNotFound extends Schema.TaggedError<OperationNotFound>()("OperationNotFound", {
  operationId: Schema.String
}) {}

/** Committed, finished, of a type that is never cancellable, or the worker won the race. */
export class OperationNotCancellable extends Schema.TaggedError<OperationNotCancellable>()("OperationNotCancellable", {
  operationId: Schema.String,
  state: Schema.String,
  why: Schema.String
}) {}

/** No such resource held by the project (unknown, another project's, or a returned line). */
export class ResourceNotFound extends Schema.TaggedError<ResourceNotFound>()("ResourceNotFound", {
  resourceId: Schema.String
}) {}

/** A query parameter or request field that is well-formed but not acceptable (→ 422). */
export class InvalidPlatformRequest extends Schema.TaggedError<InvalidPlatformRequest>()("InvalidPlatformRequest", {
  parameter: Schema.String,
  message: Schema.String
}) {}

/** A Telegram bot is already being provisioned for the project (its operation is named). */
export class TelegramProvisionInProgress extends Schema.TaggedError<TelegramProvisionInProgress>()(
  "TelegramProvisionInProgress",
  { operationId: Schema.String, projectId: Schema.String }
) {}

/** The domain is connected, or being connected, by a project. */
export class EmailDomainAlreadyConnected extends Schema.TaggedError<EmailDomainAlreadyConnected>()(
  "EmailDomainAlreadyConnected",
  { domain: Schema.String }
) {}

/** A provider could not be reached for a synchronous read (coverage, countries). */
export class PlatformProviderUnavailable extends Schema.TaggedError<PlatformProviderUnavailable>()(
  "PlatformProviderUnavailable",
  { provider: Schema.String, message: Schema.String }
) {}

/** The store refused a line because its number is already held (the unique index). */
export class ResourceNumberTaken extends Schema.TaggedError<ResourceNumberTaken>()("ResourceNumberTaken", {
  phoneNumber: Schema.String
}) {}

// 10DLC campaigns -----------------------------------------------------------------

/** A malformed campaign request (expectedVersion, campaignId) → 400 SMS_CAMPAIGN_INVALID_REQUEST. */
export class SmsCampaignInvalidRequest extends Schema.TaggedError<SmsCampaignInvalidRequest>()("SmsCampaignInvalidRequest", {
  message: Schema.String
}) {}
/** No SMS line with this id held by the project. */
export class SmsLineNotFound extends Schema.TaggedError<SmsLineNotFound>()("SmsLineNotFound", { resourceId: Schema.String }) {}
/** The resource cannot send SMS (no `sms` ability). */
export class SmsLineUnsupported extends Schema.TaggedError<SmsLineUnsupported>()("SmsLineUnsupported", {
  resourceId: Schema.String,
  type: Schema.String
}) {}
export class SmsCampaignNotFound extends Schema.TaggedError<SmsCampaignNotFound>()("SmsCampaignNotFound", {
  campaignId: Schema.String
}) {}
/** The campaign is not approved (yet). */
export class SmsCampaignNotReady extends Schema.TaggedError<SmsCampaignNotReady>()("SmsCampaignNotReady", {
  campaignId: Schema.String,
  status: Schema.String
}) {}
export class SmsCampaignCapacityExceeded extends Schema.TaggedError<SmsCampaignCapacityExceeded>()(
  "SmsCampaignCapacityExceeded",
  { campaignId: Schema.String, capacity: Schema.Number }
) {}
/** The campaign belongs to another organization. */
export class SmsCampaignOrganizationMismatch extends Schema.TaggedError<SmsCampaignOrganizationMismatch>()(
  "SmsCampaignOrganizationMismatch",
  { campaignId: Schema.String }
) {}
export class SmsCampaignVersionConflict extends Schema.TaggedError<SmsCampaignVersionConflict>()(
  "SmsCampaignVersionConflict",
  { resourceId: Schema.String, expectedVersion: Schema.Number, currentVersion: Schema.Number }
) {}
/** The campaign registry cannot be asked now. */
export class SmsCampaignContextUnavailable extends Schema.TaggedError<SmsCampaignContextUnavailable>()(
  "SmsCampaignContextUnavailable",
  { message: Schema.String }
) {}

export type SmsCampaignError =
  | SmsCampaignInvalidRequest
  | SmsLineNotFound
  | SmsLineUnsupported
  | SmsCampaignNotFound
  | SmsCampaignNotReady
  | SmsCampaignCapacityExceeded
  | SmsCampaignOrganizationMismatch
  | SmsCampaignVersionConflict
  | SmsCampaignContextUnavailable

export type PlatformsError =
  | SmsCampaignError
  | OperationNotFound
  | OperationNotCancellable
  | ResourceNotFound
  | InvalidPlatformRequest
  | TelegramProvisionInProgress
  | EmailDomainAlreadyConnected
  | PlatformProviderUnavailable
  | ProjectNotFound
  | ProjectDeleted
  | ProjectClosing
