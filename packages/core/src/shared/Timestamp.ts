/**
 * Timestamps on the wire (docs/api-notes/requests.md): RFC 3339 date-times in UTC with an
 * upper-case `T` and `Z`. Requests may omit the fraction or send up to nine digits; responses are
 * always `YYYY-MM-DDTHH:mm:ss.SSSZ`. Offsets, lower-case `t`/`z` and impossible dates are rejected.
 */
import { DateTime, Effect, Result, Schema, SchemaIssue, SchemaTransformation } from "effect"

const pattern = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?Z$/

const daysInMonth = (year: number, month: number): number =>
  month === 2
    ? (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28
    : [4, 6, 9, 11].includes(month) ? 30 : 31

/** Parses a strict RFC 3339 UTC timestamp to epoch milliseconds, or returns a reason. */
export const parseTimestamp = (input: string): Result.Result<number, string> => {
  const m = pattern.exec(input)
  if (m === null) return Result.fail("must be an RFC 3339 UTC timestamp like 2030-01-01T00:00:00Z")
  const [year, month, day, hour, minute, second] = [m[1], m[2], m[3], m[4], m[5], m[6]].map(Number) as [
    number, number, number, number, number, number
  ]
  if (year < 1 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) {
    return Result.fail("is not a real calendar date")
  }
  if (hour > 23 || minute > 59 || second > 59) return Result.fail("is not a real time of day")
  const millis = Number((m[7] ?? "").padEnd(3, "0").slice(0, 3))
  // Date.UTC maps years 0-99 to 1900-1999; setUTCFullYear puts the real year back.
  const date = new Date(Date.UTC(year, month - 1, day, hour, minute, second, millis))
  date.setUTCFullYear(year, month - 1, day)
  return Result.succeed(date.getTime())
}

/** The canonical wire form: `YYYY-MM-DDTHH:mm:ss.SSSZ`. */
export const formatTimestamp = (dt: DateTime.Utc): string => new Date(DateTime.toEpochMillis(dt)).toISOString()

/** A strict timestamp string (the encoded side of {@link Timestamp}). */
export const TimestampString = Schema.String.check(
  Schema.makeFilter((s: string) => Result.match(parseTimestamp(s), { onFailure: (reason) => reason, onSuccess: () => true }), {
    // The wire form is what the OpenAPI documents name `Timestamp` (their component for it).
    identifier: "Timestamp",
    title: "RFC 3339 UTC timestamp",
    description: "RFC 3339 date-time in UTC with upper-case T and Z, e.g. 2030-01-01T00:00:00.000Z",
    toJsonSchema: () => ({ format: "date-time" }),
    // Generated values: canonical timestamps from 1970 to 2999 (days ≤ 28, so every one is real).
    arbitraryConstraint: {
      patterns: [{
        source: "^(19[7-9]\\d|2\\d{3})-(0[1-9]|1[0-2])-(0[1-9]|1\\d|2[0-8])T([01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d\\.\\d{3}Z$",
        flags: ""
      }]
    }
  })
)

/** A timestamp: decoded to `DateTime.Utc`, encoded to the canonical wire form. */
export const Timestamp: Schema.Codec<DateTime.Utc, string> = TimestampString.pipe(
  Schema.decodeTo(
    Schema.DateTimeUtc,
    SchemaTransformation.transformEffect({
      decode: (s) =>
        Result.match(parseTimestamp(s), {
          onFailure: (reason) => Effect.fail(new SchemaIssue.InvalidValue({ message: reason }, s)),
          onSuccess: (ms) => Effect.succeed(DateTime.makeUnsafe(ms))
        }),
      encode: (dt) => Effect.succeed(formatTimestamp(dt))
    })
  )
).annotate({ identifier: "Timestamp" })
export type Timestamp = DateTime.Utc

/**
 * A timestamp decoded to epoch milliseconds (for query filters compared as numbers): the same one
 * rule as `Timestamp` — UTC with `Z`, no offsets — and the same documented form.
 */
export const TimestampMillis: Schema.Codec<number, string> = Timestamp.pipe(
  Schema.decodeTo(
    Schema.Number,
    SchemaTransformation.transform({
      decode: (dt: DateTime.Utc) => DateTime.toEpochMillis(dt),
      encode: (ms: number) => DateTime.makeUnsafe(ms) as DateTime.Utc
    })
  )
)

/** `<timestamp>` or null. */
export const NullableTimestamp = Schema.NullOr(Timestamp)
