/** The synchronous SHA-256 (shared/Sha256.ts) agrees with WebCrypto and the FIPS 180-4 examples. */
import { describe, expect, it } from "@effect/vitest"
import { sha256HexSync } from "@switchboard/core"
import { FastCheck as fc } from "effect"

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
