/**
 * `envelopeJson` (a delivery's body built directly) is byte for byte the schema's encoding of the
 * envelope, and refuses exactly what the schema refuses.
 */
import { Arbitrary, DateTime, Either, FastCheck as fc, Schema } from "effect"
import { describe, expect, it } from "vitest"
import { envelopeJson } from "../../src/events/EnvelopeJson.js"
import { EventEnvelope } from "../../src/events/Schema.js"

const bySchema = (e: unknown): string | undefined => {
  const encoded = Schema.encodeUnknownEither(EventEnvelope)(e)
  return Either.isLeft(encoded) ? undefined : JSON.stringify(encoded.right)
}

// The schema's own arbitrary, with timestamps mostly inside the wire form's four-digit years.
const envelope = fc.tuple(
  Arbitrary.make(EventEnvelope),
  fc.option(fc.integer({ min: -62135596800000, max: 253402300799999 }), { freq: 4 })
).map(([e, ms]) => (ms === null ? e : { ...e, timestamp: DateTime.unsafeMake(ms) }))

describe("envelopeJson", () => {
  it("is the schema's encoding, key order included", () => {
    let encoded = 0
    fc.assert(fc.property(envelope, (e) => {
      const json = envelopeJson(e)
      expect(json).toBe(bySchema(e))
      if (json !== undefined) encoded++
    }), { numRuns: 100 })
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
      timestamp: DateTime.unsafeMake(0),
      data
    } as unknown as EventEnvelope
    expect(envelopeJson(e)).toBe(bySchema(e))
  })

  it("refuses exactly what the schema refuses", () => {
    const broken = fc.constantFrom<[string, unknown]>(
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
    )
    fc.assert(fc.property(envelope, broken, (e, [key, value]) => {
      const mutated = { ...e, [key]: value } as never
      expect(envelopeJson(mutated)).toBe(bySchema(mutated))
    }), { numRuns: 100 })
  })
})
