/**
 * A number written as a string (query parameters), read as Effect 3's `Schema.NumberFromString`
 * read it, so the answers keep their messages: `NaN`, `Infinity` and `-Infinity` by name, a blank
 * string or one that is not a number refused ("Unable to decode "abc" into a number"), where
 * Effect 4's `Schema.NumberFromString` gives 0 for a blank string and NaN for the rest.
 */
import { Effect, Schema, SchemaIssue, SchemaTransformation } from "effect"

const named: Record<string, number> = { NaN: Number.NaN, Infinity: Number.POSITIVE_INFINITY, "-Infinity": Number.NEGATIVE_INFINITY }

const parse = (s: string): number | undefined => {
  if (s in named) return named[s]
  if (s.trim() === "") return undefined
  const n = Number(s)
  return Number.isNaN(n) ? undefined : n
}

export const NumberFromString = Schema.String.annotate({ description: "a string to be decoded into a number" }).pipe(
  Schema.decodeTo(
    Schema.Number,
    SchemaTransformation.transformEffect({
      decode: (s: string) => {
        const n = parse(s)
        return n === undefined
          ? Effect.fail(new SchemaIssue.InvalidValue({ message: `Unable to decode ${JSON.stringify(s)} into a number` }, s))
          : Effect.succeed(n)
      },
      encode: (n: number) => Effect.succeed(String(n))
    })
  )
)
