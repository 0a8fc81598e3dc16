/**
 * PKCE (RFC 7636) with `S256` only (docs/api-notes/oauth.md): the challenge is exactly 43 base64url
 * characters (a SHA-256 digest), the verifier 43 to 128 unreserved characters, and
 * `BASE64URL(SHA256(verifier))` must equal the challenge.
 */
import { Effect } from "effect"
import { base64url, constantTimeEqual } from "../internal/Crypto.js"

export const CODE_CHALLENGE_METHOD = "S256"

const challengePattern = /^[A-Za-z0-9_-]{43}$/
const verifierPattern = /^[A-Za-z0-9._~-]{43,128}$/

/** Whether `challenge` can be an S256 challenge: 43 base64url characters. */
export const isCodeChallenge = (challenge: string): boolean => challengePattern.test(challenge)

/** Whether `verifier` is a well-formed code verifier (RFC 7636 §4.1). */
export const isCodeVerifier = (verifier: string): boolean => verifierPattern.test(verifier)

/** `BASE64URL(SHA256(ASCII(verifier)))`. */
export const s256 = (verifier: string): Effect.Effect<string> =>
  Effect.promise(() => globalThis.crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier))).pipe(
    Effect.map((digest) => base64url(new Uint8Array(digest)))
  )

/** Whether `verifier` answers `challenge` (a malformed verifier never does). */
export const verifierMatches = (verifier: string, challenge: string): Effect.Effect<boolean> =>
  isCodeVerifier(verifier) ? Effect.map(s256(verifier), (computed) => constantTimeEqual(computed, challenge)) : Effect.succeed(false)
