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

export type PlatformsError =
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
