import { describe, expect, it } from "@effect/vitest"
import {
  formatCredential,
  MAX_CREDENTIAL_LENGTH,
  newSecret,
  parseCredential,
  SECRET_BYTES,
  SECRET_LENGTH
} from "@switchboard/core/credentials"
import { CROCKFORD, encodeBase32Uuid, IdKinds, Secrets, SecretsLive, SVC } from "@switchboard/core/shared"
import { SecretsSeeded } from "@switchboard/testkit"
import { Effect, Layer, Redacted } from "effect"
import * as fc from "fast-check"
import { runLikeTest } from "../Properties.js"

const kinds = [
  { kind: IdKinds.accountServiceKey, tag: "AccountServiceKey" as const },
  { kind: IdKinds.projectApiKey, tag: "ProjectApiKey" as const }
]

const bytes = (n: number) => fc.uint8Array({ minLength: n, maxLength: n })
const idBytes = bytes(16)
const secretBytes = bytes(SECRET_BYTES)
const kindArb = fc.constantFrom(...kinds)

/** Encodes bytes to 52 Crockford characters the way `newSecret` does, through a Secrets that returns exactly them. */
const secretFrom = (b: Uint8Array) => {
  const requested: Array<number> = []
  const secrets = Layer.succeed(Secrets, {
    randomBytes: (n) => Effect.sync(() => {
      requested.push(n)
      return b.slice(0, n)
    })
  })
  const secret = Effect.runSync(Effect.provide(newSecret, secrets))
  return { secret, requested }
}

/** Decodes lower-case Crockford base32 (5 bits a character) back into `n` bytes. */
const decodeBase32 = (s: string, n: number): Uint8Array => {
  const out = new Uint8Array(n)
  let acc = 0
  let bits = 0
  let i = 0
  for (const c of s) {
    acc = (acc << 5) | CROCKFORD.indexOf(c)
    bits += 5
    if (bits >= 8) {
      if (i < n) out[i++] = (acc >>> (bits - 8)) & 0xff
      bits -= 8
    }
    acc &= (1 << bits) - 1
  }
  return out
}

const keyIdOf = (kind: string, id: Uint8Array) => `${SVC}_${kind}_${encodeBase32Uuid(id)}`

/** Any single UTF-16 code unit that is not a lower-case Crockford character. */
const outsideAlphabet = fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)).filter((c) => !CROCKFORD.includes(c))

describe("Credential", () => {
  it("parseCredential(formatCredential(keyId, secret)) round-trips for ask and sk", () => {
    fc.assert(fc.property(kindArb, idBytes, secretBytes, ({ kind, tag }, id, sb) => {
      const keyId = keyIdOf(kind, id)
      const secret = secretFrom(sb).secret
      const parsed = parseCredential(Redacted.value(formatCredential(keyId, secret)))
      expect(parsed?._tag).toBe(tag)
      if (parsed === undefined || parsed._tag === "AccessToken") return
      expect(parsed.keyId).toBe(keyId)
      expect(Redacted.value(parsed.secret)).toBe(Redacted.value(secret))
    }), { numRuns: 200 })
  })

  it("the credential has a fixed length per kind", () => {
    fc.assert(fc.property(kindArb, idBytes, secretBytes, ({ kind }, id, sb) => {
      const credential = Redacted.value(formatCredential(keyIdOf(kind, id), secretFrom(sb).secret))
      expect(credential.length).toBe(`${SVC}_${kind}_`.length + 26 + 1 + SECRET_LENGTH)
      expect(credential.length).toBe(kind === "ask" ? 86 : 85)
    }))
  })

  it("changing one character of the id part to one outside the alphabet makes it malformed", () => {
    fc.assert(fc.property(kindArb, idBytes, secretBytes, fc.integer({ min: 0, max: 25 }), outsideAlphabet, ({ kind }, id, sb, position, replacement) => {
      const credential = Redacted.value(formatCredential(keyIdOf(kind, id), secretFrom(sb).secret))
      const index = `${SVC}_${kind}_`.length + position
      const mutated = credential.slice(0, index) + replacement + credential.slice(index + 1)
      expect(mutated.length).toBe(credential.length)
      expect(parseCredential(mutated)).toBeUndefined()
    }), { numRuns: 500 })
  })

  it("a first id character of 8-z makes it malformed", () => {
    fc.assert(fc.property(kindArb, idBytes, secretBytes, fc.constantFrom(...CROCKFORD.slice(8)), ({ kind }, id, sb, replacement) => {
      const credential = Redacted.value(formatCredential(keyIdOf(kind, id), secretFrom(sb).secret))
      const index = `${SVC}_${kind}_`.length
      expect(parseCredential(credential.slice(0, index) + replacement + credential.slice(index + 1))).toBeUndefined()
    }))
  })

  it("changing one character of the secret to one outside the alphabet makes it malformed", () => {
    fc.assert(fc.property(kindArb, idBytes, secretBytes, fc.integer({ min: 1, max: SECRET_LENGTH }), outsideAlphabet, ({ kind }, id, sb, fromEnd, replacement) => {
      const credential = Redacted.value(formatCredential(keyIdOf(kind, id), secretFrom(sb).secret))
      const index = credential.length - fromEnd
      expect(parseCredential(credential.slice(0, index) + replacement + credential.slice(index + 1))).toBeUndefined()
    }))
  })

  it("strings over 8192 characters are rejected, even when otherwise well-formed", () => {
    fc.assert(fc.property(fc.integer({ min: MAX_CREDENTIAL_LENGTH + 1, max: 4 * MAX_CREDENTIAL_LENGTH }), (length) => {
      const jwtLike = `aa.${"b".repeat(length - 6)}.cc`
      expect(jwtLike.length).toBe(length)
      expect(parseCredential(jwtLike)).toBeUndefined()
    }), { numRuns: 50 })
  })

  it("a JWT-shaped string of exactly 8192 characters is still looked at", () => {
    const jwtLike = `aa.${"b".repeat(MAX_CREDENTIAL_LENGTH - 6)}.cc`
    expect(jwtLike.length).toBe(MAX_CREDENTIAL_LENGTH)
    expect(parseCredential(jwtLike)?._tag).toBe("AccessToken")
    expect(parseCredential(`${jwtLike}c`)).toBeUndefined()
  })

  it("the empty string and a bare prefix are malformed", () => {
    expect(parseCredential("")).toBeUndefined()
    expect(parseCredential(`${SVC}_ask_`)).toBeUndefined()
    expect(parseCredential(`${SVC}_sk_`)).toBeUndefined()
  })

  it("newSecret draws 32 bytes and yields their 52-character Crockford encoding (injective)", () => {
    fc.assert(fc.property(secretBytes, (sb) => {
      const { requested, secret } = secretFrom(sb)
      expect(requested).toEqual([SECRET_BYTES])
      const value = Redacted.value(secret)
      expect(value).toHaveLength(SECRET_LENGTH)
      expect(value).toMatch(/^[0-9a-hjkmnp-tv-z]{52}$/)
      expect(decodeBase32(value, SECRET_BYTES)).toEqual(sb)
    }), { numRuns: 300 })
  })

  it("newSecret from a seeded generator yields 52 Crockford characters", () =>
    fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 2 ** 31 - 1 }), (seed) =>
        runLikeTest(
          Effect.gen(function*() {
            const value = Redacted.value(yield* newSecret)
            expect(value).toHaveLength(52)
            for (const c of value) expect(CROCKFORD).toContain(c)
          }).pipe(Effect.provide(SecretsSeeded(seed)))
        )),
      { numRuns: 50 }
    ))

  it.effect("newSecret with the live CSPRNG yields 52 Crockford characters and differs each time", () =>
    Effect.gen(function*() {
      const values = yield* Effect.forEach(Array.from({ length: 50 }), () => Effect.map(newSecret, Redacted.value))
      for (const v of values) expect(v).toMatch(/^[0-9a-hjkmnp-tv-z]{52}$/)
      expect(new Set(values).size).toBe(values.length)
    }).pipe(Effect.provide(SecretsLive)))

  it("formatCredential keeps the credential redacted", () => {
    const credential = formatCredential(`${SVC}_ask_${"0".repeat(26)}`, Redacted.make("s".repeat(52)))
    expect(String(credential)).not.toContain("s".repeat(52))
    expect(Redacted.value(credential)).toBe(`${SVC}_ask_${"0".repeat(26)}_${"s".repeat(52)}`)
  })
})
