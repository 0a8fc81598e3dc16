/**
 * SIP Digest material (RFC 3261 §22, RFC 8760): a registrar verifies Digest responses from
 * HA1 = H(username ":" realm ":" password), so HA1 is what we keep instead of the password — for
 * both algorithms the contract offers (`sha-256`, `md5`), so the algorithm can change without a new
 * password. The material is sealed under the server secret at rest.
 *
 * MD5 is not in WebCrypto, and core runs in any JS runtime, so it is implemented here (RFC 1321);
 * it is used only for legacy Digest, never as a security primitive of ours.
 */
import { Effect } from "effect"
import { base64url, constantTimeEqual, fromBase64url, sha256Hex } from "../internal/Crypto.js"
import { seal, unseal } from "../shared/ServerSecret.js"
import type { SipAuthenticationAlgorithm } from "./VoiceProfileSchema.js"

const S = [
  7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22,
  5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20,
  4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23,
  6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21
]
const K = Array.from({ length: 64 }, (_, i) => Math.floor(Math.abs(Math.sin(i + 1)) * 2 ** 32) >>> 0)

/** MD5 of UTF-8 `input`, lower-case hex (RFC 1321). */
export const md5Hex = (input: string): string => {
  const bytes = new TextEncoder().encode(input)
  const bitLength = bytes.length * 8
  const padded = new Uint8Array((((bytes.length + 8) >> 6) + 1) * 64)
  padded.set(bytes)
  padded[bytes.length] = 0x80
  const view = new DataView(padded.buffer)
  view.setUint32(padded.length - 8, bitLength >>> 0, true)
  view.setUint32(padded.length - 4, Math.floor(bitLength / 2 ** 32), true)
  let a0 = 0x67452301
  let b0 = 0xefcdab89
  let c0 = 0x98badcfe
  let d0 = 0x10325476
  const m = new Array<number>(16)
  for (let offset = 0; offset < padded.length; offset += 64) {
    for (let i = 0; i < 16; i++) m[i] = view.getUint32(offset + i * 4, true)
    let a = a0
    let b = b0
    let c = c0
    let d = d0
    for (let i = 0; i < 64; i++) {
      let f: number
      let g: number
      if (i < 16) {
        f = (b & c) | (~b & d)
        g = i
      } else if (i < 32) {
        f = (d & b) | (~d & c)
        g = (5 * i + 1) % 16
      } else if (i < 48) {
        f = b ^ c ^ d
        g = (3 * i + 5) % 16
      } else {
        f = c ^ (b | ~d)
        g = (7 * i) % 16
      }
      const sum = (a + f + K[i]! + m[g]!) >>> 0
      a = d
      d = c
      c = b
      b = (b + ((sum << S[i]!) | (sum >>> (32 - S[i]!)))) >>> 0
    }
    a0 = (a0 + a) >>> 0
    b0 = (b0 + b) >>> 0
    c0 = (c0 + c) >>> 0
    d0 = (d0 + d) >>> 0
  }
  let out = ""
  for (const word of [a0, b0, c0, d0]) {
    for (let i = 0; i < 4; i++) out += ((word >>> (i * 8)) & 0xff).toString(16).padStart(2, "0")
  }
  return out
}

/** HA1 for both algorithms. */
export interface DigestMaterial {
  readonly "sha-256": string
  readonly md5: string
}

export const digestMaterial = (username: string, realm: string, password: string): Effect.Effect<DigestMaterial> =>
  Effect.map(sha256Hex(`${username}:${realm}:${password}`), (sha) => ({
    "sha-256": sha,
    md5: md5Hex(`${username}:${realm}:${password}`)
  }))

const PURPOSE = "voice-sip-digest"

/** Seals the material for storage (base64url of AES-GCM under the server secret). */
export const sealDigestMaterial = (material: DigestMaterial) =>
  Effect.map(seal(PURPOSE, new TextEncoder().encode(JSON.stringify(material))), base64url)

/** The material a sealed string holds; none if it does not authenticate. */
export const unsealDigestMaterial = (sealed: string) =>
  Effect.gen(function*() {
    const bytes = fromBase64url(sealed)
    if (bytes === undefined) return undefined
    const plain = yield* unseal(PURPOSE, bytes)
    if (plain === undefined) return undefined
    return JSON.parse(new TextDecoder().decode(plain)) as DigestMaterial
  })

/** Whether `password` matches the sealed material for `algorithm` (constant-time compare). */
export const matchesDigest = (
  sealed: string,
  algorithm: SipAuthenticationAlgorithm,
  username: string,
  realm: string,
  password: string
) =>
  Effect.gen(function*() {
    const material = yield* unsealDigestMaterial(sealed)
    if (material === undefined) return false
    const candidate = yield* digestMaterial(username, realm, password)
    return constantTimeEqual(candidate[algorithm], material[algorithm])
  })

const INBOUND_PURPOSE = "voice-sip-inbound-password"

/** Seals an inbound destination password (it must be replayed to the customer's SIP server). */
export const sealInboundPassword = (password: string) =>
  Effect.map(seal(INBOUND_PURPOSE, new TextEncoder().encode(password)), base64url)

export const unsealInboundPassword = (sealed: string) =>
  Effect.gen(function*() {
    const bytes = fromBase64url(sealed)
    if (bytes === undefined) return undefined
    const plain = yield* unseal(INBOUND_PURPOSE, bytes)
    return plain === undefined ? undefined : new TextDecoder().decode(plain)
  })
