/** Small WebCrypto helpers (core runs in any JS runtime, so no node:crypto). */
import { Effect } from "effect"

const hex = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("")

/** SHA-256 of a UTF-8 string, lower-case hex. */
export const sha256Hex = (input: string): Effect.Effect<string> =>
  Effect.promise(() => globalThis.crypto.subtle.digest("SHA-256", new TextEncoder().encode(input))).pipe(
    Effect.map((buf) => hex(new Uint8Array(buf)))
  )

/** Compares two strings in time independent of where they differ (lengths are not secret here). */
export const constantTimeEqual = (a: string, b: string): boolean => {
  let diff = a.length ^ b.length
  const n = Math.max(a.length, b.length)
  for (let i = 0; i < n; i++) diff |= (a.charCodeAt(i) || 0) ^ (b.charCodeAt(i) || 0)
  return diff === 0
}
