/** One rule for every string field: no U+0000, no lone UTF-16 surrogate. */
import { describe, expect, it } from "@effect/vitest"
import { BoundedString, isStorableText } from "@switchboard/core/shared"
import { Result, Schema } from "effect"
import * as fc from "fast-check"

describe("storable text", () => {
  it.each([
    ["plain", true], ["", true], ["émoji 😀", true], ["a\u0000b", false], ["\ud800", false], ["x\udc00", false],
    ["\ud83d\ude00", true], ["\ude00\ud83d", false]
  ] as const)("%j → %s", (s, ok) => {
    expect(isStorableText(s)).toBe(ok)
    expect(Result.isSuccess(Schema.decodeUnknownResult(BoundedString(0, 100))(s))).toBe(ok)
  })

  it("well-formed text without NUL is storable; with a NUL it is not", () => {
    fc.assert(fc.property(fc.string({ unit: "grapheme", maxLength: 40 }), (s) => {
      const clean = s.replace(/\u0000/g, "")
      expect(isStorableText(clean)).toBe(true)
      expect(isStorableText(`${clean}\u0000`)).toBe(false)
    }), { seed: 1124, numRuns: 200 })
  })
})
