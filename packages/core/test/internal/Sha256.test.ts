/** The synchronous SHA-256 (shared/Sha256.ts) agrees with WebCrypto and the FIPS 180-4 examples. */
import { describe, expect, it } from "@effect/vitest"
import { hmacSha256Sync, sha256HexSync } from "@switchboard/core/internal"
import * as fc from "fast-check"

const webCrypto = async (s: string) =>
  Array.from(new Uint8Array(await globalThis.crypto.subtle.digest("SHA-256", new TextEncoder().encode(s))), (b) => b.toString(16).padStart(2, "0")).join("")

describe("sha256HexSync", () => {
  it("known answers", () => {
    expect(sha256HexSync("")).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    expect(sha256HexSync("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    expect(sha256HexSync("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"))
      .toBe("248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    expect(sha256HexSync("a".repeat(1_000_000))).toBe("cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
  })

  it("agrees with WebCrypto on any string, across block boundaries", async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.string({ maxLength: 200 }), fc.string({ unit: "grapheme", maxLength: 80 })), async (s) => {
        expect(sha256HexSync(s)).toBe(await webCrypto(s))
      }),
      { seed: 1124, numRuns: 300 }
    )
    for (let n = 50; n < 140; n++) expect(sha256HexSync("x".repeat(n))).toBe(await webCrypto("x".repeat(n)))
  })
})

const webCryptoHmac = async (key: Uint8Array, message: string) => {
  const k = await globalThis.crypto.subtle.importKey("raw", key, { name: "HMAC", hash: "SHA-256" }, false, ["sign"])
  return new Uint8Array(await globalThis.crypto.subtle.sign("HMAC", k, new TextEncoder().encode(message)))
}
const hexOf = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("")

describe("hmacSha256Sync", () => {
  it("RFC 4231 test cases 1, 2 and 6 (a key longer than a block)", () => {
    expect(hexOf(hmacSha256Sync(new Uint8Array(20).fill(0x0b), "Hi There")))
      .toBe("b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7")
    expect(hexOf(hmacSha256Sync(new TextEncoder().encode("Jefe"), "what do ya want for nothing?")))
      .toBe("5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    expect(hexOf(hmacSha256Sync(new Uint8Array(131).fill(0xaa), "Test Using Larger Than Block-Size Key - Hash Key First")))
      .toBe("60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
  })

  it("agrees with WebCrypto on any key and message, bytes or text", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ minLength: 1, maxLength: 150 }),
        fc.oneof(fc.string({ maxLength: 400 }), fc.string({ unit: "grapheme", maxLength: 80 })),
        async (key, message) => {
          const expected = await webCryptoHmac(key, message)
          expect(hmacSha256Sync(key, message)).toEqual(expected)
          expect(hmacSha256Sync(key, new TextEncoder().encode(message))).toEqual(expected)
        }
      ),
      { seed: 4231, numRuns: 300 }
    )
  })
})
