import { describe, expect, it } from "@effect/vitest"
import {
  decodeBase32Rfc4648,
  encodeBase32Rfc4648,
  hotpCounterBytes,
  hotp,
  totpMatchingSteps,
  otpauthUri,
  totp,
  totpStep,
  dynamicTruncate
} from "@switchboard/core/accounts"
import { Effect } from "effect"
import * as fc from "fast-check"
import { runLikeTest } from "../Properties.js"

const rfcSecret = new TextEncoder().encode("12345678901234567890")

describe("HOTP (RFC 4226)", () => {
  // RFC 4226 Appendix D: the six-digit HOTP values of counters 0..9 for the ASCII secret above.
  const appendixD = ["755224", "287082", "359152", "969429", "338314", "254676", "287922", "162583", "399871", "520489"]
  it.effect("matches every Appendix D test value", () =>
    Effect.gen(function*() {
      for (const [counter, expected] of appendixD.entries()) expect(yield* hotp(rfcSecret, counter)).toBe(expected)
    }))

  it("truncates as §5.4's worked example does", () => {
    const mac = Uint8Array.from([
      0x1f, 0x86, 0x98, 0x69, 0x0e, 0x02, 0xca, 0x16, 0x61, 0x85, 0x50, 0xef, 0x7f, 0x19, 0xda, 0x8e, 0x94, 0x5b, 0x55, 0x5a
    ])
    expect(dynamicTruncate(mac, 6)).toBe("872921")
  })

  it("encodes the counter as 8 bytes big-endian", () => {
    expect(Array.from(hotpCounterBytes(1))).toEqual([0, 0, 0, 0, 0, 0, 0, 1])
    expect(Array.from(hotpCounterBytes(0x1_0000_0001))).toEqual([0, 0, 0, 1, 0, 0, 0, 1])
    expect(Array.from(hotpCounterBytes(666666666))).toEqual([0, 0, 0, 0, 0x27, 0xbc, 0x86, 0xaa])
  })

  it("always yields `digits` decimal digits", () => {
    fc.assert(fc.property(fc.uint8Array({ minLength: 20, maxLength: 20 }), fc.integer({ min: 1, max: 8 }), (mac, digits) => {
      expect(dynamicTruncate(mac, digits)).toMatch(new RegExp(`^\\d{${digits}}$`))
    }))
  })
})

describe("TOTP (RFC 6238)", () => {
  // RFC 6238 Appendix B, the SHA-1 rows: eight digits, T0 = 0, X = 30 s.
  const appendixB: ReadonlyArray<readonly [seconds: number, step: string, code: string]> = [
    [59, "0000000000000001", "94287082"],
    [1111111109, "00000000023523EC", "07081804"],
    [1111111111, "00000000023523ED", "14050471"],
    [1234567890, "000000000273EF07", "89005924"],
    [2000000000, "0000000003F940AA", "69279037"],
    [20000000000, "0000000027BC86AA", "65353130"]
  ]
  it.effect("matches every SHA-1 row of Appendix B (8 digits)", () =>
    Effect.gen(function*() {
      for (const [seconds, step, code] of appendixB) {
        expect(totpStep(seconds * 1000)).toBe(parseInt(step, 16))
        expect(yield* totp(rfcSecret, seconds * 1000, 8)).toBe(code)
      }
    }))

  it.effect("defaults to six digits", () =>
    Effect.gen(function*() {
      expect(yield* totp(rfcSecret, 59_000)).toBe("287082")
    }))

  it("a code verifies anywhere in its step and one step either side, never two steps away", () =>
    fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ minLength: 20, maxLength: 20 }),
        fc.integer({ min: 60_000, max: 4_102_444_800_000 }),
        fc.integer({ min: 0, max: 29_999 }),
        (secret, instant, within) =>
          runLikeTest(Effect.gen(function*() {
            const code = yield* totp(secret, instant)
            const step = totpStep(instant)
            const stepStart = step * 30_000
            // Anywhere inside the same step, the current-step check matches it.
            expect(totpStep(stepStart + within)).toBe(step)
            expect(yield* totpMatchingSteps(secret, code, totpStep(stepStart + within))).toContain(step)
            // A verifier one step ahead or behind still accepts it (clock drift).
            expect(yield* totpMatchingSteps(secret, code, step + 1)).toContain(step)
            expect(yield* totpMatchingSteps(secret, code, step - 1)).toContain(step)
            // Two steps away, its own step is outside the window.
            expect(yield* totpMatchingSteps(secret, code, step + 2)).not.toContain(step)
          }))
      ),
      { numRuns: 50 }
    ))
})

describe("base32 (RFC 4648)", () => {
  it("encodes the §10 test vectors (without padding)", () => {
    const vectors: ReadonlyArray<readonly [string, string]> = [
      ["", ""], ["f", "MY"], ["fo", "MZXQ"], ["foo", "MZXW6"], ["foob", "MZXW6YQ"], ["fooba", "MZXW6YTB"], ["foobar", "MZXW6YTBOI"]
    ]
    for (const [plain, encoded] of vectors) {
      expect(encodeBase32Rfc4648(new TextEncoder().encode(plain))).toBe(encoded)
      expect(new TextDecoder().decode(decodeBase32Rfc4648(`${encoded}${"=".repeat((8 - (encoded.length % 8)) % 8)}`)!)).toBe(plain)
    }
    expect(encodeBase32Rfc4648(rfcSecret)).toBe("GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ")
  })

  it("refuses characters outside the alphabet", () => {
    expect(decodeBase32Rfc4648("MZXW1")).toBeUndefined()
    expect(decodeBase32Rfc4648("mzxw6")).toEqual(new TextEncoder().encode("foo"))
  })

  it("round-trips any bytes", () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
      const encoded = encodeBase32Rfc4648(bytes)
      expect(encoded).toMatch(/^[A-Z2-7]*$/)
      expect(Array.from(decodeBase32Rfc4648(encoded)!)).toEqual(Array.from(bytes))
    }))
  })
})

describe("otpauth URI", () => {
  it("names the issuer and account and spells out SHA1, 6 digits, 30 s", () => {
    const uri = otpauthUri("ada+mfa@example.com", "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ")
    expect(uri).toBe(
      "otpauth://totp/Switchboard:ada%2Bmfa%40example.com?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&issuer=Switchboard&algorithm=SHA1&digits=6&period=30"
    )
    const parsed = new URL(uri)
    expect(parsed.protocol).toBe("otpauth:")
    expect(parsed.host).toBe("totp")
    expect(decodeURIComponent(parsed.pathname)).toBe("/Switchboard:ada+mfa@example.com")
    expect(Object.fromEntries(parsed.searchParams)).toEqual({
      secret: "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ", issuer: "Switchboard", algorithm: "SHA1", digits: "6", period: "30"
    })
  })
})
