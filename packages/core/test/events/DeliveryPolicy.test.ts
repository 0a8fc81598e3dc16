/**
 * Retry policy (docs/api-notes/events-and-webhooks.md): which outcomes are retried, the backoff
 * schedule with its jitter, and when a delivery is dead-lettered.
 */
import { describe, expect, it } from "@effect/vitest"
import {
  afterAttempt,
  classify,
  defaultWebhookPolicy,
  describeOutcome,
  LONG_TAIL_JITTER,
  longTailDelaysMs,
  retryDelayMs,
  scheduledDelayMs,
  type SendOutcome,
  totalAttempts,
  unitOf
} from "@switchboard/core/events"
import { DateTime } from "effect"
import * as fc from "fast-check"

/** The fast schedule alone (docs/api-notes/events-and-webhooks.md), as the fast-schedule cases below describe it. */
const policy = { ...defaultWebhookPolicy, longTailHorizonMs: 0 }

const response = (status: number): SendOutcome => ({ _tag: "Response", status, body: "" })
const now = DateTime.makeUnsafe(Date.parse("2030-01-01T00:00:00.000Z")) as DateTime.Utc

describe("classify", () => {
  it.each([
    [response(200), "delivered"], [response(204), "delivered"], [response(299), "delivered"],
    [response(500), "retry"], [response(503), "retry"], [response(599), "retry"], [response(408), "retry"], [response(429), "retry"],
    [response(301), "fatal"], [response(302), "fatal"], [response(307), "fatal"], [response(400), "fatal"], [response(401), "fatal"],
    [response(404), "fatal"], [response(410), "fatal"], [response(100), "fatal"],
    [{ _tag: "NetworkError", message: "ECONNREFUSED" }, "retry"], [{ _tag: "Timeout" }, "retry"],
    [{ _tag: "Refused", reason: "private address" }, "fatal"], [{ _tag: "DnsFailure", message: "ENOTFOUND" }, "fatal"]
  ] as const)("%j → %s", (outcome, verdict) => {
    expect(classify(outcome)).toBe(verdict)
  })

  it("describes failures briefly, saying redirects are not followed", () => {
    expect(describeOutcome({ _tag: "Response", status: 302, body: "" })).toBe("HTTP 302 (redirects are not followed)")
    expect(describeOutcome({ _tag: "Response", status: 503, body: "x".repeat(1000) })).toHaveLength("HTTP 503: ".length + 200)
    expect(describeOutcome({ _tag: "Timeout" })).toBe("timed out")
  })
})

describe("backoff", () => {
  it("expected delays (no jitter at u = 0.5): 200 ms, 1 s, 5 s, 10 s, 10 s", () => {
    expect([1, 2, 3, 4, 5].map((n) => retryDelayMs(policy, n, 0.5))).toEqual([200, 1000, 5000, 10_000, 10_000])
  })

  it("each delay lies within ±50 % of min(200 ms × 5ⁿ⁻¹, 10 s)", () => {
    fc.assert(fc.property(fc.integer({ min: 1, max: 30 }), fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), (n, u) => {
      const raw = Math.min(10_000, 200 * 5 ** (n - 1))
      const d = retryDelayMs(policy, n, u)
      expect(d).toBeGreaterThanOrEqual(Math.floor(raw * 0.5))
      expect(d).toBeLessThanOrEqual(Math.ceil(raw * 1.5))
    }))
  })

  it("jitter is monotone in the random number", () => {
    fc.assert(fc.property(fc.integer({ min: 1, max: 6 }), fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), (n, a, b) => {
      const [lo, hi] = a <= b ? [a, b] : [b, a]
      expect(retryDelayMs(policy, n, lo)).toBeLessThanOrEqual(retryDelayMs(policy, n, hi))
    }))
  })

  it("unitOf maps 4 bytes into [0, 1)", () => {
    fc.assert(fc.property(fc.uint8Array({ minLength: 4, maxLength: 4 }), (b) => {
      const u = unitOf(b)
      expect(u).toBeGreaterThanOrEqual(0)
      expect(u).toBeLessThan(1)
    }))
  })
})

describe("afterAttempt", () => {
  it("delivered ends it; a retryable failure waits while attempts remain; the 6th failure dead-letters", () => {
    expect(afterAttempt(policy, 1, "delivered", now, 0.5)).toEqual({ status: "delivered" })
    for (let n = 1; n < 6; n++) {
      const r = afterAttempt(policy, n, "retry", now, 0.5)
      expect(r.status).toBe("pending")
      if (r.status === "pending") expect(DateTime.toEpochMillis(r.nextAttemptAt) - DateTime.toEpochMillis(now)).toBe(retryDelayMs(policy, n, 0.5))
    }
    expect(afterAttempt(policy, 6, "retry", now, 0.5)).toEqual({ status: "dead_lettered" })
    expect(afterAttempt(policy, 7, "retry", now, 0.5)).toEqual({ status: "dead_lettered" })
  })

  it("a fatal outcome dead-letters at once, whatever the attempt", () => {
    fc.assert(fc.property(fc.integer({ min: 1, max: 10 }), (n) => {
      expect(afterAttempt(policy, n, "fatal", now, 0.1)).toEqual({ status: "dead_lettered" })
    }))
  })
})

describe("the long tail after the fast schedule", () => {
  const HOUR = 3_600_000
  it("by default (24 h): 5 min, 30 min, 2 h, 5 h, 10 h, then the rest up to the horizon; 12 attempts in all", () => {
    expect(defaultWebhookPolicy.longTailHorizonMs).toBe(24 * HOUR)
    expect(longTailDelaysMs(24 * HOUR)).toEqual([5 * 60_000, 30 * 60_000, 2 * HOUR, 5 * HOUR, 10 * HOUR, 24 * HOUR - (17 * HOUR + 35 * 60_000)])
    expect(totalAttempts(defaultWebhookPolicy)).toBe(12)
  })

  it.each([
    [0, []],
    [4 * 60_000, []],
    [5 * 60_000, [5 * 60_000]],
    [HOUR, [5 * 60_000, 30 * 60_000, 25 * 60_000]],
    [72 * HOUR, [5 * 60_000, 30 * 60_000, 2 * HOUR, 5 * HOUR, 10 * HOUR, 10 * HOUR, 10 * HOUR, 10 * HOUR, 10 * HOUR, 10 * HOUR, 72 * HOUR - 67 * HOUR - 35 * 60_000]]
  ] as const)("horizon %d ms → %j", (horizon, expected) => {
    expect(longTailDelaysMs(horizon)).toEqual(expected)
  })

  it("nominal waits never decrease (but the last), and add up to at most the horizon", () => {
    fc.assert(fc.property(fc.integer({ min: 0, max: 30 * 24 * HOUR }), (h) => {
      const d = longTailDelaysMs(h)
      expect(d.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(h)
      for (let i = 1; i < d.length - 1; i++) expect(d[i]!).toBeGreaterThanOrEqual(d[i - 1]!)
      for (const x of d) expect(x).toBeGreaterThanOrEqual(5 * 60_000)
    }), { seed: 1124, numRuns: 200 })
  })

  it("the fast part is unchanged; tail waits lie within ±10 % of their nominal value", () => {
    fc.assert(fc.property(fc.integer({ min: 1, max: 12 }), fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), (n, u) => {
      const p = defaultWebhookPolicy
      if (n < p.maxAttempts) expect(scheduledDelayMs(p, n, u)).toBe(retryDelayMs(p, n, u))
      else {
        const nominal = longTailDelaysMs(p.longTailHorizonMs)[n - p.maxAttempts] ?? 0
        expect(scheduledDelayMs(p, n, u)).toBeGreaterThanOrEqual(Math.floor(nominal * (1 - LONG_TAIL_JITTER)))
        expect(scheduledDelayMs(p, n, u)).toBeLessThanOrEqual(Math.ceil(nominal * (1 + LONG_TAIL_JITTER)))
      }
    }), { seed: 1124, numRuns: 200 })
  })

  it("after the 6th failure a delivery waits about 5 minutes; after the 12th it is dead-lettered", () => {
    const sixth = afterAttempt(defaultWebhookPolicy, 6, "retry", now, 0.5)
    expect(sixth).toEqual({ status: "pending", nextAttemptAt: DateTime.makeUnsafe(DateTime.toEpochMillis(now) + 5 * 60_000) })
    expect(afterAttempt(defaultWebhookPolicy, 11, "retry", now, 0.5).status).toBe("pending")
    expect(afterAttempt(defaultWebhookPolicy, 12, "retry", now, 0.5)).toEqual({ status: "dead_lettered" })
  })
})
