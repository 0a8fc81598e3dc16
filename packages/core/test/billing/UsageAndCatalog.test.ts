/**
 * Usage prices and thresholds (docs/api-notes/billing.md), the catalog rules
 * (docs/api-notes/billing.md) and period-end invoicing (Invoicing.ts): examples and properties.
 */
import { describe, expect, it } from "@effect/vitest"
import { DateTime, Result, Schema } from "effect"
import * as fc from "fast-check"
import { categoriesOf, validateCatalog } from "../../src/billing/Catalog.js"
import { closePeriod } from "../../src/billing/Invoicing.js"
import type { SubscriptionRecord } from "../../src/billing/Ports.js"
import { epochDayOf, period } from "../../src/billing/Proration.js"
import { type BillingPlan, BillingPlan as BillingPlanSchema, PreviewLine } from "../../src/billing/Schema.js"
import { parseDecimal, thresholdsCrossed, usageAmount } from "../../src/billing/Usage.js"

const t = (amountCents: number, recurring = false) => ({ amountCents, displayName: null, recurring })
const crossedPoints = (thresholds: ReadonlyArray<ReturnType<typeof t>>, u0: number, u1: number) => {
  const r = thresholdsCrossed(thresholds, BigInt(u0), BigInt(u1))
  return { crossed: r.crossed, points: r.points.map(Number), multiples: Number(r.recurringMultiples) }
}

describe("thresholdsCrossed (docs/api-notes/billing.md)", () => {
  const plus = [t(10000), t(25000, true)]
  it.each([
    [0, 5000, { crossed: false, points: [], multiples: 0 }],
    [5000, 10000, { crossed: true, points: [10000], multiples: 0 }],
    [10000, 12500, { crossed: false, points: [], multiples: 0 }],
    [17500, 27500, { crossed: true, points: [], multiples: 1 }],
    [0, 80000, { crossed: true, points: [10000], multiples: 3 }],
    [25000, 25000, { crossed: false, points: [], multiples: 0 }],
    [30000, 20000, { crossed: false, points: [], multiples: 0 }]
  ])("U0=%s U1=%s", (u0, u1, expected) => {
    expect(crossedPoints(plus, u0, u1)).toEqual(expected)
  })

  it("a point shared by a fixed and the recurring threshold counts once", () => {
    expect(crossedPoints([t(50000), t(25000, true)], 0, 60000)).toEqual({ crossed: true, points: [50000], multiples: 1 })
  })

  it("crossed exactly when some point p has U0 < p ≤ U1 (brute force on small values)", () => {
    fc.assert(fc.property(fc.array(fc.integer({ min: 0, max: 60 }), { maxLength: 4 }), fc.option(fc.integer({ min: 1, max: 25 }), { nil: undefined }), fc.integer({ min: 0, max: 200 }), fc.integer({ min: 0, max: 200 }), (fixed, recurring, a, b) => {
      const thresholds = [...new Set(fixed)].map((x) => t(x)).concat(recurring === undefined ? [] : [t(recurring, true)])
      const points = new Set(fixed)
      if (recurring !== undefined) for (let k = recurring; k <= 400; k += recurring) points.add(k)
      const expected = [...points].filter((p) => a < p && p <= b)
      const r = crossedPoints(thresholds, a, b)
      expect(r.crossed).toBe(expected.length > 0)
      expect(r.points.length + r.multiples).toBe(expected.length)
    }))
  })
})

describe("usage prices", () => {
  const charge = (unitAmountCents: string, freeUnits = 0) =>
    ({ chargeCode: "c", metricCode: "m", name: "C", unitAmountCents, freeUnits, payInAdvance: false })
  it.each([
    ["0.05", 0, 24680, 1234n],
    ["0.05", 0, 10, 1n], // 0.5 → 1 (half-up)
    ["0.05", 0, 9, 0n], // 0.45 → 0
    ["1.5", 0, 3, 5n], // 4.5 → 5
    ["2", 100, 150, 100n],
    ["2", 100, 50, 0n],
    ["0.0001", 0, 5000, 1n] // 0.5 → 1
  ] as const)("%s ¢/unit, %s free, %s units → %s", (price, free, units, amount) => {
    expect(usageAmount(charge(price, free), units)).toBe(amount)
  })

  it("exact and half-up: |amount − units×price| ≤ ½", () => {
    fc.assert(fc.property(fc.integer({ min: 0, max: 10_000_000 }), fc.integer({ min: 0, max: 99_999 }), fc.integer({ min: 0, max: 4 }), (units, digits, scale) => {
      const price = scale === 0 ? String(digits) : `${Math.floor(digits / 10 ** scale)}.${String(digits % 10 ** scale).padStart(scale, "0")}`
      const { denominator, numerator } = parseDecimal(price)
      const exact2 = 2n * BigInt(units) * numerator // twice the exact amount, in units of 1/denominator
      const amount = usageAmount(charge(price), units)
      expect(2n * amount * denominator - exact2).toBeLessThanOrEqual(denominator)
      expect(exact2 - 2n * amount * denominator).toBeLessThan(denominator)
    }))
  })
})

const planJson = (o: Record<string, unknown> = {}) => ({
  planCode: "p", name: "P", description: null, baseAmountCents: 1000, currency: "USD", interval: "monthly", payInAdvance: true,
  isDefault: true, tier: 1, tierDisplayName: null, entitlements: [], fixedCharges: [], usageCharges: [], usageThresholds: [],
  minimumCommitment: null, ...o
})

describe("validateCatalog", () => {
  it("accepts a catalog with one default per category and unique plan codes", () => {
    expect(Result.isSuccess(validateCatalog({ a: [planJson()], b: [planJson({ planCode: "q" }), planJson({ planCode: "r", isDefault: false })] }))).toBe(true)
  })
  it("the organization category (sold to organizations themselves) has no default plan and is no project category", () => {
    const catalog = validateCatalog({ a: [planJson()], organization: [planJson({ planCode: "org", isDefault: false })] })
    expect(Result.isSuccess(catalog) && categoriesOf(catalog.success)).toEqual(["a"])
    expect(Result.isFailure(catalog) ? catalog.failure : "").toBe("")
  })
  it.each([
    ["not an object", [], /JSON object/],
    ["empty", {}, /no category/],
    ["a bad category slug", { "1abc": [planJson()] }, /not a category slug/],
    ["a category without plans", { a: [] }, /has no plan/],
    ["no default", { a: [planJson({ isDefault: false })] }, /exactly one default/],
    ["two defaults", { a: [planJson(), planJson({ planCode: "q" })] }, /more than one default/],
    ["a default plan sold to organizations", { a: [planJson()], organization: [planJson({ planCode: "org" })] }, /organization is sold to organizations and must have no default/],
    ["a plan code in two categories", { a: [planJson()], b: [planJson()] }, /unique/],
    ["a base amount beyond the safe range", { a: [planJson({ baseAmountCents: 9007199254740992 })] }, /baseAmountCents/],
    ["a fractional amount", { a: [planJson({ baseAmountCents: 1.5 })] }, /baseAmountCents/],
    ["an unknown field", { a: [planJson({ extra: 1 })] }, /extra/],
    ["thresholds out of order", { a: [planJson({ usageThresholds: [t(5), t(3)] })] }, /ordered/],
    ["two recurring thresholds", { a: [planJson({ usageThresholds: [t(3, true), t(5, true)] })] }, /recurring/],
    ["min above max quantity", { a: [planJson({ fixedCharges: [{ fixedChargeCode: "s", name: "S", unitAmountCents: 1, payInAdvance: true, prorated: true, defaultUnits: 0, minQuantity: 5, maxQuantity: 2 }] })] }, /minQuantity/]
  ] as const)("refuses %s, saying why", (_, input, reason) => {
    const r = validateCatalog(input)
    expect(Result.isFailure(r) && r.failure).toMatch(reason)
  })
})

describe("closePeriod (period-end invoicing)", () => {
  const plan = (o: Record<string, unknown>) => Schema.decodeUnknownSync(BillingPlanSchema)(planJson(o))
  const day = (iso: string) => epochDayOf(Number(iso.slice(0, 4)), Number(iso.slice(5, 7)), Number(iso.slice(8, 10)))
  const now = DateTime.makeUnsafe("2025-04-01T00:00:00Z")
  const sub = (p: BillingPlan, o: Partial<SubscriptionRecord> = {}): SubscriptionRecord => {
    const anchorDay = day("2025-01-01")
    const cp = period(p.interval, "anniversary", anchorDay, day("2025-03-12"))
    return {
      projectId: "01900000-0000-7000-8000-000000000000" as never, organizationId: "sb_org_x" as never, category: "c",
      planCode: p.planCode, source: "default", anchorDay, periodStart: cp.start, periodEnd: cp.end, planStartDay: cp.start,
      heldFixedCharges: [], baseFeeBilledCents: p.payInAdvance ? p.baseAmountCents : 0, baseFeeCreditedCents: 0, usage: {},
      progressiveBilledCents: 0, closedUsageCents: 0, thresholdCheckedCents: 0, usageDirty: false, scheduledChange: null,
      version: 1, createdAt: now, updatedAt: now, ...o
    }
  }
  const amounts = (lines: ReadonlyArray<PreviewLine>) => lines.map((l) => `${l.kind}:${l.code}:${l.amountCents}`)

  it("in arrears, started mid-period: the base fee for the days active; usage and commitment shortfall; in advance next", () => {
    const arrears = plan({
      planCode: "a", payInAdvance: false, baseAmountCents: 3100,
      usageCharges: [{ chargeCode: "calls", metricCode: "call", name: "Calls", unitAmountCents: "0.5", freeUnits: 0, payInAdvance: false }],
      minimumCommitment: { amountCents: 6200, displayName: "Minimum" }
    })
    const r = closePeriod(sub(arrears, { planStartDay: day("2025-03-12"), usage: { call: 1001 } }), arrears, undefined, now)
    // 20 of 31 days: base 2000, commitment 4000; usage 1001 × 0.5 = 500.5 → 501; shortfall 4000 − 2501 = 1499.
    expect(amounts(r.lines)).toEqual(["subscription:a:2000", "usage:calls:501", "commitment:a:1499"])
    expect(r.next).toMatchObject({ periodStart: day("2025-04-01"), periodEnd: day("2025-04-30"), planStartDay: day("2025-04-01"), usage: {}, closedUsageCents: 501 })
  })

  it("a scheduled downgrade applies at the boundary: unsold charges dropped, additions added, first fee of the target", () => {
    const pro = plan({ planCode: "pro", baseAmountCents: 7900, fixedCharges: [
      { fixedChargeCode: "seats", name: "Seats", unitAmountCents: 1500, payInAdvance: true, prorated: true, defaultUnits: 0, minQuantity: 1, maxQuantity: 9 },
      { fixedChargeCode: "sso", name: "SSO", unitAmountCents: 2000, payInAdvance: true, prorated: false, defaultUnits: 0, minQuantity: 1, maxQuantity: 1 }
    ] })
    const starter = plan({ planCode: "starter", baseAmountCents: 2900, isDefault: false, fixedCharges: [
      { fixedChargeCode: "seats", name: "Seats", unitAmountCents: 1000, payInAdvance: true, prorated: true, defaultUnits: 0, minQuantity: 1, maxQuantity: 9 }
    ] })
    const s = sub(pro, {
      heldFixedCharges: [{ fixedChargeCode: "seats", quantity: 2 }, { fixedChargeCode: "sso", quantity: 1 }],
      scheduledChange: { operationId: "op", planCode: "starter", effectiveDay: day("2025-04-01"), additions: [{ fixedChargeCode: "seats", quantity: 1 }] }
    })
    const r = closePeriod(s, pro, starter, now)
    expect(r.planChanged).toBe(true)
    expect(amounts(r.lines)).toEqual(["subscription:starter:2900", "fixed_charge:seats:3000"])
    expect(r.next).toMatchObject({ planCode: "starter", heldFixedCharges: [{ fixedChargeCode: "seats", quantity: 3 }], scheduledChange: null, version: 2 })
  })

  it("a yearly plan reached from a monthly anchor opens with the prorated rest of its year", () => {
    const monthly = plan({ planCode: "m", baseAmountCents: 1000 })
    const yearly = plan({ planCode: "y", baseAmountCents: 36500, interval: "yearly", isDefault: false })
    const s = sub(monthly, { scheduledChange: { operationId: "op", planCode: "y", effectiveDay: day("2025-04-01"), additions: [] } })
    const r = closePeriod(s, monthly, yearly, now)
    // The year anchored on Jan 1: 275 of 365 days → 27500.
    expect(amounts(r.lines)).toEqual(["subscription:y:27500"])
    expect(r.next).toMatchObject({ periodStart: day("2025-01-01"), periodEnd: day("2025-12-31"), planStartDay: day("2025-04-01"), baseFeeBilledCents: 27500 })
  })

  it("the next period contains the boundary; lines are non-negative, inside their invoice and encodable", () => {
    fc.assert(fc.property(fc.record({
      base: fc.integer({ min: 0, max: 1_000_000 }),
      advance: fc.boolean(),
      interval: fc.constantFrom("weekly", "monthly", "quarterly", "semiannual", "yearly"),
      anchor: fc.integer({ min: day("2001-01-01"), max: day("2090-01-01") }),
      offset: fc.integer({ min: 0, max: 3000 }),
      units: fc.integer({ min: 0, max: 1_000_000 }),
      commitment: fc.option(fc.integer({ min: 0, max: 1_000_000 }), { nil: null })
    }), (g) => {
      const p = plan({
        payInAdvance: g.advance, baseAmountCents: g.base, interval: g.interval,
        usageCharges: [{ chargeCode: "u", metricCode: "u", name: "U", unitAmountCents: "0.3", freeUnits: 10, payInAdvance: false }],
        minimumCommitment: g.commitment === null ? null : { amountCents: g.commitment, displayName: null }
      })
      const cp = period(p.interval, "anniversary", g.anchor, g.anchor + g.offset)
      const s = sub(p, { anchorDay: g.anchor, periodStart: cp.start, periodEnd: cp.end, planStartDay: cp.start, usage: { u: g.units } })
      const r = closePeriod(s, p, undefined, now)
      expect(r.boundary).toBe(cp.end + 1)
      expect(r.next.periodStart).toBe(cp.end + 1)
      expect(r.next.periodEnd).toBeGreaterThanOrEqual(cp.end + 1)
      for (const line of r.lines) {
        expect(line.amountCents).toBeGreaterThanOrEqual(0)
        expect(Result.isSuccess(Schema.encodeResult(PreviewLine)(line))).toBe(true)
        expect(line.periodStart!.epochMilliseconds).toBeLessThan(line.periodEnd!.epochMilliseconds)
      }
      // A shortfall tops the period's fees up to the commitment exactly.
      const closing = r.lines.filter((l) => l.periodEnd!.epochMilliseconds === (cp.end + 1) * 86_400_000)
      const spent = closing.filter((l) => l.kind !== "commitment").reduce((a, l) => a + l.amountCents, 0) + (g.advance ? g.base : 0)
      const commitment = closing.find((l) => l.kind === "commitment")
      if (g.commitment !== null && spent < g.commitment) expect(commitment?.amountCents).toBe(g.commitment - spent)
      else expect(commitment).toBeUndefined()
    }))
  })
})
