import { describe, expect, it } from "@effect/vitest"
import { canonicalJson, parseIdempotencyKey } from "@switchboard/core/shared"
import * as fc from "fast-check"

const visibleAscii = fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c))
const visibleKey = (min: number, max: number) =>
  fc.array(visibleAscii, { minLength: min, maxLength: max }).map((cs) => cs.join(""))

/** Rebuilds every object of a JSON value with its keys in a random (seeded) order. */
const shuffleKeys = (value: unknown, seed: number): unknown => {
  let state = seed >>> 0 || 1
  const random = () => {
    // xorshift32
    state ^= state << 13
    state >>>= 0
    state ^= state >>> 17
    state ^= state << 5
    state >>>= 0
    return state
  }
  const go = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(go)
    if (v === null || typeof v !== "object") return v
    const entries = Object.entries(v)
    for (let i = entries.length - 1; i > 0; i--) {
      const j = random() % (i + 1)
      const tmp = entries[i]!
      entries[i] = entries[j]!
      entries[j] = tmp
    }
    return Object.fromEntries(entries.map(([k, x]) => [k, go(x)]))
  }
  return go(value)
}

describe("parseIdempotencyKey", () => {
  it("accepts 1 and 255 characters and rejects 0 and 256", () => {
    expect(parseIdempotencyKey("a")).toBe("a")
    expect(parseIdempotencyKey("k".repeat(255))).toBe("k".repeat(255))
    expect(parseIdempotencyKey("")).toBeUndefined()
    expect(parseIdempotencyKey("k".repeat(256))).toBeUndefined()
  })

  it.each([
    ["a space inside", "abc def"],
    ["a leading space", " abc"],
    ["a trailing space", "abc "],
    ["a tab", "abc\tdef"],
    ["a newline", "abc\n"],
    ["DEL", "abc\x7f"],
    ["a non-ASCII letter", "clé"],
    ["an emoji", "key-🔑"],
    ["a NUL", "a\u0000b"]
  ])("rejects %s", (_, raw) => {
    expect(parseIdempotencyKey(raw)).toBeUndefined()
  })

  it("unquotes an sf-string", () => {
    expect(parseIdempotencyKey("\"abc\"")).toBe("abc")
    expect(parseIdempotencyKey(`"${"q".repeat(255)}"`)).toBe("q".repeat(255))
    expect(parseIdempotencyKey(`"${"q".repeat(256)}"`)).toBeUndefined()
    expect(parseIdempotencyKey("\"\"")).toBeUndefined()
    expect(parseIdempotencyKey("\"a b\"")).toBeUndefined()
  })

  it("keeps a key that is only quoted on one side as it is", () => {
    expect(parseIdempotencyKey("\"abc")).toBe("\"abc")
    expect(parseIdempotencyKey("abc\"")).toBe("abc\"")
  })

  it("accepts every string of 1-255 visible ASCII characters unchanged (unless quoted)", () => {
    fc.assert(fc.property(visibleKey(1, 255), (key) => {
      const quoted = key.length >= 2 && key.startsWith("\"") && key.endsWith("\"")
      expect(parseIdempotencyKey(key)).toBe(quoted ? key.slice(1, -1) : key)
    }), { numRuns: 300 })
  })

  it("rejects a key with any character outside visible ASCII", () => {
    fc.assert(fc.property(visibleKey(0, 100), visibleKey(0, 100), fc.integer({ min: 0, max: 0xffff }).filter((c) => c < 0x21 || c > 0x7e), (before, after, code) => {
      expect(parseIdempotencyKey(before + String.fromCharCode(code) + after)).toBeUndefined()
    }), { numRuns: 300 })
  })
})

describe("canonicalJson", () => {
  it("sorts keys, has no whitespace, and keeps array order", () => {
    expect(canonicalJson({ b: 1, a: [3, 1, 2], c: { z: true, y: null } })).toBe(
      "{\"a\":[3,1,2],\"b\":1,\"c\":{\"y\":null,\"z\":true}}"
    )
    expect(canonicalJson([{ b: 1, a: 2 }, "x"])).toBe("[{\"a\":2,\"b\":1},\"x\"]")
  })

  it("drops undefined members", () => {
    expect(canonicalJson({ a: 1, b: undefined })).toBe("{\"a\":1}")
    expect(canonicalJson({ a: 1, b: undefined })).toBe(canonicalJson({ a: 1 }))
    expect(canonicalJson({ nested: { x: undefined } })).toBe("{\"nested\":{}}")
  })

  it("encodes scalars like JSON", () => {
    expect(canonicalJson(null)).toBe("null")
    expect(canonicalJson("a\"b")).toBe("\"a\\\"b\"")
    expect(canonicalJson(1.5)).toBe("1.5")
    expect(canonicalJson(false)).toBe("false")
    expect(canonicalJson([])).toBe("[]")
    expect(canonicalJson({})).toBe("{}")
  })

  it("does not depend on key order", () => {
    fc.assert(fc.property(fc.jsonValue(), fc.integer({ min: 1, max: 2 ** 32 - 1 }), (value, seed) => {
      const shuffled = shuffleKeys(value, seed)
      expect(shuffled).toEqual(value)
      expect(canonicalJson(shuffled)).toBe(canonicalJson(value))
    }), { numRuns: 300 })
  })

  it("reversing the keys of an object does not change the output", () => {
    fc.assert(fc.property(fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 2 })), (obj) => {
      const reversed = Object.fromEntries(Object.entries(obj).reverse())
      expect(canonicalJson(reversed)).toBe(canonicalJson(obj))
    }), { numRuns: 300 })
  })

  it("is valid JSON that parses back to an equal value", () => {
    fc.assert(fc.property(fc.jsonValue(), (value) => {
      expect(JSON.parse(canonicalJson(value))).toEqual(JSON.parse(JSON.stringify(value)))
    }), { numRuns: 300 })
  })

  it("keeps array order: different orders of distinct elements give different output", () => {
    fc.assert(fc.property(fc.uniqueArray(fc.integer(), { minLength: 2, maxLength: 20 }), (xs) => {
      const reversed = [...xs].reverse()
      expect(canonicalJson(xs)).toBe(JSON.stringify(xs))
      expect(canonicalJson(reversed)).not.toBe(canonicalJson(xs))
    }))
  })

  it("members with undefined values are ignored", () => {
    fc.assert(fc.property(fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 2 })), fc.string(), (obj, extra) => {
      const withUndefined: Record<string, unknown> = { ...obj }
      Object.defineProperty(withUndefined, extra, { value: undefined, enumerable: true, configurable: true, writable: true })
      const without = Object.fromEntries(Object.entries(withUndefined).filter(([, v]) => v !== undefined))
      expect(canonicalJson(withUndefined)).toBe(canonicalJson(without))
      expect(canonicalJson(withUndefined)).not.toContain("undefined")
    }), { numRuns: 200 })
  })
})
