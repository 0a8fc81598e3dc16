/**
 * Call signals: the reducer-level inputs of the call state machine (docs/api-notes/voice.md
 * `ingestCallSignals`): each is normalised to a reducer-level input `{id, type, timestamp, data}`.
 *
 * A signal is `{id, callId, type, timestamp, data}`; `data` depends on `type`:
 *
 * - `started`   — the call's fixed fields (the machine creates the record from them, T1);
 * - `ringing`, `answered`, `connected` — `{}` (nothing beyond the moment itself);
 * - `dtmf`      — `{digit, actorId}`; `digit` is any short string here, so that a bad key (`A`, `w`,
 *                 `""`, `"12"`) reaches the machine and is *rejected* per signal
 *                 (docs/api-notes/voice.md) instead of failing a whole batch at decode time;
 * - `ended` — `{status, reason?}`: `status` is what the edge observed, in docs/api-notes/voice.md's
 *   terminal
 *                 vocabulary (a normal hangup / BYE is `completed`); the machine resolves it against
 *                 the call's current state (`CallMachine.resolveEndedStatus`). `reason` is the raw
 *                 cause and is copied to the `call.ended` event (docs/api-notes/voice.md).
 */
import { Schema } from "effect"
import { BoundedString } from "../shared/Bounds.js"
import { CallId, ProjectId, UserId } from "../shared/Identifiers.js"
import { Timestamp } from "../shared/Timestamp.js"
import { ResourceMetadata } from "../projects/Schema.js"
import {
  CallDirection,
  CallVoiceProfile,
  DirectVoiceSpaceSnapshot,
  TerminalCallStatus,
  VoiceUserSnapshot
} from "./Schema.js"
import { noExcessKeys } from "../internal/ExcessKeys.js"

/**
 * A signal's id: the SIP edge's own id for what it observed (webhook id, SIP INFO CSeq, …). Opaque
 * to us; the machine only compares ids for equality (duplicate detection, docs/api-notes/voice.md).
 */
export const CallSignalId = BoundedString(1, 256).pipe(Schema.brand("CallSignalId")).annotate({
  identifier: "CallSignalId"
})
export type CallSignalId = typeof CallSignalId.Type

export const callSignalTypes = ["started", "ringing", "answered", "connected", "dtmf", "ended"] as const
export const CallSignalType = Schema.Literals(callSignalTypes).annotate({ identifier: "CallSignalType" })
export type CallSignalType = typeof CallSignalType.Type

/** `started` data: the call's fixed fields (docs/api-notes/voice.md T1 "id, direction, caller, callee valid"). */
export const CallStartedSignalData = Schema.Struct({
  projectId: ProjectId,
  direction: CallDirection,
  voiceProfile: CallVoiceProfile,
  space: DirectVoiceSpaceSnapshot,
  caller: VoiceUserSnapshot,
  callee: VoiceUserSnapshot,
  metadata: ResourceMetadata
}).annotate({ identifier: "CallStartedSignalData" }).pipe(noExcessKeys)
export type CallStartedSignalData = typeof CallStartedSignalData.Type

/** `ringing`, `answered`, `connected` data: an empty object. */
export const CallProgressSignalData = Schema.Struct({}).annotate({ identifier: "CallProgressSignalData" }).pipe(noExcessKeys)
export type CallProgressSignalData = typeof CallProgressSignalData.Type

/**
 * `dtmf` data. The digit is validated by the machine, not here (see the module comment); the
 * bound only keeps the input small.
 */
export const CallDtmfSignalData = Schema.Struct({
  digit: Schema.String.pipe(Schema.check(Schema.isMaxLength(16))),
  actorId: UserId
}).annotate({ identifier: "CallDtmfSignalData" }).pipe(noExcessKeys)
export type CallDtmfSignalData = typeof CallDtmfSignalData.Type

/**
 * The raw cause of an end (docs/api-notes/voice.md: `data.reason`, e.g. `{sipCode: 486}` or
 * `{hangupCause: "user_busy"}`; before connect: `callee_hangup_before_connect`, `no_ack`, `bridge_failed`).
 */
export const CallEndReason = Schema.Struct({
  sipCode: Schema.optionalKey(Schema.Int.pipe(Schema.check(Schema.isBetween({ minimum: 100, maximum: 699 })))),
  hangupCause: Schema.optionalKey(BoundedString(1, 128)),
  detail: Schema.optionalKey(BoundedString(1, 256))
}).annotate({ identifier: "CallEndReason" }).pipe(noExcessKeys)
export type CallEndReason = typeof CallEndReason.Type

/** `ended` data: the observed terminal status and, optionally, the raw cause. */
export const CallEndedSignalData = Schema.Struct({
  status: TerminalCallStatus,
  reason: Schema.optionalKey(CallEndReason)
}).annotate({ identifier: "CallEndedSignalData" }).pipe(noExcessKeys)
export type CallEndedSignalData = typeof CallEndedSignalData.Type

const signal = <const T extends CallSignalType, D extends Schema.Codec<any, any>>(type: T, data: D) =>
  Schema.Struct({
    id: CallSignalId,
    callId: CallId,
    type: Schema.Literal(type),
    timestamp: Timestamp,
    data
  }).annotate({ identifier: `Call${type[0]!.toUpperCase()}${type.slice(1)}Signal` }).pipe(noExcessKeys)

export const CallStartedSignal = signal("started", CallStartedSignalData)
export type CallStartedSignal = typeof CallStartedSignal.Type
export const CallRingingSignal = signal("ringing", CallProgressSignalData)
export type CallRingingSignal = typeof CallRingingSignal.Type
export const CallAnsweredSignal = signal("answered", CallProgressSignalData)
export type CallAnsweredSignal = typeof CallAnsweredSignal.Type
export const CallConnectedSignal = signal("connected", CallProgressSignalData)
export type CallConnectedSignal = typeof CallConnectedSignal.Type
export const CallDtmfSignal = signal("dtmf", CallDtmfSignalData)
export type CallDtmfSignal = typeof CallDtmfSignal.Type
export const CallEndedSignal = signal("ended", CallEndedSignalData)
export type CallEndedSignal = typeof CallEndedSignal.Type

/** One signal from the SIP edge (docs/api-notes/voice.md), told apart by `type`. */
export const CallSignal = Schema.Union([CallStartedSignal, CallRingingSignal, CallAnsweredSignal, CallConnectedSignal, CallDtmfSignal, CallEndedSignal]).annotate({ identifier: "CallSignal" })
export type CallSignal = typeof CallSignal.Type
