/** Domain errors of webhooks (no HTTP knowledge: each surface maps them in its own table). */
import { Schema } from "effect"

/** The URL is not acceptable as a webhook target (syntax, scheme, credentials, fragment, address). */
export class WebhookUrlInvalid extends Schema.TaggedError<WebhookUrlInvalid>()("WebhookUrlInvalid", {
  message: Schema.String
}) {}

/** A live management webhook of the project already has this URL. */
export class WebhookUrlTaken extends Schema.TaggedError<WebhookUrlTaken>()("WebhookUrlTaken", {
  webhookUrl: Schema.String
}) {}

/** No live management webhook with this id on the project (unknown or already deleted). */
export class ManagementWebhookNotFound extends Schema.TaggedError<ManagementWebhookNotFound>()("ManagementWebhookNotFound", {
  webhookId: Schema.String
}) {}

/** The project already has `limit` live webhooks of this kind. */
export class WebhookLimitReached extends Schema.TaggedError<WebhookLimitReached>()("WebhookLimitReached", {
  limit: Schema.Number
}) {}

export class WebhookDestinationNotFound extends Schema.TaggedError<WebhookDestinationNotFound>()("WebhookDestinationNotFound", {
  destinationId: Schema.String
}) {}

export class WebhookDestinationDeleted extends Schema.TaggedError<WebhookDestinationDeleted>()("WebhookDestinationDeleted", {
  destinationId: Schema.String
}) {}

/** A field of a webhook request is not acceptable (e.g. an event type outside the catalog). */
export class InvalidWebhookRequest extends Schema.TaggedError<InvalidWebhookRequest>()("InvalidWebhookRequest", {
  field: Schema.String,
  message: Schema.String
}) {}

/** The payload API version is unknown or no longer selectable. */
export class UnsupportedWebhookApiVersion extends Schema.TaggedError<UnsupportedWebhookApiVersion>()("UnsupportedWebhookApiVersion", {
  apiVersion: Schema.String
}) {}

export class UnknownWebhookEventType extends Schema.TaggedError<UnknownWebhookEventType>()("UnknownWebhookEventType", {
  eventType: Schema.String
}) {}

/** No delivery of that event to that webhook. */
export class WebhookDeliveryNotFound extends Schema.TaggedError<WebhookDeliveryNotFound>()("WebhookDeliveryNotFound", {
  eventId: Schema.String
}) {}

/** A retry that does not apply: stale attempt count, wrong event type, delivered, in flight, disabled. */
export class WebhookRetryRefused extends Schema.TaggedError<WebhookRetryRefused>()("WebhookRetryRefused", {
  reason: Schema.String
}) {}

/** A bad list parameter (page size, page token). */
export class InvalidWebhookQuery extends Schema.TaggedError<InvalidWebhookQuery>()("InvalidWebhookQuery", {
  parameter: Schema.String,
  message: Schema.String
}) {}

/** The errors of the management API's webhooks only: no /v1 operation raises them. */
export type ManagementWebhookError = ManagementWebhookNotFound | WebhookUrlTaken

/** Every webhook error (the adapters' tables are typed against it). */
export type WebhookError =
  | ManagementWebhookError | WebhookUrlInvalid | WebhookLimitReached | WebhookDestinationNotFound
  | WebhookDestinationDeleted | InvalidWebhookRequest | UnsupportedWebhookApiVersion | UnknownWebhookEventType
  | WebhookDeliveryNotFound | WebhookRetryRefused | InvalidWebhookQuery
