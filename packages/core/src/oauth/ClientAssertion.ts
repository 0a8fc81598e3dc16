/**
 * Client assertions of the app installation flow (RFC 7523 §2.2, §3; docs/app-installation.md): a
 * JWT signed with a key of the app's registered JWK Set, `iss` = `sub` = the app's `client_id`,
 * `aud` naming this server (the endpoint called or the API's base URL), a `jti`, and an `exp` at
 * most five minutes ahead (30 s of clock skew allowed). Asymmetric algorithms only: the server
 * never holds a secret able to sign for an app. The key set an app registers is checked here too: 1
 * to 5 public signing keys (RSA of 2048 bits or more, EC P-256/384/521, Ed25519), no private
 * members.
 */
import { Effect } from "effect"
import { createLocalJWKSet, importJWK, type JWK, jwtVerify } from "jose"
import { AppInstallationAssertionInvalid } from "./AppInstallationErrors.js"
import type { SettingIssue } from "./OAuthSchema.js"

export const ASSERTION_ALGORITHMS = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"]
/** The longest an assertion may live (its `exp` minus now). */
export const MAX_ASSERTION_LIFETIME_SECONDS = 300
export const CLOCK_SKEW_SECONDS = 30
const JTI_MAX = 256
const KEY_SET_MAX_CHARS = 16_384
const privateMembers = ["d", "p", "q", "dp", "dq", "qi", "oth", "k"]

/** The algorithm a key is imported with to check it (any of its family would do). */
const checkAlgorithm = (jwk: Record<string, unknown>): string | undefined =>
  jwk.kty === "RSA" ? "RS256"
  : jwk.kty === "EC" ? ({ "P-256": "ES256", "P-384": "ES384", "P-521": "ES512" } as Record<string, string>)[String(jwk.crv)]
  : jwk.kty === "OKP" && jwk.crv === "Ed25519" ? "EdDSA"
  : undefined

/** What is wrong with a key set an app registers, if anything. */
export const keySetIssue = (keys: ReadonlyArray<Record<string, unknown>>): Effect.Effect<SettingIssue | undefined> =>
  Effect.gen(function*() {
    if (keys.length === 0 || keys.length > 5) return { field: "keys", message: "must list 1 to 5 keys" }
    if (JSON.stringify(keys).length > KEY_SET_MAX_CHARS) return { field: "keys", message: `must be at most ${KEY_SET_MAX_CHARS} characters of JSON` }
    const kids = new Set<string>()
    for (const [i, jwk] of keys.entries()) {
      const field = `keys/${i}`
      if (privateMembers.some((m) => m in jwk)) return { field, message: "must be a public key (no private or symmetric members)" }
      if (jwk.use !== undefined && jwk.use !== "sig") return { field, message: "use must be sig" }
      if (jwk.kid !== undefined) {
        if (typeof jwk.kid !== "string" || jwk.kid.length === 0 || jwk.kid.length > 128) return { field, message: "kid must be 1 to 128 characters" }
        if (kids.has(jwk.kid)) return { field, message: "kid must not repeat" }
        kids.add(jwk.kid)
      }
      if (jwk.alg !== undefined && !ASSERTION_ALGORITHMS.includes(String(jwk.alg))) {
        return { field, message: `alg must be one of ${ASSERTION_ALGORITHMS.join(", ")}` }
      }
      const alg = checkAlgorithm(jwk)
      if (alg === undefined) return { field, message: "must be an RSA, EC (P-256, P-384, P-521) or Ed25519 public key" }
      if (jwk.kty === "RSA" && (typeof jwk.n !== "string" || jwk.n.length < 342)) return { field, message: "RSA keys must have at least 2048 bits" }
      const imported = yield* Effect.tryPromise(() => importJWK(jwk as JWK, alg)).pipe(Effect.option)
      if (imported._tag === "None") return { field, message: "is not a valid key" }
    }
    return undefined
  })

/** Why jose refused a token, in words (no key material). */
const reasonOf = (e: unknown): string => {
  const err = e as { code?: string; claim?: string; reason?: string }
  switch (err.code) {
    case "ERR_JWT_EXPIRED":
      return "the assertion has expired"
    case "ERR_JWT_CLAIM_VALIDATION_FAILED":
      return err.claim === "aud" ? "the assertion's aud does not name this server"
        : err.claim === "iss" || err.claim === "sub" ? `the assertion's ${err.claim} must be the app id`
        : `the assertion's ${err.claim ?? "claims"} claim is not acceptable`
    case "ERR_JWKS_NO_MATCHING_KEY":
    case "ERR_JWKS_MULTIPLE_MATCHING_KEYS":
    case "ERR_JWS_SIGNATURE_VERIFICATION_FAILED":
      return "the assertion is not signed by a key the app registered"
    case "ERR_JOSE_ALG_NOT_ALLOWED":
      return `the assertion must be signed with one of ${ASSERTION_ALGORITHMS.join(", ")}`
    default:
      return "the assertion is not a valid signed JWT"
  }
}

/**
 * Verifies `assertion` for app `appId` with its registered `keys`; answers its `jti` and expiry.
 * Every refusal is `AppInstallationAssertionInvalid` (replay is the caller's check, on the jti).
 */
export const verifyClientAssertion = (args: {
  readonly assertion: string
  readonly appId: string
  readonly keys: ReadonlyArray<Record<string, unknown>>
  /** Accepted `aud` values (any one of them suffices). */
  readonly audiences: ReadonlyArray<string>
  readonly nowMillis: number
}): Effect.Effect<{ readonly jti: string; readonly expiresAtMillis: number }, AppInstallationAssertionInvalid> =>
  Effect.gen(function*() {
    const invalid = (reason: string) => new AppInstallationAssertionInvalid({ reason })
    const verified = yield* Effect.tryPromise({
      try: () =>
        jwtVerify(args.assertion, createLocalJWKSet({ keys: args.keys as Array<JWK> }), {
          algorithms: ASSERTION_ALGORITHMS,
          issuer: args.appId,
          subject: args.appId,
          audience: [...args.audiences],
          currentDate: new Date(args.nowMillis),
          clockTolerance: CLOCK_SKEW_SECONDS,
          requiredClaims: ["exp", "jti"]
        }),
      catch: (e) => invalid(reasonOf(e))
    })
    const { exp, jti } = verified.payload
    if (typeof jti !== "string" || jti.length === 0 || jti.length > JTI_MAX) return yield* invalid(`jti must be 1 to ${JTI_MAX} characters`)
    const expMillis = (exp ?? 0) * 1000
    if (expMillis - args.nowMillis > (MAX_ASSERTION_LIFETIME_SECONDS + CLOCK_SKEW_SECONDS) * 1000) {
      return yield* invalid(`the assertion must expire within ${MAX_ASSERTION_LIFETIME_SECONDS} seconds`)
    }
    return { jti, expiresAtMillis: Math.max(expMillis, args.nowMillis) + CLOCK_SKEW_SECONDS * 1000 }
  })
