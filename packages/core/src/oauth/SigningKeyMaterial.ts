/**
 * Ed25519 key material for JWT signing (docs/api-notes/oauth.md): generating a key pair with jose,
 * sealing the private JWK under the server secret for storage, turning stored keys back into
 * WebCrypto keys, and compact JWS signing through the `Ed25519Signer` port. `SigningKeys` builds
 * on these; the testkit's token fixtures use them too.
 */
import { DateTime, Effect, Schema } from "effect"
import * as jose from "jose"
import type { Jwk, JwtClaims, SigningCryptoKey } from "./JwtTypes.js"
import { base64url } from "../internal/Crypto.js"
import { seal, type ServerSecret, unseal } from "../shared/ServerSecret.js"
import { type PublicSigningJwk, type SigningKeyRecord, SigningKeysRepo } from "./Ports.js"
import { Setting } from "../internal/Settings.js"

/** The one JWS algorithm our tokens use. */
export const SIGNING_ALG = "EdDSA"

/** The purpose under which private signing keys are sealed (its own subkey of the server secret). */
export const SIGNING_KEY_PURPOSE = "signing-key"

/** A freshly generated key pair: the private half only ever leaves this object sealed. */
export interface GeneratedSigningKey {
  readonly kid: string
  readonly publicJwk: PublicSigningJwk
  readonly privateJwk: Jwk
  readonly privateKey: SigningCryptoKey
  readonly publicKey: SigningCryptoKey
}

/** A new Ed25519 key pair; its `kid` is the RFC 7638 thumbprint of the public key. */
export const generateSigningKey: Effect.Effect<GeneratedSigningKey> = Effect.promise(async () => {
  const { privateKey, publicKey } = await jose.generateKeyPair(SIGNING_ALG, { crv: "Ed25519", extractable: true })
  const privateJwk = await jose.exportJWK(privateKey)
  const exported = await jose.exportJWK(publicKey)
  if (typeof exported.x !== "string") throw new Error("an Ed25519 public key without x")
  const kid = await jose.calculateJwkThumbprint({ kty: "OKP", crv: "Ed25519", x: exported.x })
  const publicJwk: PublicSigningJwk = { kty: "OKP", crv: "Ed25519", x: exported.x, kid, alg: SIGNING_ALG, use: "sig" }
  return { kid, publicJwk, privateJwk: { ...privateJwk, kid, alg: SIGNING_ALG }, privateKey, publicKey }
})

const te = new TextEncoder()
const td = new TextDecoder()

/** The private JWK sealed for storage (AES-GCM under the `signing-key` subkey). */
export const sealPrivateJwk = (jwk: Jwk) => seal(SIGNING_KEY_PURPOSE, te.encode(JSON.stringify(jwk)))

/**
 * The stored private key as a WebCrypto signing key. A key that does not unseal (the server secret
 * changed, or the row was tampered with) is a defect: no token can be signed with it.
 */
export const unsealPrivateKey = (record: SigningKeyRecord): Effect.Effect<SigningCryptoKey, never, ServerSecret> =>
  Effect.flatMap(unseal(SIGNING_KEY_PURPOSE, record.privateKeySealed), (plain) =>
    plain === undefined
      ? Effect.die(new Error(`signing key ${record.kid} does not unseal: was the server secret (SECRET_KEY) changed?`))
      : Effect.promise(() => jose.importJWK(JSON.parse(td.decode(plain)) as jose.JWK, SIGNING_ALG)).pipe(
        Effect.map((key) => key as SigningCryptoKey)
      ))

/** The public key of a stored (or published) JWK, for verification. */
export const importPublicKey = (jwk: PublicSigningJwk): Effect.Effect<SigningCryptoKey> =>
  Effect.promise(() => jose.importJWK({ kty: jwk.kty, crv: jwk.crv, x: jwk.x }, SIGNING_ALG)).pipe(
    Effect.map((key) => key as SigningCryptoKey)
  )

/** Ed25519 signatures over bytes (RFC 8032), the port `signJwt` signs through. */
export interface Ed25519SignerShape {
  readonly sign: (key: SigningCryptoKey, data: Uint8Array) => Effect.Effect<Uint8Array>
}

/** WebCrypto's Ed25519 (any runtime): a promise per signature, run on a worker thread in Node. */
export const webCryptoEd25519Signer: Ed25519SignerShape = {
  sign: (key, data) => Effect.promise(() => crypto.subtle.sign("Ed25519", key, data)).pipe(Effect.map((b) => new Uint8Array(b)))
}

/**
 * The Ed25519 signer: WebCrypto unless the host provides another (the standalone server signs
 * synchronously with node:crypto on a cached KeyObject — no worker-thread round trip per token).
 * Captured when `SigningKeys` is built.
 */
export class Ed25519Signer extends Setting<Ed25519Signer>()("core/Ed25519Signer", {
  defaultValue: (): Ed25519SignerShape => webCryptoEd25519Signer
}) {}

const jsonPart = (value: unknown) => base64url(te.encode(JSON.stringify(value)))

/**
 * A compact JWS (RFC 7515 §7.1) of `payload` under `key`: header `{alg: EdDSA, kid, typ?}`; nothing
 * is added to the payload. Encoded here rather than with jose's `SignJWT` (its claim builder and
 * checks cost more than the signature); jose verifies it like any other.
 */
export const signJwt = (
  key: SigningCryptoKey,
  kid: string,
  payload: JwtClaims,
  header: { readonly typ?: string } = {},
  signer: Ed25519SignerShape = webCryptoEd25519Signer
): Effect.Effect<string> =>
  Effect.suspend(() => {
    const input = `${jsonPart({ alg: SIGNING_ALG, kid, ...(header.typ === undefined ? {} : { typ: header.typ }) })}.${jsonPart(payload)}`
    return Effect.map(signer.sign(key, te.encode(input)), (signature) => `${input}.${base64url(signature)}`)
  })

/** The store's sealed keys were sealed under another server secret than this process's. */
export class ServerSecretMismatch extends Schema.TaggedError<ServerSecretMismatch>()("ServerSecretMismatch", {
  message: Schema.String
}) {}

/**
 * Whether this process's server secret opens what the store holds sealed: its published signing
 * keys (every store that has issued a token has them). A server started with another secret than
 * the one its database was written with would start, then fail every token request; this is checked
 * at start instead, and the failure names the setting. A store with no keys yet passes.
 */
export const checkServerSecret: Effect.Effect<void, ServerSecretMismatch, SigningKeysRepo | ServerSecret> = Effect.gen(function*() {
  const records = yield* (yield* SigningKeysRepo).listPublished(yield* DateTime.now)
  if (records.length === 0) return
  for (const record of records) {
    const plain = yield* unseal(SIGNING_KEY_PURPOSE, record.privateKeySealed)
    if (plain !== undefined) return
  }
  return yield* new ServerSecretMismatch({
    message: "SECRET_KEY does not match this database: its signing keys were sealed under another secret. " +
      "Set SECRET_KEY to the secret the database was created with (every process of one deployment shares it; " +
      "a server without SECRET_KEY uses DATA_DIR/secret.key, so a fresh DATA_DIR on an existing database needs SECRET_KEY)."
  })
})
