/**
 * Rate limits: fixed windows counted in the store, so every server process shares them.
 * The HTTP adapter renders a policy and a state as headers (http-adapter's http/RateLimitHeaders.ts).
 */
import { Context, DateTime, type Effect } from "effect"

export interface RateLimitPolicy {
  /** The policy's name (the HTTP adapter puts it in the rate-limit headers). */
  readonly name: string
  /** Requests allowed per window. */
  readonly quota: number
  /** Window length in seconds. */
  readonly windowSeconds: number
}

export interface RateLimitState {
  readonly allowed: boolean
  /** Requests left in this window (0 when refused). */
  readonly remaining: number
  /** Seconds until the window resets (≥ 1). */
  readonly resetSeconds: number
}

export class RateLimiter extends Context.Service<RateLimiter, {
  /** Counts one request of `key` in the current window of `policy` and says whether it is allowed. */
  readonly hit: (key: string, policy: RateLimitPolicy, now: DateTime.Utc) => Effect.Effect<RateLimitState>
  /** Drops counters of windows that ended before `before` (housekeeping). */
  readonly purge: (before: DateTime.Utc) => Effect.Effect<number>
  /**
   * Writes counts held in this process to the shared store now (a limiter that batches its writes
   * does this on its own every few hundred milliseconds and at shutdown; others have nothing to do).
   */
  readonly sync: Effect.Effect<void>
}>()("core/RateLimiter") {}

/** The window a moment falls in: its start (epoch ms) and how many seconds are left of it. */
export const windowOf = (policy: RateLimitPolicy, nowMillis: number) => {
  const length = policy.windowSeconds * 1000
  const start = Math.floor(nowMillis / length) * length
  return { start, resetSeconds: Math.max(1, Math.ceil((start + length - nowMillis) / 1000)) }
}

/** The state after `count` requests in the window. */
export const stateOf = (policy: RateLimitPolicy, count: number, resetSeconds: number): RateLimitState => ({
  allowed: count <= policy.quota,
  remaining: Math.max(0, policy.quota - count),
  resetSeconds
})
