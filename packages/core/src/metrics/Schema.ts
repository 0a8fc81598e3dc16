/**
 * The SQL query operation's wire shapes (docs/sql-query.md): the result, the SQL schema document
 * and the backfill state. The request (`SqlQueryRequest`) lives in projects/Schema.ts.
 */
import { Schema } from "effect"
import { NonNegativeSafeInt } from "../shared/Bounds.js"

export const MetricsColumn = Schema.Struct({ name: Schema.String, type: Schema.String })
  .annotate({ identifier: "MetricsColumn" })

/** A result cell: JSON scalars; integers beyond ±2^53 and exact decimals that a double cannot hold are strings. */
export const MetricsCell = Schema.Union([Schema.Null, Schema.Boolean, Schema.Number, Schema.String])

export const QueryMessageMetricsResponse = Schema.Struct({
  columns: Schema.Array(MetricsColumn),
  rows: Schema.Array(Schema.Array(MetricsCell)),
  statistics: Schema.Struct({
    bytesRead: NonNegativeSafeInt,
    elapsedSeconds: Schema.Number,
    rowsRead: NonNegativeSafeInt
  })
}).annotate({ identifier: "QueryMessageMetricsResponse" })
export type QueryMessageMetricsResponse = typeof QueryMessageMetricsResponse.Type

const SqlSchemaColumn = Schema.Struct({ name: Schema.String, type: Schema.String, description: Schema.String })

export const GetMessageMetricsSqlSchemaResponse = Schema.Struct({
  capabilities: Schema.Struct({
    arrayJoin: Schema.Boolean,
    ctes: Schema.Boolean,
    joins: Schema.Boolean,
    parameters: Schema.Boolean,
    selectWithoutFrom: Schema.Boolean,
    subqueries: Schema.Boolean,
    unions: Schema.Boolean
  }),
  dialect: Schema.String,
  limits: Schema.Struct({
    maximumParameterValueBytes: Schema.Int,
    maximumParameters: Schema.Int,
    maximumSqlBytes: Schema.Int,
    maximumTotalParameterBytes: Schema.Int,
    maximumRows: Schema.Int,
    maximumResultBytes: Schema.Int,
    statementTimeoutMillis: Schema.Int
  }),
  parameterSyntax: Schema.String,
  functions: Schema.Array(Schema.String),
  operators: Schema.Array(Schema.String),
  projectScoped: Schema.Literal(true),
  tables: Schema.Array(Schema.Struct({
    name: Schema.Literals(["message_events", "call_events"]),
    description: Schema.String,
    currentState: Schema.String,
    columns: Schema.Array(SqlSchemaColumn)
  })),
  version: Schema.String
}).annotate({ identifier: "GetMessageMetricsSqlSchemaResponse" })
export type GetMessageMetricsSqlSchemaResponse = typeof GetMessageMetricsSqlSchemaResponse.Type

export const BackfillState = Schema.Literals(["disabled", "pending", "running", "verifying", "completed", "paused", "failed"])

export const GetMessageMetricsBackfillResponse = Schema.Struct({
  failedWrites: NonNegativeSafeInt,
  lastVerifiedAt: Schema.NullOr(Schema.String),
  processedWrites: NonNegativeSafeInt,
  state: BackfillState,
  version: Schema.String
}).annotate({ identifier: "GetMessageMetricsBackfillResponse" })
export type GetMessageMetricsBackfillResponse = typeof GetMessageMetricsBackfillResponse.Type
