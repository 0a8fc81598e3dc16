/**
 * The one source of randomness (docs/architecture.md#rules-of-the-road): every random byte in core
 * comes from here, so tests can seed it. The live layer uses WebCrypto's CSPRNG, available in every
 * JS runtime core targets.
 */
import { Context, Effect, Layer } from "effect"

export class Secrets extends Context.Service<Secrets, {
  /** `n` bytes from a CSPRNG (or, in tests, a seeded generator). */
  readonly randomBytes: (n: number) => Effect.Effect<Uint8Array>
}>()("core/Secrets") {}

/**
 * Small requests (ids, tokens: ≤ 64 bytes) are cut from a pooled buffer that one `getRandomValues`
 * call refills — each call costs far more than the bytes (the pattern of Node's `randomUUID`
 * cache). Every byte is handed out once and copied out of the pool.
 */
export const makeRandomPool = () => {
  const POOL = 4096
  const pool = new Uint8Array(POOL)
  let offset = POOL
  return (n: number): Uint8Array => {
    if (n > 64) {
      const out = new Uint8Array(n)
      // getRandomValues fills at most 65 536 bytes per call.
      for (let i = 0; i < n; i += 65_536) globalThis.crypto.getRandomValues(out.subarray(i, Math.min(n, i + 65_536)))
      return out
    }
    if (offset + n > POOL) {
      globalThis.crypto.getRandomValues(pool)
      offset = 0
    }
    const out = pool.slice(offset, offset + n)
    pool.fill(0, offset, offset + n)
    offset += n
    return out
  }
}

export const SecretsLive: Layer.Layer<Secrets> = Layer.sync(Secrets, () => {
  const take = makeRandomPool()
  return { randomBytes: (n) => Effect.sync(() => take(n)) }
})
