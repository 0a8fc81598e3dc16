/**
 * The server's Ed25519 signer (node:crypto, synchronous) against core's default (WebCrypto): Ed25519
 * is deterministic (RFC 8032), so both must produce the very same compact JWS for the same key and
 * claims, and jose must verify it; a token signed by another key must not verify.
 */
import { generateSigningKey, signJwt, webCryptoEd25519Signer } from "@switchboard/core/oauth"
import { Effect } from "effect"
import * as jose from "jose"
import { describe, expect, it } from "vitest"
import { nodeEd25519Signer } from "../../src/server/Ed25519SignerNode.js"

describe("nodeEd25519Signer", () => {
  it("signs exactly as WebCrypto does, and jose verifies the token", async () => {
    const key = await Effect.runPromise(generateSigningKey)
    const other = await Effect.runPromise(generateSigningKey)
    const payload = { sub: "sb_acc_x", aud: "client", iss: "https://issuer.example", iat: 1_700_000_000, exp: 4_000_000_000, name: "Zoë Ünïcode" }
    for (const typ of [undefined, "at+jwt"]) {
      const header = typ === undefined ? {} : { typ }
      const viaNode = await Effect.runPromise(signJwt(key.privateKey, key.kid, payload, header, nodeEd25519Signer))
      // Twice with the same key: the cached KeyObject gives the same signature.
      expect(await Effect.runPromise(signJwt(key.privateKey, key.kid, payload, header, nodeEd25519Signer))).toBe(viaNode)
      expect(await Effect.runPromise(signJwt(key.privateKey, key.kid, payload, header, webCryptoEd25519Signer))).toBe(viaNode)
      const verified = await jose.jwtVerify(viaNode, key.publicKey, { algorithms: ["EdDSA"] })
      expect(verified.payload).toEqual(payload)
      expect(verified.protectedHeader).toEqual({ alg: "EdDSA", kid: key.kid, ...header })
      await expect(jose.jwtVerify(viaNode, other.publicKey, { algorithms: ["EdDSA"] })).rejects.toThrow()
    }
  })
})
