/**
 * Period-end invoicing (docs/api-notes/billing.md). A pure
 * module: given a subscription whose period has ended, the lines of the regular invoice at the
 * boundary `B = periodEnd + 1` and the subscription's next state.
 *
 * The invoice at `B` carries, in order:
 * 1. closing the period `[planStartDay, B)` of the current plan: the in-arrears base fee
 *    `rhu(base×active, periodDays)`, each usage charge's usage, in-arrears fixed charges at the
 *    quantity held (prorated charges by active days), and the minimum-commitment true-up
 *    `max(0, rhu(commitment×active, periodDays) − fees of the period)` (docs/api-notes/billing.md);
 * 2. a scheduled change (downgrade) applies at `B` (docs/api-notes/billing.md): held charges the
 *    target does not sell are dropped, additions added;
 * 3. opening the next period of the (new) plan: its in-advance base fee and in-advance fixed
 *    charges, prorated when `B` is not the period's first day (an interval change keeps the anchor).
 * Usage billed progressively in the period is credited (docs/api-notes/billing.md).
 */
import { DateTime } from "effect"
import { big, isSafe, rhu, sum } from "./Money.js"
import { millisOfEpochDay, period, periodDays } from "./Proration.js"
import type { SubscriptionRecord } from "./Ports.js"
import type { BillingPlan, FixedCharge, HeldFixedCharge, PreviewLine } from "./Schema.js"
import { usageAmount, usageTotal } from "./Usage.js"

export const instantOfDay = (epochDay: number): DateTime.Utc => DateTime.makeUnsafe(millisOfEpochDay(epochDay))

/** An exact amount as a number; beyond ±9007199254740991 it is a defect (docs/api-notes/requests.md). */
export const safeNumber = (value: bigint, field: string): number => {
  if (!isSafe(value)) throw new RangeError(`${field}: ${value} is outside ±9007199254740991`)
  return Number(value)
}

export const chargeFor = (charge: FixedCharge, quantity: bigint, daysCharged: bigint, daysInPeriod: bigint): bigint =>
  charge.prorated
    ? rhu(big(charge.unitAmountCents) * quantity * daysCharged, daysInPeriod)
    : big(charge.unitAmountCents) * quantity

const line = (
  kind: PreviewLine["kind"], code: string, name: string, amount: bigint, units: string, start: number, endExclusive: number
): PreviewLine => ({
  amountCents: safeNumber(amount, `${kind} ${code}`),
  code,
  kind,
  name,
  periodStart: instantOfDay(start),
  periodEnd: instantOfDay(endExclusive),
  units
})

const quantityOf = (held: ReadonlyArray<HeldFixedCharge>, code: string): number =>
  held.find((h) => h.fixedChargeCode === code)?.quantity ?? 0

/** The usage lines of a plan span `[start, endExclusive)`, one per charge with usage. */
export const usageLines = (
  plan: BillingPlan,
  usage: Readonly<Record<string, number>>,
  start: number,
  endExclusive: number
): ReadonlyArray<PreviewLine> =>
  plan.usageCharges.flatMap((charge) => {
    const units = usage[charge.metricCode] ?? 0
    if (units <= 0) return []
    return [line("usage", charge.chargeCode, charge.name, usageAmount(charge, units), String(units), start, endExclusive)]
  })

/**
 * The usage not billed yet, net of progressive billing (docs/api-notes/billing.md `unbilledUsage`):
 * the usage lines with what was billed progressively taken off them in order.
 */
export const unbilledUsageLines = (
  plan: BillingPlan,
  sub: Pick<SubscriptionRecord, "usage" | "progressiveBilledCents" | "planStartDay">,
  now: DateTime.Utc
): ReadonlyArray<PreviewLine> => {
  let left = sub.progressiveBilledCents
  return usageLines(plan, sub.usage, sub.planStartDay, sub.planStartDay).flatMap((l) => {
    const taken = Math.min(left, l.amountCents)
    left -= taken
    const amountCents = l.amountCents - taken
    return amountCents > 0 ? [{ ...l, amountCents, periodEnd: now }] : []
  })
}

export interface ClosedPeriod {
  /** Boundary: the epoch day the invoice is issued on. */
  readonly boundary: number
  readonly lines: ReadonlyArray<PreviewLine>
  /** Usage billed progressively during the period, credited on this invoice. */
  readonly progressiveCreditCents: number
  /** The period's usage amount (for lifetime usage). */
  readonly periodUsageCents: number
  readonly next: SubscriptionRecord
  /** The plan in force from the boundary, and whether it changed (a scheduled change applied). */
  readonly plan: BillingPlan
  readonly planChanged: boolean
}

/**
 * Closes `sub`'s current period under `plan`; `target` is the plan of its scheduled change (if it
 * applies at the boundary and is still in the catalog). `now` stamps `updatedAt`.
 */
export const closePeriod = (
  sub: SubscriptionRecord,
  plan: BillingPlan,
  target: BillingPlan | undefined,
  now: DateTime.Utc
): ClosedPeriod => {
  const B = sub.periodEnd + 1
  const P = big(periodDays({ start: sub.periodStart, end: sub.periodEnd }))
  const active = big(Math.max(0, sub.periodEnd - sub.planStartDay + 1))
  const closing: Array<PreviewLine> = []

  const arrearsBase = plan.payInAdvance ? 0n : rhu(big(plan.baseAmountCents) * active, P)
  if (!plan.payInAdvance && active > 0n) {
    closing.push(line("subscription", plan.planCode, plan.name, arrearsBase, "1", sub.planStartDay, B))
  }
  const usage = usageLines(plan, sub.usage, sub.planStartDay, B)
  closing.push(...usage)
  const periodUsage = usageTotal(plan.usageCharges, sub.usage)
  let fixedFees = 0n
  for (const charge of plan.fixedCharges) {
    const qty = big(quantityOf(sub.heldFixedCharges, charge.fixedChargeCode))
    if (qty === 0n) continue
    const amount = chargeFor(charge, qty, active, P)
    fixedFees += amount
    if (!charge.payInAdvance) {
      closing.push(line("fixed_charge", charge.fixedChargeCode, charge.name, amount, String(qty), sub.planStartDay, B))
    }
  }
  if (plan.minimumCommitment !== null && active > 0n) {
    const commit = rhu(big(plan.minimumCommitment.amountCents) * active, P)
    const baseFee = plan.payInAdvance ? big(sub.baseFeeBilledCents - sub.baseFeeCreditedCents) : arrearsBase
    const spent = baseFee + periodUsage + fixedFees
    if (commit > spent) {
      closing.push(line(
        "commitment", plan.planCode, plan.minimumCommitment.displayName ?? plan.name, commit - spent, "1", sub.planStartDay, B
      ))
    }
  }

  // A scheduled change applies at the boundary.
  const change = sub.scheduledChange
  const applies = change !== null && change.effectiveDay <= B && target !== undefined
  const nextPlan = applies ? target : plan
  let held = sub.heldFixedCharges
  if (applies) {
    const sold = new Set(nextPlan.fixedCharges.map((c) => c.fixedChargeCode))
    const quantities = new Map(held.filter((h) => sold.has(h.fixedChargeCode)).map((h) => [h.fixedChargeCode, h.quantity]))
    for (const a of change.additions) {
      if (sold.has(a.fixedChargeCode)) quantities.set(a.fixedChargeCode, (quantities.get(a.fixedChargeCode) ?? 0) + a.quantity)
    }
    held = [...quantities].map(([fixedChargeCode, quantity]) => ({ fixedChargeCode, quantity }))
      .sort((a, b) => (a.fixedChargeCode < b.fixedChargeCode ? -1 : a.fixedChargeCode > b.fixedChargeCode ? 1 : 0))
  }

  const np = period(nextPlan.interval, "anniversary", sub.anchorDay, B)
  const npDays = big(periodDays(np))
  const remaining = big(np.end - B + 1)
  const opening: Array<PreviewLine> = []
  const openingBase = nextPlan.payInAdvance ? rhu(big(nextPlan.baseAmountCents) * remaining, npDays) : 0n
  if (nextPlan.payInAdvance) {
    opening.push(line("subscription", nextPlan.planCode, nextPlan.name, openingBase, "1", B, np.end + 1))
  }
  for (const charge of nextPlan.fixedCharges) {
    const qty = big(quantityOf(held, charge.fixedChargeCode))
    if (!charge.payInAdvance || qty === 0n) continue
    opening.push(line(
      "fixed_charge", charge.fixedChargeCode, charge.name, chargeFor(charge, qty, remaining, npDays), String(qty), B, np.end + 1
    ))
  }

  const next: SubscriptionRecord = {
    ...sub,
    planCode: nextPlan.planCode,
    source: applies ? "purchase" : sub.source,
    periodStart: np.start,
    periodEnd: np.end,
    planStartDay: B,
    heldFixedCharges: held,
    baseFeeBilledCents: safeNumber(openingBase, "baseFeeBilledCents"),
    baseFeeCreditedCents: 0,
    usage: {},
    progressiveBilledCents: 0,
    closedUsageCents: safeNumber(big(sub.closedUsageCents) + periodUsage, "closedUsageCents"),
    scheduledChange: change !== null && change.effectiveDay > B ? change : null,
    version: applies ? sub.version + 1 : sub.version,
    updatedAt: now
  }
  return {
    boundary: B,
    lines: [...closing, ...opening],
    progressiveCreditCents: sub.progressiveBilledCents,
    periodUsageCents: safeNumber(periodUsage, "periodUsageCents"),
    next,
    plan: nextPlan,
    planChanged: applies
  }
}

/** The sum of the lines' amounts, exactly. */
export const feesOf = (lines: ReadonlyArray<PreviewLine>): bigint => sum(lines.map((l) => big(l.amountCents)))
