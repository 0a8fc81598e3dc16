/**
 * Why this file is long: the billing context's wire schemas (catalog, previews, operations,
 * invoices, overview) in one module, as docs/api-notes/billing.md lists them; each is a few
 * declarative lines and they refer to one another.
 *
 * Billing data (docs/api-notes/billing.md, docs/api-notes/requests.md): the plan catalog,
 * plan-change previews, billing operations and their requests.
 *
 * Every integer money or quantity field lies within ±9007199254740991 (docs/api-notes/requests.md):
 * the Bounds helpers enforce it. Sums are checked with BigInt so that they stay exact.
 */
import { DateTime, Schema } from "effect"
import { BoundedString, NonNegativeSafeInt, PositiveSafeInt, SafeInt } from "../shared/Bounds.js"
import { BillingOperationId } from "../shared/Identifiers.js"
import { NullableTimestamp, Timestamp } from "../shared/Timestamp.js"
import { noExcessKeys } from "../internal/ExcessKeys.js"

/** The largest number of additions in one plan change (docs/api-notes/requests.md). */
export const MAX_PLAN_CHANGE_ADDITIONS = 10

// ---------------------------------------------------------------------------------------------
// Scalars
// ---------------------------------------------------------------------------------------------

/** A billing category: a lower-case letter, then lower-case letters, digits or `_`; at most 64. */
export const CategorySlug = Schema.String.pipe(
  Schema.check(Schema.isPattern(/^[a-z][a-z0-9_]{0,63}$/u, { message: "must be a category slug like messaging" }))
).annotate({ identifier: "CategorySlug" })
export type CategorySlug = typeof CategorySlug.Type

/** A plan code: 1..64 characters. */
export const PlanCode = BoundedString(1, 64).annotate({ identifier: "PlanCode" })
export type PlanCode = typeof PlanCode.Type

/** A fixed-charge code (e.g. `seats`): 1..64 characters, like a plan code. */
export const FixedChargeCode = BoundedString(1, 64).annotate({ identifier: "FixedChargeCode" })

/** An ISO 4217 currency code. */
export const Currency = Schema.String.pipe(
  Schema.check(Schema.isPattern(/^[A-Z]{3}$/u, { message: "must be an ISO 4217 currency code like USD" }))
).annotate({ identifier: "Currency" })
export type Currency = typeof Currency.Type

/** A non-negative decimal string ("decimal money strings"), e.g. `"1"`, `"0.25"`. */
export const DecimalString = Schema.String.pipe(
  Schema.check(Schema.isMaxLength(64)),
  Schema.check(Schema.isPattern(/^\d+(?:\.\d+)?$/u, { message: "must be a decimal number string like 12 or 0.5" }))
).annotate({ identifier: "DecimalString" })

export const BillingInterval = Schema.Literals(["weekly", "monthly", "quarterly", "semiannual", "yearly"]).annotate({
  identifier: "BillingInterval"
})
export type BillingInterval = typeof BillingInterval.Type

const DisplayName = BoundedString(1, 255)

// ---------------------------------------------------------------------------------------------
// The plan (docs/api-notes/billing.md)
// ---------------------------------------------------------------------------------------------

export const Entitlement = Schema.Struct({
  featureKey: BoundedString(1, 255),
  value: Schema.String
}).annotate({ identifier: "Entitlement" })
export type Entitlement = typeof Entitlement.Type

/**
 * A fixed charge a plan sells (the spec leaves its fields open). The shape is the one the preview
 * algorithm reads (docs/api-notes/billing.md): a per-unit price in cents, whether it is billed in
 * advance and prorated, the units a plan change starts with, and the quantities a customer may
 * hold.
 */
export const FixedCharge = Schema.Struct({
  fixedChargeCode: FixedChargeCode,
  name: DisplayName,
  unitAmountCents: NonNegativeSafeInt,
  payInAdvance: Schema.Boolean,
  prorated: Schema.Boolean,
  defaultUnits: NonNegativeSafeInt,
  minQuantity: NonNegativeSafeInt,
  maxQuantity: NonNegativeSafeInt
}).pipe(
  Schema.check(Schema.makeFilter((c) => c.minQuantity <= c.maxQuantity || "minQuantity must not exceed maxQuantity"))
).annotate({ identifier: "FixedCharge" })
export type FixedCharge = typeof FixedCharge.Type

/**
 * A metered usage charge (the spec leaves its fields open): the metric it bills, a per-unit price
 * in cents as a decimal string (usage prices are often fractions of a cent), and free units.
 * Usage is billed in arrears unless the charge itself is paid in advance (docs/api-notes/billing.md).
 */
export const UsageCharge = Schema.Struct({
  chargeCode: FixedChargeCode,
  metricCode: BoundedString(1, 64),
  name: DisplayName,
  unitAmountCents: DecimalString,
  freeUnits: NonNegativeSafeInt,
  payInAdvance: Schema.Boolean
}).annotate({ identifier: "UsageCharge" })
export type UsageCharge = typeof UsageCharge.Type

/** A usage threshold; a recurring one is invoiced again every further `amountCents`. */
export const UsageThreshold = Schema.Struct({
  amountCents: NonNegativeSafeInt,
  displayName: Schema.NullOr(Schema.String),
  recurring: Schema.Boolean
}).annotate({ identifier: "UsageThreshold" })
export type UsageThreshold = typeof UsageThreshold.Type

/**
 * A plan's thresholds, ordered by amount (docs/api-notes/billing.md). Also, as in Lago: at most
 * one recurring threshold, whose amount is positive (a recurring 0 would fire without end), and
 * non-recurring amounts are distinct.
 */
export const UsageThresholds = Schema.Array(UsageThreshold).pipe(
  Schema.check(Schema.makeFilter((ts) => {
    for (let i = 1; i < ts.length; i++) {
      if (ts[i - 1]!.amountCents > ts[i]!.amountCents) return "usageThresholds must be ordered by amountCents, ascending"
    }
    const recurring = ts.filter((t) => t.recurring)
    if (recurring.length > 1) return "at most one usage threshold may be recurring"
    if (recurring.some((t) => t.amountCents === 0)) return "a recurring usage threshold must have a positive amountCents"
    const fixed = ts.filter((t) => !t.recurring).map((t) => t.amountCents)
    if (new Set(fixed).size !== fixed.length) return "non-recurring usage thresholds must have distinct amounts"
    return true
  }))
).annotate({ identifier: "UsageThresholds" })

/** A minimum commitment: when a period's fees fall short, the difference is invoiced at period end. */
export const MinimumCommitment = Schema.Struct({
  amountCents: NonNegativeSafeInt,
  displayName: Schema.NullOr(Schema.String)
}).annotate({ identifier: "MinimumCommitment" })
export type MinimumCommitment = typeof MinimumCommitment.Type

const uniqueBy = <A>(xs: ReadonlyArray<A>, key: (a: A) => string): boolean => new Set(xs.map(key)).size === xs.length

/** A billing plan (docs/api-notes/billing.md; no extra properties). */
export const BillingPlan = Schema.Struct({
  planCode: PlanCode,
  name: Schema.String,
  description: Schema.NullOr(Schema.String),
  baseAmountCents: NonNegativeSafeInt,
  currency: Currency,
  interval: BillingInterval,
  payInAdvance: Schema.Boolean,
  isDefault: Schema.Boolean,
  tier: Schema.NullOr(SafeInt),
  tierDisplayName: Schema.NullOr(DisplayName),
  categoryDisplayName: Schema.optionalKey(Schema.NullOr(DisplayName)),
  entitlements: Schema.Array(Entitlement),
  fixedCharges: Schema.Array(FixedCharge),
  usageCharges: Schema.Array(UsageCharge),
  usageThresholds: UsageThresholds,
  minimumCommitment: Schema.NullOr(MinimumCommitment)
}).pipe(
  Schema.check(Schema.makeFilter((p) => {
    if (!uniqueBy(p.fixedCharges, (c) => c.fixedChargeCode)) return "fixed charge codes must be unique within a plan"
    if (!uniqueBy(p.usageCharges, (c) => c.chargeCode)) return "usage charge codes must be unique within a plan"
    if (!uniqueBy(p.entitlements, (e) => e.featureKey)) return "entitlement feature keys must be unique within a plan"
    return true
  }))
).annotate({ identifier: "BillingPlan" }).pipe(noExcessKeys)
export type BillingPlan = typeof BillingPlan.Type

/**
 * The plan catalog: category → plans (docs/api-notes/billing.md, the `PLANS_FILE` contents and
 * `listBillingPlans`). Within a category plan codes are unique and at most one plan is the default
 * (docs/api-notes/billing.md: `isDefault`).
 */
export const BillingPlanCatalog = Schema.Record(CategorySlug, Schema.Array(BillingPlan)).pipe(
  Schema.check(Schema.makeFilter((catalog) => {
    for (const [category, plans] of Object.entries(catalog)) {
      if (plans.filter((p) => p.isDefault).length > 1) return `category ${category} has more than one default plan`
      if (!uniqueBy(plans, (p) => p.planCode)) return `category ${category} repeats a planCode`
    }
    return true
  }))
).annotate({ identifier: "BillingPlanCatalog" }).pipe(noExcessKeys)
export type BillingPlanCatalog = typeof BillingPlanCatalog.Type

/** `listBillingPlans` (docs/api-notes/billing.md). */
export const ListBillingPlansResponse = Schema.Struct({ plans: BillingPlanCatalog }).annotate({
  identifier: "ListBillingPlansResponse"
})
export type ListBillingPlansResponse = typeof ListBillingPlansResponse.Type

// ---------------------------------------------------------------------------------------------
// Requests (docs/api-notes/billing.md: preview request)
// ---------------------------------------------------------------------------------------------

/** A fixed charge to add with a plan change: an integer quantity ≥ 1 (docs/api-notes/billing.md). */
export const FixedChargeAddition = Schema.Struct({
  fixedChargeCode: FixedChargeCode,
  quantity: PositiveSafeInt
}).annotate({ identifier: "FixedChargeAddition" })
export type FixedChargeAddition = typeof FixedChargeAddition.Type

/** At most 10 additions, each fixed charge named once (docs/api-notes/billing.md, docs/api-notes/requests.md). */
export const FixedChargeAdditions = Schema.Array(FixedChargeAddition).pipe(
  Schema.check(Schema.isMaxLength(MAX_PLAN_CHANGE_ADDITIONS)),
  Schema.check(Schema.makeFilter((xs) => uniqueBy(xs, (x) => x.fixedChargeCode) || "each fixed charge may be named once in additions"))
).annotate({ identifier: "FixedChargeAdditions" })

const planChangeFields = {
  category: CategorySlug,
  planCode: PlanCode,
  additions: Schema.optionalKey(FixedChargeAdditions)
}

/** The plan-change preview request (docs/api-notes/billing.md). */
export const PreviewPlanChangeRequest = Schema.Struct(planChangeFields).annotate({ identifier: "PreviewPlanChangeRequest" }).pipe(noExcessKeys)
export type PreviewPlanChangeRequest = typeof PreviewPlanChangeRequest.Type

/** A held fixed charge (docs/api-notes/billing.md): a code and the integer quantity held. */
export const HeldFixedCharge = Schema.Struct({
  fixedChargeCode: FixedChargeCode,
  quantity: NonNegativeSafeInt
}).annotate({ identifier: "HeldFixedCharge" })
export type HeldFixedCharge = typeof HeldFixedCharge.Type

/**
 * The fixed-charge-quantity preview request (docs/api-notes/billing.md `{fixedCharge: {fixedChargeCode, quantity}}`):
 * the quantity to hold from now on. `category` may be left out when one subscription's plan sells
 * the charge (the public contract sends it).
 */
export const PreviewFixedChargeChangeRequest = Schema.Struct({
  category: Schema.optionalKey(CategorySlug),
  fixedCharge: HeldFixedCharge
}).annotate({ identifier: "PreviewFixedChargeChangeRequest" }).pipe(noExcessKeys)
export type PreviewFixedChargeChangeRequest = typeof PreviewFixedChargeChangeRequest.Type

/** `previewProjectChange`'s body: a plan change or a fixed-charge quantity change (docs/api-notes/billing.md). */
export const PreviewProjectChangeRequest = Schema.Union([PreviewPlanChangeRequest, PreviewFixedChargeChangeRequest])
  .annotate({ identifier: "PreviewProjectChangeRequest" }).pipe(noExcessKeys)
export type PreviewProjectChangeRequest = typeof PreviewProjectChangeRequest.Type

/** `changePlan` (docs/api-notes/billing.md: `category`, `planCode`, `additions?`). */
export const ChangePlanRequest = Schema.Struct(planChangeFields).annotate({ identifier: "ChangePlanRequest" }).pipe(noExcessKeys)
export type ChangePlanRequest = typeof ChangePlanRequest.Type

/** `adjustFixedChargeQuantity` (docs/api-notes/billing.md): the quantity to hold from now on. */
export const AdjustFixedChargeQuantityRequest = Schema.Struct({
  quantity: NonNegativeSafeInt
}).annotate({ identifier: "AdjustFixedChargeQuantityRequest" }).pipe(noExcessKeys)
export type AdjustFixedChargeQuantityRequest = typeof AdjustFixedChargeQuantityRequest.Type

// ---------------------------------------------------------------------------------------------
// Preview results (docs/api-notes/billing.md: preview line, preview invoice, plan change)
// ---------------------------------------------------------------------------------------------

export const PreviewLineKind = Schema.Literals(["fixed_charge", "subscription", "usage", "commitment"]).annotate({
  identifier: "PreviewLineKind"
})
export type PreviewLineKind = typeof PreviewLineKind.Type

/**
 * One billing line. The period is half-open `[periodStart, periodEnd)` (docs/api-notes/billing.md), written as
 * our timestamps (ISO 8601 in UTC), so its start is not after its end.
 */
export const PreviewLine = Schema.Struct({
  amountCents: SafeInt,
  code: BoundedString(1, 64),
  kind: PreviewLineKind,
  name: Schema.String,
  periodStart: NullableTimestamp,
  periodEnd: NullableTimestamp,
  units: DecimalString
}).pipe(
  Schema.check(Schema.makeFilter((l) =>
    l.periodStart === null || l.periodEnd === null || DateTime.toEpochMillis(l.periodStart) <= DateTime.toEpochMillis(l.periodEnd) ||
    "periodStart must not be after periodEnd"
  ))
).annotate({ identifier: "PreviewLine" })
export type PreviewLine = typeof PreviewLine.Type

/**
 * The invoice due now. Its totals are consistent (docs/api-notes/billing.md): `feesCents` is the sum of
 * the lines and `totalCents = feesCents − discountCents + taxesCents − creditsCents`.
 */
export const PreviewInvoice = Schema.Struct({
  creditsCents: SafeInt,
  currency: Currency,
  discountCents: SafeInt,
  feesCents: SafeInt,
  lines: Schema.Array(PreviewLine),
  taxesCents: SafeInt,
  totalCents: SafeInt
}).pipe(
  Schema.check(Schema.makeFilter((i) => {
    const fees = i.lines.reduce((sum, l) => sum + BigInt(l.amountCents), 0n)
    if (fees !== BigInt(i.feesCents)) return "feesCents must be the sum of the lines' amountCents"
    const total = BigInt(i.feesCents) - BigInt(i.discountCents) + BigInt(i.taxesCents) - BigInt(i.creditsCents)
    if (total !== BigInt(i.totalCents)) return "totalCents must be feesCents − discountCents + taxesCents − creditsCents"
    return true
  }))
).annotate({ identifier: "PreviewInvoice" })
export type PreviewInvoice = typeof PreviewInvoice.Type

/** The next regular charge. */
export const NextCharge = Schema.Struct({
  amountCents: SafeInt,
  at: Timestamp,
  currency: Currency
}).annotate({ identifier: "NextCharge" })
export type NextCharge = typeof NextCharge.Type

/**
 * When a plan change applies: `immediate` (now, charging with it), `on_payment` (once the amount
 * due is paid), `period_end` (a downgrade at period end, charging nothing now).
 */
export const PlanChangeTiming = Schema.Literals(["immediate", "on_payment", "period_end"]).annotate({
  identifier: "PlanChangeTiming"
})
export type PlanChangeTiming = typeof PlanChangeTiming.Type

/** The plan-change effect of a preview; `effectiveAt` is set exactly when timing is `period_end`. */
export const PlanChangeEffect = Schema.Struct({
  timing: PlanChangeTiming,
  effectiveAt: NullableTimestamp,
  additions: Schema.Array(PreviewLine),
  unsoldFixedCharges: Schema.Array(HeldFixedCharge),
  unusedTimeCredit: NonNegativeSafeInt,
  minimumCommitment: Schema.NullOr(MinimumCommitment)
}).pipe(
  Schema.check(Schema.makeFilter((e) =>
    (e.timing === "period_end") === (e.effectiveAt !== null) ||
    "effectiveAt is set for period_end and only for period_end"
  ))
).annotate({ identifier: "PlanChangeEffect" })
export type PlanChangeEffect = typeof PlanChangeEffect.Type

/** `previewProjectChange`'s answer (docs/api-notes/billing.md). */
export const PreviewProjectChangeResponse = Schema.Struct({
  dueNow: PreviewInvoice,
  nextCharge: Schema.NullOr(NextCharge),
  planChange: Schema.optionalKey(PlanChangeEffect)
}).annotate({ identifier: "PreviewProjectChangeResponse" })
export type PreviewProjectChangeResponse = typeof PreviewProjectChangeResponse.Type

// ---------------------------------------------------------------------------------------------
// Billing operations (docs/api-notes/billing.md: the operation and its states)
// ---------------------------------------------------------------------------------------------

export const BillingOperationKind = Schema.Literals(["change_plan", "adjust_fixed_charge_quantity"]).annotate({
  identifier: "BillingOperationKind"
})
export type BillingOperationKind = typeof BillingOperationKind.Type

export const billingFailureCodes = [
  "payment_method_required", "payment_failed", "not_provisioned", "invalid_target", "internal"
] as const
export const BillingFailureCode = Schema.Literals(billingFailureCodes).annotate({ identifier: "BillingFailureCode" })
export type BillingFailureCode = typeof BillingFailureCode.Type

export const billingFailureDetails = [
  "cancellation_scheduled", "feature_not_sold_by_plan", "feature_not_found", "payment_timeout",
  "plan_activation_timeout", "plan_not_found", "quantity_out_of_range", "reconciliation_required",
  "release_required", "target_rejected"
] as const
export const BillingFailureDetail = Schema.Literals(billingFailureDetails).annotate({
  identifier: "BillingFailureDetail"
})
export type BillingFailureDetail = typeof BillingFailureDetail.Type

/** Why an operation failed; `unsoldFixedCharges` lists what must be released first (docs/api-notes/billing.md). */
export const BillingOperationFailure = Schema.Struct({
  code: BillingFailureCode,
  detail: Schema.NullOr(BillingFailureDetail),
  retryable: Schema.Boolean,
  unsoldFixedCharges: Schema.Array(HeldFixedCharge)
}).annotate({ identifier: "BillingOperationFailure" })
export type BillingOperationFailure = typeof BillingOperationFailure.Type

/** What a succeeded operation produced; `effectiveAt` is set only for a `period_end` change. */
export const BillingOperationResult = Schema.Struct({
  type: Schema.Literal("version"),
  version: BoundedString(1, 255),
  effectiveAt: NullableTimestamp
}).annotate({ identifier: "BillingOperationResult" })
export type BillingOperationResult = typeof BillingOperationResult.Type

const operationFields = {
  operationId: BillingOperationId,
  kind: BillingOperationKind,
  submittedAt: NullableTimestamp
}

/** Still running; clients poll it (with `Retry-After`). */
export const PendingBillingOperation = Schema.Struct({
  ...operationFields,
  status: Schema.Literal("pending"),
  failure: Schema.Null,
  result: Schema.Null,
  resolvedAt: Schema.Null
}).annotate({ identifier: "PendingBillingOperation" })
export type PendingBillingOperation = typeof PendingBillingOperation.Type

/** Applied (or, for `period_end`, scheduled). A terminal operation carries when it resolved. */
export const SucceededBillingOperation = Schema.Struct({
  ...operationFields,
  status: Schema.Literal("succeeded"),
  failure: Schema.Null,
  result: BillingOperationResult,
  resolvedAt: Timestamp
}).annotate({ identifier: "SucceededBillingOperation" })
export type SucceededBillingOperation = typeof SucceededBillingOperation.Type

/** Failed; nothing changed. */
export const FailedBillingOperation = Schema.Struct({
  ...operationFields,
  status: Schema.Literal("failed"),
  failure: BillingOperationFailure,
  result: Schema.Null,
  resolvedAt: Timestamp
}).annotate({ identifier: "FailedBillingOperation" })
export type FailedBillingOperation = typeof FailedBillingOperation.Type

/** A terminal operation (`changePlan` answers 200 with one when the key already resolved). */
export const TerminalBillingOperation = Schema.Union([SucceededBillingOperation, FailedBillingOperation]).annotate({
  identifier: "TerminalBillingOperation"
})
export type TerminalBillingOperation = typeof TerminalBillingOperation.Type

/** The authoritative state of a billing operation: pending, succeeded or failed. */
export const BillingOperation = Schema.Union([PendingBillingOperation, SucceededBillingOperation, FailedBillingOperation]).annotate({ identifier: "BillingOperation" })
export type BillingOperation = typeof BillingOperation.Type

// ---------------------------------------------------------------------------------------------
// Overview, effective terms, invoices, payment method (docs/api-notes/billing.md)
// ---------------------------------------------------------------------------------------------

/** A subscription's status (the public contract's `SubscriptionStatus`). */
export const SubscriptionStatus = Schema.Literals(["active", "past_due", "terminated", "restricted", "suspended"]).annotate({
  identifier: "SubscriptionStatus"
})
export type SubscriptionStatus = typeof SubscriptionStatus.Type

/** A fixed charge as the subscription holds it: the plan's price and the quantity held. */
export const SubscribedFixedCharge = Schema.Struct({
  fixedChargeCode: FixedChargeCode,
  name: Schema.String,
  quantity: NonNegativeSafeInt,
  unitAmountCents: NonNegativeSafeInt,
  payInAdvance: Schema.Boolean,
  prorated: Schema.Boolean
}).annotate({ identifier: "SubscribedFixedCharge" })
export type SubscribedFixedCharge = typeof SubscribedFixedCharge.Type

/** A change waiting to apply: a downgrade at period end, or an upgrade waiting for its payment. */
export const ScheduledPlanChange = Schema.Struct({
  operationId: BillingOperationId,
  planCode: PlanCode,
  timing: Schema.Literals(["period_end", "on_payment"]),
  /** When it applies (`period_end`), or when the payment window closes (`on_payment`). */
  effectiveAt: NullableTimestamp,
  expiresAt: NullableTimestamp,
  /** Where the customer completes the payment (`on_payment`), else null. */
  paymentUrl: Schema.NullOr(Schema.String)
}).annotate({ identifier: "ScheduledPlanChange" })
export type ScheduledPlanChange = typeof ScheduledPlanChange.Type

/** One category's subscription of a project (the public contract's `ProjectSubscription`, plus our fields). */
export const ProjectSubscription = Schema.Struct({
  category: CategorySlug,
  categoryDisplayName: Schema.optionalKey(Schema.NullOr(DisplayName)),
  planCode: PlanCode,
  planName: Schema.String,
  status: SubscriptionStatus,
  baseAmountCents: NonNegativeSafeInt,
  currency: Currency,
  interval: BillingInterval,
  currentPeriodStart: NullableTimestamp,
  currentPeriodEnd: NullableTimestamp,
  cancelsAt: NullableTimestamp,
  entitlements: Schema.Array(Entitlement),
  fixedCharges: Schema.Array(SubscribedFixedCharge),
  scheduledChange: Schema.NullOr(ScheduledPlanChange)
}).annotate({ identifier: "ProjectSubscription" })
export type ProjectSubscription = typeof ProjectSubscription.Type

/** Usage of one metric in the current period (the public contract's `MeteredUsage`). */
export const MeteredUsage = Schema.Struct({
  amountCents: NonNegativeSafeInt,
  category: CategorySlug,
  categoryDisplayName: Schema.optionalKey(Schema.NullOr(DisplayName)),
  currency: Currency,
  displayName: Schema.String,
  metricCode: BoundedString(1, 64),
  units: NonNegativeSafeInt
}).annotate({ identifier: "MeteredUsage" })
export type MeteredUsage = typeof MeteredUsage.Type

/** `getBillingOverview` (docs/api-notes/billing.md; the public contract's `GetBillingOverviewResponse`). */
export const BillingOverview = Schema.Struct({
  entitlementsVersion: NonNegativeSafeInt,
  subscriptions: Schema.Array(ProjectSubscription),
  usage: Schema.Array(MeteredUsage)
}).annotate({ identifier: "BillingOverview" })
export type BillingOverview = typeof BillingOverview.Type

/** What one category of a project is billed on now (`getEffectiveTerms`). */
export const EffectiveCategoryTerms = Schema.Struct({
  category: CategorySlug,
  planCode: PlanCode,
  planName: Schema.String,
  /** `default`: the category's default plan since creation; `purchase`: chosen with changePlan. */
  source: Schema.Literals(["default", "purchase"]),
  paymentMode: Schema.Literals(["in_advance", "in_arrears"]),
  baseAmountCents: NonNegativeSafeInt,
  currency: Currency,
  interval: BillingInterval,
  fixedCharges: Schema.Array(SubscribedFixedCharge),
  usageCharges: Schema.Array(UsageCharge),
  entitlements: Schema.Array(Entitlement),
  minimumCommitment: Schema.NullOr(MinimumCommitment),
  currentPeriodStart: Timestamp,
  currentPeriodEnd: Timestamp,
  nextBillingAt: Timestamp,
  pendingChange: Schema.NullOr(ScheduledPlanChange),
  cancelsAt: NullableTimestamp
}).annotate({ identifier: "EffectiveCategoryTerms" })
export type EffectiveCategoryTerms = typeof EffectiveCategoryTerms.Type

export const EffectiveTerms = Schema.Struct({
  organizationId: Schema.String,
  projectId: Schema.String,
  timeZone: Schema.Literal("UTC"),
  /** The organization's credit balance (unused-time credit not yet applied). */
  creditBalanceCents: NonNegativeSafeInt,
  terms: Schema.Array(EffectiveCategoryTerms)
}).annotate({ identifier: "EffectiveTerms" })
export type EffectiveTerms = typeof EffectiveTerms.Type

export const InvoiceKind = Schema.Literals(["subscription", "one_off", "credit"]).annotate({ identifier: "InvoiceKind" })
export const PaymentStatus = Schema.Literals(["pending", "succeeded", "failed"]).annotate({ identifier: "PaymentStatus" })
export type PaymentStatus = typeof PaymentStatus.Type

export const InvoiceSubject = Schema.Union([Schema.Struct({ type: Schema.Literal("project"), projectId: Schema.String }), Schema.Struct({ type: Schema.Literal("organization"), organizationId: Schema.String })]).annotate({ identifier: "InvoiceSubject" })

/** An invoice (the public contract's `Invoice`, plus its lines and amounts). */
export const Invoice = Schema.Struct({
  invoiceId: Schema.String,
  number: Schema.String,
  kind: InvoiceKind,
  issuedAt: NullableTimestamp,
  paymentStatus: PaymentStatus,
  currency: Currency,
  feesCents: SafeInt,
  creditsCents: SafeInt,
  totalCents: SafeInt,
  pdfUrl: Schema.NullOr(Schema.String),
  subjects: Schema.Array(InvoiceSubject),
  lines: Schema.Array(PreviewLine)
}).annotate({ identifier: "Invoice" })
export type Invoice = typeof Invoice.Type

export const ListInvoicesResponse = Schema.Struct({ invoices: Schema.Array(Invoice) }).annotate({
  identifier: "ListInvoicesResponse"
})

/** The card on file (the public contract's `GetOrganizationPaymentMethodResponse`). */
export const PaymentMethodDetails = Schema.Struct({
  brand: Schema.NullOr(Schema.String),
  expiresMonth: Schema.NullOr(Schema.Int.pipe(Schema.check(Schema.isBetween({ minimum: 1, maximum: 12 })))),
  expiresYear: Schema.NullOr(Schema.Int),
  last4: Schema.NullOr(Schema.String.pipe(Schema.check(Schema.isPattern(/^\d{4}$/u))))
}).annotate({ identifier: "PaymentMethodDetails" })

export const PaymentMethodResponse = Schema.Struct({
  cardOnFile: Schema.Boolean,
  paymentMethod: Schema.NullOr(PaymentMethodDetails)
}).annotate({ identifier: "PaymentMethodResponse" })
export type PaymentMethodResponse = typeof PaymentMethodResponse.Type

export const CheckoutResponse = Schema.Struct({ checkoutUrl: Schema.String }).annotate({ identifier: "CheckoutResponse" })
export const SetupIntentResponse = Schema.Struct({
  clientSecret: Schema.String.pipe(Schema.check(Schema.isMinLength(1))),
  publishableKey: Schema.String.pipe(Schema.check(Schema.isPattern(/^pk_/u)))
}).annotate({ identifier: "SetupIntentResponse" })
