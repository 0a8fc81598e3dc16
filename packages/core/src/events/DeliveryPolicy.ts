/**
 * How webhook deliveries are attempted (docs/api-notes/events-and-webhooks.md): up to 6 attempts;
 * after a failed attempt n the next waits min(200 ms × 5ⁿ⁻¹, 10 s) × (1 ± 50 % jitter) — expected
 * delays 200 ms, 1 s, 5 s, 10 s, 10 s; 30 s per attempt; retry on 5xx, 408, 429, network errors and
 * timeouts; any other answer (3xx — redirects are never followed —, other 4xx, a refused target, an
 * unresolvable name) ends the delivery at once. A delivery that ends without success is kept as
 * dead-lettered (listed and retryable), never dropped. Pure functions, plus the policy as a
 * `Context.Reference` whose defaults are the numbers above (the server maps its settings onto it).
 *
 * After that fast schedule, a long tail (what Svix and Stripe users expect): retries at about
 * 5 min, 30 min, 2 h, 5 h, then every 10 h, and a last one at the horizon (`longTailHorizonMs`,
 * 24 h by default; 0 keeps the fast schedule alone), ±10 % jitter. Only then is a delivery
 * dead-lettered.
 */
import { DateTime } from "effect"
import { Setting } from "../internal/Settings.js"

export interface WebhookPolicyShape {
  /** Attempts of the fast schedule (docs/api-notes/events-and-webhooks.md: 6); the long tail follows. */
  readonly maxAttempts: number
  /** How long after the fast schedule the long tail keeps retrying (24 h; 0: no tail). */
  readonly longTailHorizonMs: number
  /** Delay after the first failed attempt (200 ms). */
  readonly baseDelayMs: number
  /** Growth per further failure (×5). */
  readonly factor: number
  /** Cap of one delay before jitter (10 s). */
  readonly maxDelayMs: number
  /** Relative jitter: the delay is multiplied by a uniform factor in [1 − jitter, 1 + jitter). */
  readonly jitter: number
  /** Per-attempt timeout (30 s). */
  readonly timeoutMs: number
  /**
   * A claimed delivery is leased for `timeoutMs + leaseMarginMs`; if its process dies, another
   * (or the same after a restart) attempts it again once the lease has run out.
   */
  readonly leaseMarginMs: number
  /**
   * Events fanned out per transaction (500: a fan-out transaction costs ≈ 6 round trips whatever
   * its size, so at 100 it bounded a busy engine near 4 000 events/s on PostgreSQL).
   */
  readonly batchSize: number
  /** Deliveries attempted at once by one engine. */
  readonly concurrency: number
  /** Deliveries of one endpoint in flight at once, across processes (fair claiming). */
  readonly endpointConcurrency: number
  /** `http://` targets and private/loopback addresses allowed (local development and tests only). */
  readonly allowInsecureTargets: boolean
  /** Live webhooks per project and kind (v1 destinations; management webhooks). */
  readonly maxEndpointsPerProject: number
  readonly userAgent: string
}

export const defaultWebhookPolicy: WebhookPolicyShape = {
  maxAttempts: 6,
  longTailHorizonMs: 24 * 60 * 60 * 1000,
  baseDelayMs: 200,
  factor: 5,
  maxDelayMs: 10_000,
  jitter: 0.5,
  timeoutMs: 30_000,
  leaseMarginMs: 5_000,
  batchSize: 500,
  concurrency: 16,
  endpointConcurrency: 4,
  allowInsecureTargets: false,
  maxEndpointsPerProject: 100,
  userAgent: "switchboard-webhook/0.1.0"
}

export class WebhookPolicy extends Setting<WebhookPolicy>()("core/WebhookPolicy", {
  defaultValue: () => defaultWebhookPolicy
}) {}

/** What one attempt came to, as the outbound HTTP port reports it. */
export type SendOutcome =
  | { readonly _tag: "Response"; readonly status: number; readonly body: string }
  | { readonly _tag: "NetworkError"; readonly message: string }
  | { readonly _tag: "Timeout" }
  /** The guard refused the target (scheme, private address) before connecting. */
  | { readonly _tag: "Refused"; readonly reason: string }
  | { readonly _tag: "DnsFailure"; readonly message: string }

export type Verdict = "delivered" | "retry" | "fatal"

/** 2xx delivered; 5xx, 408, 429, network errors and timeouts retried; everything else fatal. */
export const classify = (outcome: SendOutcome): Verdict => {
  switch (outcome._tag) {
    case "Response": {
      const s = outcome.status
      if (s >= 200 && s < 300) return "delivered"
      if (s >= 500 || s === 408 || s === 429) return "retry"
      return "fatal"
    }
    case "NetworkError":
    case "Timeout":
      return "retry"
    case "Refused":
    case "DnsFailure":
      return "fatal"
  }
}

/** A short description of an unsuccessful outcome, kept as the delivery's `lastError`. */
export const describeOutcome = (outcome: SendOutcome): string => {
  switch (outcome._tag) {
    case "Response": {
      const kind = outcome.status >= 300 && outcome.status < 400 ? " (redirects are not followed)" : ""
      const snippet = outcome.body.trim().slice(0, 200)
      return `HTTP ${outcome.status}${kind}${snippet === "" ? "" : `: ${snippet}`}`
    }
    case "NetworkError":
      return `network error: ${outcome.message}`.slice(0, 300)
    case "Timeout":
      return "timed out"
    case "Refused":
      return `target refused: ${outcome.reason}`.slice(0, 300)
    case "DnsFailure":
      return `name resolution failed: ${outcome.message}`.slice(0, 300)
  }
}

/**
 * The wait after `failedAttempts` failed attempts (1 = after the first): min(base × factorⁿ⁻¹,
 * max) times a jitter factor; `unit` is a uniform random number in [0, 1).
 */
export const retryDelayMs = (policy: WebhookPolicyShape, failedAttempts: number, unit: number): number => {
  const n = Math.max(1, failedAttempts)
  const raw = Math.min(policy.maxDelayMs, policy.baseDelayMs * Math.pow(policy.factor, n - 1))
  const u = Math.min(Math.max(unit, 0), 1 - Number.EPSILON)
  return Math.max(0, Math.round(raw * (1 - policy.jitter + 2 * policy.jitter * u)))
}

/** The long tail's nominal waits, in order: 5 min, 30 min, 2 h, 5 h, then 10 h each. */
const LONG_TAIL_STEPS_MS = [5 * 60_000, 30 * 60_000, 2 * 3_600_000, 5 * 3_600_000, 10 * 3_600_000] as const
/** The long tail's jitter (relative). */
export const LONG_TAIL_JITTER = 0.1

/**
 * The nominal waits of the long tail within `horizonMs`: the steps while they fit, then one last
 * wait that ends at the horizon (when at least the first step remains). Their sum never exceeds
 * the horizon.
 */
export const longTailDelaysMs = (horizonMs: number): ReadonlyArray<number> => {
  const out: Array<number> = []
  let total = 0
  for (let i = 0; ; i++) {
    const step = LONG_TAIL_STEPS_MS[Math.min(i, LONG_TAIL_STEPS_MS.length - 1)]!
    if (total + step > horizonMs) break
    out.push(step)
    total += step
  }
  if (horizonMs - total >= LONG_TAIL_STEPS_MS[0]) out.push(horizonMs - total)
  return out
}

/** Every attempt a delivery gets: the fast schedule's, then one per long-tail wait. */
export const totalAttempts = (policy: WebhookPolicyShape): number =>
  policy.maxAttempts + longTailDelaysMs(policy.longTailHorizonMs).length

/**
 * The wait after `failedAttempts` failed attempts, on the whole schedule: the fast schedule's
 * (`retryDelayMs`) up to `maxAttempts`, then the long tail's with ±10 % jitter.
 */
export const scheduledDelayMs = (policy: WebhookPolicyShape, failedAttempts: number, unit: number): number => {
  if (failedAttempts < policy.maxAttempts) return retryDelayMs(policy, failedAttempts, unit)
  const nominal = longTailDelaysMs(policy.longTailHorizonMs)[failedAttempts - policy.maxAttempts] ?? 0
  const u = Math.min(Math.max(unit, 0), 1 - Number.EPSILON)
  return Math.max(0, Math.round(nominal * (1 - LONG_TAIL_JITTER + 2 * LONG_TAIL_JITTER * u)))
}

/** Where a delivery stands after an attempt. */
export type AttemptResult =
  | { readonly status: "delivered" }
  | { readonly status: "pending"; readonly nextAttemptAt: DateTime.Utc }
  | { readonly status: "dead_lettered" }

/**
 * The state after attempt number `attemptCount` (counting this one) ended with `verdict`: a retry
 * is scheduled only while attempts remain; `unit` is the jitter's random number.
 */
export const afterAttempt = (
  policy: WebhookPolicyShape,
  attemptCount: number,
  verdict: Verdict,
  now: DateTime.Utc,
  unit: number
): AttemptResult => {
  if (verdict === "delivered") return { status: "delivered" }
  if (verdict === "fatal" || attemptCount >= totalAttempts(policy)) return { status: "dead_lettered" }
  return { status: "pending", nextAttemptAt: DateTime.makeUnsafe(DateTime.toEpochMillis(now) + scheduledDelayMs(policy, attemptCount, unit)) as DateTime.Utc }
}

/** A uniform number in [0, 1) from 4 random bytes. */
export const unitOf = (bytes: Uint8Array): number =>
  (((bytes[0] ?? 0) << 24 >>> 0) + ((bytes[1] ?? 0) << 16) + ((bytes[2] ?? 0) << 8) + (bytes[3] ?? 0)) / 2 ** 32
