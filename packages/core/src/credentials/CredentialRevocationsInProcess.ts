/**
 * `CredentialRevocations` within one process (an in-memory PubSub): for stores that only one
 * process uses — the testkit's memory store and the embedded PGlite.
 */
import { Effect, Layer, PubSub, Stream } from "effect"
import { CredentialRevocations } from "../accounts/Ports.js"

export const CredentialRevocationsInProcess: Layer.Layer<CredentialRevocations> = Layer.effect(
  CredentialRevocations,
  Effect.gen(function*() {
    const hub = yield* Effect.acquireRelease(PubSub.unbounded<string>(), PubSub.shutdown)
    return CredentialRevocations.of({
      publish: (keyId) => Effect.asVoid(PubSub.publish(hub, keyId)),
      subscribe: Stream.fromPubSub(hub)
    })
  })
)
