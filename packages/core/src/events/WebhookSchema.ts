/**
 * The v1 webhook resources on the wire (API.md §1.7; contract.md §1 8b, §3.9): destinations, their
 * requests and responses, deliveries, the egress-address, API-version and event-type catalogs.
 * Request bodies reject unknown properties (`addl:false` in the contract).
 */
import { Schema } from "effect"
import { BoundedString, NonNegativeSafeInt } from "../shared/Bounds.js"
import { EventId, IdKinds, ProjectId, TypeId } from "../shared/Identifiers.js"
import { NullableTimestamp, Timestamp } from "../shared/Timestamp.js"
import { EventType } from "./Schema.js"

const strict = { onExcessProperty: "error" } as const

export const WebhookDestinationId = TypeId(IdKinds.webhookDestination, "WebhookDestinationId").annotations({
  identifier: "WebhookDestinationId"
})
export type WebhookDestinationId = typeof WebhookDestinationId.Type

export const WebhookDeliveryId = TypeId(IdKinds.delivery, "WebhookDeliveryId").annotations({ identifier: "WebhookDeliveryId" })
export type WebhookDeliveryId = typeof WebhookDeliveryId.Type

const isRealDate = (s: string) => {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s)
  if (m === null) return false
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])]
  const date = new Date(Date.UTC(y, mo - 1, d))
  return date.getUTCFullYear() === y && date.getUTCMonth() === mo - 1 && date.getUTCDate() === d
}

/** A payload API version: a calendar date `YYYY-MM-DD` (contract.md §2.3 `format: date`). */
export const WebhookApiVersion = Schema.String.pipe(
  Schema.filter((s) => isRealDate(s) || "must be a date like 2026-07-01", { jsonSchema: { format: "date" } })
).annotations({ identifier: "WebhookApiVersion" })

/** `["*"]` (every event) or 1..256 distinct event types (contract.md §2.3). */
export const WebhookEventSelection = Schema.Union(
  Schema.Tuple(Schema.Literal("*")),
  Schema.Array(EventType).pipe(
    Schema.minItems(1),
    Schema.maxItems(256),
    Schema.filter((types) => new Set(types).size === types.length || "must not list an event type twice")
  )
).annotations({ identifier: "WebhookEventSelection" })
export type WebhookEventSelection = typeof WebhookEventSelection.Type

export const WebhookDestinationStatus = Schema.Literal("enabled", "disabled").annotations({
  identifier: "WebhookDestinationStatus"
})
export type WebhookDestinationStatus = typeof WebhookDestinationStatus.Type

/** A destination URL as sent (1..2048 characters); the service checks scheme, credentials, fragment. */
export const WebhookUrlInput = BoundedString(1, 2048).annotations({ identifier: "WebhookUrl" })

export const WebhookDestinationName = BoundedString(1, 256).annotations({ identifier: "WebhookDestinationName" })
export const WebhookDestinationDescription = Schema.String.pipe(Schema.maxLength(1000)).annotations({
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
}).annotations({ identifier: "WebhookDestination", parseOptions: strict })
export type WebhookDestination = typeof WebhookDestination.Type

export const CreateWebhookDestinationRequest = Schema.Struct({
  apiVersion: WebhookApiVersion,
  enabledEvents: WebhookEventSelection,
  name: WebhookDestinationName,
  url: WebhookUrlInput,
  description: Schema.optionalWith(Schema.NullOr(WebhookDestinationDescription), { exact: true }),
  status: Schema.optionalWith(WebhookDestinationStatus, { exact: true })
}).annotations({ identifier: "CreateWebhookDestinationRequest", parseOptions: strict })
export type CreateWebhookDestinationRequest = typeof CreateWebhookDestinationRequest.Type

/** The signing secret appears here (and in replays of this response) only. */
export const CreateWebhookDestinationResponse = Schema.Struct({
  destination: WebhookDestination,
  signingSecret: Schema.String
}).annotations({ identifier: "CreateWebhookDestinationResponse" })

/** At least one field; `apiVersion` cannot change (sending it is a validation error). */
export const UpdateWebhookDestinationRequest = Schema.Struct({
  description: Schema.optionalWith(Schema.NullOr(WebhookDestinationDescription), { exact: true }),
  enabledEvents: Schema.optionalWith(WebhookEventSelection, { exact: true }),
  name: Schema.optionalWith(WebhookDestinationName, { exact: true }),
  status: Schema.optionalWith(WebhookDestinationStatus, { exact: true }),
  url: Schema.optionalWith(WebhookUrlInput, { exact: true })
}).pipe(
  Schema.filter((r) => Object.keys(r).length > 0 || "must change at least one field")
).annotations({ identifier: "UpdateWebhookDestinationRequest", parseOptions: strict })
export type UpdateWebhookDestinationRequest = typeof UpdateWebhookDestinationRequest.Type

/** Seconds the previous secret keeps signing after a rotation: 0..604800 (7 days), default 86400. */
export const OverlapSeconds = Schema.Int.pipe(Schema.between(0, 604_800)).annotations({ identifier: "OverlapSeconds" })
export const DEFAULT_OVERLAP_SECONDS = 86_400

export const RotateWebhookSigningSecretRequest = Schema.Struct({
  overlapSeconds: Schema.optionalWith(OverlapSeconds, { exact: true })
}).annotations({ identifier: "RotateWebhookSigningSecretRequest", parseOptions: strict })
export type RotateWebhookSigningSecretRequest = typeof RotateWebhookSigningSecretRequest.Type

export const RotateWebhookSigningSecretResponse = Schema.Struct({
  previousSecretExpiresAt: NullableTimestamp,
  signingSecret: Schema.String
}).annotations({ identifier: "RotateWebhookSigningSecretResponse" })

/** Fenced retry: refused unless the delivery still has `expectedAttemptCount` attempts. */
export const RetryWebhookDeliveryRequest = Schema.Struct({
  eventId: EventId,
  eventType: EventType,
  expectedAttemptCount: NonNegativeSafeInt
}).annotations({ identifier: "RetryWebhookDeliveryRequest", parseOptions: strict })
export type RetryWebhookDeliveryRequest = typeof RetryWebhookDeliveryRequest.Type

export const RetryWebhookDeliveryResponse = Schema.Struct({
  status: Schema.Literal("accepted")
}).annotations({ identifier: "RetryWebhookDeliveryResponse" })

/** What `sendWebhookTestEvent` queued: one `webhook.test` delivery to the destination. */
export const SendWebhookTestEventResponse = Schema.Struct({
  deliveryId: Schema.String,
  eventId: Schema.String,
  eventType: Schema.Literal("webhook.test")
}).annotations({ identifier: "SendWebhookTestEventResponse" })

export const WebhookDestinationPage = Schema.Struct({
  destinations: Schema.Array(WebhookDestination),
  nextPageToken: Schema.optionalWith(Schema.String, { exact: true })
}).annotations({ identifier: "WebhookDestinationPage" })

/** pending (waiting for its next attempt), delivered, dead_lettered (kept, retryable), cancelled (its webhook was deleted). */
export const WebhookDeliveryStatus = Schema.Literal("pending", "delivered", "dead_lettered", "cancelled").annotations({
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
}).annotations({ identifier: "WebhookDelivery" })
export type WebhookDelivery = typeof WebhookDelivery.Type

export const WebhookDeliveryPage = Schema.Struct({
  deliveries: Schema.Array(WebhookDelivery),
  nextPageToken: Schema.optionalWith(Schema.String, { exact: true })
}).annotations({ identifier: "WebhookDeliveryPage" })

/** SPEC.md § Webhook egress addresses (v1 form). */
export const ListWebhookEgressAddressesResponse = Schema.Struct({
  ipAddresses: Schema.Array(Schema.String)
}).annotations({ identifier: "ListWebhookEgressAddressesResponse" })

export const WebhookApiVersionEntry = Schema.Struct({
  version: WebhookApiVersion,
  status: Schema.Literal("preview", "latest", "maintain", "deprecated"),
  selectable: Schema.Boolean,
  successor: Schema.NullOr(WebhookApiVersion),
  retirement: Schema.NullOr(Schema.Struct({ migrationGuide: Schema.String, reason: Schema.String }))
}).annotations({ identifier: "WebhookApiVersionEntry" })
export type WebhookApiVersionEntry = typeof WebhookApiVersionEntry.Type

export const ListWebhookApiVersionsResponse = Schema.Struct({
  apiVersions: Schema.Array(WebhookApiVersionEntry),
  contractNamespace: Schema.String,
  packageVersion: Schema.String
}).annotations({ identifier: "ListWebhookApiVersionsResponse" })

export const WebhookEventTypeEntry = Schema.Struct({
  type: Schema.String,
  description: Schema.String,
  audience: Schema.Literal("agent", "infrastructure"),
  schemaProfile: Schema.Literal("reader"),
  schemaUrl: Schema.String
}).annotations({ identifier: "WebhookEventTypeEntry" })

export const ListWebhookEventTypesResponse = Schema.Struct({
  apiVersion: WebhookApiVersion,
  status: Schema.Literal("preview", "latest", "maintain", "deprecated"),
  selectable: Schema.Boolean,
  successor: Schema.NullOr(WebhookApiVersion),
  retirement: Schema.NullOr(Schema.Struct({ migrationGuide: Schema.String, reason: Schema.String })),
  events: Schema.Array(WebhookEventTypeEntry)
}).annotations({ identifier: "ListWebhookEventTypesResponse" })

/** Query of the event-type catalog and schema operations: `apiVersion` is required. */
export const WebhookCatalogQuery = Schema.Struct({
  apiVersion: WebhookApiVersion
}).annotations({ identifier: "WebhookCatalogQuery" })

/** Query of the deliveries list. */
export const ListWebhookDeliveriesQuery = Schema.Struct({
  status: Schema.optionalWith(WebhookDeliveryStatus, { exact: true }),
  pageSize: Schema.optionalWith(
    Schema.NumberFromString.pipe(Schema.compose(Schema.Int), Schema.between(1, 100)),
    { exact: true }
  ),
  pageToken: Schema.optionalWith(BoundedString(1, 2048), { exact: true })
}).annotations({ identifier: "ListWebhookDeliveriesQuery" })

export const ListWebhookDestinationsQuery = Schema.Struct({
  pageSize: Schema.optionalWith(
    Schema.NumberFromString.pipe(Schema.compose(Schema.Int), Schema.between(1, 100)),
    { exact: true }
  ),
  pageToken: Schema.optionalWith(BoundedString(1, 2048), { exact: true })
}).annotations({ identifier: "ListWebhookDestinationsQuery" })
