/**
 * Client assertions of app installation (RFC 7523), as pure checks: every key family the server
 * accepts verifies, symmetric and `none` tokens never do, and each claim rule refuses with a reason
 * that names it. Key sets: public signing keys only.
 */
import { describe, expect, it } from "@effect/vitest"
import { keySetIssue, verifyClientAssertion } from "@switchboard/core/oauth"
import { Effect, Result } from "effect"
import { exportJWK, generateKeyPair, SignJWT, UnsecuredJWT } from "jose"

const APP = "sb_app_01m8bpty57f4wsy0g1980bvt5j"
const AUD = "https://api.example/v1/installation-requests"
const NOW = Date.parse("2030-01-01T00:00:00.000Z")
const s = Math.floor(NOW / 1000)

const sign = (key: Parameters<SignJWT["sign"]>[0], alg: string, claims: { exp?: number; jti?: string | undefined; nbf?: number } = {}) => {
  const jwt = new SignJWT(claims.nbf === undefined ? {} : { nbf: claims.nbf })
    .setProtectedHeader({ alg })
    .setIssuer(APP)
    .setSubject(APP)
    .setAudience(AUD)
    .setExpirationTime(claims.exp ?? s + 60)
  if (!("jti" in claims) || claims.jti !== undefined) jwt.setJti(claims.jti ?? "j-1")
  return jwt.sign(key)
}

const verify = (assertion: string, keys: ReadonlyArray<Record<string, unknown>>) =>
  verifyClientAssertion({ assertion, appId: APP, keys, audiences: [AUD], nowMillis: NOW }).pipe(Effect.result)

describe("client assertions", () => {
  it.effect("RSA, RSA-PSS, ECDSA and EdDSA keys verify; the jti comes back with the expiry (plus the skew)", () =>
    Effect.gen(function*() {
      for (const [alg, options] of [["RS256", {}], ["PS256", {}], ["ES256", {}], ["ES384", {}], ["EdDSA", {}]] as const) {
        const pair = yield* Effect.promise(() => generateKeyPair(alg, { extractable: true, ...options }))
        const jwk = yield* Effect.promise(() => exportJWK(pair.publicKey))
        expect(yield* keySetIssue([jwk])).toBeUndefined()
        const result = yield* verify(yield* Effect.promise(() => sign(pair.privateKey, alg)), [jwk])
        expect(Result.getOrThrow(result)).toEqual({ jti: "j-1", expiresAtMillis: (s + 60) * 1000 + 30_000 })
      }
    }))

  it.effect("refuses what is not a short-lived, identified, asymmetrically signed assertion", () =>
    Effect.gen(function*() {
      const pair = yield* Effect.promise(() => generateKeyPair("EdDSA", { extractable: true }))
      const jwk = yield* Effect.promise(() => exportJWK(pair.publicKey))
      const reason = (r: Result.Result<unknown, { reason: string }>) => Result.isFailure(r) ? r.failure.reason : "accepted"
      const unsecured = new UnsecuredJWT({}).setIssuer(APP).setSubject(APP).setAudience(AUD).setExpirationTime(s + 60).setJti("x").encode()
      expect(reason(yield* verify(unsecured, [jwk]))).toContain("must be signed with one of")
      const hmac = yield* Effect.promise(() =>
        new SignJWT({}).setProtectedHeader({ alg: "HS256" }).setIssuer(APP).setSubject(APP).setAudience(AUD).setExpirationTime(s + 60).setJti("x")
          .sign(new TextEncoder().encode("0123456789abcdef0123456789abcdef")))
      expect(reason(yield* verify(hmac, [jwk, { kty: "oct", k: "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY" }]))).toContain("must be signed with one of")
      expect(reason(yield* verify(yield* Effect.promise(() => sign(pair.privateKey, "EdDSA", { jti: undefined })), [jwk]))).toContain("jti")
      expect(reason(yield* verify(yield* Effect.promise(() => sign(pair.privateKey, "EdDSA", { jti: "j".repeat(257) })), [jwk]))).toContain("jti must be")
      expect(reason(yield* verify(yield* Effect.promise(() => sign(pair.privateKey, "EdDSA", { exp: s + 331 })), [jwk]))).toContain("within 300 seconds")
      expect(reason(yield* verify(yield* Effect.promise(() => sign(pair.privateKey, "EdDSA", { exp: s + 330 })), [jwk]))).toBe("accepted")
      expect(reason(yield* verify(yield* Effect.promise(() => sign(pair.privateKey, "EdDSA", { exp: s - 31 })), [jwk]))).toContain("expired")
      expect(reason(yield* verify(yield* Effect.promise(() => sign(pair.privateKey, "EdDSA", { exp: s - 29 })), [jwk]))).toBe("accepted")
      expect(reason(yield* verify(yield* Effect.promise(() => sign(pair.privateKey, "EdDSA", { nbf: s + 120 })), [jwk]))).toContain("nbf")
    }))

  it.effect("key sets: public signing keys, 1 to 5, no repeated kid", () =>
    Effect.gen(function*() {
      const pair = yield* Effect.promise(() => generateKeyPair("ES256", { extractable: true }))
      const pub = yield* Effect.promise(() => exportJWK(pair.publicKey))
      const priv = yield* Effect.promise(() => exportJWK(pair.privateKey))
      const issue = (keys: ReadonlyArray<Record<string, unknown>>) => Effect.map(keySetIssue(keys), (i) => i?.message ?? "ok")
      expect(yield* issue([pub])).toBe("ok")
      expect(yield* issue([])).toContain("1 to 5")
      expect(yield* issue(Array.from({ length: 6 }, () => pub))).toContain("1 to 5")
      expect(yield* issue([priv])).toContain("public key")
      expect(yield* issue([{ ...pub, use: "enc" }])).toContain("use must be sig")
      expect(yield* issue([{ ...pub, kid: "a" }, { ...pub, kid: "a" }])).toContain("kid must not repeat")
      expect(yield* issue([{ ...pub, alg: "HS256" }])).toContain("alg must be one of")
      expect(yield* issue([{ ...pub, x: "AAAA" }])).toContain("not a valid key")
      expect(yield* issue([{ kty: "RSA", n: "AQAB", e: "AQAB" }])).toContain("2048 bits")
      expect(yield* issue([{ kty: "OKP", crv: "X25519", x: "a".repeat(43) }])).toContain("RSA, EC")
    }))
})
