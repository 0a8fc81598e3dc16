/**
 * The claim's hand decoder (`plainClaimRows`) against the schema it stands in for
 * (`ClaimRow`): over plainly well-formed rows (as `pg` and PGlite hand them back) and rows with one
 * field broken, the hand decoder gives the schema's value or steps aside (undefined, so the schema
 * decides) — it never accepts a row the schema refuses, nor decodes one differently.
 */
import { Result, Schema } from "effect"
import * as fc from "fast-check"
import { describe, expect, it } from "vitest"
import { ClaimRow, plainClaimRows, withEndpointColumns } from "../src/events/WebhookRows.js"

const date = fc.integer({ min: Date.UTC(2000, 0, 1), max: Date.UTC(2100, 0, 1) }).map((ms) => new Date(ms))
const dateOrNull = fc.option(date, { nil: null })
const text = fc.string({ maxLength: 12 })
const textOrNull = fc.option(text, { nil: null })
const bytes = fc.uint8Array({ maxLength: 40 })

const wellFormed = fc.record({
  deliveryId: text,
  endpointId: text,
  projectId: fc.uuid(),
  eventId: text,
  eventPosition: fc.oneof(fc.integer({ min: 1, max: 2 ** 40 }), fc.integer({ min: 1, max: 2 ** 40 }).map(String)),
  eventType: text,
  status: fc.constantFrom("pending", "delivered", "dead_lettered", "cancelled"),
  attemptCount: fc.integer({ min: 0, max: 20 }),
  nextAttemptAt: date,
  leasedUntil: dateOrNull,
  claimSeq: fc.integer({ min: 0, max: 1000 }),
  lastAttemptAt: dateOrNull,
  lastError: textOrNull,
  lastResponseStatus: fc.option(fc.integer({ min: 100, max: 599 }), { nil: null }),
  deliveredAt: dateOrNull,
  createdAt: date,
  epEndpointId: text,
  epKind: fc.constantFrom("destination", "management"),
  epProjectId: fc.uuid(),
  epUrl: text,
  epName: textOrNull,
  epDescription: textOrNull,
  epStatus: fc.constantFrom("enabled", "disabled"),
  epEnabledEvents: fc.array(text, { maxLength: 3 }),
  epApiVersion: text,
  epSecretSealed: bytes,
  epPreviousSecretSealed: fc.option(bytes, { nil: null }),
  epPreviousSecretExpiresAt: dateOrNull,
  epCreatedAt: date,
  epUpdatedAt: date,
  epDeletedAt: dateOrNull,
  epStartsAfterPosition: fc.oneof(fc.integer({ min: 0, max: 2 ** 40 }), fc.integer({ min: 0, max: 2 ** 40 }).map(String)),
  evId: text,
  evType: text,
  evSource: text,
  evOccurredAt: date,
  evData: fc.oneof(fc.dictionary(text, fc.jsonValue(), { maxKeys: 3 }), fc.json())
})

/** A value of a wrong shape for some column. */
const wrong = fc.constantFrom<unknown>(
  undefined, null, 42, Number.NaN, "42", "2030-01-01T00:00:00Z", "x", new Date(Number.NaN), [1], ["a", 2], {}, new Uint8Array(1), true, -1.5, "1e3"
)

const decode = Schema.decodeUnknownResult(Schema.Array(ClaimRow))

describe("plainClaimRows", () => {
  it("equals the schema's decoding of well-formed rows", () => {
    fc.assert(
      fc.property(fc.array(wellFormed, { maxLength: 4 }), (rows) => {
        const bySchema = decode(rows)
        expect(Result.isSuccess(bySchema)).toBe(true)
        expect(plainClaimRows(rows)).toEqual(Result.getOrThrow(bySchema))
      }),
      { numRuns: 60 }
    )
  })

  it("never accepts a row the schema refuses, nor decodes one differently", () => {
    const keys = Object.keys(ClaimRow.fields)
    fc.assert(
      fc.property(wellFormed, fc.constantFrom(...keys), wrong, fc.boolean(), (row, key, value, remove) => {
        const broken: Record<string, unknown> = { ...row }
        if (remove) delete broken[key]
        else broken[key] = value
        const bySchema = decode([broken])
        const plain = plainClaimRows([broken])
        if (Result.isFailure(bySchema)) expect(plain).toBeUndefined()
        else if (plain !== undefined) expect(plain).toEqual(bySchema.success)
      }),
      { numRuns: 300 }
    )
  })

  // The claim statement gives an endpoint's columns on its first row only (null on the others).
  const endpointKeys = Object.keys(ClaimRow.fields).filter((k) => k.startsWith("ep"))
  /** Rows of `endpoints` endpoints (each row's endpoint picked by `picks`), as the claim returns them. */
  const claimRows = (endpoints: ReadonlyArray<typeof wellFormed extends fc.Arbitrary<infer R> ? R : never>, picks: ReadonlyArray<number>) => {
    const seen = new Set<number>()
    const full = picks.map((p, i) => {
      const ep = endpoints[p % endpoints.length]!
      const id = `ep_${p % endpoints.length}`
      return { ...endpoints[i % endpoints.length]!, ...Object.fromEntries(endpointKeys.map((k) => [k, (ep as Record<string, unknown>)[k]])), endpointId: id, epEndpointId: id }
    })
    const sparse = full.map((r, i) => {
      const e = picks[i]! % endpoints.length
      if (!seen.has(e)) {
        seen.add(e)
        return r
      }
      return { ...r, ...Object.fromEntries(endpointKeys.map((k) => [k, null])) }
    })
    return { full, sparse }
  }

  it("takes an endpoint's columns from its first row when the others have them null", () => {
    fc.assert(
      fc.property(fc.array(wellFormed, { minLength: 1, maxLength: 3 }), fc.array(fc.nat(5), { minLength: 1, maxLength: 8 }), (endpoints, picks) => {
        const { full, sparse } = claimRows(endpoints, picks)
        const bySchema = decode(full)
        expect(Result.isSuccess(bySchema)).toBe(true)
        expect(plainClaimRows(sparse)).toEqual(Result.getOrThrow(bySchema))
        expect(withEndpointColumns(sparse)).toEqual(full)
      }),
      { numRuns: 60 }
    )
  })

  it("refuses a row whose endpoint's columns are null and on no row of that endpoint", () => {
    fc.assert(
      fc.property(wellFormed, wellFormed, (a, b) => {
        const first = { ...a, endpointId: "ep_a", epEndpointId: "ep_a" }
        const orphan = { ...b, endpointId: "ep_b", ...Object.fromEntries(endpointKeys.map((k) => [k, null])) }
        expect(plainClaimRows([first, orphan])).toBeUndefined()
        expect(Result.isFailure(decode(withEndpointColumns([first, orphan])))).toBe(true)
      }),
      { numRuns: 30 }
    )
  })
})
