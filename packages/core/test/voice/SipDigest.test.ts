/** SIP Digest material (voice/SipDigest.ts): MD5 against node's, HA1 per RFC 2617/8760, sealing. */
import { describe, expect, it } from "@effect/vitest"
import {
  digestMaterial,
  md5Hex,
  sealDigestMaterial,
  unsealDigestMaterial,
  matchesDigest
} from "@switchboard/core/voice"
import { TestServerSecret } from "@switchboard/testkit"
import { Effect, Layer } from "effect"
import * as fc from "fast-check"
import { SecretsLive } from "@switchboard/core/shared"
import { createHash } from "node:crypto"

const Keys = Layer.mergeAll(TestServerSecret, SecretsLive)

describe("SipDigest", () => {
  it("md5Hex: RFC 1321 test vectors", () => {
    expect(md5Hex("")).toBe("d41d8cd98f00b204e9800998ecf8427e")
    expect(md5Hex("a")).toBe("0cc175b9c0f1b6a831c399e269772661")
    expect(md5Hex("abc")).toBe("900150983cd24fb0d6963f7d28e17f72")
    expect(md5Hex("message digest")).toBe("f96b697d7cb7938d525a2f31aaf161d0")
    expect(md5Hex("12345678901234567890123456789012345678901234567890123456789012345678901234567890"))
      .toBe("57edf4a22be3c955ac49da2e2107b67a")
  })

  it("md5Hex agrees with node:crypto for any string (padding boundaries, unicode)", () => {
    fc.assert(fc.property(fc.string({ unit: "binary", maxLength: 300 }), (s) => {
      expect(md5Hex(s)).toBe(createHash("md5").update(s, "utf8").digest("hex"))
    }))
  })

  it.effect("HA1 for both algorithms; sealed material round-trips and verifies only the right password", () =>
    Effect.gen(function*() {
      const m = yield* digestMaterial("alice", "sip.example.com", "s3cret")
      expect(m.md5).toBe(createHash("md5").update("alice:sip.example.com:s3cret").digest("hex"))
      expect(m["sha-256"]).toBe(createHash("sha256").update("alice:sip.example.com:s3cret").digest("hex"))
      const sealed = yield* sealDigestMaterial(m)
      expect(sealed).not.toContain(m.md5)
      expect(yield* unsealDigestMaterial(sealed)).toEqual(m)
      expect(yield* unsealDigestMaterial(`${sealed.slice(0, -2)}AA`)).toBeUndefined()
      for (const algorithm of ["sha-256", "md5"] as const) {
        expect(yield* matchesDigest(sealed, algorithm, "alice", "sip.example.com", "s3cret")).toBe(true)
        expect(yield* matchesDigest(sealed, algorithm, "alice", "sip.example.com", "s3cret!")).toBe(false)
      }
    }).pipe(Effect.provide(Keys)))
})
