/**
 * The `call.*` events (docs/api-notes/voice.md, docs/api-notes/events-and-webhooks.md): their data
 * schemas, for the event catalog, and their whole envelopes, for checking what the outbox holds.
 *
 * - `call.started`, `call.ringing`, `call.answered`, `call.connected`: `{callId, status}`;
 * - `call.dtmf.received`: one key press, whose `timestamp` equals the envelope's;
 * - `call.ended`: `{callId, status, reason?}` — the terminal status, and the raw cause the SIP edge
 *   reported (`{sipCode?, hangupCause?, detail?}`). Exactly one per call.
 *
 * The source of every call event is the call's path: `/v1/projects/<projectId>/platforms/voice/calls/<callId>`.
 */
import { DateTime, Schema } from "effect"
import { EventApiVersion, EventSource } from "../events/Schema.js"
import { EventId } from "../shared/Identifiers.js"
import { Timestamp } from "../shared/Timestamp.js"
import {
  CallAnsweredEventDraft,
  CallConnectedEventDraft,
  CallEndedEventDraft,
  CallRingingEventDraft,
  CallStartedEventDraft
} from "./CallMachine.js"
import { KeyPress } from "./Schema.js"
import { noExcessKeys } from "../internal/ExcessKeys.js"

export const CallStartedData = CallStartedEventDraft.fields.data.annotate({ identifier: "CallStartedData" })
export const CallRingingData = CallRingingEventDraft.fields.data.annotate({ identifier: "CallRingingData" })
export const CallAnsweredData = CallAnsweredEventDraft.fields.data.annotate({ identifier: "CallAnsweredData" })
export const CallConnectedData = CallConnectedEventDraft.fields.data.annotate({ identifier: "CallConnectedData" })
export const CallDtmfReceivedData = KeyPress
export const CallEndedData = CallEndedEventDraft.fields.data.annotate({ identifier: "CallEndedData" })

/** Event type → data schema, for the event catalog (docs/api-notes/events-and-webhooks.md). */
export const callEventSchemas: Record<string, Schema.Codec<any, any>> = {
  "call.started": CallStartedData,
  "call.ringing": CallRingingData,
  "call.answered": CallAnsweredData,
  "call.connected": CallConnectedData,
  "call.dtmf.received": CallDtmfReceivedData,
  "call.ended": CallEndedData
}

/** The source of a call's events. */
export const callEventSource = (projectId: string, callId: string) =>
  `/v1/projects/${projectId}/platforms/voice/calls/${callId}`

const envelope = <const T extends string, D extends Schema.Codec<any, any>>(type: T, data: D) =>
  Schema.Struct({
    id: EventId,
    type: Schema.Literal(type),
    apiVersion: EventApiVersion,
    source: EventSource,
    timestamp: Timestamp,
    data
  }).pipe(noExcessKeys)

export const CallStartedEvent = envelope("call.started", CallStartedData)
export const CallRingingEvent = envelope("call.ringing", CallRingingData)
export const CallAnsweredEvent = envelope("call.answered", CallAnsweredData)
export const CallConnectedEvent = envelope("call.connected", CallConnectedData)
export const CallDtmfReceivedEnvelope = envelope("call.dtmf.received", CallDtmfReceivedData).pipe(
  Schema.check(Schema.makeFilter((e) =>
    DateTime.toEpochMillis(e.data.timestamp) === DateTime.toEpochMillis(e.timestamp) || "data.timestamp must equal the event timestamp"
  ))
)
export const CallEndedEvent = envelope("call.ended", CallEndedData)

/** Any call event, whole envelope. */
export const CallEvent = Schema.Union([CallStartedEvent, CallRingingEvent, CallAnsweredEvent, CallConnectedEvent, CallDtmfReceivedEnvelope, CallEndedEvent]).annotate({ identifier: "CallEvent" })
export type CallEvent = typeof CallEvent.Type
