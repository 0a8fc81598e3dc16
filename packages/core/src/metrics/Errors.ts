/** The metrics context's domain errors (no HTTP knowledge; the adapters map them). */
import { Schema } from "effect"

/**
 * SQL the query operation refuses before running it: a syntax error, or a construct outside the
 * allow-list (named in `construct`). `position` is the 1-based character offset in the caller's
 * `sql` that PostgreSQL's parser (or the allow-list check) points at, when there is one.
 */
export class MetricsQueryInvalid extends Schema.TaggedError<MetricsQueryInvalid>()("MetricsQueryInvalid", {
  message: Schema.String,
  position: Schema.optionalKey(Schema.Int),
  construct: Schema.optionalKey(Schema.String)
}) {}

/** The statement ran past the statement timeout and was cancelled. */
export class MetricsQueryTimeout extends Schema.TaggedError<MetricsQueryTimeout>()("MetricsQueryTimeout", {
  timeoutMillis: Schema.Int
}) {}

/** The query (or its result) is over a resource limit: rows, result bytes, or estimated cost. */
export class MetricsQueryResourceLimit extends Schema.TaggedError<MetricsQueryResourceLimit>()("MetricsQueryResourceLimit", {
  limit: Schema.Literals(["rows", "resultBytes", "cost"]),
  message: Schema.String
}) {}

/** This store cannot run SQL (the in-memory store); nothing ran. */
export class MetricsQueryUnavailable extends Schema.TaggedError<MetricsQueryUnavailable>()("MetricsQueryUnavailable", {
  message: Schema.String
}) {}

export type MetricsError = MetricsQueryInvalid | MetricsQueryTimeout | MetricsQueryResourceLimit | MetricsQueryUnavailable
