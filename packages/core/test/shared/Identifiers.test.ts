import { describe, expect, it } from "@effect/vitest"
import {
  CROCKFORD,
  encodeBase32Uuid,
  IdKinds,
  Ids,
  ProjectId,
  typeIdPattern,
  UploadId,
  uuidv7Bytes
} from "@switchboard/core/shared"
import { SecretsSeeded } from "@switchboard/testkit"
import { Effect, Layer, Schema } from "effect"
import { TestClock } from "effect/testing"
import * as fc from "fast-check"
import { runLikeTest } from "../Properties.js"

const T0 = Date.parse("2030-01-01T00:00:00.000Z")
const allKinds = Object.values(IdKinds)
const IdsSeeded = (seed: number) => Ids.layer.pipe(Layer.provide(SecretsSeeded(seed)))
const bytes16 = fc.uint8Array({ minLength: 16, maxLength: 16 })

const compareBytes = (a: Uint8Array, b: Uint8Array) => {
  for (let i = 0; i < 16; i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0)
    if (d !== 0) return Math.sign(d)
  }
  return 0
}
const compareStrings = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

/** Reads the 48-bit millisecond time back out of a UUIDv7 string. */
const uuidMillis = (uuid: string) => parseInt(uuid.replace(/-/g, "").slice(0, 12), 16)

describe("encodeBase32Uuid", () => {
  it("gives 26 Crockford characters, the first in 0-7", () => {
    fc.assert(fc.property(bytes16, (b) => {
      const s = encodeBase32Uuid(b)
      expect(s).toHaveLength(26)
      expect(s).toMatch(/^[0-7][0-9a-hjkmnp-tv-z]{25}$/)
      for (const c of s) expect(CROCKFORD).toContain(c)
    }), { numRuns: 500 })
  })

  it("preserves byte order (so ids sort like the UUIDs they encode) and is injective", () => {
    fc.assert(fc.property(bytes16, bytes16, (a, b) => {
      expect(compareStrings(encodeBase32Uuid(a), encodeBase32Uuid(b))).toBe(compareBytes(a, b))
    }), { numRuns: 500 })
  })

  it("equals the 128-bit number written in base 32 (the BigInt reference)", () => {
    fc.assert(fc.property(bytes16, (b) => {
      let n = 0n
      for (const x of b) n = (n << 8n) | BigInt(x)
      let reference = ""
      for (let i = 25; i >= 0; i--) reference += CROCKFORD[Number((n >> BigInt(i * 5)) & 31n)]
      expect(encodeBase32Uuid(b)).toBe(reference)
    }), { numRuns: 300 })
  })

  it("encodes the extremes", () => {
    expect(encodeBase32Uuid(new Uint8Array(16))).toBe("0".repeat(26))
    expect(encodeBase32Uuid(new Uint8Array(16).fill(255))).toBe(`7${"z".repeat(25)}`)
  })
})

describe("Ids", () => {
  it.effect("typeId matches typeIdPattern(kind) for every kind in IdKinds", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(T0)
      const ids = yield* Ids
      expect(allKinds.length).toBeGreaterThan(0)
      for (const kind of allKinds) {
        for (let i = 0; i < 20; i++) {
          const id = yield* ids.typeId(kind)
          expect(id).toMatch(typeIdPattern(kind))
          expect(id.startsWith(`sb_${kind}_`)).toBe(true)
        }
      }
    }).pipe(Effect.provide(IdsSeeded(7))))

  it("typeId matches its pattern at any clock time", () =>
    fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 2 ** 48 - 1 }), fc.constantFrom(...allKinds), fc.integer({ min: 0, max: 2 ** 31 - 1 }), (ms, kind, seed) =>
        runLikeTest(
          Effect.gen(function*() {
            yield* TestClock.setTime(ms)
            const id = yield* (yield* Ids).typeId(kind)
            expect(id).toMatch(typeIdPattern(kind))
            // A pattern of one kind does not accept another kind's id.
            for (const other of allKinds) if (other !== kind) expect(id).not.toMatch(typeIdPattern(other))
          }).pipe(Effect.provide(IdsSeeded(seed)))
        )),
      { numRuns: 100 }
    ))

  it("ids are time-ordered: lexicographic order equals creation order when the clock advances", () =>
    fc.assert(
      fc.asyncProperty(fc.array(fc.integer({ min: 1, max: 10 * 86_400_000 }), { minLength: 1, maxLength: 30 }), fc.integer({ min: 0, max: 2 ** 31 - 1 }), (steps, seed) =>
        runLikeTest(
          Effect.gen(function*() {
            yield* TestClock.setTime(T0)
            const ids = yield* Ids
            const created = [yield* ids.typeId(IdKinds.call)]
            for (const step of steps) {
              yield* TestClock.adjust(step)
              created.push(yield* ids.typeId(IdKinds.call))
            }
            expect([...created].sort()).toEqual(created)
            expect(new Set(created).size).toBe(created.length)
          }).pipe(Effect.provide(IdsSeeded(seed)))
        )),
      { numRuns: 50 }
    ))

  it.effect("the id embeds the clock time as a UUIDv7 prefix", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(T0)
      const ids = yield* Ids
      const id = yield* ids.typeId(IdKinds.event)
      const expectedPrefix = encodeBase32Uuid(uuidv7Bytes(T0, new Uint8Array(10))).slice(0, 9)
      // The first 9 characters carry 45 bits: all of them are time (48 bits of time lead the UUID).
      expect(id.slice("sb_evt_".length, "sb_evt_".length + 9)).toBe(expectedPrefix)
    }).pipe(Effect.provide(IdsSeeded(3))))

  it("uuidv7() matches the ProjectId schema (version 7, variant 10xx) and carries the clock time", () =>
    fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 2 ** 48 - 1 }), fc.integer({ min: 0, max: 2 ** 31 - 1 }), (ms, seed) =>
        runLikeTest(
          Effect.gen(function*() {
            yield* TestClock.setTime(ms)
            const uuid = yield* (yield* Ids).uuidv7()
            expect(Schema.is(ProjectId)(uuid)).toBe(true)
            expect(uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
            expect(uuidMillis(uuid)).toBe(ms)
          }).pipe(Effect.provide(IdsSeeded(seed)))
        )),
      { numRuns: 200 }
    ))

  it.effect("uuidv7() is time-ordered when the clock advances", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(T0)
      const ids = yield* Ids
      const created: Array<string> = []
      for (let i = 0; i < 50; i++) {
        created.push(yield* ids.uuidv7())
        yield* TestClock.adjust("1 millis")
      }
      expect([...created].sort()).toEqual(created)
    }).pipe(Effect.provide(IdsSeeded(11))))

  it("uploadId() matches the UploadId schema", () =>
    fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 2 ** 31 - 1 }), (seed) =>
        runLikeTest(
          Effect.gen(function*() {
            const ids = yield* Ids
            for (let i = 0; i < 10; i++) {
              const id = yield* ids.uploadId()
              expect(Schema.is(UploadId)(id)).toBe(true)
              expect(id).toMatch(/^sb_upl_[0-9a-z]{26}$/)
            }
          }).pipe(Effect.provide(IdsSeeded(seed)))
        )),
      { numRuns: 50 }
    ))

  it.effect("the seeded layer is deterministic: the same seed gives the same ids, another seed other ids", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(T0)
      const sequence = Effect.gen(function*() {
        const ids = yield* Ids
        const out: Array<string> = []
        for (const kind of allKinds) out.push(yield* ids.typeId(kind))
        out.push(yield* ids.uuidv7())
        out.push(yield* ids.uploadId())
        return out
      })
      const a = yield* Effect.provide(sequence, IdsSeeded(42))
      const b = yield* Effect.provide(sequence, IdsSeeded(42))
      const c = yield* Effect.provide(sequence, IdsSeeded(43))
      expect(a).toEqual(b)
      expect(a).toHaveLength(allKinds.length + 2)
      expect(c).not.toEqual(a)
      for (let i = 0; i < a.length; i++) expect(c[i]).not.toBe(a[i])
    }))
})
