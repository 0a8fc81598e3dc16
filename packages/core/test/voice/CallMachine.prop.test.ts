/**
 * The call state machine, by property (docs/api-notes/voice.md; docs/testing.md): arbitrary
 * signal sequences — valid runs, their permutations and sub-sequences, and noise with duplicate
 * ids, stale steps, other calls' signals, bad digits and regressing timestamps.
 */
import { describe, expect, it } from "@effect/vitest"
import { DateTime, Schema } from "effect"
import * as fc from "fast-check"
import { IdKinds } from "../../src/shared/Identifiers.js"
import {
  apply,
  type CallEventDraft,
  type CallMachineState,
  type CallTransition,
  initialState,
  run,
  statusRank,
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
const actor = typeId(IdKinds.user, 3)
const T = (ms: number) => new Date(T0 + ms).toISOString()

const startedData = {
  projectId: projectIdFixture,
  direction: "inbound",
  voiceProfile: { id: typeId(IdKinds.voiceProfile, 5), endpoint: { type: "sip" } },
  space: { id: "space_1", type: "direct" },
  caller: { id: typeId(IdKinds.user, 4), handle: "sip:alice@example.com" },
  callee: { id: actor },
  metadata: {}
}

const decodeSignal = Schema.decodeUnknownSync(CallSignal)
const mk = (id: string, type: string, ms: number, data: unknown = {}, cid: string = callId): CallSignal =>
  decodeSignal({ id, callId: cid, type, timestamp: T(ms), data })

const validDigits = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "*", "#"] as const
const terminalStatuses = ["completed", "busy", "no-answer", "rejected", "canceled", "failed"] as const
const encodeCall = Schema.encodeSync(Call)
const decodeCall = Schema.decodeUnknownSync(Call)
const isKeyPress = Schema.is(KeyPress)

const milestoneOf = {
  "call.started": "startedAt",
  "call.ringing": "ringingAt",
  "call.answered": "answeredAt",
  "call.connected": "connectedAt",
  "call.ended": "endedAt"
} as const
const milestoneKeys = ["startedAt", "ringingAt", "answeredAt", "connectedAt", "endedAt"] as const
const eventRank: Record<CallEventDraft["type"], number> = {
  "call.started": 0,
  "call.ringing": 1,
  "call.answered": 2,
  "call.connected": 3,
  "call.dtmf.received": -1,
  "call.ended": 4
}

/** docs/api-notes/voice.md: "Allowed ended.status per from-state". */
const allowedEnds: Record<string, ReadonlyArray<string>> = {
  started: ["busy", "no-answer", "rejected", "canceled", "failed"],
  ringing: ["busy", "no-answer", "rejected", "canceled", "failed"],
  answered: ["failed"],
  connected: ["completed"]
}

/** The call decodes with the strict Call schema, and its timestamps are consistent (docs/api-notes/voice.md). */
const expectValidCall = (call: Call) => {
  const encoded = encodeCall(call)
  expect(encodeCall(decodeCall(encoded))).toStrictEqual(encoded)
  const present = milestoneKeys.flatMap((k) => (call.timestamps[k] === undefined ? [] : [call.timestamps[k]!.epochMilliseconds]))
  for (let i = 1; i < present.length; i++) expect(present[i - 1]!).toBeLessThanOrEqual(present[i]!)
  expect(DateTime.toEpochMillis(call.createdAt)).toBe(DateTime.toEpochMillis(call.timestamps.startedAt))
  expect(DateTime.toEpochMillis(call.updatedAt)).toBeGreaterThanOrEqual(DateTime.toEpochMillis(call.createdAt))
  expect(call.dtmfInputs.length).toBeLessThanOrEqual(MAX_DTMF_INPUTS)
  if (call.dtmfInputs.length < MAX_DTMF_INPUTS) expect(call.dtmfInputsTruncated).toBe(false)
}

/**
 * Checks one step against the rules every transition obeys: no mutation; applied → one event at
 * the signal's timestamp, the milestone it set equals that timestamp, the others are unchanged;
 * not applied → the same call object and no event.
 */
const checkStep = (before: Call | undefined, signal: CallSignal, t: CallTransition, decode = true) => {
  if (t.outcome !== "applied") {
    expect(t.call).toBe(before)
    expect(t.events).toStrictEqual([])
    return
  }
  const after = t.call
  if (decode) expectValidCall(after)
  // Only moves the table allows (docs/api-notes/voice.md): this call's signals, forward only, DTMF
  // once answered.
  expect(signal.callId).toBe(after.id)
  if (before !== undefined) {
    if (signal.type === "dtmf") expect(["answered", "connected"]).toContain(before.status)
    else expect(statusRank(after.status)).toBeGreaterThan(statusRank(before.status))
    if (signal.type === "connected") expect(before.status).toBe("answered")
    if (signal.type === "ended") expect(allowedEnds[before.status]).toContain(after.status)
  } else {
    expect(signal.type).toBe("started")
  }
  expect(t.events).toHaveLength(1)
  const event = t.events[0]
  expect(DateTime.toEpochMillis(event.timestamp)).toBe(DateTime.toEpochMillis(signal.timestamp))
  const expectedUpdatedAt = before === undefined
    ? DateTime.toEpochMillis(signal.timestamp)
    : Math.max(DateTime.toEpochMillis(before.updatedAt), DateTime.toEpochMillis(signal.timestamp))
  expect(DateTime.toEpochMillis(after.updatedAt)).toBe(expectedUpdatedAt)
  if (before !== undefined) {
    expect(after).not.toBe(before)
    // Truncation is monotone; the buffer only changes by DTMF.
    if (before.dtmfInputsTruncated) expect(after.dtmfInputsTruncated).toBe(true)
    if (event.type !== "call.dtmf.received") expect(after.dtmfInputs).toBe(before.dtmfInputs)
  }
  if (event.type === "call.dtmf.received") {
    expect(isKeyPress(event.data)).toBe(true)
    expect(DateTime.toEpochMillis(event.data.timestamp)).toBe(DateTime.toEpochMillis(event.timestamp))
    expect(after.dtmfInputs.at(-1)).toStrictEqual(event.data)
    expect(after.status).toBe(before!.status)
    expect(after.timestamps).toBe(before!.timestamps)
  } else {
    const key = milestoneOf[event.type]
    expect(after.timestamps[key]?.epochMilliseconds).toBe(DateTime.toEpochMillis(signal.timestamp))
    for (const k of milestoneKeys) {
      if (k !== key) expect(after.timestamps[k]?.epochMilliseconds).toBe(before?.timestamps[k]?.epochMilliseconds)
    }
    expect(event.data.callId).toBe(after.id)
    expect(event.data.status).toBe(after.status)
  }
}

/** Folds with {@link checkStep} after every signal, and checks the inputs were not mutated. */
const runChecked = (signals: ReadonlyArray<CallSignal>, from: CallMachineState = initialState) => {
  let state = from
  const transitions: Array<CallTransition> = []
  for (const signal of signals) {
    const before = state.call === undefined ? undefined : encodeCall(state.call)
    const ids = [...state.appliedSignalIds]
    const r = step(state, signal)
    if (state.call !== undefined) expect(encodeCall(state.call)).toStrictEqual(before)
    expect([...state.appliedSignalIds]).toStrictEqual(ids)
    checkStep(state.call, signal, r.transition)
    transitions.push(r.transition)
    state = r.state
  }
  return { state, transitions, events: transitions.flatMap((t) => t.events) }
}

// ---------------------------------------------------------------------------------------------
// Arbitraries
// ---------------------------------------------------------------------------------------------

type Ending =
  | "started" | "ringing" | "answered" | "connected" | "busy" | "no-answer" | "rejected" | "canceled"
  | "failed-before-answer" | "failed-after-answer" | "completed"

const endings: ReadonlyArray<Ending> = [
  "started", "ringing", "answered", "connected", "busy", "no-answer", "rejected", "canceled",
  "failed-before-answer", "failed-after-answer", "completed"
]

/** A valid run in order: monotone lifecycle timestamps, unique ids, presses only once answered. */
const validRun = fc.record({
  ending: fc.constantFrom(...endings),
  ring: fc.boolean(),
  gaps: fc.array(fc.integer({ min: 0, max: 3000 }), { minLength: 5, maxLength: 5 }),
  observed: fc.constantFrom<"failed" | "completed">("failed", "completed"),
  presses: fc.array(fc.record({ digit: fc.constantFrom(...validDigits), at: fc.integer({ min: -5000, max: 60_000 }) }), {
    maxLength: 12
  }),
  split: fc.nat()
}).map(({ ending, ring, gaps, observed, presses, split }) => {
  let n = 0
  const id = () => `run-${n++}`
  let t = gaps[0]!
  const signals: Array<CallSignal> = [mk(id(), "started", t, startedData)]
  const answers = ["answered", "connected", "failed-after-answer", "completed"].includes(ending)
  if (ending === "ringing" || (ring && ending !== "started")) signals.push(mk(id(), "ringing", (t += gaps[1]!)))
  const pressSignals = presses.map((p) => mk(id(), "dtmf", p.at, { digit: p.digit, actorId: actor }))
  const cut = presses.length === 0 ? 0 : split % (presses.length + 1)
  if (answers) {
    signals.push(mk(id(), "answered", (t += gaps[2]!)))
    signals.push(...pressSignals.slice(0, cut))
    if (ending === "connected" || ending === "completed") {
      signals.push(mk(id(), "connected", (t += gaps[3]!)))
    }
    signals.push(...pressSignals.slice(cut))
    if (ending === "failed-after-answer" || ending === "completed") {
      signals.push(mk(id(), "ended", (t += gaps[4]!), { status: observed }))
    }
  } else if (ending !== "started" && ending !== "ringing") {
    const status = ending === "failed-before-answer" ? "failed" : ending
    signals.push(mk(id(), "ended", (t += gaps[4]!), { status, reason: { detail: ending } }))
  }
  const expectedStatus = ending === "failed-before-answer" || ending === "failed-after-answer" ? "failed" : ending
  return { signals, expectedStatus, presses: answers ? presses.length : 0 }
})

/** A valid run and one permutation of it. */
const permutedRun = validRun.chain((r) =>
  fc.shuffledSubarray(r.signals, { minLength: r.signals.length, maxLength: r.signals.length }).map((perm) => ({ ...r, perm }))
)

/** A valid run and an arbitrary sub-sequence of it, in any order. */
const subRun = validRun.chain((r) => fc.shuffledSubarray(r.signals).map((perm) => ({ ...r, perm })))

/** Any signal: a small id pool (duplicates), coarse timestamps (ties and regressions), bad digits, other calls. */
const noiseSignal = fc.record({
  id: fc.oneof(fc.constantFrom("a", "b", "c", "d", "run-0", "run-1", "run-2"), fc.uuid()),
  other: fc.integer({ min: 0, max: 9 }).map((n) => n === 0),
  ms: fc.integer({ min: 0, max: 20 }).map((s) => s * 1000),
  kind: fc.constantFrom("started", "ringing", "answered", "connected", "dtmf", "dtmf", "ended"),
  digit: fc.constantFrom(...validDigits, "A", "", "12", "w"),
  status: fc.constantFrom(...terminalStatuses)
}).map(({ id, other, ms, kind, digit, status }) => {
  const data = kind === "started"
    ? startedData
    : kind === "dtmf"
    ? { digit, actorId: actor }
    : kind === "ended"
    ? { status }
    : {}
  return mk(id, kind, ms, data, other ? otherCallId : callId)
})

const noise = fc.tuple(fc.boolean(), fc.array(noiseSignal, { maxLength: 40 })).map(([startFirst, rest]) =>
  startFirst ? [mk("s0", "started", 0, startedData), ...rest] : rest
)

const terminalRun = validRun.filter((r) => statusRank(r.expectedStatus as TerminalCallStatus) === 4)

const presses = (r: { readonly events: ReadonlyArray<CallEventDraft> }) =>
  r.events.flatMap((e) => (e.type === "call.dtmf.received" ? [e.data] : []))

// ---------------------------------------------------------------------------------------------
// Properties
// ---------------------------------------------------------------------------------------------

describe("CallMachine properties", () => {
  it("a valid run in order applies every signal and ends in the expected status", () => {
    fc.assert(fc.property(validRun, (r) => {
      const out = runChecked(r.signals)
      expect(out.transitions.map((t) => t.outcome)).toStrictEqual(r.signals.map(() => "applied"))
      expect(out.state.call!.status).toBe(r.expectedStatus)
      expect(presses(out)).toHaveLength(r.presses)
      expect(out.state.appliedSignalIds.size).toBe(r.signals.length)
    }), { numRuns: 300 })
  })

  it("any permutation of a valid run only ever produces valid calls, with ordered timestamps and lifecycle events in rank order", () => {
    fc.assert(fc.property(permutedRun, (r) => {
      const out = runChecked(r.perm)
      const lifecycle = out.events.filter((e) => e.type !== "call.dtmf.received")
      for (let i = 1; i < lifecycle.length; i++) {
        expect(eventRank[lifecycle[i]!.type]).toBeGreaterThan(eventRank[lifecycle[i - 1]!.type])
        expect(lifecycle[i]!.timestamp.epochMilliseconds).toBeGreaterThanOrEqual(lifecycle[i - 1]!.timestamp.epochMilliseconds)
      }
      expect(out.events.filter((e) => e.type === "call.ended").length).toBeLessThanOrEqual(1)
      // Nothing exists before `started`, and `started` always applies.
      const startedAt = r.perm.findIndex((s) => s.type === "started")
      out.transitions.slice(0, startedAt).forEach((t) => expect(t.outcome).toBe("rejected"))
      expect(out.transitions[startedAt]!.outcome).toBe("applied")
    }), { numRuns: 400 })
  })

  it("any shuffled sub-sequence of a valid run only ever produces valid calls", () => {
    fc.assert(fc.property(subRun, (r) => {
      const out = runChecked(r.perm)
      if (out.state.call !== undefined) expectValidCall(out.state.call)
    }), { numRuns: 300 })
  })

  it("noise (duplicates, stale steps, other calls, bad digits, regressions) keeps every call valid and every *At equal to its event's timestamp", () => {
    fc.assert(fc.property(noise, (signals) => {
      const out = runChecked(signals)
      const call = out.state.call
      if (call === undefined) {
        expect(out.events).toStrictEqual([])
        return
      }
      // The final milestones are exactly the timestamps of the lifecycle events emitted.
      const fromEvents: Record<string, number> = {}
      for (const e of out.events) if (e.type !== "call.dtmf.received") fromEvents[milestoneOf[e.type]] = DateTime.toEpochMillis(e.timestamp)
      const fromCall = Object.fromEntries(Object.entries(call.timestamps).map(([k, v]) => [k, v!.epochMilliseconds]))
      expect(fromCall).toStrictEqual(fromEvents)
      expect(out.events.filter((e) => e.type === "call.ended").length).toBe(statusRank(call.status) === 4 ? 1 : 0)
      expect(out.transitions.filter((t) => t.outcome === "applied").length).toBe(out.state.appliedSignalIds.size)
    }), { numRuns: 500 })
  })

  it("terminal states absorb: after the end, every signal is ignored or rejected and changes nothing", () => {
    fc.assert(fc.property(terminalRun, fc.array(fc.oneof(noiseSignal, validRun.map((r) => r.signals).chain((s) => fc.constantFrom(...s))), { minLength: 1, maxLength: 30 }), (r, tail) => {
      const ended = runChecked(r.signals).state
      const call = ended.call!
      const wireBefore = encodeCall(call)
      const out = runChecked(tail, ended)
      for (const [i, t] of out.transitions.entries()) {
        expect(["ignored", "rejected"]).toContain(t.outcome)
        expect(t.call).toBe(call)
        // Rules 1–3 decide it: another call's signal, a duplicate, or the terminal state.
        const expected = tail[i]!.callId !== call.id
          ? "call-mismatch"
          : ended.appliedSignalIds.has(tail[i]!.id)
          ? "duplicate-signal"
          : "call-terminal"
        if (t.outcome !== "applied") expect(t.reason).toBe(expected)
      }
      expect(out.events).toStrictEqual([])
      expect(out.state).toBe(ended)
      expect(encodeCall(out.state.call!)).toStrictEqual(wireBefore)
    }), { numRuns: 300 })
  })

  it("replaying is a no-op: applied signals replayed in any order are ignored, and a replayed valid run changes nothing", () => {
    fc.assert(fc.property(noise.chain((s) => fc.tuple(fc.constant(s), fc.shuffledSubarray(s, { minLength: s.length, maxLength: s.length }))), validRun, ([signals, shuffled], r) => {
      const first = run(signals)
      const applied = new Set(signals.filter((_, i) => first.transitions[i]!.outcome === "applied"))
      const replay = runChecked(shuffled.filter((s) => applied.has(s)), first.state)
      for (const t of replay.transitions) {
        expect(t.outcome).toBe("ignored")
        if (t.outcome === "ignored") expect(t.reason).toBe("duplicate-signal")
      }
      expect(replay.state).toBe(first.state)
      // Replaying the whole sequence: what applied the first time is ignored now.
      const again = runChecked(signals, first.state)
      signals.forEach((_, i) => {
        if (first.transitions[i]!.outcome === "applied") expect(again.transitions[i]!.outcome).toBe("ignored")
      })
      // A valid run replayed onto its own result: nothing at all happens.
      const once = run(r.signals).state
      const twice = runChecked(r.signals, once)
      expect(twice.state).toBe(once)
      expect(twice.events).toStrictEqual([])
    }), { numRuns: 300 })
  })

  /** Answered or connected, then up to 250 key presses with bad digits, duplicate ids and stale lifecycle signals mixed in. */
  const dtmfStorm = fc.tuple(
    fc.boolean(),
    fc.integer({ min: 0, max: 250 }).chain((n) => fc.array(
      fc.oneof(
        { weight: 12, arbitrary: fc.record({ kind: fc.constant("press" as const), digit: fc.constantFrom(...validDigits), at: fc.integer({ min: 0, max: 100_000 }) }) },
        { weight: 1, arbitrary: fc.record({ kind: fc.constant("bad" as const), digit: fc.constantFrom("A", "", "12", "x") }) },
        { weight: 1, arbitrary: fc.record({ kind: fc.constant("dup" as const), back: fc.nat() }) },
        { weight: 1, arbitrary: fc.record({ kind: fc.constant("stale" as const), type: fc.constantFrom("started", "ringing", "answered") }) }
      ),
      { minLength: n, maxLength: n }
    ))
  ).map(([connect, items]) => {
    const prefix = [mk("p0", "started", 0, startedData), mk("p1", "answered", 1)]
    if (connect) prefix.push(mk("p2", "connected", 2))
    const out: Array<CallSignal> = []
    items.forEach((item, i) => {
      if (item.kind === "press") out.push(mk(`k${i}`, "dtmf", item.at, { digit: item.digit, actorId: actor }))
      else if (item.kind === "bad") out.push(mk(`k${i}`, "dtmf", 5, { digit: item.digit, actorId: actor }))
      else if (item.kind === "dup" && out.length > 0) out.push(out[item.back % out.length]!)
      else if (item.kind === "stale") out.push(mk(`k${i}`, item.type, 3, item.type === "started" ? startedData : {}))
    })
    return { prefix, signals: out }
  })

  it("DTMF: at most 100 presses, exactly the latest ones in recording order; truncated iff one was dropped, and never cleared", () => {
    fc.assert(fc.property(dtmfStorm, ({ prefix, signals }) => {
      let state = run(prefix).state
      const recorded: Array<KeyPress> = []
      let wasTruncated = false
      const show = (ps: ReadonlyArray<KeyPress>) => ps.map((p) => `${p.digit}@${DateTime.toEpochMillis(p.timestamp)}/${p.actorId}`).join(",")
      for (const [i, signal] of signals.entries()) {
        const before = state.call
        const r = step(state, signal)
        // The full schema round trip every 10th step and at the end keeps this property fast.
        checkStep(before, signal, r.transition, i % 10 === 0)
        state = r.state
        for (const e of r.transition.events) if (e.type === "call.dtmf.received") recorded.push(e.data)
        const call = state.call!
        expect(call.dtmfInputs.length).toBeLessThanOrEqual(MAX_DTMF_INPUTS)
        expect(show(call.dtmfInputs)).toBe(show(recorded.slice(-MAX_DTMF_INPUTS)))
        expect(call.dtmfInputsTruncated).toBe(recorded.length > MAX_DTMF_INPUTS)
        if (wasTruncated) expect(call.dtmfInputsTruncated).toBe(true)
        wasTruncated = call.dtmfInputsTruncated
      }
      // Every applied press is a distinct, valid signal.
      const appliedPresses = signals.filter((s) => s.type === "dtmf" && state.appliedSignalIds.has(s.id))
      expect(new Set(appliedPresses.map((s) => s.id)).size).toBe(recorded.length)
      expectValidCall(state.call!)
    }), { numRuns: 60 })
  })

  it("apply with a predicate agrees with apply with the set", () => {
    fc.assert(fc.property(noise, (signals) => {
      let state = initialState
      for (const signal of signals) {
        const withSet = apply(state.call, signal, state.appliedSignalIds)
        const ids = state.appliedSignalIds
        const withPredicate = apply(state.call, signal, (id) => ids.has(id))
        expect(withPredicate.outcome).toBe(withSet.outcome)
        if (withSet.call !== undefined) expect(encodeCall(withPredicate.call!)).toStrictEqual(encodeCall(withSet.call))
        state = step(state, signal).state
      }
    }), { numRuns: 200 })
  })
})
