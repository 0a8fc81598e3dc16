/** Small helpers every SQL repository shares. */
import type { SqlError } from "@effect/sql"
import { DateTime, Effect, type ParseResult, Schema } from "effect"

/** A `timestamptz` column: `pg` returns a Date. */
export const DbTime = Schema.DateTimeUtcFromDate
export const DbTimeOrNull = Schema.NullOr(DbTime)

/** A DateTime as a query parameter. */
export const toDate = (dt: DateTime.Utc): Date => DateTime.toDateUtc(dt)
export const toDateOrNull = (dt: DateTime.Utc | null): Date | null => (dt === null ? null : toDate(dt))

/** The PostgreSQL error code of a failed statement, if any. */
export const sqlState = (e: SqlError.SqlError): string | undefined => {
  const cause = e.cause as { code?: unknown } | null | undefined
  return typeof cause === "object" && cause !== null && typeof cause.code === "string" ? cause.code : undefined
}

export const isUniqueViolation = (e: SqlError.SqlError) => sqlState(e) === "23505"

/**
 * Infrastructure failures the caller cannot act on become defects at the repository boundary
 * (DESIGN.md §4); a row that does not decode is a bug, also a defect.
 */
export const orDie = <A, R>(self: Effect.Effect<A, SqlError.SqlError | ParseResult.ParseError, R>): Effect.Effect<A, never, R> =>
  Effect.orDie(self)
