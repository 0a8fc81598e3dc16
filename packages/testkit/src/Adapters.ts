/**
 * Non-repository ports for tests. The testkit runs wherever core runs, so its password hasher is
 * WebCrypto PBKDF2 with a low iteration count — fast in tests and clearly not the production hasher
 * (the standalone server uses scrypt). Randomness can be seeded for reproducible ids and secrets.
 */
import { PasswordHasher } from "@switchboard/core/accounts"
import { constantTimeEqual } from "@switchboard/core/internal"
import { Secrets, ServerSecretFromBytes } from "@switchboard/core/shared"
import { Effect, Layer, Redacted } from "effect"

const ITERATIONS = 1000
const b64 = (b: Uint8Array) => btoa(String.fromCharCode(...b))
const unb64 = (s: string) => Uint8Array.from(atob(s), (c) => c.charCodeAt(0))

const derive = (password: string, salt: Uint8Array, iterations: number) =>
  Effect.promise(async () => {
    const key = await crypto.subtle.importKey("raw", new TextEncoder().encode(password), "PBKDF2", false, ["deriveBits"])
    const bits = await crypto.subtle.deriveBits({ name: "PBKDF2", hash: "SHA-256", salt, iterations }, key, 256)
    return b64(new Uint8Array(bits))
  })

/** `pbkdf2-test$iterations$salt$hash`. */
export const PasswordHasherTest: Layer.Layer<PasswordHasher> = Layer.succeed(PasswordHasher, {
  hash: (password) =>
    Effect.suspend(() => {
      const salt = crypto.getRandomValues(new Uint8Array(16))
      return Effect.map(derive(Redacted.value(password), salt, ITERATIONS), (h) =>
        `pbkdf2-test$${ITERATIONS}$${b64(salt)}$${h}`)
    }),
  verify: (password, hash) =>
    Effect.suspend(() => {
      const [tag, iterations, salt, expected] = hash.split("$")
      if (tag !== "pbkdf2-test" || !iterations || !salt || !expected) return Effect.succeed(false)
      return Effect.map(derive(Redacted.value(password), unb64(salt), Number(iterations)), (actual) =>
        constantTimeEqual(actual, expected))
    })
})

/** Deterministic randomness from a seed (xorshift128+), for reproducible ids and secrets. */
export const SecretsSeeded = (seed: number): Layer.Layer<Secrets> =>
  Layer.sync(Secrets, () => {
    const mask = 0xffffffffffffffffn
    let s0 = (BigInt(seed) | 1n) & mask
    let s1 = (BigInt(seed) * 0x9e3779b97f4a7c15n + 1n) & mask
    const next = () => {
      let x = s0
      const y = s1
      s0 = y
      x ^= (x << 23n) & mask
      s1 = (x ^ y ^ (x >> 17n) ^ (y >> 26n)) & mask
      return (s1 + y) & mask
    }
    return {
      randomBytes: (n) =>
        Effect.sync(() => {
          const out = new Uint8Array(n)
          for (let i = 0; i < n; i++) out[i] = Number(next() >> 56n)
          return out
        })
    }
  })

/** A fixed server secret for tests (never use it in a deployment). */
export const TestServerSecret = ServerSecretFromBytes(new Uint8Array(32).fill(7))
