/** base64url (internal/Crypto.ts) agrees with Node's encoder on every length and byte, and round-trips. */
import { describe, expect, it } from "@effect/vitest"
import { base64url, fromBase64url } from "@switchboard/core/internal"
import * as fc from "fast-check"

describe("base64url", () => {
  it("known answers (RFC 4648 §10, url alphabet, no padding)", () => {
    const of = (s: string) => base64url(new TextEncoder().encode(s))
    expect(["", "f", "fo", "foo", "foob", "fooba", "foobar"].map(of)).toEqual(["", "Zg", "Zm8", "Zm9v", "Zm9vYg", "Zm9vYmE", "Zm9vYmFy"])
    expect(base64url(new Uint8Array([0xfb, 0xff, 0xbf]))).toBe("-_-_")
  })

  it("agrees with Buffer's base64url on any bytes and decodes back", () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
      const encoded = base64url(bytes)
      expect(encoded).toBe(Buffer.from(bytes).toString("base64url"))
      expect(fromBase64url(encoded)).toEqual(bytes)
    }), { numRuns: 500 })
  })
})
