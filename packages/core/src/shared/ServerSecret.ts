/**
 * The server secret (SECRET_KEY): the root of every key the server derives — HMACs of page tokens
 * and upload forms, AES-GCM of stored secrets (TOTP seeds, signing keys). Each use derives its own
 * subkey by purpose, so one use can never be replayed as another.
 */
import { Context, Effect, Layer, Redacted } from "effect"
import { aesGcmDecrypt, aesGcmEncrypt, hmacSha256 } from "../internal/Crypto.js"
import { Secrets } from "./Secrets.js"

export class ServerSecret extends Context.Service<ServerSecret, Redacted.Redacted<Uint8Array>>()("core/ServerSecret") {}

/** A fixed secret (tests, or a host that manages its own). At least 32 bytes. */
export const ServerSecretFromBytes = (bytes: Uint8Array): Layer.Layer<ServerSecret> => {
  if (bytes.length < 32) throw new Error("the server secret must be at least 32 bytes")
  return Layer.succeed(ServerSecret, Redacted.make(bytes))
}

/** The subkey of one purpose: HMAC-SHA-256(secret, "switchboard:" + purpose). */
export const subkey = (purpose: string) =>
  Effect.flatMap(ServerSecret, (secret) => hmacSha256(Redacted.value(secret), `switchboard:${purpose}`))

/** HMAC of `message` under the purpose's subkey. */
export const mac = (purpose: string, message: Uint8Array | string) =>
  Effect.flatMap(subkey(purpose), (key) => hmacSha256(key, message))

/** Encrypts data at rest under the purpose's subkey (the purpose is also the AAD). */
export const seal = (purpose: string, plaintext: Uint8Array) =>
  Effect.gen(function*() {
    const key = yield* subkey(purpose)
    const iv = yield* Effect.flatMap(Secrets, (s) => s.randomBytes(12))
    return yield* aesGcmEncrypt(key, plaintext, purpose, iv)
  })

/** Decrypts what `seal` produced for the same purpose; none when it does not authenticate. */
export const unseal = (purpose: string, sealed: Uint8Array) =>
  Effect.flatMap(subkey(purpose), (key) => aesGcmDecrypt(key, sealed, purpose))
