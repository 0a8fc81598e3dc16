/**
 * Ed25519 signatures for the standalone server: node:crypto's synchronous `sign` on a KeyObject
 * made once per key (core's default, WebCrypto, hands every signature to a worker thread and back
 * — a libuv round trip per id_token or JWT access token).
 */
import { Ed25519Signer, type Ed25519SignerShape } from "@switchboard/core/oauth"
import { Effect, Layer } from "effect"
import { KeyObject, sign } from "node:crypto"

const keyObjects = new WeakMap<object, KeyObject>()

const keyObjectOf = (key: Parameters<Ed25519SignerShape["sign"]>[0]): KeyObject => {
  let found = keyObjects.get(key)
  if (found === undefined) {
    // jose (v6) imports keys as WebCrypto CryptoKeys; node:crypto signs with their KeyObject.
    found = KeyObject.from(key as unknown as Parameters<typeof KeyObject.from>[0])
    keyObjects.set(key, found)
  }
  return found
}

export const nodeEd25519Signer: Ed25519SignerShape = {
  sign: (key, data) => Effect.sync(() => new Uint8Array(sign(null, data, keyObjectOf(key))))
}

export const Ed25519SignerNode = Layer.succeed(Ed25519Signer, nodeEd25519Signer)
