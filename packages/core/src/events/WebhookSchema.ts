/**
 * The v1 webhook resources on the wire (docs/api-notes/events-and-webhooks.md): destinations, their
 * requests and responses, deliveries, the egress-address, API-version and event-type catalogs.
 * Request bodies reject unknown properties (`addl:false` in the contract).
 */
import { Schema } from "effect"
import { BoundedString, NonNegativeSafeInt } from "../shared/Bounds.js"
import { EventId, IdKinds, ProjectId, TypeId } from "../shared/Identifiers.js"
import { NullableTimestamp, Timestamp } from "../shared/Timestamp.js"
import { EventType } from "./Schema.js"
import { noExcessKeys } from "../internal/ExcessKeys.js"
import { NumberFromString } from "../internal/NumberFromString.js"

export const WebhookDestinationId = TypeId(IdKinds.webhookDestination, "WebhookDestinationId").annotate({
  identifier: "WebhookDestinationId"
})
export type WebhookDestinationId = typeof WebhookDestinationId.Type

export const WebhookDeliveryId = TypeId(IdKinds.delivery, "WebhookDeliveryId").annotate({ identifier: "WebhookDeliveryId" })
export type WebhookDeliveryId = typeof WebhookDeliveryId.Type

const isRealDate = (s: string) => {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s)
  if (m === null) return false
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])]
  const date = new Date(Date.UTC(y, mo - 1, d))
  return date.getUTCFullYear() === y && date.getUTCMonth() === mo - 1 && date.getUTCDate() === d
}

/** A payload API version: a calendar date `YYYY-MM-DD` (the public contract's `format: date`). */
export const WebhookApiVersion = Schema.String.pipe(
  Schema.check(Schema.makeFilter((s) => isRealDate(s) || "must be a date like 2026-07-01", { toJsonSchema: () => ({ format: "date" }) }))
).annotate({ identifier: "WebhookApiVersion" })

/** `["*"]` (every event) or 1..256 distinct event types. */
export const WebhookEventSelection = Schema.Union([Schema.Tuple([Schema.Literal("*")]), Schema.Array(EventType).pipe(
  Schema.check(Schema.isMinLength(1)),
  Schema.check(Schema.isMaxLength(256)),
  Schema.check(Schema.makeFilter((types) => new Set(types).size === types.length || "must not list an event type twice"))
)]).annotate({ identifier: "WebhookEventSelection" })
export type WebhookEventSelection = typeof WebhookEventSelection.Type

export const WebhookDestinationStatus = Schema.Literals(["enabled", "disabled"]).annotate({
  identifier: "WebhookDestinationStatus"
})
export type WebhookDestinationStatus = typeof WebhookDestinationStatus.Type

/** A destination URL as sent (1..2048 characters); the service checks scheme, credentials, fragment. */
export const WebhookUrlInput = BoundedString(1, 2048).annotate({ identifier: "WebhookUrl" })

export const WebhookDestinationName = BoundedString(1, 256).annotate({ identifier: "WebhookDestinationName" })
export const WebhookDestinationDescription = Schema.String.pipe(Schema.check(Schema.isMaxLength(1000))).annotate({
  identifier: "WebhookDestinationDescription"
})

/** A v1 webhook destination; never its signing secret. */
export const WebhookDestination = Schema.Struct({
  apiVersion: WebhookApiVersion,
  createdAt: Timestamp,
  deletedAt: NullableTimestamp,
  description: Schema.NullOr(Schema.String),
  destinationId: WebhookDestinationId,
  enabledEvents: WebhookEventSelection,
  name: Schema.String,
  projectId: ProjectId,
  status: WebhookDestinationStatus,
  updatedAt: Timestamp,
  url: Schema.String
}).annotate({ identifier: "WebhookDestination" }).pipe(noExcessKeys)
export type WebhookDestination = typeof WebhookDestination.Type

export const CreateWebhookDestinationRequest = Schema.Struct({
  apiVersion: WebhookApiVersion,
  enabledEvents: WebhookEventSelection,
  name: WebhookDestinationName,
  url: WebhookUrlInput,
  description: Schema.optionalKey(Schema.NullOr(WebhookDestinationDescription)),
  status: Schema.optionalKey(WebhookDestinationStatus)
}).annotate({ identifier: "CreateWebhookDestinationRequest" }).pipe(noExcessKeys)
export type CreateWebhookDestinationRequest = typeof CreateWebhookDestinationRequest.Type

/** The signing secret appears here (and in replays of this response) only. */
export const CreateWebhookDestinationResponse = Schema.Struct({
  destination: WebhookDestination,
  signingSecret: Schema.String
}).annotate({ identifier: "CreateWebhookDestinationResponse" })

/** At least one field; `apiVersion` cannot change (sending it is a validation error). */
export const UpdateWebhookDestinationRequest = Schema.Struct({
  description: Schema.optionalKey(Schema.NullOr(WebhookDestinationDescription)),
  enabledEvents: Schema.optionalKey(WebhookEventSelection),
  name: Schema.optionalKey(WebhookDestinationName),
  status: Schema.optionalKey(WebhookDestinationStatus),
  url: Schema.optionalKey(WebhookUrlInput)
}).pipe(
  Schema.check(Schema.makeFilter((r) => Object.keys(r).length > 0 || "must change at least one field"))
).annotate({ identifier: "UpdateWebhookDestinationRequest" }).pipe(noExcessKeys)
export type UpdateWebhookDestinationRequest = typeof UpdateWebhookDestinationRequest.Type

/** Seconds the previous secret keeps signing after a rotation: 0..604800 (7 days), default 86400. */
export const OverlapSeconds = Schema.Int.pipe(Schema.check(Schema.isBetween({ minimum: 0, maximum: 604_800 }))).annotate({ identifier: "OverlapSeconds" })
export const DEFAULT_OVERLAP_SECONDS = 86_400

export const RotateWebhookSigningSecretRequest = Schema.Struct({
  overlapSeconds: Schema.optionalKey(OverlapSeconds)
}).annotate({ identifier: "RotateWebhookSigningSecretRequest" }).pipe(noExcessKeys)
export type RotateWebhookSigningSecretRequest = typeof RotateWebhookSigningSecretRequest.Type

export const RotateWebhookSigningSecretResponse = Schema.Struct({
  previousSecretExpiresAt: NullableTimestamp,
  signingSecret: Schema.String
}).annotate({ identifier: "RotateWebhookSigningSecretResponse" })

/** Fenced retry: refused unless the delivery still has `expectedAttemptCount` attempts. */
export const RetryWebhookDeliveryRequest = Schema.Struct({
  eventId: EventId,
  eventType: EventType,
  expectedAttemptCount: NonNegativeSafeInt
}).annotate({ identifier: "RetryWebhookDeliveryRequest" }).pipe(noExcessKeys)
export type RetryWebhookDeliveryRequest = typeof RetryWebhookDeliveryRequest.Type

export const RetryWebhookDeliveryResponse = Schema.Struct({
  status: Schema.Literal("accepted")
}).annotate({ identifier: "RetryWebhookDeliveryResponse" })

/** What `sendWebhookTestEvent` queued: one `webhook.test` delivery to the destination. */
export const SendWebhookTestEventResponse = Schema.Struct({
  deliveryId: Schema.String,
  eventId: Schema.String,
  eventType: Schema.Literal("webhook.test")
}).annotate({ identifier: "SendWebhookTestEventResponse" })

export const WebhookDestinationPage = Schema.Struct({
  destinations: Schema.Array(WebhookDestination),
  nextPageToken: Schema.optionalKey(Schema.String)
}).annotate({ identifier: "WebhookDestinationPage" })

/** pending (waiting for its next attempt), delivered, dead_lettered (kept, retryable), cancelled (its webhook was deleted). */
export const WebhookDeliveryStatus = Schema.Literals(["pending", "delivered", "dead_lettered", "cancelled"]).annotate({
  identifier: "WebhookDeliveryStatus"
})
export type WebhookDeliveryStatus = typeof WebhookDeliveryStatus.Type

/** One event's delivery to one destination (ours: the contract lists none, the issue asks for it). */
export const WebhookDelivery = Schema.Struct({
  deliveryId: WebhookDeliveryId,
  eventId: EventId,
  eventType: Schema.String,
  status: WebhookDeliveryStatus,
  /** Finished attempts so far (the `expectedAttemptCount` of a retry). */
  attemptCount: NonNegativeSafeInt,
  /** When the next attempt is due (pending only). */
  nextAttemptAt: NullableTimestamp,
  /** Whether an attempt is running right now. */
  inFlight: Schema.Boolean,
  lastAttemptAt: NullableTimestamp,
  lastError: Schema.NullOr(Schema.String),
  lastResponseStatus: Schema.NullOr(Schema.Int),
  deliveredAt: NullableTimestamp,
  createdAt: Timestamp
}).annotate({ identifier: "WebhookDelivery" })
export type WebhookDelivery = typeof WebhookDelivery.Type

export const WebhookDeliveryPage = Schema.Struct({
  deliveries: Schema.Array(WebhookDelivery),
  nextPageToken: Schema.optionalKey(Schema.String)
}).annotate({ identifier: "WebhookDeliveryPage" })

/** The webhook egress addresses, v1 form (docs/api-notes/events-and-webhooks.md). */
export const ListWebhookEgressAddressesResponse = Schema.Struct({
  ipAddresses: Schema.Array(Schema.String)
}).annotate({ identifier: "ListWebhookEgressAddressesResponse" })

export const WebhookApiVersionEntry = Schema.Struct({
  version: WebhookApiVersion,
  status: Schema.Literals(["preview", "latest", "maintain", "deprecated"]),
  selectable: Schema.Boolean,
  successor: Schema.NullOr(WebhookApiVersion),
  retirement: Schema.NullOr(Schema.Struct({ migrationGuide: Schema.String, reason: Schema.String }))
}).annotate({ identifier: "WebhookApiVersionEntry" })
export type WebhookApiVersionEntry = typeof WebhookApiVersionEntry.Type

export const ListWebhookApiVersionsResponse = Schema.Struct({
  apiVersions: Schema.Array(WebhookApiVersionEntry),
  contractNamespace: Schema.String,
  packageVersion: Schema.String
}).annotate({ identifier: "ListWebhookApiVersionsResponse" })

export const WebhookEventTypeEntry = Schema.Struct({
  type: Schema.String,
  description: Schema.String,
  audience: Schema.Literals(["agent", "infrastructure"]),
  schemaProfile: Schema.Literal("reader"),
  schemaUrl: Schema.String
}).annotate({ identifier: "WebhookEventTypeEntry" })

export const ListWebhookEventTypesResponse = Schema.Struct({
  apiVersion: WebhookApiVersion,
  status: Schema.Literals(["preview", "latest", "maintain", "deprecated"]),
  selectable: Schema.Boolean,
  successor: Schema.NullOr(WebhookApiVersion),
  retirement: Schema.NullOr(Schema.Struct({ migrationGuide: Schema.String, reason: Schema.String })),
  events: Schema.Array(WebhookEventTypeEntry)
}).annotate({ identifier: "ListWebhookEventTypesResponse" })

/** Query of the event-type catalog and schema operations: `apiVersion` is required. */
export const WebhookCatalogQuery = Schema.Struct({
  apiVersion: WebhookApiVersion
}).annotate({ identifier: "WebhookCatalogQuery" })

/** Query of the deliveries list. */
export const ListWebhookDeliveriesQuery = Schema.Struct({
  status: Schema.optionalKey(WebhookDeliveryStatus),
  pageSize: Schema.optionalKey(NumberFromString.pipe(Schema.decodeTo(Schema.Int), Schema.check(Schema.isBetween({ minimum: 1, maximum: 100 })))),
  pageToken: Schema.optionalKey(BoundedString(1, 2048))
}).annotate({ identifier: "ListWebhookDeliveriesQuery" })

export const ListWebhookDestinationsQuery = Schema.Struct({
  pageSize: Schema.optionalKey(NumberFromString.pipe(Schema.decodeTo(Schema.Int), Schema.check(Schema.isBetween({ minimum: 1, maximum: 100 })))),
  pageToken: Schema.optionalKey(BoundedString(1, 2048))
}).annotate({ identifier: "ListWebhookDestinationsQuery" })
