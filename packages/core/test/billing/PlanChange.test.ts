/**
 * The plan-change preview (docs/api-notes/billing.md; the worked examples E1–E3, reproduced
 * exactly, then a table of our own cases). Results are compared in their wire form: encoded with
 * `PreviewProjectChangeResponse`, so every case also checks that the output encodes.
 */
import { describe, expect, it } from "@effect/vitest"
import { Result, Schema } from "effect"
import { rhu } from "../../src/billing/Money.js"
import {
  type CurrentSubscription, type PlanChangePreviewError, type PlanChangePreviewInput, planChangeDirection,
  previewPlanChange
} from "../../src/billing/PlanChange.js"
import { dateOfEpochDay, epochDayOf, period } from "../../src/billing/Proration.js"
import {
  BillingPlan, BillingPlanCatalog, type BillingInterval, PreviewLine, PreviewProjectChangeResponse
} from "../../src/billing/Schema.js"

const MAX = 9007199254740991

// ---------------------------------------------------------------------------------------------
// The docs/api-notes/billing.md catalog, plus a few plans of our own
// ---------------------------------------------------------------------------------------------

const plan = (p: {
  planCode: string; name: string; tier: number | null; base: number; interval: BillingInterval; advance: boolean
  fixedCharges?: ReadonlyArray<unknown>; commitment?: { amountCents: number; displayName: string | null } | null
  currency?: string
}) => ({
  planCode: p.planCode,
  name: p.name,
  description: null,
  baseAmountCents: p.base,
  currency: p.currency ?? "USD",
  interval: p.interval,
  payInAdvance: p.advance,
  isDefault: false,
  tier: p.tier,
  tierDisplayName: null,
  entitlements: [],
  fixedCharges: p.fixedCharges ?? [],
  usageCharges: [],
  usageThresholds: [],
  minimumCommitment: p.commitment ?? null
})

const charge = (code: string, name: string, unit: number, o: { advance?: boolean; prorated?: boolean; def?: number; min?: number; max?: number } = {}) => ({
  fixedChargeCode: code,
  name,
  unitAmountCents: unit,
  payInAdvance: o.advance ?? true,
  prorated: o.prorated ?? true,
  defaultUnits: o.def ?? 0,
  minQuantity: o.min ?? 1,
  maxQuantity: o.max ?? 100
})

const seats1500 = charge("seats", "Extra seats", 1500, { max: 100 })
const sso = charge("sso", "SSO", 2000, { prorated: false, max: 1 })
const seats2000 = charge("seats", "Extra seats", 2000, { max: 500 })
const manyCharges = Array.from({ length: 11 }, (_, i) => charge(`c${String(i + 1).padStart(2, "0")}`, `Charge ${i + 1}`, 100, { prorated: false }))

const catalog = Schema.decodeUnknownSync(BillingPlanCatalog)({
  messaging: [
    plan({ planCode: "starter_monthly", name: "Starter", tier: 1, base: 2900, interval: "monthly", advance: true }),
    plan({ planCode: "pro_monthly", name: "Pro", tier: 2, base: 7900, interval: "monthly", advance: true, fixedCharges: [seats1500, sso] }),
    plan({ planCode: "pro_yearly", name: "Pro (annual)", tier: 2, base: 79000, interval: "yearly", advance: true }),
    plan({ planCode: "business_monthly", name: "Business", tier: 3, base: 9900, interval: "monthly", advance: true, fixedCharges: [seats2000] }),
    plan({ planCode: "business_yearly", name: "Business (annual)", tier: 3, base: 99000, interval: "yearly", advance: true }),
    plan({ planCode: "odd_monthly", name: "Odd", tier: 5, base: 7901, interval: "monthly", advance: true }),
    plan({ planCode: "max_monthly", name: "Max", tier: 9, base: MAX, interval: "monthly", advance: true }),
    plan({
      planCode: "huge_charge", name: "Huge", tier: 9, base: 0, interval: "monthly", advance: true,
      fixedCharges: [charge("huge", "Huge charge", MAX, { prorated: false, def: 2, max: MAX })]
    }),
    plan({
      planCode: "enterprise_monthly", name: "Enterprise", tier: 4, base: 20000, interval: "monthly", advance: true,
      fixedCharges: [
        charge("seats", "Extra seats", 1000, { max: 1000 }),
        charge("support", "Support", 500, { prorated: false, def: 1, min: 0, max: 1 }),
        charge("audit", "Audit log", 300, { advance: false, def: 1 })
      ]
    }),
    plan({ planCode: "many_charges", name: "Many", tier: 4, base: 10000, interval: "monthly", advance: true, fixedCharges: manyCharges }),
    plan({ planCode: "euro_pro", name: "Pro EUR", tier: 2, base: 7900, interval: "monthly", advance: true, currency: "EUR" })
  ],
  api: [
    plan({ planCode: "basic_arrears", name: "API Basic", tier: 1, base: 3000, interval: "monthly", advance: false }),
    plan({ planCode: "plus_arrears", name: "API Plus", tier: 2, base: 6000, interval: "monthly", advance: false }),
    plan({
      planCode: "growth_monthly", name: "API Growth", tier: 2, base: 4997, interval: "monthly", advance: false,
      commitment: { amountCents: 20000, displayName: "Growth monthly minimum" }
    }),
    plan({
      planCode: "scale_monthly", name: "API Scale", tier: 3, base: 15000, interval: "monthly", advance: true,
      commitment: { amountCents: 50000, displayName: "Scale monthly minimum" }
    }),
    plan({
      planCode: "nameless_commit", name: "Nameless", tier: 1, base: 0, interval: "monthly", advance: false,
      commitment: { amountCents: 3000, displayName: null }
    })
  ],
  studio: [
    plan({ planCode: "weekly_basic", name: "Studio Basic", tier: 1, base: 700, interval: "weekly", advance: true }),
    plan({ planCode: "weekly_plus", name: "Studio Plus", tier: 2, base: 2100, interval: "weekly", advance: true }),
    plan({ planCode: "weekly_null", name: "Weekly (no tier)", tier: null, base: 2100, interval: "weekly", advance: true }),
    plan({ planCode: "monthly_null_9000", name: "Monthly 9000", tier: null, base: 9000, interval: "monthly", advance: true }),
    plan({ planCode: "monthly_null_9100", name: "Monthly 9100", tier: null, base: 9100, interval: "monthly", advance: true }),
    plan({ planCode: "yearly_tier_1", name: "Yearly tier 1", tier: 1, base: 120000, interval: "yearly", advance: true })
  ]
})

const find = (code: string): BillingPlan => {
  for (const plans of Object.values(catalog)) {
    const p = plans.find((x) => x.planCode === code)
    if (p !== undefined) return p
  }
  throw new Error(`no plan ${code}`)
}
const categoryOf = (code: string): string =>
  Object.entries(catalog).find(([, plans]) => plans.some((p) => p.planCode === code))![0]

const subscription = (planCode: string, extra: Partial<CurrentSubscription> = {}): CurrentSubscription => ({
  plan: find(planCode),
  cancellationScheduled: false,
  paymentMethod: "off_session",
  ...extra
})

const input = (
  from: string, to: string, now: string | number, extra: Partial<CurrentSubscription> = {},
  additions?: ReadonlyArray<{ fixedChargeCode: string; quantity: number }>
): PlanChangePreviewInput => ({
  catalog,
  current: subscription(from, extra),
  request: { category: categoryOf(to), planCode: to, ...(additions === undefined ? {} : { additions }) },
  now
})

/** Previews and returns the wire form (encoded by the response schema). */
const wire = (i: PlanChangePreviewInput) => {
  const result = previewPlanChange(i)
  if (Result.isFailure(result)) throw new Error(`expected a preview, got ${result.failure._tag}: ${JSON.stringify(result.failure)}`)
  const encoded = Schema.encodeResult(PreviewProjectChangeResponse)(result.success)
  if (Result.isFailure(encoded)) throw encoded.failure
  return encoded.success
}

const failure = (i: PlanChangePreviewInput): PlanChangePreviewError => {
  const result = previewPlanChange(i)
  if (Result.isSuccess(result)) throw new Error(`expected a failure, got ${JSON.stringify(wire(i))}`)
  return result.failure
}

const EMPTY = { creditsCents: 0, currency: "USD", discountCents: 0, feesCents: 0, lines: [], taxesCents: 0, totalCents: 0 }
const iso = (date: string) => `${date}T00:00:00.000Z`
const line = (kind: string, code: string, name: string, amountCents: number, units: string, from: string, to: string) => ({
  amountCents, code, kind, name, periodStart: iso(from), periodEnd: iso(to), units
})
const invoice = (lines: ReadonlyArray<ReturnType<typeof line>>, creditsCents: number) => {
  const feesCents = lines.reduce((s, l) => s + l.amountCents, 0)
  return { creditsCents, currency: "USD", discountCents: 0, feesCents, lines, taxesCents: 0, totalCents: feesCents - creditsCents }
}

// ---------------------------------------------------------------------------------------------
// E1–E3 (docs/api-notes/billing.md), every line and total
// ---------------------------------------------------------------------------------------------

describe("the worked examples E1–E3 (docs/api-notes/billing.md)", () => {
  it("E1: monthly upgrade mid-period, in advance", () => {
    expect(wire(input("starter_monthly", "pro_monthly", "2025-03-12T15:30:00Z"))).toStrictEqual({
      dueNow: {
        creditsCents: 1871,
        currency: "USD",
        discountCents: 0,
        feesCents: 5097,
        lines: [{
          kind: "subscription", code: "pro_monthly", name: "Pro", amountCents: 5097, units: "1",
          periodStart: "2025-03-12T00:00:00.000Z", periodEnd: "2025-04-01T00:00:00.000Z"
        }],
        taxesCents: 0,
        totalCents: 3226
      },
      nextCharge: { amountCents: 7900, at: "2025-04-01T00:00:00.000Z", currency: "USD" },
      planChange: {
        timing: "immediate", effectiveAt: null, additions: [], unsoldFixedCharges: [], unusedTimeCredit: 1871,
        minimumCommitment: null
      }
    })
  })

  it("E2: upgrade in arrears", () => {
    const usage = Schema.decodeUnknownSync(PreviewLine)({
      kind: "usage", code: "api_calls", name: "API calls", amountCents: 1234, units: "24680",
      periodStart: "2025-06-01T00:00:00.000Z", periodEnd: "2025-06-10T14:00:00.000Z"
    })
    expect(wire(input("basic_arrears", "plus_arrears", "2025-06-10T14:00:00Z", { unbilledUsage: [usage] }))).toStrictEqual({
      dueNow: {
        creditsCents: 0,
        currency: "USD",
        discountCents: 0,
        feesCents: 2134,
        lines: [
          {
            kind: "subscription", code: "basic_arrears", name: "API Basic", amountCents: 900, units: "1",
            periodStart: "2025-06-01T00:00:00.000Z", periodEnd: "2025-06-10T00:00:00.000Z"
          },
          {
            kind: "usage", code: "api_calls", name: "API calls", amountCents: 1234, units: "24680",
            periodStart: "2025-06-01T00:00:00.000Z", periodEnd: "2025-06-10T14:00:00.000Z"
          }
        ],
        taxesCents: 0,
        totalCents: 2134
      },
      // "Later: on 2025-07-01 the regular invoice bills plus_arrears 6000×21/30 = 4200."
      nextCharge: { amountCents: 4200, at: "2025-07-01T00:00:00.000Z", currency: "USD" },
      planChange: {
        timing: "immediate", effectiveAt: null, additions: [], unsoldFixedCharges: [], unusedTimeCredit: 0,
        minimumCommitment: null
      }
    })
  })

  it("E3: downgrade", () => {
    expect(wire(input("pro_monthly", "starter_monthly", "2025-03-12T15:30:00Z"))).toStrictEqual({
      dueNow: EMPTY,
      // "Starter's first fee, 2900, is billed then."
      nextCharge: { amountCents: 2900, at: "2025-04-01T00:00:00.000Z", currency: "USD" },
      planChange: {
        timing: "period_end", effectiveAt: "2025-04-01T00:00:00.000Z", additions: [], unsoldFixedCharges: [],
        unusedTimeCredit: 0, minimumCommitment: null
      }
    })
  })
})

// ---------------------------------------------------------------------------------------------
// Our own table
// ---------------------------------------------------------------------------------------------

const E1_NOW = "2025-03-12T15:30:00Z"
const e1Line = line("subscription", "pro_monthly", "Pro", 5097, "1", "2025-03-12", "2025-04-01")

describe("timing of an upgrade", () => {
  it.each([
    ["off_session", "immediate"],
    ["requires_action", "on_payment"],
    ["none", "on_payment"]
  ] as const)("a positive total with %s is %s", (paymentMethod, timing) => {
    const out = wire(input("starter_monthly", "pro_monthly", E1_NOW, { paymentMethod }))
    expect(out.dueNow.totalCents).toBe(3226)
    expect(out.planChange?.timing).toBe(timing)
    expect(out.planChange?.effectiveAt).toBeNull()
  })

  it.each(["off_session", "requires_action", "none"] as const)(
    "a zero total is immediate with %s, even when the credit exceeds the fees",
    (paymentMethod) => {
      // Pro (7900) → Business yearly would cost; instead Business (9900, tier 3) → Odd (7901, tier 5) at month start:
      // fees 7901, credit min(9900, 7901) = 7901, total 0; 1999 goes to the balance.
      const out = wire(input("business_monthly", "odd_monthly", "2025-03-01T08:00:00Z", { paymentMethod }))
      expect(out.dueNow).toStrictEqual(invoice([line("subscription", "odd_monthly", "Odd", 7901, "1", "2025-03-01", "2025-04-01")], 7901))
      expect(out.dueNow.totalCents).toBe(0)
      expect(out.planChange?.unusedTimeCredit).toBe(9900)
      expect(out.planChange?.timing).toBe("immediate")
    }
  )
})

describe("downgrades and lateral moves → period_end", () => {
  it("lateral (same tier, monthly → yearly): period_end, an empty invoice, effectiveAt at the next period", () => {
    const out = wire(input("pro_monthly", "pro_yearly", E1_NOW, { paymentMethod: "none" }))
    expect(out.dueNow).toStrictEqual(EMPTY)
    expect(out.planChange).toStrictEqual({
      timing: "period_end", effectiveAt: iso("2025-04-01"), additions: [], unsoldFixedCharges: [], unusedTimeCredit: 0,
      minimumCommitment: null
    })
    // The first yearly period under calendar billing is 2025; Apr 1..Dec 31 is 275 of 365 days:
    // 79000×275/365 = 59520.55 → 59521.
    expect(out.nextCharge).toStrictEqual({ amountCents: 59521, at: iso("2025-04-01"), currency: "USD" })
  })

  it("a downgrade with additions prices them for the target's first full period, outside the invoice", () => {
    const out = wire(input("business_monthly", "pro_monthly", "2025-06-10T10:00:00Z", {
      heldFixedCharges: [{ fixedChargeCode: "seats", quantity: 4 }]
    }, [{ fixedChargeCode: "sso", quantity: 1 }, { fixedChargeCode: "seats", quantity: 2 }]))
    expect(out.dueNow).toStrictEqual(EMPTY)
    expect(out.planChange).toStrictEqual({
      timing: "period_end",
      effectiveAt: iso("2025-07-01"),
      additions: [
        line("fixed_charge", "sso", "SSO", 2000, "1", "2025-07-01", "2025-08-01"),
        line("fixed_charge", "seats", "Extra seats", 3000, "2", "2025-07-01", "2025-08-01")
      ],
      unsoldFixedCharges: [],
      unusedTimeCredit: 0,
      minimumCommitment: null
    })
    // Pro 7900 + the 4 held seats at Pro's price 1500.
    expect(out.nextCharge).toStrictEqual({ amountCents: 7900 + 6000, at: iso("2025-07-01"), currency: "USD" })
  })

  it("period_end at a month end and on the last day of a leap February", () => {
    expect(wire(input("pro_monthly", "starter_monthly", "2025-01-31T23:59:59.999Z")).planChange?.effectiveAt).toBe(iso("2025-02-01"))
    expect(wire(input("pro_monthly", "starter_monthly", "2024-02-29T00:00:00Z")).planChange?.effectiveAt).toBe(iso("2024-03-01"))
    expect(wire(input("pro_monthly", "starter_monthly", "2024-12-31T12:00:00Z")).planChange?.effectiveAt).toBe(iso("2025-01-01"))
  })

  it("a downgrade to a plan with a commitment shows the target's full commitment", () => {
    const out = wire(input("scale_monthly", "growth_monthly", "2025-06-10T14:00:00Z"))
    expect(out.planChange?.minimumCommitment).toStrictEqual({ amountCents: 20000, displayName: "Growth monthly minimum" })
    expect(out.planChange?.timing).toBe("period_end")
    // Scale is in advance (nothing to close); Growth is in arrears (nothing to open).
    expect(out.nextCharge).toStrictEqual({ amountCents: 0, at: iso("2025-07-01"), currency: "USD" })
  })

  it("from a plan in arrears, the next charge includes the period's in-arrears fee", () => {
    const out = wire(input("plus_arrears", "basic_arrears", "2025-06-10T14:00:00Z"))
    expect(out.nextCharge).toStrictEqual({ amountCents: 6000, at: iso("2025-07-01"), currency: "USD" })
  })
})

describe("direction when a tier is null: annualised base amounts", () => {
  it("weekly 2100 (109200/yr) over monthly 9000 (108000/yr) is an upgrade, prorated by each plan's own period", () => {
    // 2025-03-12 is a Wednesday: the calendar week is Mon 03-10 .. Sun 03-16, rt = 5 of 7.
    const out = wire(input("monthly_null_9000", "weekly_null", E1_NOW))
    expect(out.dueNow).toStrictEqual(invoice([line("subscription", "weekly_null", "Weekly (no tier)", 1500, "1", "2025-03-12", "2025-03-17")], 1500))
    expect(out.planChange?.unusedTimeCredit).toBe(5806) // 9000×20/31 = 5806.45
    expect(out.planChange?.timing).toBe("immediate")
    expect(out.nextCharge).toStrictEqual({ amountCents: 2100, at: iso("2025-03-17"), currency: "USD" })
  })

  it("monthly 9100 (109200/yr) to weekly 2100 (109200/yr) is a tie: not an upgrade, so period_end", () => {
    expect(planChangeDirection(find("monthly_null_9100"), find("weekly_null"))).toBe("lateral")
    const out = wire(input("monthly_null_9100", "weekly_null", E1_NOW))
    expect(out.planChange?.timing).toBe("period_end")
    expect(out.dueNow).toStrictEqual(EMPTY)
  })

  it("weekly 2100 to monthly 9000 is a downgrade", () => {
    expect(planChangeDirection(find("weekly_null"), find("monthly_null_9000"))).toBe("down")
    expect(wire(input("weekly_null", "monthly_null_9000", E1_NOW)).planChange?.effectiveAt).toBe(iso("2025-03-17"))
  })

  it("one null tier is enough to compare annualised amounts: a tier-1 yearly 120000 beats monthly 9100", () => {
    expect(planChangeDirection(find("monthly_null_9100"), find("yearly_tier_1"))).toBe("up")
    expect(planChangeDirection(find("yearly_tier_1"), find("monthly_null_9100"))).toBe("down")
  })

  it("with both tiers set, tiers decide even against the price", () => {
    // Business (tier 3, 9900) → Odd (tier 5, 7901) is up although cheaper; Business yearly (tier 3) → Pro monthly down.
    expect(planChangeDirection(find("business_monthly"), find("odd_monthly"))).toBe("up")
    expect(planChangeDirection(find("business_yearly"), find("pro_monthly"))).toBe("down")
    expect(planChangeDirection(find("pro_monthly"), find("pro_yearly"))).toBe("lateral")
  })
})

describe("additions", () => {
  it("UP: additions are prorated lines outside the invoice; the invoice and timing do not change", () => {
    const out = wire(input("starter_monthly", "pro_monthly", E1_NOW, { paymentMethod: "requires_action" }, [
      { fixedChargeCode: "seats", quantity: 3 },
      { fixedChargeCode: "sso", quantity: 1 }
    ]))
    expect(out.dueNow).toStrictEqual(invoice([e1Line], 1871))
    expect(out.planChange?.additions).toStrictEqual([
      line("fixed_charge", "seats", "Extra seats", 2903, "3", "2025-03-12", "2025-04-01"), // 1500×3×20/31 = 2903.2
      line("fixed_charge", "sso", "SSO", 2000, "1", "2025-03-12", "2025-04-01") // not prorated
    ])
    expect(out.planChange?.timing).toBe("on_payment")
    // The next period: 7900 + 3 seats + SSO.
    expect(out.nextCharge?.amountCents).toBe(7900 + 4500 + 2000)
  })

  const ten = manyCharges.slice(0, 10).map((c) => ({ fixedChargeCode: c.fixedChargeCode, quantity: 1 }))

  it("10 additions are accepted", () => {
    const out = wire(input("starter_monthly", "many_charges", E1_NOW, {}, ten))
    expect(out.planChange?.additions).toHaveLength(10)
    expect(out.planChange?.additions.every((l) => l.amountCents === 100)).toBe(true)
  })

  it("11 additions are a request validation error", () => {
    const error = failure(input("starter_monthly", "many_charges", E1_NOW, {}, [...ten, { fixedChargeCode: "c11", quantity: 1 }]))
    expect(error._tag).toBe("PlanChangeRequestInvalid")
  })

  it.each([
    ["a duplicate code", [{ fixedChargeCode: "seats", quantity: 1 }, { fixedChargeCode: "seats", quantity: 2 }]],
    ["quantity 0", [{ fixedChargeCode: "seats", quantity: 0 }]],
    ["a fractional quantity", [{ fixedChargeCode: "seats", quantity: 1.5 }]],
    ["a quantity over 9007199254740991", [{ fixedChargeCode: "seats", quantity: MAX + 1 }]],
    ["an empty code", [{ fixedChargeCode: "", quantity: 1 }]]
  ])("%s is a request validation error", (_, additions) => {
    expect(failure(input("starter_monthly", "pro_monthly", E1_NOW, {}, additions))._tag).toBe("PlanChangeRequestInvalid")
  })

  it.each([
    ["a code unknown to the catalog", [{ fixedChargeCode: "fax", quantity: 1 }], "feature_not_found", "fax"],
    ["a code the target does not sell (Business sells no SSO)", [{ fixedChargeCode: "sso", quantity: 1 }], "feature_not_sold_by_plan", "sso"],
    ["a quantity over maxQuantity", [{ fixedChargeCode: "seats", quantity: 501 }], "quantity_out_of_range", "seats"],
    ["the first failing addition wins (request order)", [{ fixedChargeCode: "seats", quantity: 501 }, { fixedChargeCode: "fax", quantity: 1 }], "quantity_out_of_range", "seats"],
    ["the first failing addition wins, reversed", [{ fixedChargeCode: "fax", quantity: 1 }, { fixedChargeCode: "seats", quantity: 501 }], "feature_not_found", "fax"]
  ])("%s → invalid_target / %s", (_, additions, detail, code) => {
    expect(failure(input("pro_monthly", "business_monthly", E1_NOW, {}, additions))).toMatchObject({
      _tag: "PlanChangeRejected", code: "invalid_target", detail, fixedChargeCode: code
    })
  })

  it("the quantity limits are inclusive: 500 seats on Business is accepted, 1 SSO on Pro too", () => {
    expect(wire(input("starter_monthly", "business_monthly", E1_NOW, {}, [{ fixedChargeCode: "seats", quantity: 500 }])).planChange?.additions[0]?.units).toBe("500")
    expect(wire(input("starter_monthly", "pro_monthly", E1_NOW, {}, [{ fixedChargeCode: "sso", quantity: 1 }])).planChange?.additions[0]?.amountCents).toBe(2000)
    expect(failure(input("starter_monthly", "pro_monthly", E1_NOW, {}, [{ fixedChargeCode: "sso", quantity: 2 }]))).toMatchObject({ detail: "quantity_out_of_range" })
  })
})

describe("hard rejections, first failure wins", () => {
  it.each([
    ["an unknown plan", { category: "messaging", planCode: "nope" }],
    ["a plan of another category", { category: "api", planCode: "pro_monthly" }],
    ["an unknown category", { category: "voice", planCode: "pro_monthly" }],
    ["a category named like an Object member", { category: "constructor", planCode: "pro_monthly" }]
  ])("%s → plan_not_found", (_, request) => {
    expect(failure({ catalog, current: subscription("starter_monthly"), request, now: E1_NOW })).toMatchObject({
      _tag: "PlanChangeRejected", code: "invalid_target", detail: "plan_not_found", fixedChargeCode: null
    })
  })

  it("the current plan, or another currency → target_rejected (before cancellation_scheduled)", () => {
    expect(failure(input("pro_monthly", "pro_monthly", E1_NOW, { cancellationScheduled: true }))).toMatchObject({ detail: "target_rejected" })
    expect(failure(input("starter_monthly", "euro_pro", E1_NOW))).toMatchObject({ detail: "target_rejected" })
  })

  it("a scheduled cancellation → cancellation_scheduled (before additions are checked)", () => {
    expect(failure(input("starter_monthly", "pro_monthly", E1_NOW, { cancellationScheduled: true }, [{ fixedChargeCode: "fax", quantity: 1 }])))
      .toMatchObject({ detail: "cancellation_scheduled" })
    expect(failure(input("pro_monthly", "starter_monthly", E1_NOW, { cancellationScheduled: true }))).toMatchObject({ detail: "cancellation_scheduled" })
  })

  it.each([
    ["an upper-case category", { category: "Messaging", planCode: "pro_monthly" }],
    ["a 65-character category", { category: `m${"x".repeat(64)}`, planCode: "pro_monthly" }],
    ["an empty planCode", { category: "messaging", planCode: "" }],
    ["a 65-character planCode", { category: "messaging", planCode: "p".repeat(65) }],
    ["an extra property", { category: "messaging", planCode: "pro_monthly", coupon: "x" }]
  ])("%s is a request validation error, checked before any lookup", (_, request) => {
    expect(failure({ catalog, current: subscription("pro_monthly", { cancellationScheduled: true }), request: request as never, now: E1_NOW })._tag)
      .toBe("PlanChangeRequestInvalid")
  })

  it("an unusable now or a missing anniversary anchor is a typed input error, not an exception", () => {
    expect(failure(input("starter_monthly", "pro_monthly", "2025-03-12"))).toMatchObject({ _tag: "PlanChangeInputInvalid", field: "now" })
    expect(failure(input("starter_monthly", "pro_monthly", 1.5))).toMatchObject({ _tag: "PlanChangeInputInvalid", field: "now" })
    expect(failure(input("starter_monthly", "pro_monthly", E1_NOW, { billingTime: "anniversary" })))
      .toMatchObject({ _tag: "PlanChangeInputInvalid", field: "anchorDate" })
  })

  it("epoch milliseconds and an ISO string for the same instant give the same preview", () => {
    expect(wire(input("starter_monthly", "pro_monthly", Date.UTC(2025, 2, 12, 15, 30)))).toStrictEqual(wire(input("starter_monthly", "pro_monthly", E1_NOW)))
  })
})

describe("held fixed charges", () => {
  it("Pro with 5 seats and SSO → Business: seats carried at the new price less what was paid; SSO unsold", () => {
    const out = wire(input("pro_monthly", "business_monthly", E1_NOW, {
      heldFixedCharges: [{ fixedChargeCode: "sso", quantity: 1 }, { fixedChargeCode: "seats", quantity: 5 }]
    }))
    // Business 9900×20/31 = 6387.1 → 6387; seats new 2000×5×20/31 = 6451.6 → 6452, paid 1500×5×20/31 = 4838.7 → 4839.
    expect(out.dueNow).toStrictEqual(invoice([
      line("subscription", "business_monthly", "Business", 6387, "1", "2025-03-12", "2025-04-01"),
      line("fixed_charge", "seats", "Extra seats", 6452 - 4839, "5", "2025-03-12", "2025-04-01")
    ], 5097))
    expect(out.dueNow.totalCents).toBe(8000 - 5097)
    expect(out.planChange?.unsoldFixedCharges).toStrictEqual([{ fixedChargeCode: "sso", quantity: 1 }])
    expect(out.nextCharge?.amountCents).toBe(9900 + 2000 * 5)
  })

  it("unsold charges are sorted by code; a held quantity of 0 is not listed", () => {
    const out = wire(input("pro_monthly", "business_monthly", E1_NOW, {
      heldFixedCharges: [{ fixedChargeCode: "sso", quantity: 1 }, { fixedChargeCode: "b_addon", quantity: 2 }, { fixedChargeCode: "a_addon", quantity: 0 }]
    }))
    expect(out.planChange?.unsoldFixedCharges).toStrictEqual([{ fixedChargeCode: "b_addon", quantity: 2 }, { fixedChargeCode: "sso", quantity: 1 }])
  })

  it("a downgrade lists unsold charges too", () => {
    const out = wire(input("pro_monthly", "starter_monthly", E1_NOW, { heldFixedCharges: [{ fixedChargeCode: "seats", quantity: 3 }] }))
    expect(out.planChange?.unsoldFixedCharges).toStrictEqual([{ fixedChargeCode: "seats", quantity: 3 }])
    expect(out.dueNow).toStrictEqual(EMPTY)
  })

  it("a charge not held starts at defaultUnits; a carried charge is never below 0; in-arrears charges wait", () => {
    // Business seats (2000, 5 held) → Enterprise seats (1000): new 3226, paid 6452 → 0. Support: default 1, 500.
    const out = wire(input("business_monthly", "enterprise_monthly", E1_NOW, { heldFixedCharges: [{ fixedChargeCode: "seats", quantity: 5 }] }))
    expect(out.dueNow).toStrictEqual(invoice([
      line("subscription", "enterprise_monthly", "Enterprise", 12903, "1", "2025-03-12", "2025-04-01"), // 20000×20/31 = 12903.2
      line("fixed_charge", "seats", "Extra seats", 0, "5", "2025-03-12", "2025-04-01"),
      line("fixed_charge", "support", "Support", 500, "1", "2025-03-12", "2025-04-01")
    ], 6387))
    expect(out.planChange?.unsoldFixedCharges).toStrictEqual([])
    // 20000 + 5 seats + support, then the in-arrears audit for [D, te]: 300×20/31 = 193.5 → 194.
    expect(out.nextCharge?.amountCents).toBe(20000 + 5000 + 500 + 194)
    // A held quantity of 0 is skipped, even where the default is 1.
    const none = wire(input("business_monthly", "enterprise_monthly", E1_NOW, { heldFixedCharges: [{ fixedChargeCode: "support", quantity: 0 }] }))
    expect(none.dueNow.lines.map((l) => l.code)).toStrictEqual(["enterprise_monthly"])
  })

  it("an amount beyond 9007199254740991 is a typed failure, not a wrong number", () => {
    // defaultUnits 2 × 9007199254740991.
    expect(failure(input("starter_monthly", "huge_charge", E1_NOW))).toMatchObject({ _tag: "PlanChangeAmountOutOfRange", field: "dueNow.lines[1].amountCents" })
    // Held at 0, so no invoice line; an addition of 2 units is out of range too.
    expect(failure(input("starter_monthly", "huge_charge", E1_NOW, { heldFixedCharges: [{ fixedChargeCode: "huge", quantity: 0 }] }, [{ fixedChargeCode: "huge", quantity: 2 }])))
      .toMatchObject({ _tag: "PlanChangeAmountOutOfRange", field: "planChange.additions[0].amountCents" })
    // One unit is exactly the limit and fine.
    expect(wire(input("starter_monthly", "huge_charge", E1_NOW, { heldFixedCharges: [{ fixedChargeCode: "huge", quantity: 0 }] }, [{ fixedChargeCode: "huge", quantity: 1 }]))
      .planChange?.additions[0]?.amountCents).toBe(MAX)
  })

  it("a carried charge over a whole period costs the price difference", () => {
    const out = wire(input("pro_monthly", "business_monthly", "2025-03-01T00:00:00Z", { heldFixedCharges: [{ fixedChargeCode: "seats", quantity: 1 }] }))
    // Whole month: new 2000, paid 1500 → 500.
    expect(out.dueNow.lines[1]).toStrictEqual(line("fixed_charge", "seats", "Extra seats", 500, "1", "2025-03-01", "2025-04-01"))
  })
})

describe("credit for unused time", () => {
  it("is capped at what was billed less what was credited", () => {
    const out = wire(input("starter_monthly", "pro_monthly", E1_NOW, { baseFeeBilledCents: 1000, baseFeeCreditedCents: 200 }))
    expect(out.planChange?.unusedTimeCredit).toBe(800)
    expect(out.dueNow).toStrictEqual(invoice([e1Line], 800))
  })

  it("is 0 when everything billed was already credited, or more", () => {
    expect(wire(input("starter_monthly", "pro_monthly", E1_NOW, { baseFeeCreditedCents: 2900 })).planChange?.unusedTimeCredit).toBe(0)
    expect(wire(input("starter_monthly", "pro_monthly", E1_NOW, { baseFeeBilledCents: 100, baseFeeCreditedCents: 2900 })).dueNow.totalCents).toBe(5097)
  })

  it("is 0 for a current plan in arrears", () => {
    expect(wire(input("basic_arrears", "scale_monthly", E1_NOW)).planChange?.unusedTimeCredit).toBe(0)
  })
})

describe("minimum commitment", () => {
  const usage = Schema.decodeUnknownSync(PreviewLine)({
    kind: "usage", code: "api_calls", name: "API calls", amountCents: 1234, units: "24680",
    periodStart: "2025-06-01T00:00:00.000Z", periodEnd: "2025-06-10T14:00:00.000Z"
  })

  it("closing a plan in arrears with a commitment bills the prorated shortfall; the target's commitment is prorated", () => {
    const out = wire(input("growth_monthly", "scale_monthly", "2025-06-10T14:00:00Z", { unbilledUsage: [usage] }))
    // used 9 of 30: fee 4997×9/30 = 1499.1 → 1499; commit 20000×9/30 = 6000; spent 1499 + 1234 → shortfall 3267.
    expect(out.dueNow).toStrictEqual(invoice([
      line("subscription", "growth_monthly", "API Growth", 1499, "1", "2025-06-01", "2025-06-10"),
      { ...line("usage", "api_calls", "API calls", 1234, "24680", "2025-06-01", "2025-06-10"), periodEnd: "2025-06-10T14:00:00.000Z" },
      line("commitment", "growth_monthly", "Growth monthly minimum", 3267, "1", "2025-06-01", "2025-06-10"),
      line("subscription", "scale_monthly", "API Scale", 10500, "1", "2025-06-10", "2025-07-01")
    ], 0))
    expect(out.planChange?.minimumCommitment).toStrictEqual({ amountCents: 35000, displayName: "Scale monthly minimum" })
    expect(out.nextCharge).toStrictEqual({ amountCents: 15000, at: iso("2025-07-01"), currency: "USD" })
  })

  it("usage accrued in the period (billed or not) counts: no shortfall line when it covers the commitment", () => {
    const out = wire(input("growth_monthly", "scale_monthly", "2025-06-10T14:00:00Z", { unbilledUsage: [usage], periodUsageCents: 4501 }))
    expect(out.dueNow.lines.map((l) => l.kind)).toStrictEqual(["subscription", "usage", "subscription"])
    // Exactly at the commitment (1499 + 4501 = 6000) there is no line either; one cent less gives a 1-cent line.
    const short = wire(input("growth_monthly", "scale_monthly", "2025-06-10T14:00:00Z", { unbilledUsage: [usage], periodUsageCents: 4500 }))
    expect(short.dueNow.lines[2]).toMatchObject({ kind: "commitment", amountCents: 1 })
  })

  it("no commitment line on the first day of the period (used = 0); a null display name falls back to the plan name", () => {
    expect(wire(input("growth_monthly", "scale_monthly", "2025-06-01T14:00:00Z")).dueNow.lines.map((l) => l.kind)).toStrictEqual(["subscription"])
    const out = wire(input("nameless_commit", "plus_arrears", "2025-06-16T00:00:00Z"))
    // A free plan in arrears still gets its (0) used-days line, as the preview is written;
    // 3000×15/30 = 1500 short.
    expect(out.dueNow.lines).toStrictEqual([
      line("subscription", "nameless_commit", "Nameless", 0, "1", "2025-06-01", "2025-06-16"),
      line("commitment", "nameless_commit", "Nameless", 1500, "1", "2025-06-01", "2025-06-16")
    ])
  })
})

describe("proration by days", () => {
  it.each([
    // now, fee (7900×rc/cDays), credit (2900×rc/cDays), periodEnd
    ["2024-02-29T10:00:00Z", 272, 100, "2024-03-01"], // leap Feb: 1 of 29 days, 272.4 and 100
    ["2025-02-28T10:00:00Z", 282, 104, "2025-03-01"], // 1 of 28: 282.1 and 103.6
    ["2025-01-31T23:59:59Z", 255, 94, "2025-02-01"], // 1 of 31: 254.8 and 93.5
    ["2025-03-01T00:00:00Z", 7900, 2900, "2025-04-01"], // the whole month
    ["2024-02-01T00:00:00Z", 7900, 2900, "2024-03-01"],
    ["2024-02-15T00:00:00Z", 4086, 1500, "2024-03-01"] // 15 of 29: 4086.2 and 1500
  ])("Starter → Pro at %s: %i − %i", (now, fee, credit, end) => {
    const out = wire(input("starter_monthly", "pro_monthly", now))
    expect(out.dueNow).toStrictEqual(invoice([line("subscription", "pro_monthly", "Pro", fee, "1", now.slice(0, 10), end)], credit))
  })

  it("a yearly target in a leap year: 306 of 366 days", () => {
    const out = wire(input("pro_monthly", "business_yearly", "2024-03-01T09:00:00Z"))
    // 99000×306/366 = 82770.49 → 82770; the whole March is credited.
    expect(out.dueNow).toStrictEqual(invoice([line("subscription", "business_yearly", "Business (annual)", 82770, "1", "2024-03-01", "2025-01-01")], 7900))
    expect(out.nextCharge).toStrictEqual({ amountCents: 99000, at: iso("2025-01-01"), currency: "USD" })
  })

  it("weekly plans prorate over 7 days", () => {
    const out = wire(input("weekly_basic", "weekly_plus", E1_NOW))
    expect(out.dueNow).toStrictEqual(invoice([line("subscription", "weekly_plus", "Studio Plus", 1500, "1", "2025-03-12", "2025-03-17")], 500))
  })

  it("anniversary billing anchored on the 31st: the February period runs Jan 31 .. Feb 27", () => {
    const out = wire(input("starter_monthly", "pro_monthly", "2025-02-15T12:00:00Z", { billingTime: "anniversary", anchorDate: "2024-10-31T09:00:00Z" }))
    // rc = rt = 13 of 28: 7900×13/28 = 3667.9 → 3668; 2900×13/28 = 1346.4 → 1346.
    expect(out.dueNow).toStrictEqual(invoice([line("subscription", "pro_monthly", "Pro", 3668, "1", "2025-02-15", "2025-02-28")], 1346))
    expect(out.nextCharge?.at).toBe(iso("2025-02-28"))
  })

  it("half-up at exactly .5: 7901×15/30 = 3950.5 → 3951 (not 3950)", () => {
    const out = wire(input("starter_monthly", "odd_monthly", "2025-04-16T00:00:00Z"))
    expect(out.dueNow).toStrictEqual(invoice([line("subscription", "odd_monthly", "Odd", 3951, "1", "2025-04-16", "2025-05-01")], 1450))
  })

  it("exact beyond 2^53: a 9007199254740991 plan over a whole month stays exact", () => {
    const out = wire(input("starter_monthly", "max_monthly", "2025-03-01T00:00:00Z"))
    expect(out.dueNow.lines[0]?.amountCents).toBe(MAX)
    expect(out.dueNow.totalCents).toBe(MAX - 2900)
    expect(out.nextCharge?.amountCents).toBe(MAX)
    // 20 of 31 days: the exact half-up quotient.
    const part = wire(input("starter_monthly", "max_monthly", E1_NOW)).dueNow.lines[0]?.amountCents
    expect(part).toBe(Number((2n * BigInt(MAX) * 20n + 31n) / 62n))
    expect(part).toBe(5811096293381285) // 9007199254740991×20/31 = 5811096293381284.516…
  })
})

describe("rhu and periods", () => {
  it.each([
    [0n, 7n, 0n], [1n, 2n, 1n], [3n, 2n, 2n], [5n, 2n, 3n], [1n, 3n, 0n], [2n, 3n, 1n], [7n, 2n, 4n],
    [BigInt(MAX) * 366n, 366n, BigInt(MAX)]
  ])("rhu(%s, %s) = %s", (n, d, q) => {
    expect(rhu(n, d)).toBe(q)
  })

  const day = (s: string) => { const [y, m, d] = s.split("-").map(Number) as [number, number, number]; return epochDayOf(y, m, d) }
  const show = (n: number) => { const d = dateOfEpochDay(n); return `${d.year}-${String(d.month).padStart(2, "0")}-${String(d.day).padStart(2, "0")}` }

  it.each([
    ["weekly", "calendar", "2025-01-01", "2025-03-12", "2025-03-10", "2025-03-16"],
    ["weekly", "anniversary", "2025-01-02", "2025-03-12", "2025-03-06", "2025-03-12"], // anchored on Thursdays
    ["monthly", "calendar", "2025-01-01", "2024-02-10", "2024-02-01", "2024-02-29"],
    ["quarterly", "calendar", "2025-01-01", "2025-05-15", "2025-04-01", "2025-06-30"],
    ["semiannual", "calendar", "2025-01-01", "2025-05-15", "2025-01-01", "2025-06-30"],
    ["yearly", "calendar", "2025-01-01", "2024-07-04", "2024-01-01", "2024-12-31"],
    ["monthly", "anniversary", "2025-01-31", "2025-03-30", "2025-02-28", "2025-03-30"],
    ["monthly", "anniversary", "2025-01-31", "2025-03-31", "2025-03-31", "2025-04-29"],
    ["quarterly", "anniversary", "2024-11-30", "2025-03-01", "2025-02-28", "2025-05-29"],
    ["yearly", "anniversary", "2024-02-29", "2025-06-01", "2025-02-28", "2026-02-27"],
    ["yearly", "anniversary", "2024-02-29", "2028-02-29", "2028-02-29", "2029-02-27"]
  ] as const)("%s %s anchored %s: %s is in %s..%s", (interval, billingTime, anchor, d, start, end) => {
    const p = period(interval, billingTime, day(anchor), day(d))
    expect([show(p.start), show(p.end)]).toStrictEqual([start, end])
  })
})

describe("schema round trip", () => {
  it("every preview above decodes back to the same wire form", () => {
    for (const i of [
      input("starter_monthly", "pro_monthly", E1_NOW),
      input("pro_monthly", "starter_monthly", E1_NOW),
      input("pro_monthly", "business_monthly", E1_NOW, { heldFixedCharges: [{ fixedChargeCode: "sso", quantity: 1 }] }, [{ fixedChargeCode: "seats", quantity: 2 }])
    ]) {
      const encoded = wire(i)
      const again = Schema.encodeSync(PreviewProjectChangeResponse)(Schema.decodeUnknownSync(PreviewProjectChangeResponse)(encoded))
      expect(again).toStrictEqual(encoded)
    }
  })
})
