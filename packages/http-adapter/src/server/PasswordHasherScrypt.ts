/** Passwords: scrypt (N=2^15, r=8, p=1) with a 16-byte per-user salt (docs/architecture.md#reliability-and-security). */
import { PasswordHasher } from "@switchboard/core/accounts"
import { Effect, Layer, Redacted } from "effect"
import { randomBytes, scrypt, timingSafeEqual } from "node:crypto"

const N = 32768
const R = 8
const P = 1
const KEY_LENGTH = 32

const derive = (password: string, salt: Buffer, n: number, r: number, p: number) =>
  Effect.callback<Buffer>((resume) => {
    scrypt(password, salt, KEY_LENGTH, { N: n, r, p, maxmem: 256 * n * r }, (err, key) =>
      resume(err ? Effect.die(err) : Effect.succeed(key)))
  })

/** `scrypt$N$r$p$<salt b64>$<hash b64>`: the parameters travel with the hash, so they can be raised later. */
export const PasswordHasherScrypt: Layer.Layer<PasswordHasher> = Layer.succeed(PasswordHasher, {
  hash: (password) =>
    Effect.suspend(() => {
      const salt = randomBytes(16)
      return Effect.map(derive(Redacted.value(password), salt, N, R, P), (key) =>
        `scrypt$${N}$${R}$${P}$${salt.toString("base64")}$${key.toString("base64")}`)
    }),
  verify: (password, hash) =>
    Effect.suspend(() => {
      const [tag, n, r, p, salt, key] = hash.split("$")
      if (tag !== "scrypt" || !n || !r || !p || !salt || !key) return Effect.succeed(false)
      const expected = Buffer.from(key, "base64")
      return Effect.map(derive(Redacted.value(password), Buffer.from(salt, "base64"), Number(n), Number(r), Number(p)), (actual) =>
        actual.length === expected.length && timingSafeEqual(actual, expected))
    })
})
