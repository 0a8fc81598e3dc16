/** Small helpers every SQL repository shares. */
import type { SqlError } from "effect/sql"
import { DateTime, Effect, Option, Schema, SchemaTransformation } from "effect"
import { asDefect } from "./DatabaseOutage.js"

/** A `timestamptz` column: `pg` returns a Date. */
export const DbTime = Schema.DateTimeUtcFromDate
export const DbTimeOrNull = Schema.NullOr(DbTime)

/** A DateTime as a query parameter. */
export const toDate = (dt: DateTime.Utc): Date => DateTime.toDateUtc(dt)
export const toDateOrNull = (dt: DateTime.Utc | null): Date | null => (dt === null ? null : toDate(dt))

/** The driver's error under a failed statement (`pg`'s, or PGlite's): the cause of its reason. */
export const driverError = (e: SqlError.SqlError): unknown => e.reason.cause

/** The PostgreSQL error code of a failed statement, if any. */
export const sqlState = (e: SqlError.SqlError): string | undefined => {
  const cause = driverError(e) as { code?: unknown } | null | undefined
  return typeof cause === "object" && cause !== null && typeof cause.code === "string" ? cause.code : undefined
}

export const isUniqueViolation = (e: SqlError.SqlError) => sqlState(e) === "23505"

/**
 * Infrastructure failures the caller cannot act on become defects at the repository boundary
 * (docs/errors.md); a row that does not decode is a bug, also a defect. An outage becomes core's
 * `DatabaseUnavailable` (DatabaseOutage.ts); every other failure dies as it is.
 */
export const orDie = <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, never, R> => Effect.catch(self, die)

/** `Effect.die` at the repository boundary: an outage dies as `DatabaseUnavailable` (see `orDie`). */
export const die = (error: unknown): Effect.Effect<never> => Effect.die(asDefect(error))

/** What a `sql` template gives: rows, or the statement's failure. */
export type Rows = Effect.Effect<ReadonlyArray<unknown>, SqlError.SqlError>

/**
 * The one row mapper of the repositories: a statement's rows decoded by `row` (a schema of one
 * row, camel-cased columns). SQL and decode failures are defects (see `orDie`). Hoist the call:
 * `const users = rowsOf(UserRow)` once, then `users(sql\`…\`)` per statement.
 */
export const rowsOf = <A, I>(row: Schema.Codec<A, I>): (statement: Rows) => Effect.Effect<ReadonlyArray<A>> => {
  const decode = Schema.decodeUnknownEffect(Schema.Array(row))
  return (statement) => orDie(Effect.flatMap(statement, decode))
}

/** A JSON column's value: PGlite may hand back the text where `pg` hands back the parsed value. */
export const parseJson = (value: unknown): unknown => (typeof value === "string" ? JSON.parse(value) : value)

/**
 * A JSON column decoded by `schema`: the value `pg` parsed, or the text PGlite may hand back (parsed
 * by `parseJson`). Encoding hands the value to the driver as it is.
 */
export const JsonColumn = <S extends Schema.Top>(schema: S) =>
  Schema.Unknown.pipe(Schema.decodeTo(
    schema,
    SchemaTransformation.transform<S["Encoded"], unknown>({
      // Parsed JSON is untyped until `schema` decodes it, right after.
      decode: (value) => parseJson(value) as S["Encoded"],
      encode: (value) => value
    })
  ))

/**
 * Rows that store a core record as the JSON of its schema in a `record` column: each decoded by
 * `schema`, like `rowsOf`.
 */
export const recordsOf = <A, I>(schema: Schema.Codec<A, I>): (statement: Rows) => Effect.Effect<ReadonlyArray<A>> => {
  const decode = Schema.decodeUnknownEffect(schema)
  const rows = rowsOf(Schema.Struct({ record: Schema.Unknown }))
  return (statement) => Effect.flatMap(rows(statement), (rs) => orDie(Effect.forEach(rs, (r) => decode(parseJson(r.record)))))
}

/** The first row, if any. */
export const firstRow = <A>(rows: ReadonlyArray<A>): Option.Option<A> => Option.fromNullishOr(rows[0])
