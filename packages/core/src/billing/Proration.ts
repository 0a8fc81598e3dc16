/**
 * Billing periods and day counts (docs/api-notes/billing.md). Pure functions over
 * plain data.
 *
 * Dates are whole UTC days, written as an *epoch day*: the number of days since 1970-01-01. The
 * calendar date `D` of an instant is `floor(epochMillis / 86 400 000)`; the instant of a date is
 * its 00:00:00.000Z.
 *
 * Periods:
 * - calendar billing: weekly periods run Monday–Sunday; monthly periods are calendar months;
 *   quarterly periods start in January, April, July and October; semiannual ones in January and
 *   July; yearly periods are calendar years.
 * - anniversary billing: periods start on the anchor's day of the month, clamped to the month's
 *   last day when the month is shorter and recomputed from the anchor each time (a short month
 *   never shifts later periods); weekly periods start on the anchor's weekday.
 * A period ends the day before the next one starts. `period` returns inclusive `[start, end]`.
 */
import type { BillingInterval } from "./Schema.js"

export const MS_PER_DAY = 86_400_000

/** `calendar` or `anniversary` billing (docs/api-notes/billing.md `billingTime`). */
export type BillingTime = "calendar" | "anniversary"

/** An inclusive range of epoch days. */
export interface Period {
  readonly start: number
  readonly end: number
}

const isLeap = (year: number): boolean => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0

export const daysInMonth = (year: number, month: number): number =>
  month === 2 ? (isLeap(year) ? 29 : 28) : month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31

/** The epoch day of a calendar date (month 1–12). */
export const epochDayOf = (year: number, month: number, day: number): number => {
  const date = new Date(0)
  date.setUTCFullYear(year, month - 1, day)
  date.setUTCHours(0, 0, 0, 0)
  return Math.round(date.getTime() / MS_PER_DAY)
}

/** The calendar date of an epoch day (month 1–12). */
export const dateOfEpochDay = (epochDay: number): { readonly year: number; readonly month: number; readonly day: number } => {
  const date = new Date(epochDay * MS_PER_DAY)
  return { year: date.getUTCFullYear(), month: date.getUTCMonth() + 1, day: date.getUTCDate() }
}

/** The UTC calendar date of an instant, as an epoch day. */
export const epochDayOfMillis = (epochMillis: number): number => Math.floor(epochMillis / MS_PER_DAY)

/** The instant 00:00:00.000Z of an epoch day. */
export const millisOfEpochDay = (epochDay: number): number => epochDay * MS_PER_DAY

/** `days(a, b) = b − a` (docs/api-notes/billing.md). */
export const days = (a: number, b: number): number => b - a

const mod = (a: number, n: number): number => ((a % n) + n) % n

/** Months per period for the month-based intervals. */
const monthsPer: Record<Exclude<BillingInterval, "weekly">, number> = {
  monthly: 1,
  quarterly: 3,
  semiannual: 6,
  yearly: 12
}

/** 1970-01-05 was a Monday. */
const A_MONDAY = 4

/**
 * The period containing `day` for a plan's `interval` under `billingTime`; `anchorDay` (the
 * subscription's start date, an epoch day) is read only for anniversary billing.
 */
export const period = (interval: BillingInterval, billingTime: BillingTime, anchorDay: number, day: number): Period => {
  if (interval === "weekly") {
    const reference = billingTime === "calendar" ? A_MONDAY : anchorDay
    const start = day - mod(day - reference, 7)
    return { start, end: start + 6 }
  }
  const step = monthsPer[interval]
  const anchor = billingTime === "calendar" ? { year: 2000, month: 1, day: 1 } : dateOfEpochDay(anchorDay)
  const anchorIndex = anchor.year * 12 + (anchor.month - 1)
  // The start of the k-th period counted from the anchor: the anchor's day, clamped to the month.
  const startOf = (k: number): number => {
    const index = anchorIndex + k * step
    const year = Math.floor(index / 12)
    const month = index - year * 12 + 1
    return epochDayOf(year, month, Math.min(anchor.day, daysInMonth(year, month)))
  }
  const target = dateOfEpochDay(day)
  let k = Math.floor((target.year * 12 + (target.month - 1) - anchorIndex) / step)
  // Within the first month of a period, `day` may fall before the (clamped) anchor day.
  while (startOf(k) > day) k -= 1
  while (startOf(k + 1) <= day) k += 1
  return { start: startOf(k), end: startOf(k + 1) - 1 }
}

/** A period's length in days (`days(start, end) + 1`). */
export const periodDays = (p: Period): number => days(p.start, p.end) + 1

/** Lago's annualisation factor of a base amount (docs/api-notes/billing.md). */
export const annualFactor: Record<BillingInterval, number> = {
  weekly: 52,
  monthly: 12,
  quarterly: 4,
  semiannual: 2,
  yearly: 1
}

/** A base amount annualised, exactly (docs/api-notes/billing.md: ×52, ×12, ×4, ×2, ×1). */
export const annualisedCents = (baseAmountCents: number, interval: BillingInterval): bigint =>
  BigInt(baseAmountCents) * BigInt(annualFactor[interval])
