/**
 * Decoding a signal batch (`IngestCallSignalsRequest`) without the schema interpreter when the
 * input is plainly well-formed — the same value the schema gives, or nothing — and through the
 * schema otherwise, so that every refusal (its issues, paths and messages) is the schema's own.
 *
 * Why: decoding 100 signals through `Schema.decodeUnknownEffect` was the largest cost left per batch
 * (~30–40 µs per signal here). The checks below are the schema's, rule for rule (CallSignals.ts,
 * Schema.ts, Bounds.ts, Identifiers.ts, Timestamp.ts): any input they do not accept outright —
 * an unknown or missing key, a wrong type, a bound crossed, a key such as `__proto__` — goes to
 * the schema. CallSignalBatchDecoder.test.ts checks, over valid and mutated batches, that the
 * decoder answers exactly as `IngestCallSignalsRequest` does.
 */
import { DateTime, Effect, Result, Schema, SchemaAST, SchemaParser } from "effect"
import { isStorableText } from "../shared/Bounds.js"
import { IdKinds, typeIdPattern } from "../shared/Identifiers.js"
import { parseTimestamp } from "../shared/Timestamp.js"
import { IngestCallSignalsRequest, MAX_SIGNALS_PER_BATCH } from "./CallApiSchema.js"
import type { CallSignal } from "./CallSignals.js"

type Obj = Record<string, unknown>

const CALL_ID = typeIdPattern(IdKinds.call)
const USER_ID = typeIdPattern(IdKinds.user)
const PROFILE_ID = typeIdPattern(IdKinds.voiceProfile)
const PROJECT_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/
const TERMINAL = new Set(["completed", "busy", "no-answer", "rejected", "canceled", "failed"])

/** A plain JSON object (not null, not an array) whose own keys are all among `allowed` and include `required`. */
const record = (u: unknown, required: ReadonlyArray<string>, optional: ReadonlyArray<string> = []): u is Obj => {
  if (typeof u !== "object" || u === null || Array.isArray(u)) return false
  const keys = Object.keys(u)
  let present = 0
  for (const k of keys) {
    if (required.includes(k)) present++
    else if (!optional.includes(k)) return false
  }
  return present === required.length
}

const bounded = (u: unknown, min: number, max: number): u is string =>
  typeof u === "string" && u.length >= min && u.length <= max && isStorableText(u)

const matches = (u: unknown, re: RegExp): u is string => typeof u === "string" && re.test(u)

const timestamp = (u: unknown): DateTime.Utc | undefined => {
  if (typeof u !== "string") return undefined
  const ms = parseTimestamp(u)
  return Result.isSuccess(ms) ? DateTime.makeUnsafe(ms.success) : undefined
}

const user = (u: unknown): Obj | undefined => {
  if (!record(u, ["id"], ["handle"]) || !matches(u.id, USER_ID)) return undefined
  if (!("handle" in u)) return { id: u.id }
  return bounded(u.handle, 1, 256) ? { id: u.id, handle: u.handle } : undefined
}

const metadata = (u: unknown): Obj | undefined => {
  if (typeof u !== "object" || u === null || Array.isArray(u)) return undefined
  const keys = Object.keys(u)
  if (keys.length > 50) return undefined
  const out: Obj = {}
  for (const k of keys) {
    const v = (u as Obj)[k]
    if (k === "__proto__" || !bounded(k, 1, 64) || typeof v !== "string" || v.length > 512) return undefined
    out[k] = v
  }
  return out
}

const startedData = (u: unknown): Obj | undefined => {
  if (!record(u, ["projectId", "direction", "voiceProfile", "space", "caller", "callee", "metadata"])) return undefined
  const { callee, caller, direction, metadata: m, projectId, space, voiceProfile } = u
  if (!matches(projectId, PROJECT_ID) || (direction !== "inbound" && direction !== "outbound")) return undefined
  if (!record(voiceProfile, ["id", "endpoint"]) || !matches(voiceProfile.id, PROFILE_ID)) return undefined
  if (!record(voiceProfile.endpoint, ["type"]) || voiceProfile.endpoint.type !== "sip") return undefined
  if (!record(space, ["id", "type"]) || !bounded(space.id, 1, 256) || space.type !== "direct") return undefined
  const from = user(caller)
  const to = user(callee)
  const meta = metadata(m)
  if (from === undefined || to === undefined || meta === undefined) return undefined
  return {
    projectId,
    direction,
    voiceProfile: { id: voiceProfile.id, endpoint: { type: "sip" } },
    space: { id: space.id, type: "direct" },
    caller: from,
    callee: to,
    metadata: meta
  }
}

const endedData = (u: unknown): Obj | undefined => {
  if (!record(u, ["status"], ["reason"]) || typeof u.status !== "string" || !TERMINAL.has(u.status)) return undefined
  if (!("reason" in u)) return { status: u.status }
  const r = u.reason
  if (!record(r, [], ["sipCode", "hangupCause", "detail"])) return undefined
  const reason: Obj = {}
  if ("sipCode" in r) {
    if (typeof r.sipCode !== "number" || !Number.isSafeInteger(r.sipCode) || r.sipCode < 100 || r.sipCode > 699) return undefined
    reason.sipCode = r.sipCode
  }
  if ("hangupCause" in r) {
    if (!bounded(r.hangupCause, 1, 128)) return undefined
    reason.hangupCause = r.hangupCause
  }
  if ("detail" in r) {
    if (!bounded(r.detail, 1, 256)) return undefined
    reason.detail = r.detail
  }
  return { status: u.status, reason }
}

const signal = (u: unknown): Obj | undefined => {
  if (!record(u, ["id", "callId", "type", "timestamp", "data"])) return undefined
  if (!bounded(u.id, 1, 256) || !matches(u.callId, CALL_ID)) return undefined
  const at = timestamp(u.timestamp)
  if (at === undefined) return undefined
  let data: unknown
  switch (u.type) {
    case "started":
      data = startedData(u.data)
      break
    case "ringing":
    case "answered":
    case "connected":
      // `Schema.Struct({})` accepts any value but null and undefined, as it is.
      data = u.data === null ? undefined : u.data
      break
    case "dtmf":
      data = record(u.data, ["digit", "actorId"]) && typeof u.data.digit === "string" && u.data.digit.length <= 16 &&
          matches(u.data.actorId, USER_ID)
        ? { digit: u.data.digit, actorId: u.data.actorId }
        : undefined
      break
    case "ended":
      data = endedData(u.data)
      break
    default:
      return undefined
  }
  return data === undefined ? undefined : { id: u.id, callId: u.callId, type: u.type, timestamp: at, data }
}

/** The decoded batch when `input` is plainly well-formed; `undefined` when only the schema can tell. */
export const decodeSignalBatchFast = (input: unknown): { readonly signals: ReadonlyArray<CallSignal> } | undefined => {
  if (!record(input, ["signals"]) || !Array.isArray(input.signals)) return undefined
  const raw: ReadonlyArray<unknown> = input.signals
  if (raw.length < 1 || raw.length > MAX_SIGNALS_PER_BATCH) return undefined
  const signals: Array<CallSignal> = []
  for (const s of raw) {
    const decoded = signal(s)
    if (decoded === undefined) return undefined
    signals.push(decoded as unknown as CallSignal)
  }
  return { signals }
}

const decodeThroughSchema = SchemaParser.decodeUnknownEffect(IngestCallSignalsRequest)
const encodeThroughSchema = SchemaParser.encodeUnknownEffect(IngestCallSignalsRequest)

/**
 * `IngestCallSignalsRequest` for decoding request bodies: the same values and the same refusals,
 * the well-formed case without the schema interpreter (see the module comment). A declaration
 * whose decoding tries the fast path first and whose encoding is the schema's.
 */
export const IngestCallSignalsRequestDecoder: Schema.Codec<typeof IngestCallSignalsRequest.Type, typeof IngestCallSignalsRequest.Encoded> =
  Schema.make(
    new SchemaAST.Declaration(
      [],
      () => (input, _, options) => {
        const fast = decodeSignalBatchFast(input)
        return fast !== undefined ? Effect.succeed(fast) : decodeThroughSchema(input, options)
      },
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      () => (input, _, options) => encodeThroughSchema(input, options)
    )
  )
