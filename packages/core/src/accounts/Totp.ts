/**
 * HOTP (RFC 4226) and TOTP (RFC 6238) as authenticator apps use them — HMAC-SHA-1, 6 digits,
 * 30-second steps — and the RFC 4648 base32 their secrets are written in. The HMAC is WebCrypto's
 * (core runs in any JS runtime); everything else is plain functions.
 */
import { Effect } from "effect"
import { constantTimeEqual } from "../internal/Crypto.js"

export const TOTP_PERIOD_SECONDS = 30
export const TOTP_DIGITS = 6
export const TOTP_ISSUER = "Switchboard"
/** Steps of clock drift accepted either side of the current one. */
export const TOTP_DRIFT_STEPS = 1

const BASE32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"

/** RFC 4648 base32, upper case, without padding (what otpauth URIs carry). */
export const encodeBase32Rfc4648 = (bytes: Uint8Array): string => {
  let out = ""
  let acc = 0
  let bits = 0
  for (const b of bytes) {
    acc = ((acc << 8) | b) & 0xffff
    bits += 8
    while (bits >= 5) {
      out += BASE32[(acc >>> (bits - 5)) & 31]
      bits -= 5
    }
  }
  if (bits > 0) out += BASE32[(acc << (5 - bits)) & 31]
  return out
}

/** Decodes RFC 4648 base32 (either case, padding optional); undefined when it is not base32. */
export const decodeBase32Rfc4648 = (text: string): Uint8Array | undefined => {
  const clean = text.toUpperCase().replace(/=+$/, "")
  if (!/^[A-Z2-7]*$/.test(clean)) return undefined
  const out: Array<number> = []
  let acc = 0
  let bits = 0
  for (const ch of clean) {
    acc = ((acc << 5) | BASE32.indexOf(ch)) & 0xffff
    bits += 5
    if (bits >= 8) {
      out.push((acc >>> (bits - 8)) & 0xff)
      bits -= 8
    }
  }
  return Uint8Array.from(out)
}

/** The moving factor as 8 bytes, big-endian (RFC 4226 §5.1). */
export const hotpCounterBytes = (counter: number): Uint8Array => {
  const out = new Uint8Array(8)
  let n = BigInt(Math.floor(counter))
  for (let i = 7; i >= 0; i--) {
    out[i] = Number(n & 0xffn)
    n >>= 8n
  }
  return out
}

/** Dynamic truncation of an HMAC result to `digits` decimal digits (RFC 4226 §5.3). */
export const dynamicTruncate = (mac: Uint8Array, digits: number): string => {
  const offset = mac[mac.length - 1]! & 0x0f
  const binary = ((mac[offset]! & 0x7f) << 24) | (mac[offset + 1]! << 16) | (mac[offset + 2]! << 8) | mac[offset + 3]!
  return String(binary % 10 ** digits).padStart(digits, "0")
}

const hmacSha1 = (key: Uint8Array, message: Uint8Array): Effect.Effect<Uint8Array> =>
  Effect.promise(async () => {
    const k = await globalThis.crypto.subtle.importKey("raw", key, { name: "HMAC", hash: "SHA-1" }, false, ["sign"])
    return new Uint8Array(await globalThis.crypto.subtle.sign("HMAC", k, message))
  })

/** HOTP(K, C) with HMAC-SHA-1 (RFC 4226). */
export const hotp = (key: Uint8Array, counter: number, digits = TOTP_DIGITS): Effect.Effect<string> =>
  Effect.map(hmacSha1(key, hotpCounterBytes(counter)), (mac) => dynamicTruncate(mac, digits))

/** The time step of an instant: floor(unix seconds / 30) (RFC 6238 §4, T0 = 0). */
export const totpStep = (epochMillis: number): number => Math.floor(epochMillis / 1000 / TOTP_PERIOD_SECONDS)

/** TOTP at an instant (RFC 6238 with SHA-1). */
export const totp = (key: Uint8Array, epochMillis: number, digits = TOTP_DIGITS): Effect.Effect<string> =>
  hotp(key, totpStep(epochMillis), digits)

/**
 * The steps within `TOTP_DRIFT_STEPS` of `step` whose code is `code`, oldest first. Every candidate
 * is computed and compared in constant time, so the answer's timing does not tell which one matched.
 */
export const totpMatchingSteps = (key: Uint8Array, code: string, step: number): Effect.Effect<ReadonlyArray<number>> =>
  Effect.gen(function*() {
    const matches: Array<number> = []
    for (let s = step - TOTP_DRIFT_STEPS; s <= step + TOTP_DRIFT_STEPS; s++) {
      if (s < 0) continue
      if (constantTimeEqual(yield* hotp(key, s), code)) matches.push(s)
    }
    return matches
  })

/**
 * The provisioning URI authenticator apps scan (Key Uri Format): label `Switchboard:<email>`, the
 * base32 secret, and the parameters spelled out even where they are the defaults.
 */
export const otpauthUri = (email: string, secretBase32: string): string =>
  `otpauth://totp/${encodeURIComponent(TOTP_ISSUER)}:${encodeURIComponent(email)}` +
  `?secret=${secretBase32}&issuer=${encodeURIComponent(TOTP_ISSUER)}` +
  `&algorithm=SHA1&digits=${TOTP_DIGITS}&period=${TOTP_PERIOD_SECONDS}`
