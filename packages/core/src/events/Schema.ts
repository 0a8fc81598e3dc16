/**
 * Events (docs/api-notes/events-and-webhooks.md): the envelope every event travels in,
 * and the two events whose payloads the spec gives.
 */
import { DateTime, Schema } from "effect"
import { BoundedString } from "../shared/Bounds.js"
import { EventId } from "../shared/Identifiers.js"
import { Timestamp } from "../shared/Timestamp.js"
import { KeyPress } from "../voice/Schema.js"

/** Every event carries this `apiVersion` (docs/api-notes/events-and-webhooks.md). */
export const EVENT_API_VERSION = "2026-07-01" as const
export const EventApiVersion = Schema.Literal(EVENT_API_VERSION).annotate({ identifier: "EventApiVersion" })

/**
 * The fixed name segment that ends an external-webhook source. It is the service's
 * fixed name segment (distinct from the `<svc>` identifier prefix), fixed as
 * `switchboard` (`<slug>.external-webhook.switchboard`).
 */
export const EXTERNAL_WEBHOOK_SERVICE_SEGMENT = "switchboard" as const

/**
 * An event type: dot-separated lower-case segments, e.g. `call.dtmf.received`.
 * The first segment also admits `_`, since docs/api-notes/events-and-webhooks.md's catalog has
 * `api_key.created`.
 */
export const EventType = Schema.String.pipe(
  Schema.check(Schema.isMaxLength(128)),
  Schema.check(Schema.isPattern(/^[a-z][a-z0-9_-]*(?:\.[a-z][a-z0-9_-]*)+$/u, { message: "must be an event type like call.dtmf.received" }))
).annotate({ identifier: "EventType" })

/** Where an event comes from (its form is per event type; the spec gives it for one). */
export const EventSource = BoundedString(1, 255).annotate({ identifier: "EventSource" })

/** An event's `data`: a JSON object (not an array, not null). */
export const EventData = Schema.Record(Schema.String, Schema.Unknown).annotate({
  identifier: "EventData"
})

/** The event envelope (docs/api-notes/events-and-webhooks.md), for any event type. */
export const EventEnvelope = Schema.Struct({
  id: EventId,
  type: EventType,
  apiVersion: EventApiVersion,
  source: EventSource,
  timestamp: Timestamp,
  data: EventData
}).annotate({ identifier: "EventEnvelope" })
export type EventEnvelope = typeof EventEnvelope.Type

// ---------------------------------------------------------------------------------------------
// external-webhook.received
// ---------------------------------------------------------------------------------------------

/** Strict (padded) base64, at least one character. */
export const Base64String = Schema.String.pipe(
  Schema.check(Schema.isMinLength(1)),
  Schema.check(Schema.isPattern(/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/u, {
    message: "must be base64"
  }))
).annotate({ identifier: "Base64String" })

/** `<1-64 of [a-z0-9_-]>.external-webhook.switchboard` (docs/api-notes/events-and-webhooks.md). */
export const ExternalWebhookSource = Schema.String.pipe(
  Schema.check(Schema.isPattern(new RegExp(`^[a-z0-9_-]{1,64}\\.external-webhook\\.${EXTERNAL_WEBHOOK_SERVICE_SEGMENT}$`, "u"), {
    message: `must be <slug>.external-webhook.${EXTERNAL_WEBHOOK_SERVICE_SEGMENT}`
  }))
).annotate({ identifier: "ExternalWebhookSource" })

export const ExternalWebhookReceivedData = Schema.Struct({
  rawRequestBase64: Base64String
}).annotate({ identifier: "ExternalWebhookReceivedData" })
export type ExternalWebhookReceivedData = typeof ExternalWebhookReceivedData.Type

/** `external-webhook.received`: the raw inbound request, base64-encoded. */
export const ExternalWebhookReceivedEvent = Schema.Struct({
  id: EventId,
  type: Schema.Literal("external-webhook.received"),
  apiVersion: EventApiVersion,
  source: ExternalWebhookSource,
  timestamp: Timestamp,
  data: ExternalWebhookReceivedData
}).annotate({ identifier: "ExternalWebhookReceivedEvent" })
export type ExternalWebhookReceivedEvent = typeof ExternalWebhookReceivedEvent.Type

// ---------------------------------------------------------------------------------------------
// call.dtmf.received
// ---------------------------------------------------------------------------------------------

/**
 * `call.dtmf.received`: data is one key press, whose `timestamp` equals the envelope's
 * (docs/api-notes/voice.md; docs/api-notes/events-and-webhooks.md).
 */
export const CallDtmfReceivedEvent = Schema.Struct({
  id: EventId,
  type: Schema.Literal("call.dtmf.received"),
  apiVersion: EventApiVersion,
  source: EventSource,
  timestamp: Timestamp,
  data: KeyPress
}).pipe(
  Schema.check(Schema.makeFilter((e) =>
    DateTime.toEpochMillis(e.data.timestamp) === DateTime.toEpochMillis(e.timestamp) || "data.timestamp must equal the event timestamp"
  ))
).annotate({ identifier: "CallDtmfReceivedEvent" })
export type CallDtmfReceivedEvent = typeof CallDtmfReceivedEvent.Type

/** The events whose payloads the spec gives, told apart by `type`. */
export const KnownEvent = Schema.Union([ExternalWebhookReceivedEvent, CallDtmfReceivedEvent]).annotate({
  identifier: "KnownEvent"
})
export type KnownEvent = typeof KnownEvent.Type
