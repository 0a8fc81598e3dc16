/**
 * Requests and responses of the calls operations (docs/api-notes/voice.md): list, get, create,
 * cancel, reject, hangup, and signal ingestion (batches of 1–100, one outcome per signal).
 */
import { Schema } from "effect"
import { BoundedString } from "../shared/Bounds.js"
import { VoiceProfileId } from "../shared/Identifiers.js"
import { Timestamp } from "../shared/Timestamp.js"
import { CallSignal, CallSignalId } from "./CallSignals.js"
import { LineId } from "./Lines.js"
import { Call, CallDirection, CallStatus } from "./Schema.js"
import { NumberFromString } from "../internal/NumberFromString.js"

/** Whom an outbound call dials: an E.164 number or a SIP URI (at most 256 characters). */
export const CallDestination = Schema.String.pipe(
  Schema.check(Schema.isMaxLength(256)),
  Schema.check(Schema.isPattern(/^(\+[1-9]\d{1,14}|sips?:[^\s]+)$/i, { message: "must be an E.164 number or a sip: URI" }))
).annotate({ identifier: "CallDestination" })

export const CreateCallRequest = Schema.Struct({
  lineId: LineId,
  to: CallDestination,
  voiceProfileId: Schema.optionalKey(VoiceProfileId)
}).annotate({ identifier: "CreateCallRequest" })
export type CreateCallRequest = typeof CreateCallRequest.Type

/** `rejected` answers 603 Decline, `busy` 486 Busy Here (docs/api-notes/voice.md T5, T7). */
export const RejectCallRequest = Schema.Struct({
  reason: Schema.Literals(["rejected", "busy"])
}).annotate({ identifier: "RejectCallRequest" })

export const ListCallsQuery = Schema.Struct({
  pageSize: Schema.optionalKey(NumberFromString.pipe(Schema.decodeTo(Schema.Int), Schema.check(Schema.isBetween({ minimum: 1, maximum: 100 })))),
  pageToken: Schema.optionalKey(BoundedString(1, 2048)),
  status: Schema.optionalKey(CallStatus),
  direction: Schema.optionalKey(CallDirection),
  createdAfter: Schema.optionalKey(Timestamp),
  createdBefore: Schema.optionalKey(Timestamp)
}).annotate({ identifier: "ListCallsQuery" })
export type ListCallsQuery = typeof ListCallsQuery.Type

export const CallPage = Schema.Struct({
  calls: Schema.Array(Call),
  nextPageToken: Schema.optionalKey(Schema.String)
}).annotate({ identifier: "CallPage" })

/** SPEC-style batch bound: 1 to 100 signals. */
export const MAX_SIGNALS_PER_BATCH = 100

export const IngestCallSignalsRequest = Schema.Struct({
  signals: Schema.Array(CallSignal).pipe(Schema.check(Schema.isMinLength(1)), Schema.check(Schema.isMaxLength(MAX_SIGNALS_PER_BATCH)))
}).annotate({ identifier: "IngestCallSignalsRequest" })

export const CallSignalOutcome = Schema.Literals(["applied", "ignored", "rejected"])

/** One signal's outcome; `reason` says why it was ignored or rejected; `call` is the call after it (absent if none exists). */
export const CallSignalResult = Schema.Struct({
  id: CallSignalId,
  outcome: CallSignalOutcome,
  reason: Schema.optionalKey(Schema.String),
  call: Schema.optionalKey(Call)
}).annotate({ identifier: "CallSignalResult" })
export type CallSignalResult = typeof CallSignalResult.Type

export const IngestCallSignalsResponse = Schema.Struct({
  results: Schema.Array(CallSignalResult)
}).annotate({ identifier: "IngestCallSignalsResponse" })
