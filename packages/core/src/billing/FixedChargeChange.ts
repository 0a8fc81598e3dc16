/**
 * The fixed-charge quantity preview (docs/api-notes/billing.md `previewProjectChange` with
 * `{fixedCharge: {fixedChargeCode, quantity}}`, and what `adjustFixedChargeQuantity` charges).
 * A pure module, built on the same money and period rules as `PlanChange.ts`
 * (docs/api-notes/billing.md):
 *
 * - the quantity is the one to hold from now on; 0 releases the charge (always allowed), any other
 *   quantity must lie within the plan's `[minQuantity, maxQuantity]`;
 * - an increase of an in-advance charge is billed now for the added units, for `[D, pe+1)`:
 *   `prorated ? rhu(unit×added×remaining, periodDays) : unit×added`;
 * - a decrease, or an in-arrears charge, bills nothing now: no credit is given for units released
 *   (like Lago, docs/api-notes/billing.md: no credit note for fixed charges); in-arrears charges bill the
 *   quantity held at period end;
 * - timing follows docs/api-notes/billing.md: nothing due or a card usable off-session → `immediate`, else
 *   `on_payment`.
 */
import { DateTime, Result } from "effect"
import { catalogSellsCharge } from "./Catalog.js"
import { big, isSafe, rhu, sum } from "./Money.js"
import { type PaymentMethodState, PlanChangeAmountOutOfRange, PlanChangeRejected, upgradeTiming } from "./PlanChange.js"
import { type BillingTime, epochDayOfMillis, millisOfEpochDay, period, periodDays } from "./Proration.js"
import type {
  BillingPlan, BillingPlanCatalog, FixedCharge, HeldFixedCharge, NextCharge, PlanChangeTiming, PreviewInvoice, PreviewLine
} from "./Schema.js"

export interface FixedChargePreviewInput {
  readonly catalog: BillingPlanCatalog
  readonly plan: BillingPlan
  readonly billingTime: BillingTime
  /** The anchor's epoch day (anniversary billing). */
  readonly anchorDay: number
  readonly heldFixedCharges: ReadonlyArray<HeldFixedCharge>
  readonly cancellationScheduled: boolean
  readonly paymentMethod: PaymentMethodState
  readonly fixedChargeCode: string
  readonly quantity: number
  /** Epoch milliseconds. */
  readonly now: number
}

export interface FixedChargePreview {
  readonly dueNow: PreviewInvoice
  readonly nextCharge: NextCharge
  readonly timing: Exclude<PlanChangeTiming, "period_end">
  /** The held charges once applied (quantity 0 removed), by code ascending. */
  readonly heldAfter: ReadonlyArray<HeldFixedCharge>
}

const at = (epochDay: number): DateTime.Utc => DateTime.makeUnsafe(millisOfEpochDay(epochDay))

const safe = (value: bigint, field: string): Result.Result<number, PlanChangeAmountOutOfRange> =>
  isSafe(value)
    ? Result.succeed(Number(value))
    : Result.fail(new PlanChangeAmountOutOfRange({ field, message: `${value} is outside ±9007199254740991` }))

const chargeFor = (charge: FixedCharge, quantity: bigint, daysCharged: bigint, daysInPeriod: bigint): bigint =>
  charge.prorated
    ? rhu(big(charge.unitAmountCents) * quantity * daysCharged, daysInPeriod)
    : big(charge.unitAmountCents) * quantity

/** The held charges with `code` set to `quantity` (removed at 0), by code ascending. */
export const withQuantity = (
  held: ReadonlyArray<HeldFixedCharge>,
  code: string,
  quantity: number
): ReadonlyArray<HeldFixedCharge> =>
  [...held.filter((h) => h.fixedChargeCode !== code), ...(quantity > 0 ? [{ fixedChargeCode: code, quantity }] : [])]
    .sort((a, b) => (a.fixedChargeCode < b.fixedChargeCode ? -1 : a.fixedChargeCode > b.fixedChargeCode ? 1 : 0))

export const previewFixedChargeChange = (
  input: FixedChargePreviewInput
): Result.Result<FixedChargePreview, PlanChangeRejected | PlanChangeAmountOutOfRange> => {
  const reject = (detail: PlanChangeRejected["detail"]) =>
    Result.fail(new PlanChangeRejected({ code: "invalid_target", detail, fixedChargeCode: input.fixedChargeCode }))
  const { plan } = input
  if (input.cancellationScheduled) return reject("cancellation_scheduled")
  if (!catalogSellsCharge(input.catalog, input.fixedChargeCode)) return reject("feature_not_found")
  const charge = plan.fixedCharges.find((c) => c.fixedChargeCode === input.fixedChargeCode)
  if (charge === undefined) return reject("feature_not_sold_by_plan")
  if (input.quantity !== 0 && (input.quantity < charge.minQuantity || input.quantity > charge.maxQuantity)) {
    return reject("quantity_out_of_range")
  }

  const D = epochDayOfMillis(input.now)
  const cp = period(plan.interval, input.billingTime, input.anchorDay, D)
  const cDays = big(periodDays(cp))
  const remaining = big(cp.end - D + 1)
  const held = input.heldFixedCharges.find((h) => h.fixedChargeCode === charge.fixedChargeCode)?.quantity ?? 0
  const added = big(input.quantity) - big(held)

  const lines: Array<PreviewLine> = []
  if (added > 0n && charge.payInAdvance) {
    const amount = safe(chargeFor(charge, added, remaining, cDays), "dueNow.lines[0].amountCents")
    if (Result.isFailure(amount)) return Result.fail(amount.failure)
    lines.push({
      amountCents: amount.success,
      code: charge.fixedChargeCode,
      kind: "fixed_charge",
      name: charge.name,
      periodStart: at(D),
      periodEnd: at(cp.end + 1),
      units: String(added)
    })
  }
  const fees = lines.reduce((s, l) => s + l.amountCents, 0)
  const dueNow: PreviewInvoice = {
    creditsCents: 0, currency: plan.currency, discountCents: 0, feesCents: fees, lines, taxesCents: 0, totalCents: fees
  }

  // DESIGN (as nextChargeAtPeriodEnd in PlanChange.ts): the regular invoice at the next period start
  // on the current plan with the new quantities — in-arrears base and charges for the period that
  // ends, in-advance base and charges for the next (full) one: each once — without usage,
  // commitment or taxes.
  const heldAfter = withQuantity(input.heldFixedCharges, charge.fixedChargeCode, input.quantity)
  const parts: Array<bigint> = [big(plan.baseAmountCents)]
  for (const c of plan.fixedCharges) {
    const qty = big(heldAfter.find((h) => h.fixedChargeCode === c.fixedChargeCode)?.quantity ?? 0)
    if (qty > 0n) parts.push(big(c.unitAmountCents) * qty)
  }
  const nextAmount = safe(sum(parts), "nextCharge.amountCents")
  if (Result.isFailure(nextAmount)) return Result.fail(nextAmount.failure)
  return Result.succeed({
    dueNow,
    nextCharge: { amountCents: nextAmount.success, at: at(cp.end + 1), currency: plan.currency },
    timing: upgradeTiming(dueNow.totalCents, input.paymentMethod),
    heldAfter
  })
}
