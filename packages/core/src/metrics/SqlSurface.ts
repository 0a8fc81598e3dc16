/**
 * What the SQL query operation accepts (docs/sql-query.md): the two relations and their columns,
 * the functions, operators and casts of the allow-list, the parameter syntax and the limits. One
 * source for the schema document served by `GET …/metrics/query` and for the SQL adapter's parser
 * check (which imports these lists), so the documented surface is the enforced one. The clause
 * forms around them (DISTINCT, window definitions and frames, named windows, FILTER, WITHIN GROUP,
 * named arguments `name => value`) are the walk's, in sql-adapter `metrics/SqlWalk.ts`; the
 * sql-adapter suite runs one example of every entry here (`test/MetricsSurface.examples.ts`).
 */

export const sqlSurfaceVersion = "2026-07-01"

export const sqlLimits = {
  maximumSqlBytes: 65536,
  maximumParameters: 64,
  maximumParameterValueBytes: 16384,
  maximumTotalParameterBytes: 262144,
  maximumRows: 10000,
  maximumResultBytes: 4 * 1024 * 1024,
  statementTimeoutMillis: 5000,
  /** The most relation references (tables, CTE uses, subqueries) one statement may name. */
  maximumRelations: 8
} as const

export interface SqlColumnDoc {
  readonly name: string
  readonly type: string
  readonly description: string
}

export const messageEventsColumns: ReadonlyArray<SqlColumnDoc> = [
  { name: "event_id", type: "text", description: "The lifecycle fact's id as the messaging edge reported it (unique per project)." },
  { name: "message_id", type: "text", description: "The message the fact is about." },
  { name: "platform", type: "text", description: "email, imessage, sms, telegram, whatsapp, whatsapp_business or another platform identifier." },
  { name: "direction", type: "text", description: "addressed (sent by the project) or received (inbound)." },
  { name: "event_type", type: "text", description: "The fact: dispatched, accepted, delivered, failed or received." },
  { name: "status", type: "text", description: "The message's status right after this fact was applied." },
  { name: "occurred_at", type: "timestamptz", description: "When the fact happened at the edge." },
  { name: "recorded_at", type: "timestamptz", description: "When the fact was applied here." }
]

export const callEventsColumns: ReadonlyArray<SqlColumnDoc> = [
  { name: "call_id", type: "text", description: "The call the signal was applied to." },
  { name: "signal_id", type: "text", description: "The applied signal's id (unique per call)." },
  { name: "direction", type: "text", description: "inbound or outbound." },
  { name: "status", type: "text", description: "The call's current status." },
  { name: "occurred_at", type: "timestamptz", description: "When the signal was applied." }
]

export const sqlTables = [
  { name: "message_events" as const, description: "One row per applied message lifecycle fact of this project.", columns: messageEventsColumns },
  { name: "call_events" as const, description: "One row per applied call signal of this project.", columns: callEventsColumns }
]

/** Ordinary functions, by name (called unqualified). */
export const allowedFunctions: ReadonlyArray<string> = [
  // aggregates
  "count", "sum", "avg", "min", "max", "bool_and", "bool_or", "every", "percentile_cont", "percentile_disc", "mode",
  "stddev", "stddev_pop", "stddev_samp", "variance", "var_pop", "var_samp",
  // window functions
  "row_number", "rank", "dense_rank", "percent_rank", "cume_dist", "ntile", "lag", "lead", "first_value", "last_value",
  // date and time
  "date_trunc", "date_part", "date_bin", "now", "age", "to_char", "to_timestamp", "make_interval", "make_timestamptz",
  "isfinite", "justify_interval",
  // numbers
  "abs", "ceil", "ceiling", "floor", "round", "trunc", "sign", "mod", "div", "power", "sqrt", "ln", "log", "exp",
  "width_bucket",
  // text (bounded: none of these can grow a value beyond its inputs' sizes by much)
  "lower", "upper", "length", "char_length", "character_length", "octet_length", "left", "right", "starts_with",
  "split_part", "strpos", "btrim", "ltrim", "rtrim", "replace", "concat", "concat_ws", "md5"
]

/** SQL-syntax forms the parser rewrites to `pg_catalog.<name>` (EXTRACT, SUBSTRING, TRIM, AT TIME ZONE, …). */
export const allowedSyntaxFunctions: ReadonlyArray<string> = [
  "extract", "substring", "btrim", "ltrim", "rtrim", "timezone", "position"
]

export const allowedOperators: ReadonlyArray<string> = [
  "=", "<>", "!=", "<", ">", "<=", ">=", "+", "-", "*", "/", "%", "||", "~~", "!~~", "~~*", "!~~*"
]

/** Type names a cast (`::type`, `CAST(… AS type)`) may name. */
export const allowedCastTypes: ReadonlyArray<string> = [
  "int2", "int4", "int8", "smallint", "integer", "bigint", "numeric", "decimal", "float4", "float8", "real",
  "double precision", "text", "varchar", "bpchar", "bool", "boolean", "date", "time", "timestamp", "timestamptz", "interval"
]

export const parameterSyntax =
  ":name — a colon immediately followed by the parameter's name (letters, digits, _). Every value is bound as a " +
  "text parameter of a prepared statement (never spliced into the SQL); PostgreSQL infers its type from the context, " +
  "or cast it (:since::timestamptz). '$1' placeholders are refused; ':' inside strings and comments is not a parameter."
