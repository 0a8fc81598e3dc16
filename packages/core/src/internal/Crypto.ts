/** Small WebCrypto helpers (core runs in any JS runtime, so no node:crypto). */
import { Effect } from "effect"
import { sha256HexSync } from "./Sha256.js"

export { hmacSha256Sync, sha256HexSync } from "./Sha256.js"

/**
 * SHA-256 of a UTF-8 string, lower-case hex. Synchronous plain JavaScript (shared/Sha256.ts): the
 * inputs are short secrets and keys, where WebCrypto's promise round trip costs more than hashing.
 */
export const sha256Hex = (input: string): Effect.Effect<string> => Effect.sync(() => sha256HexSync(input))

/** Compares two strings in time independent of where they differ (lengths are not secret here). */
export const constantTimeEqual = (a: string, b: string): boolean => {
  let diff = a.length ^ b.length
  const n = Math.max(a.length, b.length)
  for (let i = 0; i < n; i++) diff |= (a.charCodeAt(i) || 0) ^ (b.charCodeAt(i) || 0)
  return diff === 0
}

const te = new TextEncoder()

const BASE64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

/**
 * Base64url without padding (RFC 4648 §5), three bytes at a time from a table: twice as fast as
 * `btoa` over a spread of the bytes plus three replacements (every JWT part goes through it).
 */
export const base64url = (bytes: Uint8Array): string => {
  const n = bytes.length
  let out = ""
  let i = 0
  for (; i + 2 < n; i += 3) {
    const v = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!
    out += BASE64URL[v >> 18]! + BASE64URL[(v >> 12) & 63]! + BASE64URL[(v >> 6) & 63]! + BASE64URL[v & 63]!
  }
  if (i < n) {
    const v = (bytes[i]! << 16) | ((i + 1 < n ? bytes[i + 1]! : 0) << 8)
    out += BASE64URL[v >> 18]! + BASE64URL[(v >> 12) & 63]!
    if (i + 1 < n) out += BASE64URL[(v >> 6) & 63]!
  }
  return out
}

export const fromBase64url = (s: string): Uint8Array | undefined => {
  if (!/^[A-Za-z0-9_-]*$/.test(s)) return undefined
  try {
    return Uint8Array.from(atob(s.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0))
  } catch {
    return undefined
  }
}

/** HMAC-SHA-256 of a message under a raw key. */
export const hmacSha256 = (key: Uint8Array, message: Uint8Array | string): Effect.Effect<Uint8Array> =>
  Effect.promise(async () => {
    const k = await globalThis.crypto.subtle.importKey("raw", key, { name: "HMAC", hash: "SHA-256" }, false, ["sign"])
    return new Uint8Array(await globalThis.crypto.subtle.sign("HMAC", k, typeof message === "string" ? te.encode(message) : message))
  })

/** AES-256-GCM: `iv (12 bytes) || ciphertext+tag`, with `aad` bound to the purpose of the data. */
export const aesGcmEncrypt = (key: Uint8Array, plaintext: Uint8Array, aad: string, iv: Uint8Array): Effect.Effect<Uint8Array> =>
  Effect.promise(async () => {
    const k = await globalThis.crypto.subtle.importKey("raw", key, "AES-GCM", false, ["encrypt"])
    const ct = new Uint8Array(await globalThis.crypto.subtle.encrypt({ name: "AES-GCM", iv, additionalData: te.encode(aad) }, k, plaintext))
    const out = new Uint8Array(iv.length + ct.length)
    out.set(iv)
    out.set(ct, iv.length)
    return out
  })

/** Decrypts `aesGcmEncrypt`'s output; none when the data or its `aad` were tampered with. */
export const aesGcmDecrypt = (key: Uint8Array, sealed: Uint8Array, aad: string): Effect.Effect<Uint8Array | undefined> =>
  Effect.promise(async () => {
    try {
      const k = await globalThis.crypto.subtle.importKey("raw", key, "AES-GCM", false, ["decrypt"])
      return new Uint8Array(await globalThis.crypto.subtle.decrypt(
        { name: "AES-GCM", iv: sealed.subarray(0, 12), additionalData: te.encode(aad) },
        k,
        sealed.subarray(12)
      ))
    } catch {
      return undefined
    }
  })
