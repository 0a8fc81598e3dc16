import { DateTime } from "effect"
/**
 * The wire form of calls, call-event data and signal results, built directly from calls the
 * reducer made — the same JSON as `Schema.encode` of `Call`, `CallEventDraft` and
 * `IngestCallSignalsResponse` (key order included; CallWire.test.ts checks both ways), without
 * re-validating each one.
 *
 * Why: a batch of 100 signals answers 100 results, each with the whole call after its signal.
 * Through `Schema.encode` that re-validated every call (the 10-member union, every timestamp's
 * pattern and order, every key press): ~65 % of the server's CPU per batch (bench/calls.ts). Every
 * call handed to these functions comes from the reducer, whose every applied call is checked
 * against the strict schema by its property tests (CallMachine.prop.test.ts), or from the store,
 * which decodes it with that schema; the calls written to the store still go through
 * `Schema.encode`.
 *
 * A call encoder keeps what it built for the parts successive calls of one batch share by
 * reference (snapshots, metadata, key presses, timestamps): the results of a batch repeat them
 * for every signal of a call.
 */
import type { Schema } from "effect"
import { formatTimestamp } from "../shared/Timestamp.js"
import type { CallSignalResult, IngestCallSignalsResponse } from "./CallApiSchema.js"
import type { CallEventDraft } from "./CallMachine.js"
import type { Call, KeyPress } from "./Schema.js"

type EncodedCall = Schema.Codec.Encoded<typeof Call>
type EncodedResponse = Schema.Codec.Encoded<typeof IngestCallSignalsResponse>
type Encoded = Record<string, unknown>

const ts = (t: DateTime.Utc): string => formatTimestamp(t)

const user = (u: Call["caller"]): Encoded => (u.handle === undefined ? { id: u.id } : { id: u.id, handle: u.handle })

const keyPress = (k: KeyPress): Encoded => ({ digit: k.digit, timestamp: ts(k.timestamp), actorId: k.actorId })

/** `Call.timestamps` in schema order (startedAt, ringingAt, answeredAt, connectedAt, endedAt), absent ones left out. */
const timestamps = (t: Call["timestamps"]): Encoded => {
  const m = t as Partial<Record<"startedAt" | "ringingAt" | "answeredAt" | "connectedAt" | "endedAt", DateTime.Utc>>
  const out: Encoded = { startedAt: ts(t.startedAt) }
  if (m.ringingAt !== undefined) out.ringingAt = ts(m.ringingAt)
  if (m.answeredAt !== undefined) out.answeredAt = ts(m.answeredAt)
  if (m.connectedAt !== undefined) out.connectedAt = ts(m.connectedAt)
  if (m.endedAt !== undefined) out.endedAt = ts(m.endedAt)
  return out
}

/**
 * A call encoder for one response: `Schema.encodeSync(Call)` for calls made by the reducer or read
 * from the store. Parts shared by reference between calls are encoded once (and shared in the
 * output, which is only serialised).
 */
export const makeCallEncoder = () => {
  const parts = new WeakMap<object, unknown>()
  const once = <T extends object, R>(part: T, encode: (part: T) => R): R => {
    const cached = parts.get(part)
    if (cached !== undefined) return cached as R
    const encoded = encode(part)
    parts.set(part, encoded)
    return encoded
  }
  const dtmfInputs = (inputs: Call["dtmfInputs"]) =>
    once(inputs, (xs) => xs.map((k) => once(k, keyPress)))
  const encodeCall = (call: Call): EncodedCall =>
    once(call, (c) => ({
      id: c.id,
      projectId: c.projectId,
      platform: c.platform,
      createdAt: ts(c.createdAt),
      updatedAt: ts(c.updatedAt),
      direction: c.direction,
      voiceProfile: once(c.voiceProfile, (p) => ({ id: p.id, endpoint: once(p.endpoint, (e) => ({ type: e.type })) })),
      space: once(c.space, (s) => ({ id: s.id, type: s.type })),
      caller: once(c.caller, user),
      callee: once(c.callee, user),
      dtmfInputs: dtmfInputs(c.dtmfInputs),
      dtmfInputsTruncated: c.dtmfInputsTruncated,
      metadata: once(c.metadata, (m) => ({ ...m })),
      status: c.status,
      timestamps: once(c.timestamps, timestamps)
    }) as unknown as EncodedCall)
  return encodeCall
}

/** `Schema.encodeSync(IngestCallSignalsResponse)({ results })`, for results the service made. */
export const encodeSignalResults = (results: ReadonlyArray<CallSignalResult>): EncodedResponse => {
  const encodeCall = makeCallEncoder()
  return {
    results: results.map((r) => {
      const out: Encoded = { id: r.id, outcome: r.outcome }
      if (r.reason !== undefined) out.reason = r.reason
      if (r.call !== undefined) out.call = encodeCall(r.call)
      return out as unknown as EncodedResponse["results"][number]
    })
  }
}

/** `Schema.encodeSync(CallEventDraft)(draft).data`: an event's data as the outbox stores it. */
export const encodeCallEventData = (draft: CallEventDraft): Record<string, unknown> => {
  switch (draft.type) {
    case "call.dtmf.received":
      return keyPress(draft.data)
    case "call.ended": {
      const d = draft.data
      if (d.reason === undefined) return { callId: d.callId, status: d.status }
      const r = d.reason
      const reason: Encoded = {}
      if (r.sipCode !== undefined) reason.sipCode = r.sipCode
      if (r.hangupCause !== undefined) reason.hangupCause = r.hangupCause
      if (r.detail !== undefined) reason.detail = r.detail
      return { callId: d.callId, status: d.status, reason }
    }
    default:
      return { callId: draft.data.callId, status: draft.data.status }
  }
}
