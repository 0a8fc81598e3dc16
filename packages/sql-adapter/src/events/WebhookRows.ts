/**
 * The rows of the webhook tables (migration 0014) and their mapping to core's records, shared by
 * `WebhookEndpointsSql.ts` and `WebhookDeliveriesSql.ts`.
 */
import { Events } from "@switchboard/core"
import { type DeliveryRecord, type WebhookEndpoint } from "@switchboard/core/events"
import { type DateTime, Effect, Schema } from "effect"
import { DbTime, DbTimeOrNull, parseJson, type Rows, rowsOf, toDate } from "../shared/Sql.js"

const BigIntNumber = Schema.Union(Schema.Number, Schema.NumberFromString)
const Bytes = Schema.Uint8ArrayFromSelf

const EndpointRow = Schema.Struct({
  endpointId: Schema.String,
  kind: Schema.Literal("destination", "management"),
  projectId: Schema.String,
  url: Schema.String,
  name: Schema.NullOr(Schema.String),
  description: Schema.NullOr(Schema.String),
  status: Schema.Literal("enabled", "disabled"),
  enabledEvents: Schema.Array(Schema.String),
  apiVersion: Schema.String,
  secretSealed: Bytes,
  previousSecretSealed: Schema.NullOr(Bytes),
  previousSecretExpiresAt: DbTimeOrNull,
  createdAt: DbTime,
  updatedAt: DbTime,
  deletedAt: DbTimeOrNull
})
type EndpointRow = typeof EndpointRow.Type

const DeliveryRow = Schema.Struct({
  deliveryId: Schema.String,
  endpointId: Schema.String,
  projectId: Schema.String,
  eventId: Schema.String,
  eventPosition: BigIntNumber,
  eventType: Schema.String,
  status: Schema.Literal("pending", "delivered", "dead_lettered", "cancelled"),
  attemptCount: Schema.Number,
  nextAttemptAt: DbTime,
  leasedUntil: DbTimeOrNull,
  claimSeq: Schema.Number,
  lastAttemptAt: DbTimeOrNull,
  lastError: Schema.NullOr(Schema.String),
  lastResponseStatus: Schema.NullOr(Schema.Number),
  deliveredAt: DbTimeOrNull,
  createdAt: DbTime
})

const EventRow = Schema.Struct({
  position: BigIntNumber,
  id: Schema.String,
  projectId: Schema.NullOr(Schema.String),
  type: Schema.String,
  source: Schema.String,
  occurredAt: DbTime,
  data: Schema.Unknown
})

/** A claimed delivery joined with its endpoint (columns `ep_*`) and event (columns `ev_*`). */
const ClaimRow = Schema.Struct({
  ...DeliveryRow.fields,
  epEndpointId: Schema.String,
  epKind: Schema.Literal("destination", "management"),
  epProjectId: Schema.String,
  epUrl: Schema.String,
  epName: Schema.NullOr(Schema.String),
  epDescription: Schema.NullOr(Schema.String),
  epStatus: Schema.Literal("enabled", "disabled"),
  epEnabledEvents: Schema.Array(Schema.String),
  epApiVersion: Schema.String,
  epSecretSealed: Bytes,
  epPreviousSecretSealed: Schema.NullOr(Bytes),
  epPreviousSecretExpiresAt: DbTimeOrNull,
  epCreatedAt: DbTime,
  epUpdatedAt: DbTime,
  epDeletedAt: DbTimeOrNull,
  evId: Schema.String,
  evType: Schema.String,
  evSource: Schema.String,
  evOccurredAt: DbTime,
  evData: Schema.Unknown
})

const endpointsOf = rowsOf(EndpointRow)
const deliveriesOf = rowsOf(DeliveryRow)
export const eventRows = rowsOf(EventRow)
export const claimRows = rowsOf(ClaimRow)

const bytes = (b: Uint8Array) => new Uint8Array(b)
export const buffer = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.byteLength)
const json = (v: unknown) => parseJson(v) as Record<string, unknown>

export const toEndpoint = (r: EndpointRow): WebhookEndpoint => ({
  endpointId: r.endpointId,
  kind: r.kind,
  projectId: r.projectId,
  url: r.url,
  name: r.name,
  description: r.description,
  status: r.status,
  enabledEvents: r.enabledEvents,
  apiVersion: r.apiVersion,
  secret: bytes(r.secretSealed),
  previousSecret: r.previousSecretSealed === null ? null : bytes(r.previousSecretSealed),
  previousSecretExpiresAt: r.previousSecretExpiresAt,
  createdAt: r.createdAt,
  updatedAt: r.updatedAt,
  deletedAt: r.deletedAt
})

export const toDelivery = (r: typeof DeliveryRow.Type): DeliveryRecord => ({
  deliveryId: r.deliveryId,
  endpointId: r.endpointId,
  projectId: r.projectId,
  eventId: r.eventId,
  eventPosition: Number(r.eventPosition),
  eventType: r.eventType,
  status: r.status,
  attemptCount: r.attemptCount,
  nextAttemptAt: r.nextAttemptAt,
  leasedUntil: r.leasedUntil,
  claimSeq: r.claimSeq,
  lastAttemptAt: r.lastAttemptAt,
  lastError: r.lastError,
  lastResponseStatus: r.lastResponseStatus,
  deliveredAt: r.deliveredAt,
  createdAt: r.createdAt
})

export const toEvent = (id: string, type: string, source: string, occurredAt: DateTime.Utc, data: unknown): Events.EventEnvelope => ({
  id: id as Events.EventEnvelope["id"],
  type,
  apiVersion: Events.EVENT_API_VERSION,
  source,
  timestamp: occurredAt,
  data: json(data)
})

const isoOrNull = (dt: DateTime.Utc | null) => (dt === null ? null : toDate(dt).toISOString())

/** A delivery as a row of `jsonb_to_recordset` (see `insertDeliveries`). */
export const deliveryJson = (d: DeliveryRecord) => ({
  delivery_id: d.deliveryId,
  endpoint_id: d.endpointId,
  project_id: d.projectId,
  event_id: d.eventId,
  event_position: d.eventPosition,
  event_type: d.eventType,
  status: d.status,
  attempt_count: d.attemptCount,
  next_attempt_at: toDate(d.nextAttemptAt).toISOString(),
  leased_until: isoOrNull(d.leasedUntil),
  claim_seq: d.claimSeq,
  last_attempt_at: isoOrNull(d.lastAttemptAt),
  last_error: d.lastError,
  last_response_status: d.lastResponseStatus,
  delivered_at: isoOrNull(d.deliveredAt),
  created_at: toDate(d.createdAt).toISOString()
})

export const endpointRows = (statement: Rows) => endpointsOf(statement).pipe(Effect.map((rows) => rows.map(toEndpoint)))
export const deliveryRows = (statement: Rows) => deliveriesOf(statement).pipe(Effect.map((rows) => rows.map(toDelivery)))
