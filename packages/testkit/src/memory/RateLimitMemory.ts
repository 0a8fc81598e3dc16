/** Rate-limit counters in memory (one process), with the same window arithmetic as the SQL store. */
import { RateLimiter, stateOf, windowOf } from "@switchboard/core"
import { Effect, Layer } from "effect"
import { MemoryState } from "./MemoryState.js"

export const RateLimiterMemory: Layer.Layer<RateLimiter, never, MemoryState> = Layer.effect(
  RateLimiter,
  Effect.map(MemoryState, (state) => {
    const counters = state.table<string, { readonly windowStart: number; readonly windowEnd: number; count: number }>("rate_limits")
    return RateLimiter.of({
      hit: (key, policy, now) =>
        Effect.sync(() => {
          const { resetSeconds, start } = windowOf(policy, now.epochMillis)
          const k = `${policy.name}\u0000${key}\u0000${start}`
          const row = counters.get(k) ?? { windowStart: start, windowEnd: start + policy.windowSeconds * 1000, count: 0 }
          const next = { ...row, count: row.count + 1 }
          counters.set(k, next)
          return stateOf(policy, next.count, resetSeconds)
        }),
      purge: (before) =>
        Effect.sync(() => {
          let n = 0
          for (const [k, row] of counters) {
            if (row.windowEnd <= before.epochMillis) {
              counters.delete(k)
              n++
            }
          }
          return n
        })
    })
  })
)
