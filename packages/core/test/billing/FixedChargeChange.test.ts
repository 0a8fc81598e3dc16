/**
 * The `{fixedCharge}` preview (docs/api-notes/billing.md; FixedChargeChange.ts): example table and
 * properties.
 */
import { describe, expect, it } from "@effect/vitest"
import { DateTime, Result, Schema } from "effect"
import * as fc from "fast-check"
import { previewFixedChargeChange, type FixedChargePreviewInput } from "../../src/billing/FixedChargeChange.js"
import { epochDayOf } from "../../src/billing/Proration.js"
import { BillingPlanCatalog, PreviewInvoice, PreviewProjectChangeResponse } from "../../src/billing/Schema.js"

const MAX = 9007199254740991

const charge = (code: string, unit: number, o: { advance?: boolean; prorated?: boolean; min?: number; max?: number } = {}) => ({
  fixedChargeCode: code, name: code.toUpperCase(), unitAmountCents: unit, payInAdvance: o.advance ?? true,
  prorated: o.prorated ?? true, defaultUnits: 0, minQuantity: o.min ?? 1, maxQuantity: o.max ?? 100
})
const plan = (planCode: string, base: number, fixedCharges: ReadonlyArray<unknown>, interval = "monthly") => ({
  planCode, name: planCode, description: null, baseAmountCents: base, currency: "USD", interval, payInAdvance: true,
  isDefault: planCode === "pro", tier: 1, tierDisplayName: null, entitlements: [], fixedCharges, usageCharges: [],
  usageThresholds: [], minimumCommitment: null
})

const catalog = Schema.decodeUnknownSync(BillingPlanCatalog)({
  messaging: [
    plan("pro", 7900, [charge("seats", 1500), charge("sso", 2000, { prorated: false, max: 1 }), charge("audit", 300, { advance: false })]),
    plan("huge", 0, [charge("huge", MAX, { prorated: false, max: MAX })])
  ],
  other: [plan("elsewhere", 100, [charge("lines", 700)])]
})
const pro = catalog.messaging![0]!
const huge = catalog.messaging![1]!

const input = (o: Partial<FixedChargePreviewInput> = {}): FixedChargePreviewInput => ({
  catalog, plan: pro, billingTime: "calendar", anchorDay: epochDayOf(2025, 1, 1), heldFixedCharges: [],
  cancellationScheduled: false, paymentMethod: "off_session", fixedChargeCode: "seats", quantity: 4,
  now: Date.parse("2025-03-12T15:30:00Z"), ...o
})

const wire = (r: ReturnType<typeof previewFixedChargeChange>) =>
  Result.map(r, (p) => Schema.encodeSync(PreviewProjectChangeResponse)({ dueNow: p.dueNow, nextCharge: p.nextCharge }))

describe("previewFixedChargeChange: examples", () => {
  it("more prorated seats: the added units for [D, period end), half-up; the next charge at the new quantity", () => {
    const r = wire(previewFixedChargeChange(input({ heldFixedCharges: [{ fixedChargeCode: "seats", quantity: 1 }] })))
    // 3 more × 1500 × 20 / 31 = 2903.2 → 2903.
    expect(r).toEqual(Result.succeed({
      dueNow: {
        creditsCents: 0, currency: "USD", discountCents: 0, feesCents: 2903, taxesCents: 0, totalCents: 2903,
        lines: [{ amountCents: 2903, code: "seats", kind: "fixed_charge", name: "SEATS", units: "3",
          periodStart: "2025-03-12T00:00:00.000Z", periodEnd: "2025-04-01T00:00:00.000Z" }]
      },
      nextCharge: { amountCents: 7900 + 4 * 1500, at: "2025-04-01T00:00:00.000Z", currency: "USD" }
    }))
  })

  it.each([
    ["a non-prorated charge costs its full price", { fixedChargeCode: "sso", quantity: 1 }, 2000],
    ["fewer units bill nothing now", { heldFixedCharges: [{ fixedChargeCode: "seats", quantity: 9 }], quantity: 2 }, 0],
    ["releasing (0) bills nothing and is always allowed", { heldFixedCharges: [{ fixedChargeCode: "seats", quantity: 9 }], quantity: 0 }, 0],
    ["an in-arrears charge bills at period end", { fixedChargeCode: "audit", quantity: 5 }, 0],
    ["the same quantity bills nothing", { heldFixedCharges: [{ fixedChargeCode: "seats", quantity: 4 }] }, 0],
    ["half-up at exactly .5: 1 seat × 1500 × 15 / 30 → 750; 1 × 1501 × 15/30 = 750.5 → 751", {
      catalog: Schema.decodeUnknownSync(BillingPlanCatalog)({ m: [plan("p", 0, [charge("s", 1501)])] }),
      plan: Schema.decodeUnknownSync(BillingPlanCatalog)({ m: [plan("p", 0, [charge("s", 1501)])] }).m![0]!,
      fixedChargeCode: "s", quantity: 1, now: Date.parse("2025-06-16T00:00:00Z")
    }, 751]
  ] as const)("%s", (_, o, total) => {
    const r = previewFixedChargeChange(input(o as Partial<FixedChargePreviewInput>))
    expect(Result.isSuccess(r) && r.success.dueNow.totalCents).toBe(total)
  })

  it.each([
    ["off_session", 1, "immediate"], ["requires_action", 1, "on_payment"], ["none", 1, "on_payment"],
    ["none", 0, "immediate"], ["requires_action", 0, "immediate"]
  ] as const)("timing with %s and a total of %s × 2903 → %s", (paymentMethod, more, timing) => {
    const r = previewFixedChargeChange(input({ paymentMethod, heldFixedCharges: [{ fixedChargeCode: "seats", quantity: more === 1 ? 1 : 4 }] }))
    expect(Result.isSuccess(r) && r.success.timing).toBe(timing)
  })

  it.each([
    ["a code no plan sells", { fixedChargeCode: "ghost" }, "feature_not_found"],
    ["a code the current plan does not sell", { fixedChargeCode: "lines" }, "feature_not_sold_by_plan"],
    ["above maxQuantity", { fixedChargeCode: "sso", quantity: 2 }, "quantity_out_of_range"],
    ["a scheduled cancellation", { cancellationScheduled: true }, "cancellation_scheduled"]
  ] as const)("%s → invalid_target / %s", (_, o, detail) => {
    const r = previewFixedChargeChange(input(o))
    expect(Result.isFailure(r) && r.failure._tag === "PlanChangeRejected" && r.failure.detail).toBe(detail)
  })

  it("an amount beyond 9007199254740991 is a typed failure", () => {
    const r = previewFixedChargeChange(input({ plan: huge, fixedChargeCode: "huge", quantity: 2 }))
    expect(Result.isFailure(r) && r.failure._tag).toBe("PlanChangeAmountOutOfRange")
  })

  it("the held charges after: set, added, removed at 0, sorted by code", () => {
    const held = [{ fixedChargeCode: "sso", quantity: 1 }, { fixedChargeCode: "seats", quantity: 2 }]
    const set = previewFixedChargeChange(input({ heldFixedCharges: held, quantity: 5 }))
    expect(Result.isSuccess(set) && set.success.heldAfter).toEqual([{ fixedChargeCode: "seats", quantity: 5 }, { fixedChargeCode: "sso", quantity: 1 }])
    const released = previewFixedChargeChange(input({ heldFixedCharges: held, fixedChargeCode: "sso", quantity: 0 }))
    expect(Result.isSuccess(released) && released.success.heldAfter).toEqual([{ fixedChargeCode: "seats", quantity: 2 }])
  })
})

describe("previewFixedChargeChange: properties", () => {
  const scenario = fc.record({
    unit: fc.oneof(fc.integer({ min: 0, max: 100_000 }), fc.integer({ min: 0, max: MAX })),
    prorated: fc.boolean(),
    advance: fc.boolean(),
    held: fc.integer({ min: 0, max: 1000 }),
    quantity: fc.integer({ min: 0, max: 1000 }),
    now: fc.integer({ min: Date.parse("2000-01-01T00:00:00Z"), max: Date.parse("2100-12-31T23:59:59Z") }),
    interval: fc.constantFrom("weekly", "monthly", "quarterly", "semiannual", "yearly"),
    paymentMethod: fc.constantFrom("off_session", "requires_action", "none")
  }).map((s) => {
    const c = Schema.decodeUnknownSync(BillingPlanCatalog)({
      m: [plan("p", 1000, [charge("x", s.unit, { prorated: s.prorated, advance: s.advance, min: 1, max: 1000 })], s.interval)]
    })
    return { s, input: input({ catalog: c, plan: c.m![0]!, fixedChargeCode: "x", quantity: s.quantity,
      heldFixedCharges: s.held > 0 ? [{ fixedChargeCode: "x", quantity: s.held }] : [], now: s.now, paymentMethod: s.paymentMethod as "off_session" | "requires_action" | "none" }) }
  })

  it("a consistent invoice: no credits, total = fees ≥ 0, within the safe range, never above the full price of the added units", () => {
    fc.assert(fc.property(scenario, ({ input: i, s }) => {
      const r = previewFixedChargeChange(i)
      if (Result.isFailure(r)) {
        expect(r.failure._tag).toBe("PlanChangeAmountOutOfRange")
        // Out of range only when some amount is: the charge's units, or the next charge (base fee 1000 + units).
        expect(1000n + BigInt(s.unit) * BigInt(Math.max(1, s.quantity))).toBeGreaterThan(BigInt(MAX))
        return
      }
      const due = r.success.dueNow
      expect(Result.isSuccess(Schema.encodeResult(PreviewInvoice)(due))).toBe(true)
      expect(due.creditsCents).toBe(0)
      expect(due.totalCents).toBe(due.feesCents)
      expect(due.totalCents).toBeGreaterThanOrEqual(0)
      expect(Number.isSafeInteger(due.totalCents) && Number.isSafeInteger(r.success.nextCharge.amountCents)).toBe(true)
      const added = Math.max(0, s.quantity - s.held)
      expect(BigInt(due.totalCents)).toBeLessThanOrEqual(BigInt(s.unit) * BigInt(added))
      if (!s.advance || added === 0) expect(due.lines).toEqual([])
      expect(r.success.timing).toBe(due.totalCents === 0 || s.paymentMethod === "off_session" ? "immediate" : "on_payment")
    }))
  })

  it("the next charge is the base fee plus every held charge at its full price", () => {
    fc.assert(fc.property(scenario, ({ input: i, s }) => {
      const r = previewFixedChargeChange(i)
      if (Result.isFailure(r)) return
      expect(BigInt(r.success.nextCharge.amountCents)).toBe(1000n + BigInt(s.unit) * BigInt(s.quantity))
      expect(DateTime.toEpochMillis(r.success.nextCharge.at)).toBeGreaterThan(i.now)
    }))
  })
})
