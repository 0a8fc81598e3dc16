/**
 * Why this file is long: one pure state machine — the transition table of docs/api-notes/voice.md
 * and the reducer over it; its cases read best side by side.
 *
 * The call state machine (docs/api-notes/voice.md; docs/api-notes/requests.md;
 * docs/architecture.md#contexts-and-pure-modules): a pure reducer from (call, signal) to (call,
 * events, outcome). Plain functions over plain data — no Effect, no clock, no ids: every time comes
 * from the signal, and the events are drafts `{type, timestamp, data}` that the caller wraps in
 * envelopes (id, apiVersion, source).
 *
 * ## Applied signal ids
 *
 * The record itself does not carry the ids of the signals applied to it (the Call schema is
 * strict and the spec lists every field), so {@link apply} takes them as an input: a set or a
 * predicate over *this call's* applied signal ids. On `applied`, the caller records `signal.id`
 * (the persistence layer in the same transaction as the call row); ignored and rejected ids are
 * not recorded, so a signal rejected too early (a key press before the answer) may apply when the
 * edge retries it later. {@link step} and {@link run} are the same reducer with the ids kept on a
 * {@link CallMachineState} value, for folding a sequence in tests and in memory.
 *
 * ## Rules, in the order they are evaluated (docs/api-notes/voice.md)
 *
 * 1. no call yet and not `started`, or `signal.callId ≠ call.id` → rejected;
 * 2. duplicate signal id → ignored;
 * 3. call is terminal → ignored, whatever the signal;
 * 4. lifecycle regression or repeat (rank ≤ current rank) → ignored, nothing backfilled;
 * 5. impossible forward move (`connected` before `answered`, an end the state does not allow,
 *    DTMF outside `answered`/`connected`, a digit outside `0-9*#`) → rejected;
 * 6. lifecycle timestamp before the latest milestone → rejected (DTMF timestamps are exempt);
 * 7. apply: set the milestone to the signal's timestamp, move `updatedAt` forward, emit one event.
 *
 * Ignored and rejected transitions return the very same call object and no event.
 *
 * ## What an `ended` signal means in each state (rows T5–T11 of the transition table)
 *
 * The edge reports what it observed in the terminal vocabulary (a normal hangup / BYE is
 * `completed`); {@link resolveEndedStatus} turns it into the status the state allows:
 *
 * | from \ observed  | busy, no-answer, rejected, canceled | failed | completed |
 * |------------------|-------------------------------------|--------|-----------|
 * | started, ringing | same (T5–T8)                        | failed (T9) | rejected: no dialog, so no normal end before answer |
 * | answered         | rejected: a final response or CANCEL cannot follow a 2xx | failed (T10) | failed (T10: BYE/hangup before connect; "completed if connected, else failed") |
 * | connected        | rejected (same reason)              | completed (T11: media timeout, bridge loss; "after connect it is always completed") | completed (T11) |
 *
 * So the resulting status is always in docs/api-notes/voice.md's allow-list (started/ringing → busy, no-answer,
 * rejected, canceled, failed; answered → failed; connected → completed).
 */
import { DateTime, Schema } from "effect"
import { CallId } from "../shared/Identifiers.js"
import { Timestamp } from "../shared/Timestamp.js"
import {
  type AnsweredCall,
  type Call,
  type CallStatus,
  type ConnectedCall,
  DtmfDigit,
  KeyPress,
  type LiveCallStatus,
  MAX_DTMF_INPUTS,
  type RingingCall,
  type StartedCall,
  type TerminalCallStatus
} from "./Schema.js"
import {
  CallEndReason,
  type CallEndedSignal,
  type CallSignal,
  type CallSignalId,
  type CallSignalType,
  type CallStartedSignal
} from "./CallSignals.js"
import { noExcessKeys } from "../internal/ExcessKeys.js"

// ---------------------------------------------------------------------------------------------
// Events (docs/api-notes/voice.md, docs/api-notes/events-and-webhooks.md): drafts without envelope
// ---------------------------------------------------------------------------------------------

const lifecycleEventDraft = <const T extends string, const S extends LiveCallStatus>(type: T, status: S) =>
  Schema.Struct({
    type: Schema.Literal(type),
    timestamp: Timestamp,
    data: Schema.Struct({ callId: CallId, status: Schema.Literal(status) })
  }).pipe(noExcessKeys)

export const CallStartedEventDraft = lifecycleEventDraft("call.started", "started")
export const CallRingingEventDraft = lifecycleEventDraft("call.ringing", "ringing")
export const CallAnsweredEventDraft = lifecycleEventDraft("call.answered", "answered")
export const CallConnectedEventDraft = lifecycleEventDraft("call.connected", "connected")

/** `call.dtmf.received`: data is exactly one key press, whose timestamp is the event's (docs/api-notes/events-and-webhooks.md). */
export const CallDtmfReceivedEventDraft = Schema.Struct({
  type: Schema.Literal("call.dtmf.received"),
  timestamp: Timestamp,
  data: KeyPress
}).pipe(
  Schema.check(Schema.makeFilter((e) =>
    DateTime.toEpochMillis(e.data.timestamp) === DateTime.toEpochMillis(e.timestamp) || "data.timestamp must equal the event timestamp"
  ))
).pipe(noExcessKeys)

/** `call.ended`: exactly one per call; `status` is the terminal status, `reason` the raw cause (docs/api-notes/voice.md). */
export const CallEndedEventDraft = Schema.Struct({
  type: Schema.Literal("call.ended"),
  timestamp: Timestamp,
  data: Schema.Struct({
    callId: CallId,
    status: Schema.Literals(["completed", "busy", "no-answer", "rejected", "canceled", "failed"]),
    reason: Schema.optionalKey(CallEndReason)
  })
}).pipe(noExcessKeys)

/** Any event the machine emits, before the caller wraps it in an envelope. */
export const CallEventDraft = Schema.Union([CallStartedEventDraft, CallRingingEventDraft, CallAnsweredEventDraft, CallConnectedEventDraft, CallDtmfReceivedEventDraft, CallEndedEventDraft]).annotate({ identifier: "CallEventDraft" })
export type CallEventDraft = typeof CallEventDraft.Type
export type CallEventType = CallEventDraft["type"]

// ---------------------------------------------------------------------------------------------
// Outcomes
// ---------------------------------------------------------------------------------------------

export type CallSignalOutcome = "applied" | "ignored" | "rejected"

/** Why a signal changed nothing without being an error (rules 2–4 above). */
export type IgnoredReason =
  | "duplicate-signal" // rule 2: this id was already applied to the call
  | "call-terminal" // rule 3: the first terminal status wins
  | "stale-signal" // rule 4: a lifecycle step at or below the current one

/** Why a signal is impossible (rules 1, 5 and 6 above). */
export type RejectedReason =
  | "unknown-call" // rule 1: no call yet, and the signal is not `started`
  | "call-mismatch" // rule 1: the signal names another call
  | "answer-skipped" // rule 5: `connected` without `answered`
  | "end-not-allowed" // rule 5: the observed end is impossible from this state
  | "dtmf-not-allowed" // rule 5: a key press outside `answered`/`connected`
  | "invalid-digit" // rule 5: not exactly one of 0-9, *, #
  | "timestamp-regression" // rule 6: before the latest lifecycle timestamp

export type CallTransition =
  | {
    readonly outcome: "applied"
    readonly call: Call
    readonly events: readonly [CallEventDraft]
  }
  | {
    readonly outcome: "ignored"
    readonly call: Call
    readonly events: readonly []
    readonly reason: IgnoredReason
    readonly detail: string
  }
  | {
    readonly outcome: "rejected"
    /** Unchanged; `undefined` only when there was no call (rule 1). */
    readonly call: Call | undefined
    readonly events: readonly []
    readonly reason: RejectedReason
    readonly detail: string
  }

/** This call's applied signal ids: a set, or a predicate over them (e.g. backed by a store lookup). */
export type AppliedSignalIds = ReadonlySet<CallSignalId> | ((id: CallSignalId) => boolean)

// ---------------------------------------------------------------------------------------------
// Ranks, terminal statuses, ended resolution
// ---------------------------------------------------------------------------------------------

/** Progress order (docs/api-notes/voice.md): started 0 < ringing 1 < answered 2 < connected 3 < terminal 4. */
export const statusRank = (status: CallStatus): number => {
  switch (status) {
    case "started":
      return 0
    case "ringing":
      return 1
    case "answered":
      return 2
    case "connected":
      return 3
    default:
      return 4
  }
}

const lifecycleSignalRank: Record<Exclude<CallSignalType, "dtmf">, number> = {
  started: 0,
  ringing: 1,
  answered: 2,
  connected: 3,
  ended: 4
}

export const isTerminalStatus = (status: CallStatus): status is TerminalCallStatus => statusRank(status) === 4

/**
 * The status an `ended` signal gives from a live state, or `undefined` when that end is
 * impossible there (see the table in the module comment).
 */
export const resolveEndedStatus = (
  from: LiveCallStatus,
  observed: TerminalCallStatus
): TerminalCallStatus | undefined => {
  switch (from) {
    case "started":
    case "ringing":
      return observed === "completed" ? undefined : observed
    case "answered":
      return observed === "failed" || observed === "completed" ? "failed" : undefined
    case "connected":
      return observed === "failed" || observed === "completed" ? "completed" : undefined
  }
}

const isDigit = Schema.is(DtmfDigit)

/**
 * The DTMF ring buffer (docs/api-notes/voice.md): append in recording order; past {@link MAX_DTMF_INPUTS}
 * drop the oldest and set the truncation flag, which never clears.
 */
export const pushKeyPress = (
  inputs: ReadonlyArray<KeyPress>,
  truncated: boolean,
  press: KeyPress
): { readonly dtmfInputs: ReadonlyArray<KeyPress>; readonly dtmfInputsTruncated: boolean } =>
  inputs.length < MAX_DTMF_INPUTS
    ? { dtmfInputs: [...inputs, press], dtmfInputsTruncated: truncated }
    : { dtmfInputs: [...inputs.slice(inputs.length - MAX_DTMF_INPUTS + 1), press], dtmfInputsTruncated: true }

// ---------------------------------------------------------------------------------------------
// The reducer
// ---------------------------------------------------------------------------------------------

type Utc = DateTime.Utc
type LiveCall =
  | typeof StartedCall.Type
  | typeof RingingCall.Type
  | typeof AnsweredCall.Type
  | typeof ConnectedCall.Type
const isLive = (call: Call): call is LiveCall => !isTerminalStatus(call.status)
type CallBase = Omit<typeof StartedCall.Type, "status" | "timestamps">

/** An optional milestone: the key is omitted, never `undefined` (docs/api-notes/voice.md). */
const optional = <K extends string>(key: K, value: Utc | undefined): { readonly [P in K]?: Utc } =>
  (value === undefined ? {} : { [key]: value }) as { readonly [P in K]?: Utc }

/** The latest milestone present: milestones are ordered, so the last one set. */
const latestMilestone = (call: Call): number => {
  const t = call.timestamps
  return Math.max(
    DateTime.toEpochMillis(t.startedAt),
    t.ringingAt?.epochMilliseconds ?? -Infinity,
    t.answeredAt?.epochMilliseconds ?? -Infinity,
    t.connectedAt?.epochMilliseconds ?? -Infinity,
    t.endedAt?.epochMilliseconds ?? -Infinity
  )
}

const later = (a: Utc, b: Utc): Utc => (DateTime.toEpochMillis(b) > DateTime.toEpochMillis(a) ? b : a)

const baseOf = (call: Call, timestamp: Utc): CallBase => {
  const { status: _status, timestamps: _timestamps, ...base } = call
  return { ...base, updatedAt: later(call.updatedAt, timestamp) }
}

const applied = (call: Call, event: CallEventDraft): CallTransition => ({ outcome: "applied", call, events: [event] })
const ignored = (call: Call, reason: IgnoredReason, detail: string): CallTransition => ({
  outcome: "ignored",
  call,
  events: [],
  reason,
  detail
})
const rejected = (call: Call | undefined, reason: RejectedReason, detail: string): CallTransition => ({
  outcome: "rejected",
  call,
  events: [],
  reason,
  detail
})

const isApplied = (ids: AppliedSignalIds, id: CallSignalId): boolean =>
  typeof ids === "function" ? ids(id) : ids.has(id)

/** T1: a `started` signal creates the record; `createdAt = updatedAt = startedAt = signal.timestamp`. */
const start = (signal: CallStartedSignal): CallTransition => {
  const call: Call = {
    id: signal.callId,
    ...signal.data,
    platform: "voice",
    createdAt: signal.timestamp,
    updatedAt: signal.timestamp,
    dtmfInputs: [],
    dtmfInputsTruncated: false,
    status: "started",
    timestamps: { startedAt: signal.timestamp }
  }
  return applied(call, {
    type: "call.started",
    timestamp: signal.timestamp,
    data: { callId: call.id, status: "started" }
  })
}

/** T5–T11: the end, with `endedAt = signal.timestamp` and the earlier milestones kept. */
const end = (
  call: LiveCall,
  signal: CallEndedSignal
): CallTransition => {
  const status = resolveEndedStatus(call.status, signal.data.status)
  if (status === undefined) {
    return rejected(call, "end-not-allowed", `a call that is ${call.status} cannot end as ${signal.data.status}`)
  }
  if (DateTime.toEpochMillis(signal.timestamp) < latestMilestone(call)) {
    return rejected(call, "timestamp-regression", "the end is earlier than the call's latest lifecycle timestamp")
  }
  const base = baseOf(call, signal.timestamp)
  const t = call.timestamps
  const endedAt = signal.timestamp
  let next: Call
  if (call.status === "connected") {
    // resolveEndedStatus gives only `completed` from connected.
    next = {
      ...base,
      status: "completed",
      timestamps: {
        startedAt: t.startedAt,
        ...optional("ringingAt", t.ringingAt),
        answeredAt: call.timestamps.answeredAt,
        connectedAt: call.timestamps.connectedAt,
        endedAt
      }
    }
  } else if (call.status === "answered") {
    // resolveEndedStatus gives only `failed` from answered (docs/api-notes/voice.md).
    next = {
      ...base,
      status: "failed",
      timestamps: {
        startedAt: t.startedAt,
        ...optional("ringingAt", t.ringingAt),
        answeredAt: call.timestamps.answeredAt,
        endedAt
      }
    }
  } else {
    next = {
      ...base,
      // From started/ringing, resolveEndedStatus never gives `completed`.
      status: status as Exclude<TerminalCallStatus, "completed">,
      timestamps: { startedAt: t.startedAt, ...optional("ringingAt", t.ringingAt), endedAt }
    }
  }
  return applied(next, {
    type: "call.ended",
    timestamp: signal.timestamp,
    data: {
      callId: call.id,
      status,
      ...(signal.data.reason === undefined ? {} : { reason: signal.data.reason })
    }
  })
}

/**
 * Applies one signal to a call (or to no call yet, for `started`). Pure: the result depends only
 * on the arguments, and the input call is never mutated. `appliedSignalIds` are the ids already
 * applied to this call; record `signal.id` yourself when the outcome is `applied`.
 */
export const apply = (
  call: Call | undefined,
  signal: CallSignal,
  appliedSignalIds: AppliedSignalIds
): CallTransition => {
  // Rule 1: the call must exist (unless this signal creates it) and be the one named.
  if (call === undefined) {
    return signal.type === "started"
      ? start(signal)
      : rejected(undefined, "unknown-call", `no call ${signal.callId} has started`)
  }
  if (signal.callId !== call.id) {
    return rejected(call, "call-mismatch", `the signal is for call ${signal.callId}, not ${call.id}`)
  }
  // Rule 2: a duplicate id is a no-op.
  if (isApplied(appliedSignalIds, signal.id)) {
    return ignored(call, "duplicate-signal", `signal ${signal.id} was already applied`)
  }
  // Rule 3: terminal states absorb everything.
  if (!isLive(call)) {
    return ignored(call, "call-terminal", `the call already ended as ${call.status}`)
  }

  if (signal.type === "dtmf") {
    // Rule 5 (docs/api-notes/voice.md): key presses only once answered, and only 0-9 * #.
    if (call.status !== "answered" && call.status !== "connected") {
      return rejected(call, "dtmf-not-allowed", `key presses are accepted once the call is answered, not while ${call.status}`)
    }
    const digit = signal.data.digit
    if (!isDigit(digit)) {
      return rejected(call, "invalid-digit", `${JSON.stringify(digit)} is not one of 0-9, *, #`)
    }
    // Rule 6 does not apply: DTMF timestamps are recorded as given.
    const press: KeyPress = { digit, timestamp: signal.timestamp, actorId: signal.data.actorId }
    const next: Call = {
      ...call,
      updatedAt: later(call.updatedAt, signal.timestamp),
      ...pushKeyPress(call.dtmfInputs, call.dtmfInputsTruncated, press)
    }
    return applied(next, { type: "call.dtmf.received", timestamp: signal.timestamp, data: press })
  }

  // Rule 4: a lifecycle step at or below the current one (a late 180, a second `started`, …).
  if (lifecycleSignalRank[signal.type] <= statusRank(call.status)) {
    return ignored(call, "stale-signal", `a ${signal.type} signal does not move a call that is ${call.status}`)
  }

  if (signal.type === "ended") return end(call, signal)

  // What is left: ringing from started, answered from started/ringing, connected from
  // started/ringing/answered; `started` has rank 0 and was ignored above.
  if (signal.type === "connected" && call.status !== "answered") {
    return rejected(call, "answer-skipped", `a call that is ${call.status} must be answered before it connects`)
  }
  // Rule 6: milestones stay ordered.
  if (DateTime.toEpochMillis(signal.timestamp) < latestMilestone(call)) {
    return rejected(call, "timestamp-regression", `the ${signal.type} signal is earlier than the call's latest lifecycle timestamp`)
  }
  const base = baseOf(call, signal.timestamp)
  const t = call.timestamps
  switch (signal.type) {
    case "ringing": {
      // Rank 1 > current rank, so the call is `started` (T2).
      const next: Call = { ...base, status: "ringing", timestamps: { startedAt: t.startedAt, ringingAt: signal.timestamp } }
      return applied(next, { type: "call.ringing", timestamp: signal.timestamp, data: { callId: call.id, status: "ringing" } })
    }
    case "answered": {
      // T3, from started or ringing: `ringingAt` is kept when present.
      const next: Call = {
        ...base,
        status: "answered",
        timestamps: { startedAt: t.startedAt, ...optional("ringingAt", t.ringingAt), answeredAt: signal.timestamp }
      }
      return applied(next, { type: "call.answered", timestamp: signal.timestamp, data: { callId: call.id, status: "answered" } })
    }
    case "connected": {
      // T4, from answered (checked above).
      const answeredAt = t.answeredAt!
      const next: Call = {
        ...base,
        status: "connected",
        timestamps: {
          startedAt: t.startedAt,
          ...optional("ringingAt", t.ringingAt),
          answeredAt,
          connectedAt: signal.timestamp
        }
      }
      return applied(next, {
        type: "call.connected",
        timestamp: signal.timestamp,
        data: { callId: call.id, status: "connected" }
      })
    }
    case "started":
      // Unreachable: rank 0 is never above the current rank.
      return ignored(call, "stale-signal", "the call has already started")
  }
}

// ---------------------------------------------------------------------------------------------
// Folding with the applied ids kept alongside the call
// ---------------------------------------------------------------------------------------------

/** A call and the ids of the signals applied to it. */
export interface CallMachineState {
  readonly call: Call | undefined
  readonly appliedSignalIds: ReadonlySet<CallSignalId>
}

export const initialState: CallMachineState = { call: undefined, appliedSignalIds: new Set() }

/** {@link apply}, recording the signal's id when it applied (a new set; the old state is untouched). */
export const step = (
  state: CallMachineState,
  signal: CallSignal
): { readonly state: CallMachineState; readonly transition: CallTransition } => {
  const transition = apply(state.call, signal, state.appliedSignalIds)
  if (transition.outcome !== "applied") return { state, transition }
  return {
    state: { call: transition.call, appliedSignalIds: new Set([...state.appliedSignalIds, signal.id]) },
    transition
  }
}

/** Folds signals in order; returns the final state, one transition per signal and every event. */
export const run = (
  signals: Iterable<CallSignal>,
  from: CallMachineState = initialState
): {
  readonly state: CallMachineState
  readonly transitions: ReadonlyArray<CallTransition>
  readonly events: ReadonlyArray<CallEventDraft>
} => {
  let state = from
  const transitions: Array<CallTransition> = []
  const events: Array<CallEventDraft> = []
  for (const signal of signals) {
    const r = step(state, signal)
    state = r.state
    transitions.push(r.transition)
    events.push(...r.transition.events)
  }
  return { state, transitions, events }
}
