/**
 * The call record (docs/api-notes/voice.md, docs/api-notes/requests.md). A call is a union keyed on
 * `status`: each status carries its own timestamps shape, so an impossible pairing (an `answered`
 * call with an `endedAt`) does not decode.
 *
 * The call record rejects unknown properties everywhere (our choice: the spec lists every field,
 * and strictness is what makes a forbidden timestamp key an error rather than a dropped key).
 */
import { DateTime, Schema } from "effect"
import { BoundedString } from "../shared/Bounds.js"
import { CallId, ProjectId, UserId, VoiceProfileId } from "../shared/Identifiers.js"
import { Timestamp } from "../shared/Timestamp.js"
import { ResourceMetadata } from "../projects/Schema.js"
import { noExcessKeys } from "../internal/ExcessKeys.js"

/** A key that must not appear at all (docs/api-notes/voice.md: "absent (the key is omitted, not null)"). */
const Absent = Schema.optionalKey(Schema.Never)
const Optional = Schema.optionalKey(Timestamp)

// ---------------------------------------------------------------------------------------------
// Statuses (docs/api-notes/voice.md)
// ---------------------------------------------------------------------------------------------

/**
 * The ten call statuses. The spec fixes `answered`, `busy`, `completed` and `canceled` (one "l");
 * the other six strings are docs/api-notes/voice.md's proposal (`no-answer` with a hyphen, as Twilio spells it).
 */
export const callStatuses = [
  "started", "ringing", "answered", "connected", "completed", "busy", "no-answer", "rejected", "canceled", "failed"
] as const
export const CallStatus = Schema.Literals(callStatuses).annotate({ identifier: "CallStatus" })
export type CallStatus = typeof CallStatus.Type

/** The live statuses, in progress order (docs/api-notes/voice.md). */
export const LiveCallStatus = Schema.Literals(["started", "ringing", "answered", "connected"]).annotate({
  identifier: "LiveCallStatus"
})
export type LiveCallStatus = typeof LiveCallStatus.Type

/** The terminal statuses: they absorb every later input (docs/api-notes/voice.md). */
export const TerminalCallStatus = Schema.Literals(["completed", "busy", "no-answer", "rejected", "canceled", "failed"])
  .annotate({ identifier: "TerminalCallStatus" })
export type TerminalCallStatus = typeof TerminalCallStatus.Type

/** `inbound`: a managed line is the callee; `outbound`: a managed line is the caller. */
export const CallDirection = Schema.Literals(["inbound", "outbound"]).annotate({ identifier: "CallDirection" })
export type CallDirection = typeof CallDirection.Type

// ---------------------------------------------------------------------------------------------
// DTMF (docs/api-notes/voice.md)
// ---------------------------------------------------------------------------------------------

/** One key: exactly one of `0`-`9`, `*`, `#` (A–D and multi-character strings are refused). */
export const DtmfDigit = Schema.Literals(["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "*", "#"]).annotate({
  identifier: "DtmfDigit"
})
export type DtmfDigit = typeof DtmfDigit.Type

/**
 * A key press. Its `timestamp` equals the outer timestamp of that press's `call.dtmf.received`
 * event; `actorId` is who pressed.
 */
export const KeyPress = Schema.Struct({
  digit: DtmfDigit,
  timestamp: Timestamp,
  actorId: UserId
}).annotate({ identifier: "KeyPress" })
export type KeyPress = typeof KeyPress.Type

/** The ring buffer's capacity (docs/api-notes/requests.md: dtmfInputs length 100). */
export const MAX_DTMF_INPUTS = 100

/** The latest key presses, in recording order, at most 100. */
export const DtmfInputs = Schema.Array(KeyPress).pipe(Schema.check(Schema.isMaxLength(MAX_DTMF_INPUTS))).annotate({
  identifier: "DtmfInputs"
})

// ---------------------------------------------------------------------------------------------
// Snapshots and the voice profile (the spec leaves the snapshot structures open)
// ---------------------------------------------------------------------------------------------

/** `voiceProfile`: the profile used and its endpoint kind (always SIP). */
export const CallVoiceProfile = Schema.Struct({
  id: VoiceProfileId,
  endpoint: Schema.Struct({ type: Schema.Literal("sip") })
}).annotate({ identifier: "CallVoiceProfile" })
export type CallVoiceProfile = typeof CallVoiceProfile.Type

/** A direct voice space snapshot (the spec leaves it open): a call is always a 1:1 space. */
export const DirectVoiceSpaceSnapshot = Schema.Struct({
  id: BoundedString(1, 256),
  type: Schema.Literal("direct")
}).annotate({ identifier: "DirectVoiceSpaceSnapshot" })
export type DirectVoiceSpaceSnapshot = typeof DirectVoiceSpaceSnapshot.Type

/** A voice user snapshot (the spec leaves it open): the user and, when known, the number or SIP URI. */
export const VoiceUserSnapshot = Schema.Struct({
  id: UserId,
  handle: Schema.optionalKey(BoundedString(1, 256))
}).annotate({ identifier: "VoiceUserSnapshot" })
export type VoiceUserSnapshot = typeof VoiceUserSnapshot.Type

// ---------------------------------------------------------------------------------------------
// Timestamps per status (docs/api-notes/voice.md)
// ---------------------------------------------------------------------------------------------

type Milestones = {
  readonly startedAt?: DateTime.Utc
  readonly ringingAt?: DateTime.Utc
  readonly answeredAt?: DateTime.Utc
  readonly connectedAt?: DateTime.Utc
  readonly endedAt?: DateTime.Utc
}

/** docs/api-notes/voice.md: `startedAt ≤ ringingAt ≤ answeredAt ≤ connectedAt ≤ endedAt` wherever fields exist. */
const inOrder = (t: Milestones): true | string => {
  const present = [t.startedAt, t.ringingAt, t.answeredAt, t.connectedAt, t.endedAt].filter(
    (x): x is DateTime.Utc => x !== undefined
  )
  for (let i = 1; i < present.length; i++) {
    if (present[i - 1]!.epochMilliseconds > present[i]!.epochMilliseconds) {
      return "call timestamps must be ordered startedAt ≤ ringingAt ≤ answeredAt ≤ connectedAt ≤ endedAt"
    }
  }
  return true
}

/** `started`: only `startedAt`. */
export const StartedCallTimestamps = Schema.Struct({
  startedAt: Timestamp,
  ringingAt: Absent,
  answeredAt: Absent,
  connectedAt: Absent,
  endedAt: Absent
}).annotate({ identifier: "StartedCallTimestamps" })
export type StartedCallTimestamps = typeof StartedCallTimestamps.Type

/** `ringing`: `startedAt` and `ringingAt`. */
export const RingingCallTimestamps = Schema.Struct({
  startedAt: Timestamp,
  ringingAt: Timestamp,
  answeredAt: Absent,
  connectedAt: Absent,
  endedAt: Absent
}).pipe(Schema.check(Schema.makeFilter(inOrder))).annotate({ identifier: "RingingCallTimestamps" })
export type RingingCallTimestamps = typeof RingingCallTimestamps.Type

/** `answered` (docs/api-notes/voice.md): `startedAt` and `answeredAt` required, `ringingAt` optional, no `connectedAt`/`endedAt`. */
export const AnsweredCallTimestamps = Schema.Struct({
  startedAt: Timestamp,
  ringingAt: Optional,
  answeredAt: Timestamp,
  connectedAt: Absent,
  endedAt: Absent
}).pipe(Schema.check(Schema.makeFilter(inOrder))).annotate({ identifier: "AnsweredCallTimestamps" })
export type AnsweredCallTimestamps = typeof AnsweredCallTimestamps.Type

/** `connected`: also `connectedAt` (never without `answeredAt`). */
export const ConnectedCallTimestamps = Schema.Struct({
  startedAt: Timestamp,
  ringingAt: Optional,
  answeredAt: Timestamp,
  connectedAt: Timestamp,
  endedAt: Absent
}).pipe(Schema.check(Schema.makeFilter(inOrder))).annotate({ identifier: "ConnectedCallTimestamps" })
export type ConnectedCallTimestamps = typeof ConnectedCallTimestamps.Type

/** Ended-before-answer (docs/api-notes/voice.md; busy, no-answer, rejected, canceled): ended, never answered. */
export const EndedBeforeAnswerCallTimestamps = Schema.Struct({
  startedAt: Timestamp,
  ringingAt: Optional,
  answeredAt: Absent,
  connectedAt: Absent,
  endedAt: Timestamp
}).pipe(Schema.check(Schema.makeFilter(inOrder))).annotate({ identifier: "EndedBeforeAnswerCallTimestamps" })
export type EndedBeforeAnswerCallTimestamps = typeof EndedBeforeAnswerCallTimestamps.Type

/** Ended after answer but before connect (docs/api-notes/voice.md: only `failed` can carry this). */
export const EndedAfterAnswerBeforeConnectCallTimestamps = Schema.Struct({
  startedAt: Timestamp,
  ringingAt: Optional,
  answeredAt: Timestamp,
  connectedAt: Absent,
  endedAt: Timestamp
}).pipe(Schema.check(Schema.makeFilter(inOrder))).annotate({ identifier: "EndedAfterAnswerBeforeConnectCallTimestamps" })
export type EndedAfterAnswerBeforeConnectCallTimestamps = typeof EndedAfterAnswerBeforeConnectCallTimestamps.Type

/** Ended-after-connect (docs/api-notes/voice.md; completed): every milestone but `ringingAt` is required. */
export const EndedAfterConnectCallTimestamps = Schema.Struct({
  startedAt: Timestamp,
  ringingAt: Optional,
  answeredAt: Timestamp,
  connectedAt: Timestamp,
  endedAt: Timestamp
}).pipe(Schema.check(Schema.makeFilter(inOrder))).annotate({ identifier: "EndedAfterConnectCallTimestamps" })
export type EndedAfterConnectCallTimestamps = typeof EndedAfterConnectCallTimestamps.Type

/**
 * The generic ended shape (docs/api-notes/voice.md "ended-before-connect", used by `failed`): ended before
 * answer, or after answer but before connect — `answeredAt` optional, `connectedAt` absent.
 */
export const EndedCallTimestamps = Schema.Union([EndedBeforeAnswerCallTimestamps, EndedAfterAnswerBeforeConnectCallTimestamps]).annotate({ identifier: "EndedCallTimestamps" })
export type EndedCallTimestamps = typeof EndedCallTimestamps.Type

// ---------------------------------------------------------------------------------------------
// The call (docs/api-notes/voice.md)
// ---------------------------------------------------------------------------------------------

const callFields = {
  id: CallId,
  projectId: ProjectId,
  platform: Schema.Literal("voice"),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  direction: CallDirection,
  voiceProfile: CallVoiceProfile,
  space: DirectVoiceSpaceSnapshot,
  caller: VoiceUserSnapshot,
  callee: VoiceUserSnapshot,
  dtmfInputs: DtmfInputs,
  dtmfInputsTruncated: Schema.Boolean,
  metadata: ResourceMetadata
}

const callShape = <const S extends CallStatus, T extends Schema.Codec<any, any>>(
  status: S,
  timestamps: T,
  identifier: string
) => Schema.Struct({ ...callFields, status: Schema.Literal(status), timestamps }).annotate({ identifier }).pipe(noExcessKeys)

export const StartedCall = callShape("started", StartedCallTimestamps, "StartedCall")
export const RingingCall = callShape("ringing", RingingCallTimestamps, "RingingCall")
export const AnsweredCall = callShape("answered", AnsweredCallTimestamps, "AnsweredCall")
export const ConnectedCall = callShape("connected", ConnectedCallTimestamps, "ConnectedCall")
export const CompletedCall = callShape("completed", EndedAfterConnectCallTimestamps, "CompletedCall")
export const BusyCall = callShape("busy", EndedBeforeAnswerCallTimestamps, "BusyCall")
export const NoAnswerCall = callShape("no-answer", EndedBeforeAnswerCallTimestamps, "NoAnswerCall")
export const RejectedCall = callShape("rejected", EndedBeforeAnswerCallTimestamps, "RejectedCall")
export const CanceledCall = callShape("canceled", EndedBeforeAnswerCallTimestamps, "CanceledCall")
export const FailedCall = callShape("failed", EndedCallTimestamps, "FailedCall")

/**
 * A call: one shape per status. Across shapes, the DTMF ring buffer's invariant (docs/api-notes/voice.md):
 * the truncation flag is only ever set by an overflow, so a truncated buffer is full.
 */
export const Call = Schema.Union([StartedCall, RingingCall, AnsweredCall, ConnectedCall, CompletedCall, BusyCall, NoAnswerCall, RejectedCall, CanceledCall, FailedCall]).pipe(
  Schema.check(Schema.makeFilter((c) =>
    !c.dtmfInputsTruncated || c.dtmfInputs.length === MAX_DTMF_INPUTS ||
    `dtmfInputsTruncated is true only once ${MAX_DTMF_INPUTS} key presses are kept`
  ))
).annotate({ identifier: "Call" }).pipe(noExcessKeys)
export type Call = typeof Call.Type
