/**
 * The wire form built without the schema (voice/CallWire.ts) is exactly what `Schema.encode` gives
 * — the same JSON text, key order included — for every call, result and event the reducer makes
 * from arbitrary signal sequences: every status, parties with and without handles, metadata,
 * truncated key-press buffers, duplicates, stale and impossible signals, end reasons. One encoder
 * serves a whole sequence, as it serves a whole batch, so its sharing of parts is covered too.
 */
import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import * as fc from "fast-check"
import { IdKinds } from "../../src/shared/Identifiers.js"
import { type CallSignalResult, IngestCallSignalsResponse } from "../../src/voice/CallApiSchema.js"
import { apply, CallEventDraft } from "../../src/voice/CallMachine.js"
import { CallSignal } from "../../src/voice/CallSignals.js"
import { encodeCallEventData, encodeSignalResults, makeCallEncoder } from "../../src/voice/CallWire.js"
import { Call, type Call as CallType } from "../../src/voice/Schema.js"
import { projectIdFixture, T0, typeId } from "../schema/SchemaAssertions.js"

const encodeCall = Schema.encodeSync(Call)
const encodeResponse = Schema.encodeSync(IngestCallSignalsResponse)
const encodeDraft = Schema.encodeSync(CallEventDraft)
const decodeSignal = Schema.decodeUnknownSync(CallSignal)

const callIds = [typeId(IdKinds.call, 1), typeId(IdKinds.call, 2)]
const actor = typeId(IdKinds.user, 3)
const T = (ms: number) => new Date(T0 + ms).toISOString()

const party = fc.record({ n: fc.integer({ min: 3, max: 9 }), handle: fc.option(fc.constantFrom("+15550100", "sip:a@example.com"), { nil: undefined }) })
  .map(({ handle, n }) => (handle === undefined ? { id: typeId(IdKinds.user, n) } : { id: typeId(IdKinds.user, n), handle }))

const startedData = fc.record({
  direction: fc.constantFrom("inbound", "outbound"),
  caller: party,
  callee: party,
  metadata: fc.dictionary(fc.constantFrom("a", "b", "zeta", "10", "2", "key-x"), fc.string({ maxLength: 8 }), { maxKeys: 4 })
}).map((d) => ({
  projectId: projectIdFixture,
  direction: d.direction,
  voiceProfile: { id: typeId(IdKinds.voiceProfile, 5), endpoint: { type: "sip" } },
  space: { id: "space_1", type: "direct" },
  caller: d.caller,
  callee: d.callee,
  metadata: d.metadata
}))

const reason = fc.record({
  sipCode: fc.option(fc.integer({ min: 100, max: 699 }), { nil: undefined }),
  hangupCause: fc.option(fc.constantFrom("normal_clearing", "user_busy"), { nil: undefined }),
  detail: fc.option(fc.constantFrom("x", "bridge_failed"), { nil: undefined })
}).map((r) => Object.fromEntries(Object.entries(r).filter(([, v]) => v !== undefined)))

/** Any signal for one of two calls: lifecycle steps, presses (good and bad), ends with reasons, repeated ids. */
const signal = fc.record({
  call: fc.integer({ min: 0, max: 1 }),
  id: fc.oneof(fc.constantFrom("a", "b", "c"), fc.uuid()),
  kind: fc.constantFrom("started", "ringing", "answered", "connected", "dtmf", "dtmf", "dtmf", "ended"),
  ms: fc.integer({ min: 0, max: 40 }).map((s) => s * 1000),
  digit: fc.constantFrom("1", "#", "*", "A"),
  status: fc.constantFrom("completed", "busy", "no-answer", "rejected", "canceled", "failed"),
  reason: fc.option(reason, { nil: undefined }),
  started: startedData
}).map((s) =>
  decodeSignal({
    id: s.id,
    callId: callIds[s.call],
    type: s.kind,
    timestamp: T(s.ms),
    data: s.kind === "started"
      ? s.started
      : s.kind === "dtmf"
      ? { digit: s.digit, actorId: actor }
      : s.kind === "ended"
      ? { status: s.status, ...(s.reason === undefined ? {} : { reason: s.reason }) }
      : {}
  })
)

/** A call answered early (so presses apply), then the noise. */
const sequence = fc.tuple(startedData, fc.array(signal, { maxLength: 60 })).map(([data, rest]) => [
  decodeSignal({ id: "s0", callId: callIds[0], type: "started", timestamp: T(0), data }),
  decodeSignal({ id: "s1", callId: callIds[0], type: "answered", timestamp: T(0), data: {} }),
  ...rest
])

/** Folds like the service: results with the call after each signal, and the applied events. */
const fold = (signals: ReadonlyArray<CallSignal>) => {
  const state = new Map<string, { call: CallType; applied: Set<string> }>()
  const results: Array<CallSignalResult> = []
  const events: Array<CallEventDraft> = []
  const calls: Array<CallType> = []
  for (const s of signals) {
    const current = state.get(s.callId)
    const t = apply(current?.call, s, (current?.applied ?? new Set()) as unknown as ReadonlySet<never>)
    if (t.outcome === "applied") {
      const entry = current ?? { call: t.call, applied: new Set<string>() }
      entry.call = t.call
      entry.applied.add(s.id)
      state.set(s.callId, entry)
      events.push(...t.events)
      calls.push(t.call)
    }
    results.push({
      id: s.id,
      outcome: t.outcome,
      ...(t.outcome === "applied" ? {} : { reason: t.reason }),
      ...(t.call === undefined ? {} : { call: t.call })
    })
  }
  return { results, events, calls }
}

const sameJson = (fast: unknown, schema: unknown) => {
  expect(JSON.stringify(fast)).toBe(JSON.stringify(schema))
  expect(fast).toStrictEqual(schema)
}

describe("call wire form without the schema", () => {
  it("signal results: the same JSON as the response schema", () => {
    fc.assert(fc.property(sequence, (signals) => {
      const { results } = fold(signals)
      sameJson(encodeSignalResults(results), encodeResponse({ results }))
    }), { numRuns: 300 })
  })

  it("calls: the same JSON as the Call schema, alone and through one shared encoder", () => {
    fc.assert(fc.property(sequence, (signals) => {
      const { calls } = fold(signals)
      const shared = makeCallEncoder()
      for (const call of calls) {
        sameJson(makeCallEncoder()(call), encodeCall(call))
        sameJson(shared(call), encodeCall(call))
      }
    }), { numRuns: 200 })
  })

  it("event data: the same JSON as the event draft schema", () => {
    fc.assert(fc.property(sequence, (signals) => {
      for (const e of fold(signals).events) sameJson(encodeCallEventData(e), encodeDraft(e).data)
    }), { numRuns: 300 })
  })

  it("a truncated key-press buffer (more than 100 presses) and every terminal status", () => {
    const ends = ["completed", "busy", "no-answer", "rejected", "canceled", "failed"]
    for (const [i, status] of ends.entries()) {
      const id = callIds[0]!
      const signals = [
        decodeSignal({ id: "s", callId: id, type: "started", timestamp: T(0), data: fc.sample(startedData, { numRuns: 1, seed: i })[0] }),
        ...(status === "completed" || status === "failed"
          ? [
            decodeSignal({ id: "a", callId: id, type: "answered", timestamp: T(1000), data: {} }),
            ...Array.from({ length: 105 }, (_, k) =>
              decodeSignal({ id: `d${k}`, callId: id, type: "dtmf", timestamp: T(2000 + k), data: { digit: "5", actorId: actor } })),
            ...(status === "completed" ? [decodeSignal({ id: "c", callId: id, type: "connected", timestamp: T(3000), data: {} })] : [])
          ]
          : [decodeSignal({ id: "r", callId: id, type: "ringing", timestamp: T(500), data: {} })]),
        decodeSignal({ id: "e", callId: id, type: "ended", timestamp: T(9000), data: { status, reason: { sipCode: 486, detail: "d" } } })
      ]
      const { calls, events, results } = fold(signals)
      expect(calls.at(-1)!.status).toBe(status)
      if (status === "completed") expect(calls.at(-1)!.dtmfInputsTruncated).toBe(true)
      sameJson(encodeSignalResults(results), encodeResponse({ results }))
      for (const e of events) sameJson(encodeCallEventData(e), encodeDraft(e).data)
    }
  })
})
