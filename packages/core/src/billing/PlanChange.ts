/**
 * Why this file is long: one pure algorithm, docs/api-notes/billing.md implemented step by step as
 * written (targets, direction, period-end, upgrade); its helpers share one context and are only
 * meaningful together.
 *
 * The plan-change preview behind `previewProjectChange`, implemented as written
 * (docs/api-notes/billing.md). A pure module (docs/architecture.md#contexts-and-pure-modules):
 * plain functions over plain data, no Effect, no Clock — the caller passes `now`.
 *
 * `previewPlanChange` answers with the `PreviewProjectChangeResponse` of `billing/Schema.ts` (its
 * decoded side: timestamps are `DateTime.Utc`), or with a typed failure for each refusal.
 * Money is computed exactly with BigInt and half-up rounding (`Money.ts`); periods and day
 * counts come from `Proration.ts`.
 */
import { Data, DateTime, Result, Schema } from "effect"
import { issueTree } from "../shared/SchemaIssues.js"
import { parseTimestamp } from "../shared/Timestamp.js"
import { big, isSafe, maxBig, minBig, rhu, sum } from "./Money.js"
import {
  annualisedCents, type BillingTime, epochDayOfMillis, millisOfEpochDay, type Period, period, periodDays
} from "./Proration.js"
import {
  type BillingFailureDetail, type BillingPlan, type BillingPlanCatalog, type FixedCharge, type HeldFixedCharge,
  type MinimumCommitment, type NextCharge, type PlanChangeEffect, type PlanChangeTiming, type PreviewInvoice,
  type PreviewLine, PreviewPlanChangeRequest, type PreviewProjectChangeResponse
} from "./Schema.js"

// ---------------------------------------------------------------------------------------------
// Inputs (docs/api-notes/billing.md)
// ---------------------------------------------------------------------------------------------

/** An instant: epoch milliseconds, or an RFC 3339 UTC timestamp string. */
export type Instant = number | string

/** How the customer can pay (docs/api-notes/billing.md). */
export type PaymentMethodState = "off_session" | "requires_action" | "none"

/** The subscription being changed (docs/api-notes/billing.md `current`). */
export interface CurrentSubscription {
  readonly plan: BillingPlan
  /** Default `calendar`. */
  readonly billingTime?: BillingTime
  /** The subscription's start date (its UTC calendar date is the anchor); required for anniversary billing. */
  readonly anchorDate?: Instant
  /** Default `[]`. */
  readonly heldFixedCharges?: ReadonlyArray<HeldFixedCharge>
  /** The in-advance base fee invoiced for the current period; default `plan.baseAmountCents`. */
  readonly baseFeeBilledCents?: number
  /** Default 0. */
  readonly baseFeeCreditedCents?: number
  /** Usage lines not billed yet (kind `usage`, net of progressive billing); default `[]`. */
  readonly unbilledUsage?: ReadonlyArray<PreviewLine>
  /** All usage accrued in the current period, billed or not; default the sum of `unbilledUsage`. */
  readonly periodUsageCents?: number
  readonly cancellationScheduled: boolean
  readonly paymentMethod: PaymentMethodState
}

/** Everything the preview reads. The request is validated here (docs/api-notes/billing.md). */
export interface PlanChangePreviewInput {
  /** The plan catalog: the target is looked up in it, and addition codes across it. */
  readonly catalog: BillingPlanCatalog
  readonly current: CurrentSubscription
  /** `{category, planCode, additions?}` (docs/api-notes/billing.md), as received. */
  readonly request: typeof PreviewPlanChangeRequest.Encoded
  readonly now: Instant
}

// ---------------------------------------------------------------------------------------------
// Failures
// ---------------------------------------------------------------------------------------------

/** docs/api-notes/billing.md: the request is malformed — a request validation error, not a preview. */
export class PlanChangeRequestInvalid extends Data.TaggedError("PlanChangeRequestInvalid")<{
  readonly message: string
}> {}

/** The details of docs/api-notes/billing.md's hard rejections (all with code `invalid_target`). */
export type PlanChangeRejection = Extract<
  BillingFailureDetail,
  | "plan_not_found" | "target_rejected" | "cancellation_scheduled" | "feature_not_found"
  | "feature_not_sold_by_plan" | "quantity_out_of_range"
>

/** docs/api-notes/billing.md: the first failing check, as the failure `{code, detail}` the preview answers with. */
export class PlanChangeRejected extends Data.TaggedError("PlanChangeRejected")<{
  readonly code: "invalid_target"
  readonly detail: PlanChangeRejection
  /** The addition that failed (feature_not_found, feature_not_sold_by_plan, quantity_out_of_range). */
  readonly fixedChargeCode: string | null
}> {}

/** The other inputs are unusable (an unparseable `now`, a missing anchor, negative usage). */
export class PlanChangeInputInvalid extends Data.TaggedError("PlanChangeInputInvalid")<{
  readonly field: string
  readonly message: string
}> {}

/** A computed amount falls outside ±9007199254740991 (docs/api-notes/requests.md). */
export class PlanChangeAmountOutOfRange extends Data.TaggedError("PlanChangeAmountOutOfRange")<{
  readonly field: string
  readonly message: string
}> {}

export type PlanChangePreviewError =
  | PlanChangeRequestInvalid
  | PlanChangeRejected
  | PlanChangeInputInvalid
  | PlanChangeAmountOutOfRange

// ---------------------------------------------------------------------------------------------
// Direction and timing (docs/api-notes/billing.md)
// ---------------------------------------------------------------------------------------------

export type PlanChangeDirection = "up" | "down" | "lateral"

/**
 * docs/api-notes/billing.md: by tier when both tiers are set; otherwise by Lago's annualised base
 * amount, where only strictly greater is an upgrade.
 */
export const planChangeDirection = (current: BillingPlan, target: BillingPlan): PlanChangeDirection => {
  if (current.tier !== null && target.tier !== null) {
    return target.tier > current.tier ? "up" : target.tier < current.tier ? "down" : "lateral"
  }
  const t = annualisedCents(target.baseAmountCents, target.interval)
  const c = annualisedCents(current.baseAmountCents, current.interval)
  return t > c ? "up" : t < c ? "down" : "lateral"
}

/** docs/api-notes/billing.md: when an upgrade applies, given the total due now and the payment method. */
export const upgradeTiming = (totalCents: number, paymentMethod: PaymentMethodState): Exclude<PlanChangeTiming, "period_end"> =>
  totalCents <= 0 || paymentMethod === "off_session" ? "immediate" : "on_payment"

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

/** Parses an instant to epoch milliseconds. */
export const parseInstant = (instant: Instant): Result.Result<number, string> => {
  if (typeof instant === "number") {
    return Number.isSafeInteger(instant) ? Result.succeed(instant) : Result.fail("must be integer epoch milliseconds")
  }
  return parseTimestamp(instant)
}

/** Internal: a computed amount left the safe range. Caught in `previewPlanChange`. */
class OutOfRange {
  constructor(readonly field: string, readonly value: bigint) {}
}

const toSafe = (value: bigint, field: string): number => {
  if (!isSafe(value)) throw new OutOfRange(field, value)
  return Number(value)
}

const at = (epochDay: number): DateTime.Utc => DateTime.makeUnsafe(millisOfEpochDay(epochDay))

interface Draft {
  readonly kind: PreviewLine["kind"]
  readonly code: string
  readonly name: string
  readonly amount: bigint
  readonly units: string
  readonly periodStart: DateTime.Utc | null
  readonly periodEnd: DateTime.Utc | null
}

const finish = (d: Draft, field: string): PreviewLine => ({
  amountCents: toSafe(d.amount, field),
  code: d.code,
  kind: d.kind,
  name: d.name,
  periodStart: d.periodStart,
  periodEnd: d.periodEnd,
  units: d.units
})

/** A line for `[start, end)`, both epoch days. */
const draft = (
  kind: PreviewLine["kind"], code: string, name: string, amount: bigint, units: string, start: number, endExclusive: number
): Draft => ({ kind, code, name, amount, units, periodStart: at(start), periodEnd: at(endExclusive) })

/** `prorated ? rhu(unit×qty×days, periodDays) : unit×qty`. */
const chargeFor = (charge: FixedCharge, quantity: bigint, daysCharged: bigint, daysInPeriod: bigint): bigint =>
  charge.prorated
    ? rhu(big(charge.unitAmountCents) * quantity * daysCharged, daysInPeriod)
    : big(charge.unitAmountCents) * quantity

const emptyInvoice = (currency: string): PreviewInvoice => ({
  creditsCents: 0, currency, discountCents: 0, feesCents: 0, lines: [], taxesCents: 0, totalCents: 0
})

/** Calendar years whose dates every output instant can be written in (RFC 3339, 4-digit years). */
const FIRST_YEAR = 2
const LAST_YEAR = 9997

// ---------------------------------------------------------------------------------------------
// The preview
// ---------------------------------------------------------------------------------------------

/** Resolves the target plan and applies docs/api-notes/billing.md's hard rejections, first failure wins. */
export const resolveTarget = (
  catalog: BillingPlanCatalog,
  current: Pick<CurrentSubscription, "plan" | "cancellationScheduled">,
  request: PreviewPlanChangeRequest
): Result.Result<BillingPlan, PlanChangeRejected> => {
  const reject = (detail: PlanChangeRejection, fixedChargeCode: string | null = null) =>
    Result.fail(new PlanChangeRejected({ code: "invalid_target", detail, fixedChargeCode }))
  // Own properties only: a category named like an Object.prototype member is just not there.
  const plans = Object.hasOwn(catalog, request.category) ? catalog[request.category] ?? [] : []
  const target = plans.find((p) => p.planCode === request.planCode)
  if (target === undefined) return reject("plan_not_found")
  if (target.planCode === current.plan.planCode || target.currency !== current.plan.currency) {
    return reject("target_rejected")
  }
  if (current.cancellationScheduled) return reject("cancellation_scheduled")
  const catalogCodes = new Set<string>()
  for (const categoryPlans of Object.values(catalog)) {
    for (const plan of categoryPlans) for (const c of plan.fixedCharges) catalogCodes.add(c.fixedChargeCode)
  }
  for (const addition of request.additions ?? []) {
    if (!catalogCodes.has(addition.fixedChargeCode)) return reject("feature_not_found", addition.fixedChargeCode)
    const charge = target.fixedCharges.find((c) => c.fixedChargeCode === addition.fixedChargeCode)
    if (charge === undefined) return reject("feature_not_sold_by_plan", addition.fixedChargeCode)
    if (addition.quantity < charge.minQuantity || addition.quantity > charge.maxQuantity) {
      return reject("quantity_out_of_range", addition.fixedChargeCode)
    }
  }
  return Result.succeed(target)
}

/**
 * `previewPlanChange(current, targetPlan, additions, now)` of docs/api-notes/billing.md: the
 * invoice due now, the next regular charge and the plan-change effect, or the first failure.
 */
export const previewPlanChange = (
  input: PlanChangePreviewInput
): Result.Result<PreviewProjectChangeResponse, PlanChangePreviewError> => {
  // Request validation, before any lookup.
  const decoded = Schema.decodeUnknownResult(PreviewPlanChangeRequest)(input.request, { onExcessProperty: "error", reportInput: true })
  if (Result.isFailure(decoded)) {
    return Result.fail(new PlanChangeRequestInvalid({ message: issueTree(decoded.failure) }))
  }
  const request = decoded.success
  const { catalog, current } = input

  const nowMillis = parseInstant(input.now)
  if (Result.isFailure(nowMillis)) return Result.fail(new PlanChangeInputInvalid({ field: "now", message: nowMillis.failure }))
  const D = epochDayOfMillis(nowMillis.success)
  const year = new Date(millisOfEpochDay(D)).getUTCFullYear()
  if (year < FIRST_YEAR || year > LAST_YEAR) {
    return Result.fail(new PlanChangeInputInvalid({ field: "now", message: `must fall in the years ${FIRST_YEAR}..${LAST_YEAR}` }))
  }
  const billingTime = current.billingTime ?? "calendar"
  let anchorDay = D
  if (billingTime === "anniversary") {
    if (current.anchorDate === undefined) {
      return Result.fail(new PlanChangeInputInvalid({ field: "anchorDate", message: "is required for anniversary billing" }))
    }
    const anchor = parseInstant(current.anchorDate)
    if (Result.isFailure(anchor)) return Result.fail(new PlanChangeInputInvalid({ field: "anchorDate", message: anchor.failure }))
    anchorDay = epochDayOfMillis(anchor.success)
  }
  const unbilledUsage = current.unbilledUsage ?? []
  if (unbilledUsage.some((l) => l.amountCents < 0) || (current.periodUsageCents ?? 0) < 0) {
    return Result.fail(new PlanChangeInputInvalid({ field: "unbilledUsage", message: "usage amounts must not be negative" }))
  }

  // Hard rejections, first failure wins.
  const resolved = resolveTarget(catalog, current, request)
  if (Result.isFailure(resolved)) return Result.fail(resolved.failure)
  const target = resolved.success

  try {
    const context: Context = {
      current, target, additions: request.additions ?? [], D, billingTime, anchorDay, unbilledUsage,
      held: heldQuantities(current.heldFixedCharges ?? [])
    }
    return Result.succeed(planChangeDirection(current.plan, target) === "up" ? upgrade(context) : atPeriodEnd(context))
  } catch (e) {
    if (e instanceof OutOfRange) {
      return Result.fail(
        new PlanChangeAmountOutOfRange({ field: e.field, message: `${e.value} is outside ±9007199254740991` })
      )
    }
    throw e
  }
}

interface Context {
  readonly current: CurrentSubscription
  readonly target: BillingPlan
  readonly additions: ReadonlyArray<{ readonly fixedChargeCode: string; readonly quantity: number }>
  readonly D: number
  readonly billingTime: BillingTime
  readonly anchorDay: number
  readonly unbilledUsage: ReadonlyArray<PreviewLine>
  /** Held quantities by code (the first entry of a code wins). */
  readonly held: ReadonlyMap<string, number>
}

const heldQuantities = (held: ReadonlyArray<HeldFixedCharge>): ReadonlyMap<string, number> => {
  const map = new Map<string, number>()
  for (const h of held) if (!map.has(h.fixedChargeCode)) map.set(h.fixedChargeCode, h.quantity)
  return map
}

/** Held charges (quantity > 0) whose code the target does not sell, by code ascending. */
const unsoldFixedCharges = (ctx: Context): ReadonlyArray<HeldFixedCharge> => {
  const sold = new Set(ctx.target.fixedCharges.map((c) => c.fixedChargeCode))
  return [...ctx.held]
    .filter(([code, quantity]) => quantity > 0 && !sold.has(code))
    .map(([fixedChargeCode, quantity]) => ({ fixedChargeCode, quantity }))
    .sort((a, b) => (a.fixedChargeCode < b.fixedChargeCode ? -1 : a.fixedChargeCode > b.fixedChargeCode ? 1 : 0))
}

const targetCharge = (ctx: Context, code: string): FixedCharge => {
  const charge = ctx.target.fixedCharges.find((c) => c.fixedChargeCode === code)
  // resolveTarget has checked every addition against the target.
  if (charge === undefined) throw new Error(`unreachable: ${code} is not sold by ${ctx.target.planCode}`)
  return charge
}

/** The quantity a target fixed charge starts with: the held quantity, or else `defaultUnits`. */
const startingQuantity = (ctx: Context, charge: FixedCharge): bigint =>
  big(ctx.held.get(charge.fixedChargeCode) ?? charge.defaultUnits)

// ---------------------------------------------------------------------------------------------
// DOWN or LATERAL → period_end
// ---------------------------------------------------------------------------------------------

const atPeriodEnd = (ctx: Context): PreviewProjectChangeResponse => {
  const { current, target } = ctx
  const cp = period(current.plan.interval, ctx.billingTime, ctx.anchorDay, ctx.D)
  const effective = cp.end + 1
  // The target's first period: [effectiveAt, end of the period containing it + 1 day).
  const first = period(target.interval, ctx.billingTime, ctx.anchorDay, effective)
  const additions = ctx.additions.map((a, i) => {
    const charge = targetCharge(ctx, a.fixedChargeCode)
    const amount = big(charge.unitAmountCents) * big(a.quantity)
    return finish(
      draft("fixed_charge", charge.fixedChargeCode, charge.name, amount, String(a.quantity), effective, first.end + 1),
      `planChange.additions[${i}].amountCents`
    )
  })
  const planChange: PlanChangeEffect = {
    timing: "period_end",
    effectiveAt: at(effective),
    additions,
    unsoldFixedCharges: unsoldFixedCharges(ctx),
    unusedTimeCredit: 0,
    minimumCommitment: target.minimumCommitment
  }
  return {
    dueNow: emptyInvoice(target.currency),
    nextCharge: nextChargeAtPeriodEnd(ctx, cp, effective, first),
    planChange
  }
}

/**
 * DESIGN (not in docs/api-notes/billing.md): the regular invoice at `effectiveAt`, without usage,
 * thresholds, commitment true-ups or taxes — the current plan's in-arrears base fee and in-arrears
 * held fixed charges for the period that ends, then the target's in-advance base fee and in-advance
 * fixed charges (held or default quantities) for its first period, prorated when that period is
 * partial. Additions are not counted: their own lines price them for that period.
 */
const nextChargeAtPeriodEnd = (ctx: Context, cp: Period, effective: number, first: Period): NextCharge => {
  const { current, target } = ctx
  const closing: Array<bigint> = []
  if (!current.plan.payInAdvance) closing.push(big(current.plan.baseAmountCents))
  for (const charge of current.plan.fixedCharges) {
    const qty = big(ctx.held.get(charge.fixedChargeCode) ?? 0)
    if (!charge.payInAdvance && qty > 0n) closing.push(chargeFor(charge, qty, big(periodDays(cp)), big(periodDays(cp))))
  }
  const firstDays = big(periodDays(first))
  const remaining = big(first.end - effective + 1)
  const opening: Array<bigint> = []
  if (target.payInAdvance) opening.push(rhu(big(target.baseAmountCents) * remaining, firstDays))
  for (const charge of target.fixedCharges) {
    const qty = startingQuantity(ctx, charge)
    if (charge.payInAdvance && qty > 0n) opening.push(chargeFor(charge, qty, remaining, firstDays))
  }
  return {
    amountCents: toSafe(sum([...closing, ...opening]), "nextCharge.amountCents"),
    at: at(effective),
    currency: target.currency
  }
}

// ---------------------------------------------------------------------------------------------
// UP → immediate or on_payment
// ---------------------------------------------------------------------------------------------

const upgrade = (ctx: Context): PreviewProjectChangeResponse => {
  const { current, target, D } = ctx
  const cPlan = current.plan
  const cp = period(cPlan.interval, ctx.billingTime, ctx.anchorDay, D)
  const cDays = big(periodDays(cp))
  const used = big(D - cp.start)
  const rc = big(cp.end - D + 1)
  const tp = period(target.interval, ctx.billingTime, ctx.anchorDay, D)
  const tDays = big(periodDays(tp))
  const rt = big(tp.end - D + 1)
  const cBase = big(cPlan.baseAmountCents)
  const tBase = big(target.baseAmountCents)

  const lines: Array<Draft> = []

  // (a) Closing the current plan.
  // (a) 1. In arrears: the days used, [cs, D).
  const usedBase = rhu(cBase * used, cDays)
  if (!cPlan.payInAdvance && used > 0n) {
    lines.push(draft("subscription", cPlan.planCode, cPlan.name, usedBase, "1", cp.start, D))
  }
  // (a) 2. Unbilled usage, unchanged.
  for (const usage of ctx.unbilledUsage) {
    lines.push({ ...usage, amount: big(usage.amountCents) })
  }
  // (a) 3. The current plan's prorated minimum commitment, against what the used days spent.
  if (cPlan.minimumCommitment !== null && used > 0n) {
    const commit = rhu(big(cPlan.minimumCommitment.amountCents) * used, cDays)
    const periodUsage = current.periodUsageCents !== undefined
      ? big(current.periodUsageCents)
      : sum(ctx.unbilledUsage.map((l) => big(l.amountCents)))
    const fixed = sum(cPlan.fixedCharges.map((charge) => {
      const qty = big(ctx.held.get(charge.fixedChargeCode) ?? 0)
      return qty > 0n ? chargeFor(charge, qty, used, cDays) : 0n
    }))
    const spent = usedBase + periodUsage + fixed
    if (commit > spent) {
      lines.push(
        draft("commitment", cPlan.planCode, commitmentName(cPlan.minimumCommitment, cPlan), commit - spent, "1", cp.start, D)
      )
    }
  }

  // (b) Opening the target plan.
  // (b) 1. In advance: the remaining days, [D, te+1). In arrears: nothing now.
  if (target.payInAdvance) {
    lines.push(draft("subscription", target.planCode, target.name, rhu(tBase * rt, tDays), "1", D, tp.end + 1))
  }
  // (b) 2. Pay-in-advance fixed charges, less what was already paid for the remaining days.
  for (const charge of target.fixedCharges) {
    if (!charge.payInAdvance) continue
    const qty = startingQuantity(ctx, charge)
    if (qty === 0n) continue
    const fresh = chargeFor(charge, qty, rt, tDays)
    const old = cPlan.fixedCharges.find((c) => c.fixedChargeCode === charge.fixedChargeCode)
    // Only an in-advance charge was paid for the remaining days; an in-arrears one paid nothing yet.
    const paid = ctx.held.has(charge.fixedChargeCode) && old !== undefined && old.payInAdvance
      ? chargeFor(old, qty, rc, cDays)
      : 0n
    lines.push(
      draft("fixed_charge", charge.fixedChargeCode, charge.name, maxBig(0n, fresh - paid), String(qty), D, tp.end + 1)
    )
  }

  // (c) Credit for unused time (current plan in advance only), capped at what was billed.
  const billed = big(current.baseFeeBilledCents ?? cPlan.baseAmountCents)
  const credited = big(current.baseFeeCreditedCents ?? 0)
  const unusedTimeCredit = cPlan.payInAdvance ? maxBig(0n, minBig(rhu(cBase * rc, cDays), billed - credited)) : 0n

  // (d) Totals.
  const finished = lines.map((l, i) => finish(l, `dueNow.lines[${i}].amountCents`))
  const fees = sum(lines.map((l) => l.amount))
  const discount = 0n
  const taxes = 0n
  const credits = minBig(unusedTimeCredit, maxBig(0n, fees - discount + taxes))
  const total = fees - discount + taxes - credits
  const dueNow: PreviewInvoice = {
    creditsCents: toSafe(credits, "dueNow.creditsCents"),
    currency: target.currency,
    discountCents: toSafe(discount, "dueNow.discountCents"),
    feesCents: toSafe(fees, "dueNow.feesCents"),
    lines: finished,
    taxesCents: toSafe(taxes, "dueNow.taxesCents"),
    totalCents: toSafe(total, "dueNow.totalCents")
  }

  // Additions and held fixed charges.
  const additions = ctx.additions.map((a, i) => {
    const charge = targetCharge(ctx, a.fixedChargeCode)
    return finish(
      draft(
        "fixed_charge", charge.fixedChargeCode, charge.name, chargeFor(charge, big(a.quantity), rt, tDays),
        String(a.quantity), D, tp.end + 1
      ),
      `planChange.additions[${i}].amountCents`
    )
  })
  const minimumCommitment: MinimumCommitment | null = target.minimumCommitment === null ? null : {
    amountCents: toSafe(rhu(big(target.minimumCommitment.amountCents) * rt, tDays), "planChange.minimumCommitment.amountCents"),
    displayName: target.minimumCommitment.displayName
  }
  const planChange: PlanChangeEffect = {
    timing: upgradeTiming(dueNow.totalCents, current.paymentMethod),
    effectiveAt: null,
    additions,
    unsoldFixedCharges: unsoldFixedCharges(ctx),
    unusedTimeCredit: toSafe(unusedTimeCredit, "planChange.unusedTimeCredit"),
    minimumCommitment
  }
  return { dueNow, nextCharge: nextChargeAfterUpgrade(ctx, tp, rt, tDays), planChange }
}

/**
 * DESIGN (not in docs/api-notes/billing.md): the regular invoice at `te + 1`, without usage,
 * thresholds, commitment true-ups or taxes — a target in arrears bills `rhu(tBase×rt, tDays)` for
 * `[D, te]` (docs/api-notes/billing.md E2 "Later"), one in advance its full fee for the next
 * period; in-arrears fixed charges bill `[D, te]` at their starting quantity, in-advance ones the
 * next full period with the additions included (the addition lines priced only `[D, te]`).
 */
const nextChargeAfterUpgrade = (ctx: Context, tp: Period, rt: bigint, tDays: bigint): NextCharge => {
  const { target } = ctx
  const parts: Array<bigint> = [target.payInAdvance ? big(target.baseAmountCents) : rhu(big(target.baseAmountCents) * rt, tDays)]
  for (const charge of target.fixedCharges) {
    const start = startingQuantity(ctx, charge)
    if (charge.payInAdvance) {
      const added = big(ctx.additions.find((a) => a.fixedChargeCode === charge.fixedChargeCode)?.quantity ?? 0)
      parts.push(big(charge.unitAmountCents) * (start + added))
    } else if (start > 0n) {
      parts.push(chargeFor(charge, start, rt, tDays))
    }
  }
  return { amountCents: toSafe(sum(parts), "nextCharge.amountCents"), at: at(tp.end + 1), currency: target.currency }
}

/**
 * A commitment line's name is the commitment's `displayName`; the schema's line name
 * is a string, so a null display name falls back to the plan's name.
 */
const commitmentName = (commitment: MinimumCommitment, plan: BillingPlan): string => commitment.displayName ?? plan.name
