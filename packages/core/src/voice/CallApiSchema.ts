/**
 * Requests and responses of the calls operations (API.md §1.5): list, get, create, cancel, reject,
 * hangup, and signal ingestion (batches of 1–100, one outcome per signal).
 */
import { Schema } from "effect"
import { BoundedString } from "../shared/Bounds.js"
import { VoiceProfileId } from "../shared/Identifiers.js"
import { Timestamp } from "../shared/Timestamp.js"
import { CallSignal, CallSignalId } from "./CallSignals.js"
import { LineId } from "./Lines.js"
import { Call, CallDirection, CallStatus } from "./Schema.js"

/** Whom an outbound call dials: an E.164 number or a SIP URI (at most 256 characters). */
export const CallDestination = Schema.String.pipe(
  Schema.maxLength(256),
  Schema.pattern(/^(\+[1-9]\d{1,14}|sips?:[^\s]+)$/i, { message: () => "must be an E.164 number or a sip: URI" })
).annotations({ identifier: "CallDestination" })

export const CreateCallRequest = Schema.Struct({
  lineId: LineId,
  to: CallDestination,
  voiceProfileId: Schema.optionalWith(VoiceProfileId, { exact: true })
}).annotations({ identifier: "CreateCallRequest" })
export type CreateCallRequest = typeof CreateCallRequest.Type

/** `rejected` answers 603 Decline, `busy` 486 Busy Here (calls.md §2 T5, T7). */
export const RejectCallRequest = Schema.Struct({
  reason: Schema.Literal("rejected", "busy")
}).annotations({ identifier: "RejectCallRequest" })

export const ListCallsQuery = Schema.Struct({
  pageSize: Schema.optionalWith(Schema.NumberFromString.pipe(Schema.compose(Schema.Int), Schema.between(1, 100)), { exact: true }),
  pageToken: Schema.optionalWith(BoundedString(1, 2048), { exact: true }),
  status: Schema.optionalWith(CallStatus, { exact: true }),
  direction: Schema.optionalWith(CallDirection, { exact: true }),
  createdAfter: Schema.optionalWith(Timestamp, { exact: true }),
  createdBefore: Schema.optionalWith(Timestamp, { exact: true })
}).annotations({ identifier: "ListCallsQuery" })
export type ListCallsQuery = typeof ListCallsQuery.Type

export const CallPage = Schema.Struct({
  calls: Schema.Array(Call),
  nextPageToken: Schema.optionalWith(Schema.String, { exact: true })
}).annotations({ identifier: "CallPage" })

/** SPEC-style batch bound: 1 to 100 signals. */
export const MAX_SIGNALS_PER_BATCH = 100

export const IngestCallSignalsRequest = Schema.Struct({
  signals: Schema.Array(CallSignal).pipe(Schema.minItems(1), Schema.maxItems(MAX_SIGNALS_PER_BATCH))
}).annotations({ identifier: "IngestCallSignalsRequest" })

export const CallSignalOutcome = Schema.Literal("applied", "ignored", "rejected")

/** One signal's outcome; `reason` says why it was ignored or rejected; `call` is the call after it (absent if none exists). */
export const CallSignalResult = Schema.Struct({
  id: CallSignalId,
  outcome: CallSignalOutcome,
  reason: Schema.optionalWith(Schema.String, { exact: true }),
  call: Schema.optionalWith(Call, { exact: true })
}).annotations({ identifier: "CallSignalResult" })
export type CallSignalResult = typeof CallSignalResult.Type

export const IngestCallSignalsResponse = Schema.Struct({
  results: Schema.Array(CallSignalResult)
}).annotations({ identifier: "IngestCallSignalsResponse" })
