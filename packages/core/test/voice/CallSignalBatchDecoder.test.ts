/**
 * The signal-batch decoder (voice/CallSignalBatchDecoder.ts) answers exactly as the schema
 * `IngestCallSignalsRequest`, with the options of the HTTP edge: the same decoded value for every
 * valid batch (taking the path without the schema interpreter), the same issues for every invalid
 * one — over arbitrary valid batches and the same batches with one value anywhere in them deleted,
 * replaced or joined by another key.
 */
import { describe, expect, it } from "@effect/vitest"
import { Result, Schema } from "effect"
import * as fc from "fast-check"
import { IdKinds } from "../../src/shared/Identifiers.js"
import { issueLines } from "../../src/shared/SchemaIssues.js"
import { IngestCallSignalsRequest } from "../../src/voice/CallApiSchema.js"
import { decodeSignalBatchFast, IngestCallSignalsRequestDecoder } from "../../src/voice/CallSignalBatchDecoder.js"
import { projectIdFixture, T0, typeId } from "../schema/SchemaAssertions.js"

// `reportInput`: the issues carry the rejected values, which the messages of `issueLines` quote.
const options = { errors: "all", onExcessProperty: "error", reportInput: true } as const
const bySchema = Schema.decodeUnknownResult(IngestCallSignalsRequest, options)
const byDecoder = Schema.decodeUnknownResult(IngestCallSignalsRequestDecoder, options)

const callId = fc.integer({ min: 1, max: 3 }).map((n) => typeId(IdKinds.call, n))
const userId = fc.integer({ min: 4, max: 6 }).map((n) => typeId(IdKinds.user, n))
const timestamp = fc.integer({ min: 0, max: 10_000_000 }).chain((ms) =>
  fc.constantFrom(new Date(T0 + ms).toISOString(), new Date(T0 + ms).toISOString().replace(/\.\d{3}Z$/, "Z"), new Date(T0 + ms).toISOString().replace("Z", "123456Z"))
)
const text = (max: number) => fc.string({ minLength: 1, maxLength: max })
const party = fc.record({ id: userId, handle: text(12) }, { requiredKeys: ["id"] })

const started = fc.record({
  projectId: fc.constant<string>(projectIdFixture),
  direction: fc.constantFrom("inbound", "outbound"),
  voiceProfile: fc.constant({ id: typeId(IdKinds.voiceProfile, 7), endpoint: { type: "sip" } }),
  space: fc.record({ id: text(20), type: fc.constant("direct") }),
  caller: party,
  callee: party,
  metadata: fc.dictionary(text(8), fc.string({ maxLength: 12 }), { maxKeys: 4 })
})
const reason = fc.record({
  sipCode: fc.integer({ min: 100, max: 699 }),
  hangupCause: text(20),
  detail: text(20)
}, { requiredKeys: [] })

const signal = fc.record({ id: text(30), callId, timestamp }).chain((base) =>
  fc.oneof(
    started.map((data) => ({ ...base, type: "started", data })),
    fc.tuple(fc.constantFrom("ringing", "answered", "connected"), fc.constantFrom<unknown>({}, { extra: 1 }, "text", 3, [])).map((
      [type, data]
    ) => ({ ...base, type, data })),
    fc.record({ digit: fc.constantFrom("1", "#", "A", "", "12"), actorId: userId }).map((data) => ({ ...base, type: "dtmf", data })),
    fc.record({ status: fc.constantFrom("completed", "busy", "no-answer", "rejected", "canceled", "failed"), reason }, {
      requiredKeys: ["status"]
    }).map((data) => ({ ...base, type: "ended", data }))
  )
)
const batch = fc.array(signal, { minLength: 1, maxLength: 12 }).map((signals) => ({ signals }))

/** Every object and array in `value`, with the keys or indexes they hold. */
const containers = (value: unknown, out: Array<Record<string, unknown>> = []): Array<Record<string, unknown>> => {
  if (typeof value === "object" && value !== null) {
    out.push(value as Record<string, unknown>)
    for (const v of Object.values(value)) containers(v, out)
  }
  return out
}

const replacements: ReadonlyArray<unknown> = [
  null, 0, 1.5, 100, 699, 700, true, "", "x", "a".repeat(257), "a".repeat(65), "a".repeat(513), "\u0000", "\uD800", "\uD83D\uDE00",
  [], {}, "2030-02-30T00:00:00Z", "2030-01-01t00:00:00Z", "2030-01-01T00:00:00+01:00", "sb_call_", typeId(IdKinds.user, 1),
  typeId(IdKinds.call, 9), projectIdFixture.toUpperCase(), "sip", "direct", "inbound", "completed", "started", "dtmf", "#", "12345678901234567"
]
type Mutation = { readonly kind: "delete" | "replace" | "add" | "proto" | "many"; readonly at: number; readonly key: number; readonly value: number }
const mutation = fc.record({
  kind: fc.constantFrom("delete", "replace", "replace", "replace", "add", "proto", "many"),
  at: fc.nat(),
  key: fc.nat(),
  value: fc.nat({ max: replacements.length - 1 })
}) as fc.Arbitrary<Mutation>

const mutate = (input: unknown, m: Mutation): unknown => {
  const copy = JSON.parse(JSON.stringify(input)) as unknown
  const all = containers(copy)
  const target = all[m.at % all.length]!
  const keys = Object.keys(target)
  const key = keys.length === 0 ? "x" : keys[m.key % keys.length]!
  switch (m.kind) {
    case "delete":
      if (Array.isArray(target)) target.splice(Number(key), 1)
      else delete target[key]
      break
    case "replace":
      target[key] = replacements[m.value]
      break
    case "add":
      target[Array.isArray(target) ? keys.length : `extra${m.value}`] = replacements[m.value]
      break
    case "proto":
      // A key JSON.parse creates as an own property.
      return JSON.parse(JSON.stringify(copy).replace(/"metadata":\{(\}?)/g, (_, close: string) =>
        close === "" ? "\"metadata\":{\"__proto__\":\"x\"," : "\"metadata\":{\"__proto__\":\"x\"}"))
    case "many":
      target[key] = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, "v"]))
      break
  }
  return copy
}

const same = (input: unknown) => {
  const a = byDecoder(input)
  const b = bySchema(input)
  expect(a._tag).toBe(b._tag)
  if (Result.isSuccess(a) && Result.isSuccess(b)) expect(a.success).toStrictEqual(b.success)
  if (Result.isFailure(a) && Result.isFailure(b)) expect(issueLines(a.failure)).toStrictEqual(issueLines(b.failure))
}

describe("signal batch decoder", () => {
  it("a valid batch: the schema's value, without the schema", () => {
    fc.assert(fc.property(batch, (input) => {
      const fast = decodeSignalBatchFast(input)
      expect(fast).toBeDefined()
      expect(Result.getOrThrow(bySchema(input))).toStrictEqual(fast)
      same(input)
    }), { numRuns: 300 })
  })

  it("a batch with one value changed anywhere: the schema's value or the schema's issues", () => {
    fc.assert(fc.property(batch, mutation, (input, m) => {
      const changed = mutate(input, m)
      const fast = decodeSignalBatchFast(changed)
      if (fast !== undefined) expect(Result.getOrThrow(bySchema(changed))).toStrictEqual(fast)
      same(changed)
    }), { numRuns: 2000 })
  })

  it("batch bounds, non-objects and the edges of every rule", () => {
    const one = fc.sample(batch, { numRuns: 1, seed: 7 })[0]!.signals[0]
    for (const input of [null, [], "x", {}, { signals: [] }, { signals: Array.from({ length: 101 }, () => one) }, { signals: [one], x: 1 }]) {
      expect(decodeSignalBatchFast(input)).toBeUndefined()
      same(input)
    }
    expect(decodeSignalBatchFast({ signals: Array.from({ length: 100 }, () => one) })).toBeDefined()
    same({ signals: Array.from({ length: 100 }, () => one) })
  })
})
