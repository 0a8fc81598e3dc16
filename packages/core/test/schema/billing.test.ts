/**
 * The billing schemas (docs/api-notes/billing.md, docs/api-notes/requests.md; the
 * worked examples E1–E3 are the fixtures).
 */
import { describe, expect, it } from "@effect/vitest"
import {
  AdjustFixedChargeQuantityRequest, BillingFailureCode, billingFailureCodes, BillingFailureDetail,
  billingFailureDetails, BillingInterval, BillingOperation, BillingPlan, BillingPlanCatalog, CategorySlug,
  ChangePlanRequest, Currency, DecimalString, FailedBillingOperation, FixedCharge, HeldFixedCharge,
  ListBillingPlansResponse, MAX_PLAN_CHANGE_ADDITIONS, MinimumCommitment, NextCharge, PendingBillingOperation,
  PlanChangeEffect, PlanCode, PreviewFixedChargeChangeRequest, PreviewInvoice, PreviewLine, PreviewPlanChangeRequest,
  PreviewProjectChangeRequest, PreviewProjectChangeResponse, SucceededBillingOperation, TerminalBillingOperation,
  UsageThresholds
} from "../../src/billing/Schema.js"
import { formatTypeId, IdKinds, uuidv7Bytes } from "../../src/shared/Identifiers.js"
import { accepts, acceptsStrict, rejects, rejectsExtra, requiresEach, roundTrips } from "./SchemaAssertions.js"

const MAX = 9007199254740991
const OVER = 9007199254740992

// ---------------------------------------------------------------------------------------------
// Fixtures (docs/api-notes/billing.md catalog)
// ---------------------------------------------------------------------------------------------

const seats = {
  fixedChargeCode: "seats",
  name: "Extra seats",
  unitAmountCents: 1500,
  payInAdvance: true,
  prorated: true,
  defaultUnits: 0,
  minQuantity: 1,
  maxQuantity: 100
}
const sso = { ...seats, fixedChargeCode: "sso", name: "SSO", unitAmountCents: 2000, prorated: false, maxQuantity: 1 }

const proMonthly = {
  planCode: "pro_monthly",
  name: "Pro",
  description: "For growing teams",
  baseAmountCents: 7900,
  currency: "USD",
  interval: "monthly",
  payInAdvance: true,
  isDefault: false,
  tier: 2,
  tierDisplayName: "Pro",
  categoryDisplayName: "Messaging",
  entitlements: [{ featureKey: "imessage_shared_lines.max_user_assignments", value: "100" }],
  fixedCharges: [seats, sso],
  usageCharges: [{
    chargeCode: "api_calls",
    metricCode: "api_call",
    name: "API calls",
    unitAmountCents: "0.05",
    freeUnits: 1000,
    payInAdvance: false
  }],
  usageThresholds: [
    { amountCents: 10000, displayName: "First $100", recurring: false },
    { amountCents: 25000, displayName: "Every $250", recurring: true }
  ],
  minimumCommitment: { amountCents: 20000, displayName: "Growth monthly minimum" }
}

const starterMonthly = {
  planCode: "starter_monthly",
  name: "Starter",
  description: null,
  baseAmountCents: 2900,
  currency: "USD",
  interval: "monthly",
  payInAdvance: true,
  isDefault: true,
  tier: 1,
  tierDisplayName: null,
  entitlements: [],
  fixedCharges: [],
  usageCharges: [],
  usageThresholds: [],
  minimumCommitment: null
}

/** E1's invoice line and invoice. */
const e1Line = {
  amountCents: 5097,
  code: "pro_monthly",
  kind: "subscription",
  name: "Pro",
  periodStart: "2025-03-12T00:00:00.000Z",
  periodEnd: "2025-04-01T00:00:00.000Z",
  units: "1"
}
const e1Invoice = {
  creditsCents: 1871,
  currency: "USD",
  discountCents: 0,
  feesCents: 5097,
  lines: [e1Line],
  taxesCents: 0,
  totalCents: 3226
}
const EMPTY = { creditsCents: 0, currency: "USD", discountCents: 0, feesCents: 0, lines: [], taxesCents: 0, totalCents: 0 }

const e1Effect = {
  timing: "immediate",
  effectiveAt: null,
  additions: [],
  unsoldFixedCharges: [],
  unusedTimeCredit: 1871,
  minimumCommitment: null
}
const e3Effect = { ...e1Effect, timing: "period_end", effectiveAt: "2025-04-01T00:00:00.000Z", unusedTimeCredit: 0 }

const operationId = formatTypeId(IdKinds.billingOperation, uuidv7Bytes(Date.UTC(2025, 2, 12), new Uint8Array(10).fill(4)))
const pending = {
  operationId,
  kind: "change_plan",
  submittedAt: "2025-03-12T15:30:00.000Z",
  status: "pending",
  failure: null,
  result: null,
  resolvedAt: null
}
const succeeded = {
  ...pending,
  status: "succeeded",
  result: { type: "version", version: "v42", effectiveAt: null },
  resolvedAt: "2025-03-12T15:30:02.000Z"
}
const failed = {
  ...pending,
  status: "failed",
  failure: { code: "invalid_target", detail: "release_required", retryable: false, unsoldFixedCharges: [{ fixedChargeCode: "sso", quantity: 1 }] },
  resolvedAt: "2025-03-12T15:30:02.000Z"
}

// ---------------------------------------------------------------------------------------------
// Scalars
// ---------------------------------------------------------------------------------------------

describe("scalars", () => {
  it("CategorySlug: 64 characters ok, 65 rejected; a lower-case letter first", () => {
    roundTrips(CategorySlug, "messaging")
    roundTrips(CategorySlug, `a${"b_9".repeat(21)}`)
    expect(`a${"b_9".repeat(21)}`).toHaveLength(64)
    rejects(CategorySlug, `a${"b_9".repeat(21)}x`)
    for (const bad of ["", "Messaging", "1messaging", "_messaging", "messaging-pro", "messaging pro"]) {
      rejects(CategorySlug, bad)
    }
  })

  it("PlanCode: 1 and 64 characters ok, 0 and 65 rejected", () => {
    roundTrips(PlanCode, "p")
    roundTrips(PlanCode, "p".repeat(64))
    rejects(PlanCode, "")
    rejects(PlanCode, "p".repeat(65))
  })

  it("Currency: three upper-case letters", () => {
    roundTrips(Currency, "USD")
    for (const bad of ["usd", "US", "USDX", "U5D", ""]) rejects(Currency, bad)
  })

  it("DecimalString: digits with an optional fraction", () => {
    for (const ok of ["0", "1", "24680", "0.25", "12.500"]) roundTrips(DecimalString, ok)
    for (const bad of ["", "1.", ".5", "-1", "1e3", "1,5", " 1", "+1"]) rejects(DecimalString, bad)
  })

  it.each(["weekly", "monthly", "quarterly", "semiannual", "yearly"])("BillingInterval accepts %s", (i) => {
    roundTrips(BillingInterval, i)
  })

  it("BillingInterval rejects other intervals", () => {
    rejects(BillingInterval, "daily")
    rejects(BillingInterval, "annual")
  })
})

// ---------------------------------------------------------------------------------------------
// The plan
// ---------------------------------------------------------------------------------------------

describe("BillingPlan", () => {
  it("decodes and round-trips full and minimal plans", () => {
    acceptsStrict(BillingPlan, proMonthly)
    roundTrips(BillingPlan, proMonthly)
    roundTrips(BillingPlan, starterMonthly)
    roundTrips(BillingPlan, { ...starterMonthly, categoryDisplayName: null, tier: null })
  })

  it("requires every field but categoryDisplayName", () => {
    requiresEach(BillingPlan, proMonthly, Object.keys(proMonthly).filter((k) => k !== "categoryDisplayName"))
  })

  it("rejects extra properties, also inside charges", () => {
    rejectsExtra(BillingPlan, proMonthly)
    rejects(BillingPlan, { ...proMonthly, fixedCharges: [{ ...seats, taxCode: "x" }] })
  })

  it("tierDisplayName and categoryDisplayName: 1 and 255 characters or null; 0 and 256 rejected", () => {
    for (const key of ["tierDisplayName", "categoryDisplayName"]) {
      accepts(BillingPlan, { ...proMonthly, [key]: "x" })
      accepts(BillingPlan, { ...proMonthly, [key]: "x".repeat(255) })
      accepts(BillingPlan, { ...proMonthly, [key]: null })
      rejects(BillingPlan, { ...proMonthly, [key]: "" })
      rejects(BillingPlan, { ...proMonthly, [key]: "x".repeat(256) })
    }
    rejects(BillingPlan, { ...proMonthly, categoryDisplayName: undefined })
  })

  it("integers stay within ±9007199254740991", () => {
    accepts(BillingPlan, { ...proMonthly, baseAmountCents: MAX, tier: -MAX })
    accepts(BillingPlan, { ...proMonthly, tier: MAX })
    rejects(BillingPlan, { ...proMonthly, baseAmountCents: OVER })
    rejects(BillingPlan, { ...proMonthly, tier: OVER })
    rejects(BillingPlan, { ...proMonthly, tier: -OVER })
    rejects(BillingPlan, { ...proMonthly, baseAmountCents: -1 })
    rejects(BillingPlan, { ...proMonthly, baseAmountCents: 79.5 })
    rejects(BillingPlan, { ...proMonthly, tier: 1.5 })
    rejects(BillingPlan, { ...proMonthly, minimumCommitment: { amountCents: OVER, displayName: null } })
    rejects(BillingPlan, { ...proMonthly, fixedCharges: [{ ...seats, unitAmountCents: OVER }] })
  })

  it("rejects a bad plan code, currency or interval", () => {
    rejects(BillingPlan, { ...proMonthly, planCode: "p".repeat(65) })
    rejects(BillingPlan, { ...proMonthly, currency: "usd" })
    rejects(BillingPlan, { ...proMonthly, interval: "daily" })
  })

  it("fixed, usage and entitlement codes are unique within a plan", () => {
    rejects(BillingPlan, { ...proMonthly, fixedCharges: [seats, { ...sso, fixedChargeCode: "seats" }] })
    rejects(BillingPlan, { ...proMonthly, usageCharges: [proMonthly.usageCharges[0], proMonthly.usageCharges[0]] })
    rejects(BillingPlan, { ...proMonthly, entitlements: [proMonthly.entitlements[0], proMonthly.entitlements[0]] })
  })

  it("FixedCharge: minQuantity must not exceed maxQuantity", () => {
    roundTrips(FixedCharge, { ...seats, minQuantity: 5, maxQuantity: 5 })
    rejects(FixedCharge, { ...seats, minQuantity: 6, maxQuantity: 5 })
  })

  it("MinimumCommitment: amountCents ≥ 0, displayName string or null", () => {
    roundTrips(MinimumCommitment, { amountCents: 0, displayName: null })
    rejects(MinimumCommitment, { amountCents: -1, displayName: null })
    rejects(MinimumCommitment, { amountCents: 1 })
  })
})

describe("UsageThresholds", () => {
  const t = (amountCents: number, recurring = false) => ({ amountCents, displayName: null, recurring })

  it("accepts thresholds ordered by amount", () => {
    roundTrips(UsageThresholds, [])
    roundTrips(UsageThresholds, [t(0), t(10000), t(25000, true)])
    roundTrips(UsageThresholds, [t(10000), t(10000, true)])
  })

  it("rejects thresholds out of order", () => {
    rejects(UsageThresholds, [t(25000), t(10000)])
    rejects(BillingPlan, { ...proMonthly, usageThresholds: [...proMonthly.usageThresholds].reverse() })
  })

  it("rejects two recurring thresholds, a recurring 0 and repeated non-recurring amounts", () => {
    rejects(UsageThresholds, [t(10000, true), t(20000, true)])
    rejects(UsageThresholds, [t(0, true)])
    rejects(UsageThresholds, [t(10000), t(10000)])
  })

  it("amountCents: within 0..9007199254740991", () => {
    roundTrips(UsageThresholds, [t(MAX)])
    rejects(UsageThresholds, [t(OVER)])
    rejects(UsageThresholds, [t(-1)])
  })
})

describe("BillingPlanCatalog", () => {
  it("decodes and round-trips a catalog by category", () => {
    const catalog = { messaging: [starterMonthly, proMonthly], analytics: [] }
    roundTrips(BillingPlanCatalog, catalog)
    roundTrips(ListBillingPlansResponse, { plans: catalog })
  })

  it("rejects two defaults in a category, a repeated plan code, and a bad category", () => {
    rejects(BillingPlanCatalog, { messaging: [starterMonthly, { ...proMonthly, isDefault: true }] })
    rejects(BillingPlanCatalog, { messaging: [starterMonthly, { ...proMonthly, planCode: "starter_monthly" }] })
    rejects(BillingPlanCatalog, { Messaging: [starterMonthly] })
    accepts(BillingPlanCatalog, { messaging: [starterMonthly], voice: [{ ...proMonthly, isDefault: true }] })
  })
})

// ---------------------------------------------------------------------------------------------
// Requests
// ---------------------------------------------------------------------------------------------

describe("PreviewPlanChangeRequest and ChangePlanRequest", () => {
  const additions = (n: number) => Array.from({ length: n }, (_, i) => ({ fixedChargeCode: `charge_${i}`, quantity: 1 }))
  const request = { category: "messaging", planCode: "pro_monthly", additions: [{ fixedChargeCode: "seats", quantity: 3 }] }

  describe.each([
    ["PreviewPlanChangeRequest", PreviewPlanChangeRequest],
    ["ChangePlanRequest", ChangePlanRequest]
  ] as const)("%s", (_, schema) => {
    it("decodes and round-trips with and without additions", () => {
      acceptsStrict(schema, request)
      roundTrips(schema, request)
      roundTrips(schema, { category: "messaging", planCode: "pro_monthly" })
      roundTrips(schema, { ...request, additions: [] })
    })

    it("additions: 10 ok, 11 rejected", () => {
      expect(MAX_PLAN_CHANGE_ADDITIONS).toBe(10)
      acceptsStrict(schema, { ...request, additions: additions(10) })
      rejects(schema, { ...request, additions: additions(11) })
    })

    it("names each fixed charge once", () => {
      rejects(schema, { ...request, additions: [{ fixedChargeCode: "seats", quantity: 1 }, { fixedChargeCode: "seats", quantity: 2 }] })
    })

    it("quantity: 1 and 9007199254740991 ok; 0, 9007199254740992 and fractions rejected", () => {
      acceptsStrict(schema, { ...request, additions: [{ fixedChargeCode: "seats", quantity: 1 }] })
      acceptsStrict(schema, { ...request, additions: [{ fixedChargeCode: "seats", quantity: MAX }] })
      rejects(schema, { ...request, additions: [{ fixedChargeCode: "seats", quantity: 0 }] })
      rejects(schema, { ...request, additions: [{ fixedChargeCode: "seats", quantity: OVER }] })
      rejects(schema, { ...request, additions: [{ fixedChargeCode: "seats", quantity: 1.5 }] })
    })

    it("planCode: 64 ok, 65 rejected; category must be a slug", () => {
      acceptsStrict(schema, { ...request, planCode: "p".repeat(64) })
      rejects(schema, { ...request, planCode: "p".repeat(65) })
      rejects(schema, { ...request, planCode: "" })
      rejects(schema, { ...request, category: "Messaging" })
      requiresEach(schema, request, ["category", "planCode"])
    })

    it("rejects extra properties, also on an addition", () => {
      rejectsExtra(schema, request)
      rejects(schema, { ...request, additions: [{ fixedChargeCode: "seats", quantity: 1, note: "x" }] })
    })
  })

  it("previewProjectChange takes a plan change or a fixed-charge change", () => {
    roundTrips(PreviewProjectChangeRequest, request)
    roundTrips(PreviewProjectChangeRequest, { category: "messaging", fixedCharge: { fixedChargeCode: "seats", quantity: 0 } })
    roundTrips(PreviewFixedChargeChangeRequest, { category: "messaging", fixedCharge: { fixedChargeCode: "seats", quantity: 12 } })
    rejects(PreviewProjectChangeRequest, { category: "messaging" })
    rejects(PreviewProjectChangeRequest, { category: "messaging", fixedCharge: { fixedChargeCode: "seats", quantity: -1 } })
    rejectsExtra(PreviewProjectChangeRequest, request)
    rejectsExtra(PreviewFixedChargeChangeRequest, { category: "messaging", fixedCharge: { fixedChargeCode: "seats", quantity: 1 } })
  })

  it("AdjustFixedChargeQuantityRequest: a quantity within 0..9007199254740991", () => {
    roundTrips(AdjustFixedChargeQuantityRequest, { quantity: 0 })
    roundTrips(AdjustFixedChargeQuantityRequest, { quantity: MAX })
    rejects(AdjustFixedChargeQuantityRequest, { quantity: OVER })
    rejects(AdjustFixedChargeQuantityRequest, { quantity: -1 })
    rejectsExtra(AdjustFixedChargeQuantityRequest, { quantity: 1 })
  })

  it("HeldFixedCharge: a code and an integer quantity", () => {
    roundTrips(HeldFixedCharge, { fixedChargeCode: "sso", quantity: 1 })
    roundTrips(HeldFixedCharge, { fixedChargeCode: "seats", quantity: MAX })
    rejects(HeldFixedCharge, { fixedChargeCode: "sso", quantity: 1.5 })
    rejects(HeldFixedCharge, { fixedChargeCode: "sso", quantity: OVER })
    rejects(HeldFixedCharge, { fixedChargeCode: "", quantity: 1 })
    rejects(HeldFixedCharge, { fixedChargeCode: "sso", quantity: "1" })
  })
})

// ---------------------------------------------------------------------------------------------
// Preview results
// ---------------------------------------------------------------------------------------------

describe("PreviewLine", () => {
  it("decodes and round-trips E1's line", () => {
    roundTrips(PreviewLine, e1Line)
  })

  it.each(["fixed_charge", "subscription", "usage", "commitment"])("accepts kind %s", (kind) => {
    roundTrips(PreviewLine, { ...e1Line, kind })
  })

  it("rejects another kind", () => {
    rejects(PreviewLine, { ...e1Line, kind: "tax" })
  })

  it("amountCents: ±9007199254740991 ok, ±9007199254740992 rejected", () => {
    roundTrips(PreviewLine, { ...e1Line, amountCents: MAX })
    roundTrips(PreviewLine, { ...e1Line, amountCents: -MAX })
    rejects(PreviewLine, { ...e1Line, amountCents: OVER })
    rejects(PreviewLine, { ...e1Line, amountCents: -OVER })
    rejects(PreviewLine, { ...e1Line, amountCents: 50.97 })
  })

  it("periods: timestamps or null, start not after end", () => {
    roundTrips(PreviewLine, { ...e1Line, periodStart: null, periodEnd: null })
    roundTrips(PreviewLine, { ...e1Line, periodEnd: e1Line.periodStart })
    rejects(PreviewLine, { ...e1Line, periodStart: e1Line.periodEnd, periodEnd: e1Line.periodStart })
    rejects(PreviewLine, { ...e1Line, periodStart: "2025-03-12" })
    rejects(PreviewLine, { ...e1Line, periodEnd: "2025-04-01T00:00:00+00:00" })
  })

  it("units is a decimal string; code is 1..64", () => {
    roundTrips(PreviewLine, { ...e1Line, units: "24680" })
    roundTrips(PreviewLine, { ...e1Line, units: "0.5" })
    rejects(PreviewLine, { ...e1Line, units: 1 })
    rejects(PreviewLine, { ...e1Line, units: "-1" })
    roundTrips(PreviewLine, { ...e1Line, code: "c".repeat(64) })
    rejects(PreviewLine, { ...e1Line, code: "c".repeat(65) })
    rejects(PreviewLine, { ...e1Line, code: "" })
  })
})

describe("PreviewInvoice", () => {
  it("decodes and round-trips E1's invoice and the empty invoice", () => {
    roundTrips(PreviewInvoice, e1Invoice)
    roundTrips(PreviewInvoice, EMPTY)
  })

  it("decodes E2's invoice (two lines, no credit)", () => {
    roundTrips(PreviewInvoice, {
      ...EMPTY,
      lines: [
        { ...e1Line, amountCents: 900, code: "basic_arrears", name: "API Basic", periodStart: "2025-06-01T00:00:00.000Z", periodEnd: "2025-06-10T00:00:00.000Z" },
        { amountCents: 1234, code: "api_calls", kind: "usage", name: "API calls", periodStart: "2025-06-01T00:00:00.000Z", periodEnd: "2025-06-10T14:00:00.000Z", units: "24680" }
      ],
      feesCents: 2134,
      totalCents: 2134
    })
  })

  it("feesCents is the sum of the lines; totalCents follows the formula", () => {
    rejects(PreviewInvoice, { ...e1Invoice, feesCents: 5096, totalCents: 3225 })
    rejects(PreviewInvoice, { ...e1Invoice, totalCents: 3227 })
    roundTrips(PreviewInvoice, { ...e1Invoice, discountCents: 100, taxesCents: 50, totalCents: 3176 })
  })

  it("sums are exact at the bounds", () => {
    const line = (amountCents: number) => ({ ...e1Line, amountCents })
    roundTrips(PreviewInvoice, { ...EMPTY, lines: [line(MAX), line(-1)], feesCents: MAX - 1, totalCents: MAX - 1 })
    rejects(PreviewInvoice, { ...EMPTY, lines: [line(MAX), line(1)], feesCents: MAX, totalCents: MAX })
  })

  it("money fields: ±9007199254740991 ok, 9007199254740992 rejected", () => {
    for (const key of ["creditsCents", "discountCents", "feesCents", "taxesCents", "totalCents"]) {
      rejects(PreviewInvoice, { ...EMPTY, [key]: OVER })
    }
    roundTrips(PreviewInvoice, { ...EMPTY, creditsCents: MAX, taxesCents: MAX })
    roundTrips(PreviewInvoice, { ...EMPTY, discountCents: MAX, totalCents: -MAX })
  })

  it("requires every field and an ISO 4217 currency", () => {
    requiresEach(PreviewInvoice, e1Invoice, Object.keys(e1Invoice))
    rejects(PreviewInvoice, { ...e1Invoice, currency: "usd" })
  })
})

describe("NextCharge", () => {
  it("decodes and round-trips; at is a timestamp", () => {
    roundTrips(NextCharge, { amountCents: 7900, at: "2025-04-01T00:00:00.000Z", currency: "USD" })
    rejects(NextCharge, { amountCents: 7900, at: "2025-04-01", currency: "USD" })
    rejects(NextCharge, { amountCents: OVER, at: "2025-04-01T00:00:00.000Z", currency: "USD" })
  })
})

describe("PlanChangeEffect", () => {
  it("decodes and round-trips E1 (immediate) and E3 (period_end)", () => {
    roundTrips(PlanChangeEffect, e1Effect)
    roundTrips(PlanChangeEffect, e3Effect)
    roundTrips(PlanChangeEffect, { ...e1Effect, timing: "on_payment" })
  })

  it("effectiveAt is set for period_end and only for period_end", () => {
    rejects(PlanChangeEffect, { ...e3Effect, effectiveAt: null })
    rejects(PlanChangeEffect, { ...e1Effect, effectiveAt: "2025-04-01T00:00:00.000Z" })
    rejects(PlanChangeEffect, { ...e1Effect, timing: "on_payment", effectiveAt: "2025-04-01T00:00:00.000Z" })
  })

  it("carries additions, unsold fixed charges and a commitment", () => {
    roundTrips(PlanChangeEffect, {
      ...e3Effect,
      additions: [{ ...e1Line, kind: "fixed_charge", code: "seats", name: "Extra seats", amountCents: 4500, units: "3" }],
      unsoldFixedCharges: [{ fixedChargeCode: "sso", quantity: 1 }],
      minimumCommitment: { amountCents: 20000, displayName: "Growth monthly minimum" }
    })
  })

  it("rejects another timing, a negative or oversized credit", () => {
    rejects(PlanChangeEffect, { ...e1Effect, timing: "later" })
    rejects(PlanChangeEffect, { ...e1Effect, unusedTimeCredit: -1 })
    rejects(PlanChangeEffect, { ...e1Effect, unusedTimeCredit: OVER })
    requiresEach(PlanChangeEffect, e1Effect, Object.keys(e1Effect))
  })

  it("PreviewProjectChangeResponse: dueNow, nextCharge or null, planChange optional", () => {
    roundTrips(PreviewProjectChangeResponse, { dueNow: e1Invoice, nextCharge: null, planChange: e1Effect })
    roundTrips(PreviewProjectChangeResponse, {
      dueNow: EMPTY,
      nextCharge: { amountCents: 2900, at: "2025-04-01T00:00:00.000Z", currency: "USD" }
    })
    rejects(PreviewProjectChangeResponse, { dueNow: EMPTY })
  })
})

// ---------------------------------------------------------------------------------------------
// Billing operations
// ---------------------------------------------------------------------------------------------

describe("BillingOperation", () => {
  it("decodes and round-trips the pending, succeeded and failed shapes", () => {
    roundTrips(BillingOperation, pending)
    roundTrips(BillingOperation, succeeded)
    roundTrips(BillingOperation, failed)
    roundTrips(PendingBillingOperation, { ...pending, submittedAt: null })
    roundTrips(SucceededBillingOperation, { ...succeeded, result: { ...succeeded.result, effectiveAt: "2025-04-01T00:00:00.000Z" } })
    roundTrips(FailedBillingOperation, failed)
  })

  it.each(["change_plan", "adjust_fixed_charge_quantity"])("accepts kind %s", (kind) => {
    roundTrips(BillingOperation, { ...pending, kind })
  })

  it("rejects another kind or status", () => {
    rejects(BillingOperation, { ...pending, kind: "cancel" })
    rejects(BillingOperation, { ...pending, status: "running" })
  })

  it.each(billingFailureCodes)("accepts failure code %s", (code) => {
    roundTrips(BillingFailureCode, code)
    roundTrips(BillingOperation, { ...failed, failure: { ...failed.failure, code, detail: null } })
  })

  it.each(billingFailureDetails)("accepts failure detail %s", (detail) => {
    roundTrips(BillingFailureDetail, detail)
    roundTrips(BillingOperation, { ...failed, failure: { ...failed.failure, detail } })
  })

  it("has exactly the documented failure codes and details", () => {
    expect([...billingFailureCodes].sort()).toStrictEqual(
      ["internal", "invalid_target", "not_provisioned", "payment_failed", "payment_method_required"]
    )
    expect(billingFailureDetails).toHaveLength(10)
  })

  it("rejects an unknown failure code or detail", () => {
    rejects(BillingOperation, { ...failed, failure: { ...failed.failure, code: "card_declined" } })
    rejects(BillingOperation, { ...failed, failure: { ...failed.failure, detail: "unknown" } })
    rejects(BillingOperation, { ...failed, failure: { ...failed.failure, retryable: "false" } })
    rejects(BillingOperation, { ...failed, failure: { code: "internal", detail: null, retryable: true } })
  })

  it("pairs each status with its failure, result and resolvedAt", () => {
    rejects(BillingOperation, { ...pending, result: succeeded.result })
    rejects(BillingOperation, { ...pending, failure: failed.failure })
    rejects(BillingOperation, { ...pending, resolvedAt: succeeded.resolvedAt })
    rejects(BillingOperation, { ...succeeded, failure: failed.failure })
    rejects(BillingOperation, { ...succeeded, result: null })
    rejects(BillingOperation, { ...succeeded, resolvedAt: null })
    rejects(BillingOperation, { ...failed, failure: null })
    rejects(BillingOperation, { ...failed, result: succeeded.result })
    rejects(BillingOperation, { ...failed, resolvedAt: null })
  })

  it("result is {type: version, version, effectiveAt}", () => {
    rejects(BillingOperation, { ...succeeded, result: { ...succeeded.result, type: "plan" } })
    rejects(BillingOperation, { ...succeeded, result: { type: "version", version: "v42" } })
    rejects(BillingOperation, { ...succeeded, result: { ...succeeded.result, version: "" } })
  })

  it("requires every common field and a billing operation id", () => {
    requiresEach(BillingOperation, pending, Object.keys(pending))
    rejects(BillingOperation, { ...pending, operationId: "pho_bop_123" })
    rejects(BillingOperation, { ...pending, submittedAt: "2025-03-12T15:30:00+01:00" })
  })

  it("a terminal operation is succeeded or failed, never pending", () => {
    roundTrips(TerminalBillingOperation, succeeded)
    roundTrips(TerminalBillingOperation, failed)
    rejects(TerminalBillingOperation, pending)
  })
})
