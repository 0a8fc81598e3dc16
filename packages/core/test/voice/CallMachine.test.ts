/**
 * The call state machine, by example (docs/api-notes/voice.md: the transition table, ordering
 * rules, timestamp shapes and DTMF; docs/api-notes/requests.md).
 */
import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import { CallDtmfReceivedEvent } from "../../src/events/Schema.js"
import { IdKinds } from "../../src/shared/Identifiers.js"
import {
  apply,
  type CallTransition,
  CallEventDraft,
  initialState,
  resolveEndedStatus,
  run,
  step
} from "../../src/voice/CallMachine.js"
import { CallSignal } from "../../src/voice/CallSignals.js"
import { Call, KeyPress, MAX_DTMF_INPUTS, type TerminalCallStatus } from "../../src/voice/Schema.js"
import { projectIdFixture, T0, typeId } from "../schema/SchemaAssertions.js"

// ---------------------------------------------------------------------------------------------
// Fixtures
// ---------------------------------------------------------------------------------------------

const callId = typeId(IdKinds.call, 1)
const otherCallId = typeId(IdKinds.call, 2)
const alice = typeId(IdKinds.user, 3)
const bob = typeId(IdKinds.user, 4)

/** The wire form of T0 + `s` seconds. */
const w = (s: number) => new Date(T0 + s * 1000).toISOString()

const startedData = {
  projectId: projectIdFixture,
  direction: "outbound",
  voiceProfile: { id: typeId(IdKinds.voiceProfile, 5), endpoint: { type: "sip" } },
  space: { id: "space_1", type: "direct" },
  caller: { id: alice, handle: "+15551234567" },
  callee: { id: bob },
  metadata: { campaign: "spring" }
}

let counter = 0
/** A signal, decoded from its wire form (so every fixture is a valid signal). */
const signal = (type: string, s: number, data: unknown = {}, opts: { id?: string; callId?: string } = {}): CallSignal =>
  Schema.decodeUnknownSync(CallSignal)({
    id: opts.id ?? `sig-${++counter}`,
    callId: opts.callId ?? callId,
    type,
    timestamp: w(s),
    data
  })

const sig = {
  started: (s = 0, opts = {}) => signal("started", s, startedData, opts),
  ringing: (s = 1, opts = {}) => signal("ringing", s, {}, opts),
  answered: (s = 2, opts = {}) => signal("answered", s, {}, opts),
  connected: (s = 3, opts = {}) => signal("connected", s, {}, opts),
  dtmf: (digit: string, s = 4, opts = {}) => signal("dtmf", s, { digit, actorId: alice }, opts),
  ended: (status: TerminalCallStatus, s = 9, opts: { id?: string; callId?: string; reason?: object } = {}) =>
    signal("ended", s, opts.reason === undefined ? { status } : { status, reason: opts.reason }, opts)
}

const encodeCall = Schema.encodeSync(Call)
const encodeEvent = Schema.encodeSync(CallEventDraft)

/** The call must survive the strict Call schema both ways; returns its wire form. */
const wire = (call: Call | undefined) => {
  if (call === undefined) throw new Error("expected a call")
  const encoded = encodeCall(call)
  expect(encodeCall(Schema.decodeUnknownSync(Call)(encoded))).toStrictEqual(encoded)
  return encoded
}

/** Paths that reach each state, with the timestamps of the fixtures above. */
const paths = {
  started: () => [sig.started()],
  ringing: () => [sig.started(), sig.ringing()],
  answeredViaRinging: () => [sig.started(), sig.ringing(), sig.answered()],
  answeredDirect: () => [sig.started(), sig.answered()],
  connected: () => [sig.started(), sig.ringing(), sig.answered(), sig.connected()],
  connectedDirect: () => [sig.started(), sig.answered(), sig.connected()],
  busy: () => [sig.started(), sig.ringing(), sig.ended("busy", 5)],
  "no-answer": () => [sig.started(), sig.ringing(), sig.ended("no-answer", 5)],
  rejected: () => [sig.started(), sig.ended("rejected", 5)],
  canceled: () => [sig.started(), sig.ringing(), sig.ended("canceled", 5)],
  failedBeforeAnswer: () => [sig.started(), sig.ended("failed", 5)],
  failedAfterAnswer: () => [sig.started(), sig.ringing(), sig.answered(), sig.ended("completed", 5)],
  completed: () => [sig.started(), sig.ringing(), sig.answered(), sig.connected(), sig.ended("completed", 9)]
} as const
type PathName = keyof typeof paths

const reach = (path: PathName) => {
  const r = run(paths[path]())
  for (const t of r.transitions) expect(t.outcome, `${path}: ${JSON.stringify(t)}`).toBe("applied")
  return r.state
}

const expectApplied = (t: CallTransition) => {
  if (t.outcome !== "applied") throw new Error(`expected applied, got ${t.outcome}: ${"detail" in t ? t.detail : ""}`)
  return t
}

/** Ignored or rejected: the very same call, byte-identical, and no event. */
const expectUnchanged = (t: CallTransition, before: Call | undefined, outcome: "ignored" | "rejected", reason: string) => {
  expect(t.outcome).toBe(outcome)
  expect(t.events).toStrictEqual([])
  if (t.outcome !== "applied") expect(t.reason).toBe(reason)
  expect(t.call).toBe(before)
  if (before !== undefined) expect(encodeCall(t.call!)).toStrictEqual(encodeCall(before))
}

// ---------------------------------------------------------------------------------------------
// The transition table (docs/api-notes/voice.md), applied rows
// ---------------------------------------------------------------------------------------------

type AppliedRow = {
  readonly row: string
  readonly from: PathName | "none"
  readonly signal: () => CallSignal
  readonly status: string
  readonly timestamps: Record<string, string>
  readonly updatedAt: string
  readonly event: { readonly type: string; readonly data: Record<string, unknown> }
}

const preAnswerEnds = ["busy", "no-answer", "rejected", "canceled", "failed"] as const
const rowOf: Record<(typeof preAnswerEnds)[number], string> = {
  busy: "T5",
  "no-answer": "T6",
  rejected: "T7",
  canceled: "T8",
  failed: "T9"
}

const appliedRows: ReadonlyArray<AppliedRow> = [
  {
    row: "T1 started",
    from: "none",
    signal: () => sig.started(0),
    status: "started",
    timestamps: { startedAt: w(0) },
    updatedAt: w(0),
    event: { type: "call.started", data: { callId, status: "started" } }
  },
  {
    row: "T2 started → ringing",
    from: "started",
    signal: () => sig.ringing(1),
    status: "ringing",
    timestamps: { startedAt: w(0), ringingAt: w(1) },
    updatedAt: w(1),
    event: { type: "call.ringing", data: { callId, status: "ringing" } }
  },
  {
    row: "T2 at the same instant as started",
    from: "started",
    signal: () => sig.ringing(0),
    status: "ringing",
    timestamps: { startedAt: w(0), ringingAt: w(0) },
    updatedAt: w(0),
    event: { type: "call.ringing", data: { callId, status: "ringing" } }
  },
  {
    row: "T3 ringing → answered (ringingAt kept)",
    from: "ringing",
    signal: () => sig.answered(2),
    status: "answered",
    timestamps: { startedAt: w(0), ringingAt: w(1), answeredAt: w(2) },
    updatedAt: w(2),
    event: { type: "call.answered", data: { callId, status: "answered" } }
  },
  {
    row: "T3 started → answered (ringing skipped, no ringingAt key)",
    from: "started",
    signal: () => sig.answered(2),
    status: "answered",
    timestamps: { startedAt: w(0), answeredAt: w(2) },
    updatedAt: w(2),
    event: { type: "call.answered", data: { callId, status: "answered" } }
  },
  {
    row: "T4 answered → connected",
    from: "answeredViaRinging",
    signal: () => sig.connected(3),
    status: "connected",
    timestamps: { startedAt: w(0), ringingAt: w(1), answeredAt: w(2), connectedAt: w(3) },
    updatedAt: w(3),
    event: { type: "call.connected", data: { callId, status: "connected" } }
  },
  {
    row: "T4 answered (never ringing) → connected",
    from: "answeredDirect",
    signal: () => sig.connected(3),
    status: "connected",
    timestamps: { startedAt: w(0), answeredAt: w(2), connectedAt: w(3) },
    updatedAt: w(3),
    event: { type: "call.connected", data: { callId, status: "connected" } }
  },
  ...preAnswerEnds.flatMap((status): ReadonlyArray<AppliedRow> => [
    {
      row: `${rowOf[status]} started → ${status}`,
      from: "started",
      signal: () => sig.ended(status, 5),
      status,
      timestamps: { startedAt: w(0), endedAt: w(5) },
      updatedAt: w(5),
      event: { type: "call.ended", data: { callId, status } }
    },
    {
      row: `${rowOf[status]} ringing → ${status}`,
      from: "ringing",
      signal: () => sig.ended(status, 5),
      status,
      timestamps: { startedAt: w(0), ringingAt: w(1), endedAt: w(5) },
      updatedAt: w(5),
      event: { type: "call.ended", data: { callId, status } }
    }
  ]),
  ...(["failed", "completed"] as const).map((observed): AppliedRow => ({
    row: `T10 answered, ended(${observed}) → failed (answeredAt kept)`,
    from: "answeredViaRinging",
    signal: () => sig.ended(observed, 5),
    status: "failed",
    timestamps: { startedAt: w(0), ringingAt: w(1), answeredAt: w(2), endedAt: w(5) },
    updatedAt: w(5),
    event: { type: "call.ended", data: { callId, status: "failed" } }
  })),
  {
    row: "T10 answered (never ringing) → failed",
    from: "answeredDirect",
    signal: () => sig.ended("completed", 5),
    status: "failed",
    timestamps: { startedAt: w(0), answeredAt: w(2), endedAt: w(5) },
    updatedAt: w(5),
    event: { type: "call.ended", data: { callId, status: "failed" } }
  },
  ...(["completed", "failed"] as const).map((observed): AppliedRow => ({
    row: `T11 connected, ended(${observed}) → completed`,
    from: "connected",
    signal: () => sig.ended(observed, 9),
    status: "completed",
    timestamps: { startedAt: w(0), ringingAt: w(1), answeredAt: w(2), connectedAt: w(3), endedAt: w(9) },
    updatedAt: w(9),
    event: { type: "call.ended", data: { callId, status: "completed" } }
  })),
  {
    row: "T11 connected (never ringing) → completed",
    from: "connectedDirect",
    signal: () => sig.ended("completed", 9),
    status: "completed",
    timestamps: { startedAt: w(0), answeredAt: w(2), connectedAt: w(3), endedAt: w(9) },
    updatedAt: w(9),
    event: { type: "call.ended", data: { callId, status: "completed" } }
  }
]

describe("CallMachine: applied transitions (docs/api-notes/voice.md)", () => {
  it.each(appliedRows)("$row", (row) => {
    const before = row.from === "none" ? initialState : reach(row.from)
    const s = row.signal()
    const t = expectApplied(apply(before.call, s, before.appliedSignalIds))
    const call = wire(t.call)
    expect(call.status).toBe(row.status)
    // Exactly the expected keys: absent milestones are omitted, not undefined.
    expect(call.timestamps).toStrictEqual(row.timestamps)
    expect(call.updatedAt).toBe(row.updatedAt)
    expect(call.createdAt).toBe(w(0))
    expect(call.id).toBe(callId)
    // The fixed fields come from the started signal and never change.
    expect({ ...call, status: undefined, timestamps: undefined, createdAt: undefined, updatedAt: undefined }).toStrictEqual({
      id: callId,
      platform: "voice",
      ...startedData,
      dtmfInputs: [],
      dtmfInputsTruncated: false,
      status: undefined,
      timestamps: undefined,
      createdAt: undefined,
      updatedAt: undefined
    })
    // One event, at the signal's timestamp, which is also the milestone it set.
    expect(t.events).toHaveLength(1)
    const event = encodeEvent(t.events[0])
    expect(event).toStrictEqual({ type: row.event.type, timestamp: Schema.encodeSync(CallSignal)(s).timestamp, data: row.event.data })
    expect(Object.values(call.timestamps)).toContain(event.timestamp)
    // The input state is untouched (purity).
    if (before.call !== undefined) expect(t.call).not.toBe(before.call)
  })

  it("T1 copies the started data and sets createdAt = updatedAt = startedAt", () => {
    const t = expectApplied(apply(undefined, sig.started(7), new Set()))
    const call = wire(t.call)
    expect(call).toStrictEqual({
      id: callId,
      ...startedData,
      platform: "voice",
      createdAt: w(7),
      updatedAt: w(7),
      dtmfInputs: [],
      dtmfInputsTruncated: false,
      status: "started",
      timestamps: { startedAt: w(7) }
    })
  })

  it("call.ended carries the raw cause when the signal has one, and no reason key otherwise", () => {
    const ringing = reach("ringing")
    const withReason = expectApplied(
      apply(ringing.call, sig.ended("busy", 5, { reason: { sipCode: 486, hangupCause: "user_busy" } }), ringing.appliedSignalIds)
    )
    expect(encodeEvent(withReason.events[0]).data).toStrictEqual({ callId, status: "busy", reason: { sipCode: 486, hangupCause: "user_busy" } })
    const without = expectApplied(apply(ringing.call, sig.ended("busy", 5), ringing.appliedSignalIds))
    expect(Object.keys(encodeEvent(without.events[0]).data)).toStrictEqual(["callId", "status"])
  })
})

// ---------------------------------------------------------------------------------------------
// The transition table: rejected rows (rule 1, 5, 6)
// ---------------------------------------------------------------------------------------------

type RefusedRow = {
  readonly row: string
  readonly from: PathName | "none"
  readonly signal: () => CallSignal
  readonly outcome: "ignored" | "rejected"
  readonly reason: string
}

const terminalPaths = ["busy", "no-answer", "rejected", "canceled", "failedBeforeAnswer", "failedAfterAnswer", "completed"] as const
const everySignal = (): ReadonlyArray<readonly [string, () => CallSignal]> => [
  ["started", () => sig.started(20)],
  ["ringing", () => sig.ringing(20)],
  ["answered", () => sig.answered(20)],
  ["connected", () => sig.connected(20)],
  ["dtmf 5", () => sig.dtmf("5", 20)],
  ["dtmf A (invalid)", () => sig.dtmf("A", 20)],
  ...(["busy", "no-answer", "rejected", "canceled", "failed", "completed"] as const).map(
    (s) => [`ended(${s})`, () => sig.ended(s, 20)] as const
  )
]

const refusedRows: ReadonlyArray<RefusedRow> = [
  // Rule 1
  { row: "T1 guard: ringing before any started", from: "none", signal: () => sig.ringing(1), outcome: "rejected", reason: "unknown-call" },
  { row: "T1 guard: dtmf before any started", from: "none", signal: () => sig.dtmf("1"), outcome: "rejected", reason: "unknown-call" },
  { row: "T1 guard: ended before any started", from: "none", signal: () => sig.ended("busy"), outcome: "rejected", reason: "unknown-call" },
  { row: "rule 1: a signal for another call", from: "ringing", signal: () => sig.answered(2, { callId: otherCallId }), outcome: "rejected", reason: "call-mismatch" },
  { row: "rule 1: a started for another call", from: "started", signal: () => sig.started(1, { callId: otherCallId }), outcome: "rejected", reason: "call-mismatch" },
  { row: "rule 1 before rule 3: another call's signal on a terminal call", from: "completed", signal: () => sig.ended("completed", 20, { callId: otherCallId }), outcome: "rejected", reason: "call-mismatch" },
  // Rule 4: stale or repeated lifecycle signals
  { row: "rule 4: a second started", from: "started", signal: () => sig.started(1), outcome: "ignored", reason: "stale-signal" },
  { row: "rule 4: started while connected", from: "connected", signal: () => sig.started(4), outcome: "ignored", reason: "stale-signal" },
  { row: "rule 4: a second ringing (ringingAt stays the first)", from: "ringing", signal: () => sig.ringing(1.5), outcome: "ignored", reason: "stale-signal" },
  { row: "rule 4: a late 180 after the 2xx (not backfilled)", from: "answeredDirect", signal: () => sig.ringing(3), outcome: "ignored", reason: "stale-signal" },
  { row: "rule 4: ringing while connected", from: "connected", signal: () => sig.ringing(4), outcome: "ignored", reason: "stale-signal" },
  { row: "rule 4: a second answered", from: "answeredViaRinging", signal: () => sig.answered(3), outcome: "ignored", reason: "stale-signal" },
  { row: "rule 4: answered while connected", from: "connected", signal: () => sig.answered(4), outcome: "ignored", reason: "stale-signal" },
  { row: "rule 4: a second connected", from: "connected", signal: () => sig.connected(4), outcome: "ignored", reason: "stale-signal" },
  { row: "rule 4 before rule 6: a stale signal with an old timestamp is ignored, not rejected", from: "connected", signal: () => sig.ringing(0), outcome: "ignored", reason: "stale-signal" },
  // Rule 5: impossible forward moves
  { row: "T4 guard: connected from started", from: "started", signal: () => sig.connected(3), outcome: "rejected", reason: "answer-skipped" },
  { row: "T4 guard: connected from ringing", from: "ringing", signal: () => sig.connected(3), outcome: "rejected", reason: "answer-skipped" },
  { row: "completed before answer (from started)", from: "started", signal: () => sig.ended("completed", 5), outcome: "rejected", reason: "end-not-allowed" },
  { row: "completed before answer (from ringing)", from: "ringing", signal: () => sig.ended("completed", 5), outcome: "rejected", reason: "end-not-allowed" },
  ...(["busy", "no-answer", "rejected", "canceled"] as const).flatMap((s): ReadonlyArray<RefusedRow> => [
    { row: `${s} after the 2xx (answered)`, from: "answeredViaRinging", signal: () => sig.ended(s, 5), outcome: "rejected", reason: "end-not-allowed" },
    { row: `${s} after connect`, from: "connected", signal: () => sig.ended(s, 9), outcome: "rejected", reason: "end-not-allowed" }
  ]),
  { row: "T12 guard: dtmf while started", from: "started", signal: () => sig.dtmf("1", 1), outcome: "rejected", reason: "dtmf-not-allowed" },
  { row: "T12 guard: dtmf while ringing", from: "ringing", signal: () => sig.dtmf("1", 2), outcome: "rejected", reason: "dtmf-not-allowed" },
  // Rule 6: timestamp regression
  { row: "rule 6: ringing before startedAt", from: "started", signal: () => sig.ringing(-1), outcome: "rejected", reason: "timestamp-regression" },
  { row: "rule 6: answered before ringingAt", from: "ringing", signal: () => sig.answered(0.5), outcome: "rejected", reason: "timestamp-regression" },
  { row: "rule 6: connected before answeredAt", from: "answeredViaRinging", signal: () => sig.connected(1.999), outcome: "rejected", reason: "timestamp-regression" },
  { row: "rule 6: ended before ringingAt", from: "ringing", signal: () => sig.ended("canceled", 0.5), outcome: "rejected", reason: "timestamp-regression" },
  { row: "rule 6: ended before answeredAt", from: "answeredViaRinging", signal: () => sig.ended("failed", 1.5), outcome: "rejected", reason: "timestamp-regression" },
  { row: "rule 6: ended before connectedAt", from: "connected", signal: () => sig.ended("completed", 2.5), outcome: "rejected", reason: "timestamp-regression" },
  // Rule 3: terminal states absorb everything
  ...terminalPaths.flatMap((from) =>
    everySignal().map(([name, signal]): RefusedRow => ({
      row: `rule 3: ${name} after ${from}`,
      from,
      signal,
      outcome: "ignored",
      reason: "call-terminal"
    }))
  )
]

describe("CallMachine: ignored and rejected signals (docs/api-notes/voice.md)", () => {
  it.each(refusedRows)("$row → $outcome ($reason)", (row) => {
    const before = row.from === "none" ? initialState : reach(row.from)
    const t = apply(before.call, row.signal(), before.appliedSignalIds)
    expectUnchanged(t, before.call, row.outcome, row.reason)
    if (t.outcome !== "applied") expect(t.detail.length).toBeGreaterThan(0)
  })

  it("rule 2: a duplicate id is ignored whatever it carries, before rule 3", () => {
    const r = run([sig.started(0, { id: "a" }), sig.ringing(1, { id: "b" }), sig.ended("busy", 2, { id: "c" })])
    for (const [id, s] of [["a", sig.started(0, { id: "a" })], ["b", sig.ringing(1, { id: "b" })], ["c", sig.ended("busy", 2, { id: "c" })]] as const) {
      expectUnchanged(apply(r.state.call, s, r.state.appliedSignalIds), r.state.call, "ignored", "duplicate-signal")
      expect(r.state.appliedSignalIds.has(s.id)).toBe(true)
      expect(s.id).toBe(id)
    }
  })

  it("rule 2: a repeated key press id records one press and one event", () => {
    const answered = reach("answeredViaRinging")
    const r = run([sig.dtmf("1", 4, { id: "k1" }), sig.dtmf("1", 4, { id: "k1" }), sig.dtmf("2", 5, { id: "k2" })], answered)
    expect(r.transitions.map((t) => t.outcome)).toStrictEqual(["applied", "ignored", "applied"])
    expect(r.events.map((e) => e.type)).toStrictEqual(["call.dtmf.received", "call.dtmf.received"])
    expect(wire(r.state.call).dtmfInputs.map((p) => p.digit)).toStrictEqual(["1", "2"])
  })

  it("applied ids may be given as a predicate", () => {
    const answered = reach("answeredViaRinging")
    const press = sig.dtmf("7", 4, { id: "seen" })
    expectUnchanged(apply(answered.call, press, (id) => id === "seen"), answered.call, "ignored", "duplicate-signal")
    expectApplied(apply(answered.call, press, (id) => id === "other"))
  })

  it("a rejected signal's id is not recorded: the edge may retry it once it is possible", () => {
    const r1 = run([sig.started(0), sig.ringing(1), sig.dtmf("9", 1.5, { id: "early" })])
    expect(r1.transitions[2]!.outcome).toBe("rejected")
    expect(r1.state.appliedSignalIds.has(sig.dtmf("9", 1.5, { id: "early" }).id)).toBe(false)
    const r2 = run([sig.answered(2), sig.dtmf("9", 3, { id: "early" })], r1.state)
    expect(r2.transitions.map((t) => t.outcome)).toStrictEqual(["applied", "applied"])
  })

  it("ignored signals are not recorded either, and step leaves the previous state untouched", () => {
    const state = reach("answeredViaRinging")
    const ids = [...state.appliedSignalIds]
    const r = step(state, sig.ringing(3, { id: "late-180" }))
    expect(r.transition.outcome).toBe("ignored")
    expect(r.state).toBe(state)
    const r2 = step(state, sig.connected(3, { id: "bridge" }))
    expect(r2.state.appliedSignalIds.has(sig.connected(3, { id: "bridge" }).id)).toBe(true)
    expect([...state.appliedSignalIds]).toStrictEqual(ids)
    expect(state.call!.status).toBe("answered")
  })

  it("the first terminal status wins: a crossing 2xx after cancel is ignored (docs/api-notes/voice.md)", () => {
    const r = run([sig.started(0), sig.ringing(1), sig.ended("canceled", 5), sig.answered(5), sig.ended("completed", 6)])
    expect(r.transitions.map((t) => t.outcome)).toStrictEqual(["applied", "applied", "applied", "ignored", "ignored"])
    const call = wire(r.state.call)
    expect(call.status).toBe("canceled")
    expect(call.timestamps).toStrictEqual({ startedAt: w(0), ringingAt: w(1), endedAt: w(5) })
    expect(r.events.filter((e) => e.type === "call.ended")).toHaveLength(1)
  })
})

describe("resolveEndedStatus (the allowed ended statuses, docs/api-notes/voice.md)", () => {
  const observed = ["busy", "no-answer", "rejected", "canceled", "failed", "completed"] as const
  it.each([
    ["started", { busy: "busy", "no-answer": "no-answer", rejected: "rejected", canceled: "canceled", failed: "failed", completed: undefined }],
    ["ringing", { busy: "busy", "no-answer": "no-answer", rejected: "rejected", canceled: "canceled", failed: "failed", completed: undefined }],
    ["answered", { busy: undefined, "no-answer": undefined, rejected: undefined, canceled: undefined, failed: "failed", completed: "failed" }],
    ["connected", { busy: undefined, "no-answer": undefined, rejected: undefined, canceled: undefined, failed: "completed", completed: "completed" }]
  ] as const)("from %s", (from, expected) => {
    for (const o of observed) expect(resolveEndedStatus(from, o), `${from} + ${o}`).toBe(expected[o])
  })
})

// ---------------------------------------------------------------------------------------------
// DTMF (docs/api-notes/voice.md; docs/api-notes/requests.md)
// ---------------------------------------------------------------------------------------------

const validDigits = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "*", "#"]

describe("CallMachine: DTMF", () => {
  it.each(["answeredViaRinging", "connected"] as const)("T12: a key press in %s is recorded and emitted", (from) => {
    const state = reach(from)
    const before = wire(state.call)
    const t = expectApplied(apply(state.call, sig.dtmf("#", 4), state.appliedSignalIds))
    const call = wire(t.call)
    expect(call.status).toBe(before.status)
    expect(call.timestamps).toStrictEqual(before.timestamps)
    expect(call.updatedAt).toBe(w(4))
    expect(call.dtmfInputs).toStrictEqual([{ digit: "#", timestamp: w(4), actorId: alice }])
    expect(call.dtmfInputsTruncated).toBe(false)
    expect(encodeEvent(t.events[0])).toStrictEqual({
      type: "call.dtmf.received",
      timestamp: w(4),
      data: { digit: "#", timestamp: w(4), actorId: alice }
    })
  })

  it.each(validDigits)("accepts the digit %s", (digit) => {
    const state = reach("connected")
    const t = expectApplied(apply(state.call, sig.dtmf(digit), state.appliedSignalIds))
    expect(wire(t.call).dtmfInputs.map((p) => p.digit)).toStrictEqual([digit])
  })

  it.each(["A", "B", "C", "D", "a", "d", "w", "", "12", "##", " ", "1 ", "٣", "+", "e"])("rejects the digit %j", (digit) => {
    const state = reach("connected")
    expectUnchanged(apply(state.call, sig.dtmf(digit), state.appliedSignalIds), state.call, "rejected", "invalid-digit")
  })

  it("the press's timestamp equals its event's, and the event decodes as call.dtmf.received once enveloped", () => {
    const state = reach("connected")
    const t = expectApplied(apply(state.call, sig.dtmf("3", 4.321), state.appliedSignalIds))
    const event = encodeEvent(t.events[0])
    const press = wire(t.call).dtmfInputs[0]!
    expect(press.timestamp).toBe(event.timestamp)
    expect(Schema.encodeSync(KeyPress)(Schema.decodeUnknownSync(KeyPress, { onExcessProperty: "error" })(event.data))).toStrictEqual(press)
    const envelope = { id: typeId(IdKinds.event, 6), apiVersion: "2026-07-01", source: "voice", ...event }
    expect(Schema.encodeSync(CallDtmfReceivedEvent)(Schema.decodeUnknownSync(CallDtmfReceivedEvent)(envelope))).toStrictEqual(envelope)
  })

  it("DTMF timestamps are exempt from ordering and updatedAt only moves forward", () => {
    const state = reach("connected")
    const r = run([sig.dtmf("1", 8), sig.dtmf("2", 5), sig.dtmf("3", -10)], state)
    expect(r.transitions.map((t) => t.outcome)).toStrictEqual(["applied", "applied", "applied"])
    const call = wire(r.state.call)
    // Recording order, not timestamp order.
    expect(call.dtmfInputs.map((p) => [p.digit, p.timestamp])).toStrictEqual([["1", w(8)], ["2", w(5)], ["3", w(-10)]])
    expect(call.updatedAt).toBe(w(8))
    expect(call.timestamps).toStrictEqual({ startedAt: w(0), ringingAt: w(1), answeredAt: w(2), connectedAt: w(3) })
  })

  it("updatedAt keeps a later key press's time when the end comes with an earlier one", () => {
    const r = run([sig.dtmf("1", 8), sig.ended("completed", 5)], reach("connected"))
    expect(r.transitions.map((t) => t.outcome)).toStrictEqual(["applied", "applied"])
    const call = wire(r.state.call)
    expect(call.timestamps.endedAt).toBe(w(5))
    expect(call.updatedAt).toBe(w(8))
  })

  it("keeps the presses across answered → connected → completed", () => {
    const r = run([sig.started(), sig.answered(), sig.dtmf("1", 2.5), sig.connected(), sig.dtmf("2", 4), sig.ended("completed", 9)])
    const call = wire(r.state.call)
    expect(call.status).toBe("completed")
    expect(call.dtmfInputs.map((p) => p.digit)).toStrictEqual(["1", "2"])
  })

  const pressRun = (n: number) => Array.from({ length: n }, (_, i) => sig.dtmf(validDigits[i % 12]!, 10 + i / 100, { id: `press-${i}` }))

  it(`${MAX_DTMF_INPUTS} presses fill the buffer without truncation`, () => {
    const presses = pressRun(MAX_DTMF_INPUTS)
    const r = run(presses, reach("connected"))
    const call = wire(r.state.call)
    expect(call.dtmfInputs).toHaveLength(MAX_DTMF_INPUTS)
    expect(call.dtmfInputsTruncated).toBe(false)
    expect(call.dtmfInputs.map((p) => p.timestamp)).toStrictEqual(presses.map((p) => Schema.encodeSync(CallSignal)(p).timestamp))
  })

  it(`the ${MAX_DTMF_INPUTS + 1}st press drops the oldest and sets dtmfInputsTruncated`, () => {
    const presses = pressRun(MAX_DTMF_INPUTS + 1)
    const r = run(presses, reach("connected"))
    const call = wire(r.state.call)
    expect(call.dtmfInputs).toHaveLength(MAX_DTMF_INPUTS)
    expect(call.dtmfInputsTruncated).toBe(true)
    const expected = presses.slice(1).map((p) => Schema.encodeSync(CallSignal)(p)).map((p) => ({ ...(p.data as object), timestamp: p.timestamp }))
    expect(call.dtmfInputs.map((p) => ({ digit: p.digit, actorId: p.actorId, timestamp: p.timestamp }))).toStrictEqual(expected)
    expect(r.events).toHaveLength(MAX_DTMF_INPUTS + 1)
  })

  it("truncation never clears: further presses and the end keep it, 250 presses keep the latest 100", () => {
    const presses = pressRun(250)
    const r = run([...presses, sig.ended("completed", 20)], reach("connected"))
    let truncatedSeen = false
    let state = reach("connected")
    for (const p of presses) {
      state = step(state, p).state
      const call = wire(state.call)
      if (truncatedSeen) expect(call.dtmfInputsTruncated).toBe(true)
      truncatedSeen ||= call.dtmfInputsTruncated
      expect(call.dtmfInputs.length).toBeLessThanOrEqual(MAX_DTMF_INPUTS)
    }
    const call = wire(r.state.call)
    expect(call.status).toBe("completed")
    expect(call.dtmfInputsTruncated).toBe(true)
    expect(call.dtmfInputs.map((p) => p.timestamp)).toStrictEqual(presses.slice(150).map((p) => Schema.encodeSync(CallSignal)(p).timestamp))
  })

  it("a duplicate press at the boundary does not truncate", () => {
    const presses = pressRun(MAX_DTMF_INPUTS)
    const r = run([...presses, presses[0]!], reach("connected"))
    expect(r.transitions.at(-1)!.outcome).toBe("ignored")
    const call = wire(r.state.call)
    expect(call.dtmfInputsTruncated).toBe(false)
    expect(call.dtmfInputs).toHaveLength(MAX_DTMF_INPUTS)
  })
})
