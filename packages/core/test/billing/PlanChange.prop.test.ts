/**
 * Properties of the plan-change preview (docs/api-notes/billing.md; docs/testing.md: pure
 * functions are property-tested). Plans, subscriptions, requests and instants are generated —
 * mostly small amounts, sometimes up to 9007199254740991 — and every preview must hold the
 * invariants below, or fail with a typed out-of-range error.
 */
import { describe, expect, it } from "@effect/vitest"
import { Result, Schema } from "effect"
import * as fc from "fast-check"
import { rhu } from "../../src/billing/Money.js"
import {
  type CurrentSubscription, type PlanChangePreviewInput, planChangeDirection, previewPlanChange
} from "../../src/billing/PlanChange.js"
import { epochDayOfMillis, MS_PER_DAY, period } from "../../src/billing/Proration.js"
import {
  BillingPlan, BillingPlanCatalog, PreviewLine, PreviewProjectChangeResponse
} from "../../src/billing/Schema.js"

const MAX = Number.MAX_SAFE_INTEGER

const amount = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: 0, max: 200_000 }) },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: MAX }) }
)
const smallQuantity = fc.integer({ min: 0, max: 20 })
const quantity = fc.oneof({ weight: 6, arbitrary: smallQuantity }, { weight: 1, arbitrary: fc.integer({ min: 0, max: MAX }) })
const codes = ["seats", "sso", "ips", "audit"] as const

const fixedCharge = (code: string) =>
  fc.record({
    unit: amount, payInAdvance: fc.boolean(), prorated: fc.boolean(), defaultUnits: smallQuantity,
    min: fc.integer({ min: 0, max: 3 }), span: fc.integer({ min: 0, max: 1000 })
  }).map((c) => ({
    fixedChargeCode: code, name: `Charge ${code}`, unitAmountCents: c.unit, payInAdvance: c.payInAdvance,
    prorated: c.prorated, defaultUnits: c.defaultUnits, minQuantity: c.min, maxQuantity: c.min + c.span
  }))

const plan = (planCode: string) =>
  fc.record({
    tier: fc.option(fc.integer({ min: 0, max: 4 }), { nil: null }),
    base: amount,
    interval: fc.constantFrom("weekly", "monthly", "quarterly", "semiannual", "yearly"),
    advance: fc.boolean(),
    charges: fc.subarray([...codes]).chain((cs) => fc.tuple(...cs.map(fixedCharge))),
    commitment: fc.option(fc.record({ amountCents: amount, displayName: fc.option(fc.constantFrom("Minimum", "Floor"), { nil: null }) }), { nil: null })
  }).map((p) =>
    Schema.decodeUnknownSync(BillingPlan)({
      planCode, name: `Plan ${planCode}`, description: null, baseAmountCents: p.base, currency: "USD",
      interval: p.interval, payInAdvance: p.advance, isDefault: false, tier: p.tier, tierDisplayName: null,
      entitlements: [], fixedCharges: p.charges, usageCharges: [], usageThresholds: [], minimumCommitment: p.commitment
    })
  )

const instant = fc.integer({ min: Date.UTC(1990, 0, 1), max: Date.UTC(2100, 0, 1) })

const usageLine = (nowMs: number) =>
  amount.map((amountCents) =>
    Schema.decodeUnknownSync(PreviewLine)({
      kind: "usage", code: "api_calls", name: "API calls", amountCents, units: "1",
      periodStart: null, periodEnd: new Date(nowMs).toISOString()
    })
  )

/** A whole scenario: two plans, a subscription on the first, a valid request for the second. */
const scenario = fc.tuple(plan("current_plan"), plan("target_plan"), instant).chain(([current, target, now]) =>
  fc.record({
    billingTime: fc.constantFrom(...(["calendar", "anniversary"] as const)),
    anchor: fc.integer({ min: Date.UTC(1980, 0, 1), max: now }),
    held: fc.uniqueArray(
      fc.record({ fixedChargeCode: fc.constantFrom(...codes, "legacy"), quantity }),
      { selector: (h) => h.fixedChargeCode, maxLength: 5 }
    ),
    billed: fc.option(amount, { nil: undefined }),
    credited: fc.option(amount, { nil: undefined }),
    usage: fc.array(usageLine(now), { maxLength: 2 }),
    periodUsage: fc.option(amount, { nil: undefined }),
    cancellation: fc.constant(false),
    paymentMethod: fc.constantFrom(...(["off_session", "requires_action", "none"] as const)),
    additions: fc.subarray(target.fixedCharges.filter((c) => c.maxQuantity >= 1)).chain((cs) =>
      fc.tuple(...cs.map((c) =>
        fc.integer({ min: Math.max(1, c.minQuantity), max: c.maxQuantity }).map((q) => ({ fixedChargeCode: c.fixedChargeCode, quantity: q }))
      ))
    )
  }).map((s): PlanChangePreviewInput => {
    const sub: CurrentSubscription = {
      plan: current,
      billingTime: s.billingTime,
      anchorDate: s.anchor,
      heldFixedCharges: s.held,
      unbilledUsage: s.usage,
      cancellationScheduled: s.cancellation,
      paymentMethod: s.paymentMethod,
      ...(s.billed === undefined ? {} : { baseFeeBilledCents: s.billed }),
      ...(s.credited === undefined ? {} : { baseFeeCreditedCents: s.credited }),
      ...(s.periodUsage === undefined ? {} : { periodUsageCents: s.periodUsage })
    }
    return {
      catalog: Schema.decodeUnknownSync(BillingPlanCatalog)({ things: [current, target] }),
      current: sub,
      request: { category: "things", planCode: target.planCode, additions: s.additions },
      now
    }
  })
)

/** The preview, or `undefined` when a generated amount is out of range (the only failure allowed). */
const run = (input: PlanChangePreviewInput) => {
  const result = previewPlanChange(input)
  if (Result.isFailure(result)) {
    expect(result.failure._tag).toBe("PlanChangeAmountOutOfRange")
    return undefined
  }
  return result.success
}

const options = { numRuns: 400 }

const numbersIn = (value: unknown): Array<number> =>
  typeof value === "number" ? [value]
    : Array.isArray(value) ? value.flatMap(numbersIn)
    : typeof value === "object" && value !== null ? Object.values(value).flatMap(numbersIn)
    : []

describe("previewPlanChange properties", () => {
  it("the output always encodes with the schema, and decodes back to the same wire form", () => {
    fc.assert(fc.property(scenario, (input) => {
      const out = run(input)
      if (out === undefined) return
      const encoded = Schema.encodeResult(PreviewProjectChangeResponse)(out)
      expect(Result.isSuccess(encoded)).toBe(true)
      if (Result.isSuccess(encoded)) {
        expect(Schema.encodeSync(PreviewProjectChangeResponse)(Schema.decodeUnknownSync(PreviewProjectChangeResponse)(encoded.success)))
          .toStrictEqual(encoded.success)
      }
    }), options)
  })

  it("every integer in the output lies within ±9007199254740991", () => {
    fc.assert(fc.property(scenario, (input) => {
      const out = run(input)
      if (out === undefined) return
      const encoded = Schema.encodeSync(PreviewProjectChangeResponse)(out)
      for (const n of numbersIn(encoded)) expect(Number.isSafeInteger(n)).toBe(true)
    }), options)
  })

  it("credits never exceed fees or the unused-time credit; totals are never negative", () => {
    fc.assert(fc.property(scenario, (input) => {
      const out = run(input)
      if (out === undefined) return
      const { dueNow, planChange } = out
      expect(dueNow.creditsCents).toBeGreaterThanOrEqual(0)
      expect(dueNow.creditsCents).toBeLessThanOrEqual(dueNow.feesCents - dueNow.discountCents + dueNow.taxesCents)
      expect(dueNow.creditsCents).toBeLessThanOrEqual(planChange!.unusedTimeCredit)
      expect(dueNow.totalCents).toBeGreaterThanOrEqual(0)
      expect(dueNow.feesCents).toBe(dueNow.lines.reduce((s, l) => s + l.amountCents, 0))
      for (const l of [...dueNow.lines, ...planChange!.additions]) expect(l.amountCents).toBeGreaterThanOrEqual(0)
      // The unused-time credit is capped at what was billed and never exceeds the current base fee.
      const billed = (input.current.baseFeeBilledCents ?? input.current.plan.baseAmountCents) - (input.current.baseFeeCreditedCents ?? 0)
      expect(planChange!.unusedTimeCredit).toBeLessThanOrEqual(Math.max(0, billed))
      expect(planChange!.unusedTimeCredit).toBeLessThanOrEqual(input.current.plan.baseAmountCents)
    }), options)
  })

  it("period_end exactly when not an upgrade; it has an empty invoice and an effectiveAt at a later midnight", () => {
    fc.assert(fc.property(scenario, (input) => {
      const out = run(input)
      if (out === undefined) return
      const change = out.planChange!
      const target = input.catalog["things"]!.find((p) => p.planCode === input.request.planCode)!
      const up = planChangeDirection(input.current.plan, target) === "up"
      expect(change.timing === "period_end").toBe(!up)
      expect(change.effectiveAt !== null).toBe(change.timing === "period_end")
      if (change.timing === "period_end") {
        expect(out.dueNow).toStrictEqual({
          creditsCents: 0, currency: "USD", discountCents: 0, feesCents: 0, lines: [], taxesCents: 0, totalCents: 0
        })
        expect(change.unusedTimeCredit).toBe(0)
        const at = change.effectiveAt!.epochMilliseconds
        expect(at % MS_PER_DAY).toBe(0)
        expect(at).toBeGreaterThan(input.now as number)
        expect(out.nextCharge?.at.epochMilliseconds).toBe(at)
      } else {
      // Immediate when nothing is due or a card can be charged off-session; otherwise on_payment.
        const immediate = out.dueNow.totalCents === 0 || input.current.paymentMethod === "off_session"
        expect(change.timing).toBe(immediate ? "immediate" : "on_payment")
      }
    }), options)
  })

  it("an upgrade's opening line is the target's fee for the remaining days, rounded half-up", () => {
    fc.assert(fc.property(scenario, (input) => {
      const out = run(input)
      if (out === undefined || out.planChange!.timing === "period_end") return
      const target = input.catalog["things"]!.find((p) => p.planCode === input.request.planCode)!
      const opening = out.dueNow.lines.find((l) => l.kind === "subscription" && l.code === target.planCode)
      expect(opening !== undefined).toBe(target.payInAdvance)
      if (opening === undefined) return
      const D = epochDayOfMillis(input.now as number)
      const tp = period(target.interval, input.current.billingTime!, epochDayOfMillis(input.current.anchorDate as number), D)
      const tDays = BigInt(tp.end - tp.start + 1)
      const rt = BigInt((opening.periodEnd!.epochMilliseconds - opening.periodStart!.epochMilliseconds) / MS_PER_DAY)
      expect(opening.periodStart!.epochMilliseconds).toBe(D * MS_PER_DAY)
      expect(rt).toBe(BigInt(tp.end - D + 1))
      const q = BigInt(opening.amountCents)
      const twiceN = 2n * BigInt(target.baseAmountCents) * rt
      // q − ½ ≤ n/d < q + ½
      expect((2n * q - 1n) * tDays <= twiceN && twiceN < (2n * q + 1n) * tDays).toBe(true)
    }), options)
  })
})

describe("rhu and periods properties", () => {
  const big = fc.bigInt({ min: 0n, max: 2n ** 80n })
  const divisor = fc.bigInt({ min: 1n, max: 400n })

  it("rhu is half-up: q − ½ ≤ n/d < q + ½", () => {
    fc.assert(fc.property(big, divisor, (n, d) => {
      const q = rhu(n, d)
      expect((2n * q - 1n) * d <= 2n * n).toBe(true)
      expect(2n * n < (2n * q + 1n) * d).toBe(true)
    }))
  })

  it("rhu matches Math.round on small exact values, ties included", () => {
    fc.assert(fc.property(fc.integer({ min: 0, max: 1_000_000 }), fc.integer({ min: 1, max: 400 }), (n, d) => {
      expect(rhu(BigInt(n), BigInt(d))).toBe(BigInt(Math.round(n / d)))
    }))
  })

  it("rhu of an exact half rounds up", () => {
    fc.assert(fc.property(fc.bigInt({ min: 0n, max: 2n ** 70n }), fc.bigInt({ min: 1n, max: 200n }), (k, h) => {
    // n/d = k + ½ with d = 2h, n = (2k + 1)h
      expect(rhu((2n * k + 1n) * h, 2n * h)).toBe(k + 1n)
    }))
  })

  const lengths = { weekly: [7, 7], monthly: [28, 31], quarterly: [89, 92], semiannual: [181, 184], yearly: [365, 366] } as const
  it("a period contains its day, has a plausible length, and the next one starts the day after it ends", () => {
    fc.assert(fc.property(fc.constantFrom(...(["weekly", "monthly", "quarterly", "semiannual", "yearly"] as const)), fc.constantFrom(...(["calendar", "anniversary"] as const)), fc.integer({ min: 3000, max: 60000 }), fc.integer({ min: 0, max: 3000 }), (interval, billingTime, day, back) => {
      const anchor = day - back
      const p = period(interval, billingTime, anchor, day)
      expect(p.start <= day && day <= p.end).toBe(true)
      const length = p.end - p.start + 1
      expect(length).toBeGreaterThanOrEqual(lengths[interval][0])
      expect(length).toBeLessThanOrEqual(lengths[interval][1])
      expect(period(interval, billingTime, anchor, p.end + 1).start).toBe(p.end + 1)
      expect(period(interval, billingTime, anchor, p.start)).toStrictEqual(p)
    }))
  })
})
