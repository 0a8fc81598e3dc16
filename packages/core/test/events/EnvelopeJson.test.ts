/**
 * `envelopeJson` (a delivery's body built directly) is byte for byte the schema's encoding of the
 * envelope, and refuses exactly what the schema refuses.
 */
import { Arbitrary, DateTime, Effect, Result, Schema } from "effect"
import { describe, expect, it } from "vitest"
import { envelopeJson } from "../../src/events/EnvelopeJson.js"
import { EventEnvelope } from "../../src/events/Schema.js"

const bySchema = (e: unknown): string | undefined => {
  const encoded = Schema.encodeUnknownResult(EventEnvelope)(e)
  return Result.isFailure(encoded) ? undefined : JSON.stringify(encoded.success)
}

/** An integer from `minimum` to `maximum`. */
const integer = (minimum: number, maximum: number) => Arbitrary.schema(Schema.Int.check(Schema.isBetween({ minimum, maximum })))

/** One of `values`. */
const oneOf = <A>(values: ReadonlyArray<A>) => integer(0, values.length - 1).pipe(Arbitrary.map((i) => values[i]!))

// The schema's own arbitrary, with timestamps mostly (3 in 4) inside the wire form's four-digit years.
const envelope = Arbitrary.all([
  Arbitrary.schema(EventEnvelope),
  integer(-62135596800000, 253402300799999),
  integer(0, 3)
]).pipe(Arbitrary.map(([e, ms, keep]) => (keep === 0 ? e : { ...e, timestamp: DateTime.makeUnsafe(ms) })))

/** Checks that `property` holds for `runs` values of `arbitrary`: an `expect` in it that throws falsifies it (and is shrunk). */
const check = <A>(arbitrary: Arbitrary.Arbitrary<A>, property: (value: A) => void, runs: number) =>
  Effect.runPromise(Arbitrary.checkEffect(arbitrary, (value) =>
    Effect.try({
      try: () => {
        property(value)
        return true
      },
      catch: (error) => error
    }), { runs })).then((result) => expect(Arbitrary.formatCheckFailure(result)).toBeUndefined())

describe("envelopeJson", () => {
  it("is the schema's encoding, key order included", async () => {
    let encoded = 0
    await check(envelope, (e) => {
      const json = envelopeJson(e)
      expect(json).toBe(bySchema(e))
      if (json !== undefined) encoded++
    }, 100)
    // (The schema's arbitrary also makes timestamps outside the wire form's four-digit years.)
    expect(encoded).toBeGreaterThan(50)
  })

  it("an own __proto__ key in data (JSON.parse makes one) encodes as the schema encodes it", () => {
    const data = JSON.parse('{"__proto__":{"x":1},"a":2}') as Record<string, unknown>
    const e = {
      id: "sb_evt_0000000000e008000000000000",
      type: "a.a",
      apiVersion: "2026-07-01",
      source: "s",
      timestamp: DateTime.makeUnsafe(0),
      data
    } as unknown as EventEnvelope
    expect(envelopeJson(e)).toBe(bySchema(e))
  })

  it("refuses exactly what the schema refuses", () => {
    const broken = oneOf<[string, unknown]>([
      ["id", "evt_not-an-id"],
      ["type", "Not.A.Type"],
      ["type", "single"],
      ["apiVersion", "2020-01-01"],
      ["source", ""],
      ["source", "a\u0000b"],
      ["source", "x".repeat(256)],
      ["data", []],
      ["data", null],
      ["data", "text"],
      ["timestamp", "2030-01-01T00:00:00Z"]
    ])
    return check(Arbitrary.all([envelope, broken]), ([e, [key, value]]) => {
      const mutated = { ...e, [key]: value } as never
      expect(envelopeJson(mutated)).toBe(bySchema(mutated))
    }, 100)
  })
})
