/**
 * `RateLimiter` within one process: for stores only one process uses — the embedded PGlite and the
 * testkit. (With PostgreSQL, several processes share the counters in the database.)
 */
import { DateTime, Effect, Layer } from "effect"
import { RateLimiter, stateOf, windowOf } from "./RateLimit.js"

export const RateLimiterInProcess: Layer.Layer<RateLimiter> = Layer.sync(RateLimiter, () => {
  const counters = new Map<string, { readonly windowEnd: number; count: number }>()
  return RateLimiter.of({
    hit: (key, policy, now) =>
      Effect.sync(() => {
        const { resetSeconds, start } = windowOf(policy, DateTime.toEpochMillis(now))
        const k = `${policy.name}\u0000${key}\u0000${start}`
        let row = counters.get(k)
        if (row === undefined) {
          row = { windowEnd: start + policy.windowSeconds * 1000, count: 0 }
          counters.set(k, row)
        }
        row.count += 1
        return stateOf(policy, row.count, resetSeconds)
      }),
    purge: (before) =>
      Effect.sync(() => {
        let n = 0
        for (const [k, row] of counters) {
          if (row.windowEnd <= DateTime.toEpochMillis(before)) {
            counters.delete(k)
            n++
          }
        }
        return n
      }),
    sync: Effect.void
  })
})
