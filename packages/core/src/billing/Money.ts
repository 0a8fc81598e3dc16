/**
 * Exact integer money arithmetic for billing (docs/api-notes/billing.md;
 * docs/api-notes/requests.md).
 *
 * Amounts are computed as BigInt, because `amount × days` or `unit × quantity × days` can exceed
 * 2^53 − 1, and only turned back into numbers once they are known to lie within ±9007199254740991.
 * Pure functions over plain data.
 */
import { MAX_SAFE } from "../shared/Bounds.js"

export const MAX_SAFE_BIG = BigInt(MAX_SAFE)

/**
 * Round half up `n / d` to an integer (docs/api-notes/billing.md): `rhu(n, d) = floor((2n + d) / (2d))`,
 * for `n ≥ 0` and `d > 0`. BigInt division truncates, which is `floor` for non-negative operands.
 */
export const rhu = (n: bigint, d: bigint): bigint => {
  if (d <= 0n) throw new RangeError(`rhu: the divisor must be positive, got ${d}`)
  if (n < 0n) throw new RangeError(`rhu: the dividend must not be negative, got ${n}`)
  return (2n * n + d) / (2n * d)
}

/** Whether an exact integer lies within ±9007199254740991. */
export const isSafe = (n: bigint): boolean => n >= -MAX_SAFE_BIG && n <= MAX_SAFE_BIG

export const big = (n: number): bigint => BigInt(n)

export const sum = (xs: Iterable<bigint>): bigint => {
  let total = 0n
  for (const x of xs) total += x
  return total
}

export const minBig = (a: bigint, b: bigint): bigint => (a < b ? a : b)
export const maxBig = (a: bigint, b: bigint): bigint => (a > b ? a : b)
