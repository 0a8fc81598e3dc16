/**
 * The one source of randomness (DESIGN.md §4): every random byte in core comes from here, so tests
 * can seed it. The live layer uses WebCrypto's CSPRNG, available in every JS runtime core targets.
 */
import { Context, Effect, Layer } from "effect"

export class Secrets extends Context.Tag("core/Secrets")<Secrets, {
  /** `n` bytes from a CSPRNG (or, in tests, a seeded generator). */
  readonly randomBytes: (n: number) => Effect.Effect<Uint8Array>
}>() {}

export const SecretsLive: Layer.Layer<Secrets> = Layer.succeed(Secrets, {
  randomBytes: (n) =>
    Effect.sync(() => {
      const out = new Uint8Array(n)
      // getRandomValues fills at most 65 536 bytes per call.
      for (let i = 0; i < n; i += 65_536) globalThis.crypto.getRandomValues(out.subarray(i, Math.min(n, i + 65_536)))
      return out
    })
})
