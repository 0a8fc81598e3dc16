/**
 * Usage: its price, and progressive billing by usage thresholds (docs/api-notes/billing.md).
 * A pure module; amounts are exact (BigInt) and rounded half-up.
 */
import { rhu } from "./Money.js"
import type { UsageCharge, UsageThreshold } from "./Schema.js"

/** A non-negative decimal string as `numerator / denominator` (`"0.25"` → 25 / 100). */
export const parseDecimal = (decimal: string): { readonly numerator: bigint; readonly denominator: bigint } => {
  const match = /^(\d+)(?:\.(\d+))?$/.exec(decimal)
  if (match === null) throw new RangeError(`not a decimal: ${decimal}`)
  const fraction = match[2] ?? ""
  return { numerator: BigInt(`${match[1]}${fraction}`), denominator: 10n ** BigInt(fraction.length) }
}

/** The amount of `units` of a usage charge: units past the free ones × the unit price, half-up. */
export const usageAmount = (charge: UsageCharge, units: number): bigint => {
  const billable = BigInt(Math.max(0, units - charge.freeUnits))
  const { denominator, numerator } = parseDecimal(charge.unitAmountCents)
  return rhu(billable * numerator, denominator)
}

/** The total of a period's usage under a plan's usage charges (metrics the plan does not price cost 0). */
export const usageTotal = (charges: ReadonlyArray<UsageCharge>, usage: Readonly<Record<string, number>>): bigint => {
  let total = 0n
  for (const charge of charges) total += usageAmount(charge, usage[charge.metricCode] ?? 0)
  return total
}

/**
 * docs/api-notes/billing.md `thresholdsCrossed(thresholds, U0, U1)`: the crossing points are every
 * non-recurring amount and `k×A` (k ≥ 1) for the recurring threshold `A`; a point `p` is crossed when
 * `U0 < p ≤ U1`. Returns the crossed non-recurring points and how many multiples of `A` were crossed
 * (a point shared by both counts once, as a non-recurring one).
 */
export const thresholdsCrossed = (
  thresholds: ReadonlyArray<UsageThreshold>,
  u0: bigint,
  u1: bigint
): { readonly crossed: boolean; readonly points: ReadonlyArray<bigint>; readonly recurringMultiples: bigint } => {
  if (u1 <= u0) return { crossed: false, points: [], recurringMultiples: 0n }
  const fixed = new Set<bigint>()
  for (const t of thresholds) {
    const p = BigInt(t.amountCents)
    if (!t.recurring && u0 < p && p <= u1) fixed.add(p)
  }
  let multiples = 0n
  const recurring = thresholds.find((t) => t.recurring && t.amountCents > 0)
  if (recurring !== undefined) {
    const a = BigInt(recurring.amountCents)
    const below = u0 < 0n ? 0n : u0 / a
    multiples = u1 / a - below
    // Multiples that are also non-recurring points count once.
    for (const p of fixed) if (p % a === 0n && p > 0n) multiples -= 1n
    if (multiples < 0n) multiples = 0n
  }
  const points = [...fixed].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
  return { crossed: points.length > 0 || multiples > 0n, points, recurringMultiples: multiples }
}
