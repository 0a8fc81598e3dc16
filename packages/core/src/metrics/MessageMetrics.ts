/**
 * The SQL query operation's service (docs/sql-query.md): checks the request's limits that the
 * schema cannot express (parameter count, total parameter bytes), then hands the query to the
 * engine; serves the SQL schema document and the backfill state. The route's permission
 * (`events:read`) is decided by the caller's adapter; whether the caller may see the project at all
 * (a member of its organization, or a key of that very project) is decided here, through the
 * project gate, before anything is read — like every other project service.
 */
import { Context, DateTime, Effect, Layer } from "effect"
import type { Principal } from "../credentials/Access.js"
import { fn } from "../internal/Traced.js"
import { makeProjectGate } from "../projects/ProjectGate.js"
import type { ProjectId } from "../shared/Identifiers.js"
import { formatTimestamp } from "../shared/Timestamp.js"
import { MetricsQueryInvalid } from "./Errors.js"
import { type MetricsQuery, MetricsQueryEngine } from "./Ports.js"
import type { GetMessageMetricsBackfillResponse, GetMessageMetricsSqlSchemaResponse } from "./Schema.js"
import {
  allowedCastTypes,
  allowedFunctions,
  allowedOperators,
  allowedSyntaxFunctions,
  parameterSyntax,
  sqlLimits,
  sqlSurfaceVersion,
  sqlTables
} from "./SqlSurface.js"

const utf8Bytes = (s: string) => new TextEncoder().encode(s).length

/** The limits of a request beyond its schema's (a pure check; `undefined` when within them). */
export const requestLimitViolation = (query: Pick<MetricsQuery, "sql" | "parameters">): string | undefined => {
  if (utf8Bytes(query.sql) > sqlLimits.maximumSqlBytes) return `sql is over ${sqlLimits.maximumSqlBytes} bytes`
  const values = Object.values(query.parameters)
  if (values.length > sqlLimits.maximumParameters) return `at most ${sqlLimits.maximumParameters} parameters`
  let total = 0
  for (const value of values) {
    const bytes = utf8Bytes(value)
    if (bytes > sqlLimits.maximumParameterValueBytes) return `a parameter value is over ${sqlLimits.maximumParameterValueBytes} bytes`
    total += bytes
  }
  return total > sqlLimits.maximumTotalParameterBytes ? `parameters total over ${sqlLimits.maximumTotalParameterBytes} bytes` : undefined
}

export const sqlSchemaDocument: GetMessageMetricsSqlSchemaResponse = {
  capabilities: {
    arrayJoin: false,
    ctes: true,
    joins: true,
    parameters: true,
    selectWithoutFrom: true,
    subqueries: true,
    unions: true
  },
  dialect: "postgresql",
  limits: {
    maximumParameterValueBytes: sqlLimits.maximumParameterValueBytes,
    maximumParameters: sqlLimits.maximumParameters,
    maximumSqlBytes: sqlLimits.maximumSqlBytes,
    maximumTotalParameterBytes: sqlLimits.maximumTotalParameterBytes,
    maximumRows: sqlLimits.maximumRows,
    maximumResultBytes: sqlLimits.maximumResultBytes,
    statementTimeoutMillis: sqlLimits.statementTimeoutMillis
  },
  parameterSyntax,
  functions: [...allowedFunctions, ...allowedSyntaxFunctions.map((f) => `${f} (SQL syntax)`)],
  operators: [...allowedOperators, "AND", "OR", "NOT", "IS [NOT] NULL", "IS [NOT] DISTINCT FROM", "[NOT] BETWEEN", "[NOT] IN (list)", "[NOT] [I]LIKE", "CASE", "COALESCE", "NULLIF", "GREATEST", "LEAST", ...allowedCastTypes.map((t) => `::${t}`)],
  projectScoped: true,
  tables: sqlTables.map((t) => ({ ...t, currentState: "live", columns: [...t.columns] })),
  version: sqlSurfaceVersion
}

export class MessageMetrics extends Context.Service<MessageMetrics>()("MessageMetrics", {
  make: Effect.gen(function*() {
    const engine = yield* MetricsQueryEngine
    const gate = yield* makeProjectGate

    const query = fn("MessageMetrics.query")(function*(query: MetricsQuery, principal: Principal) {
      yield* gate.open(query.projectId, principal, "read")
      const violation = requestLimitViolation(query)
      if (violation !== undefined) return yield* new MetricsQueryInvalid({ message: violation, construct: "limit" })
      return yield* engine.run(query)
    })

    /**
     * The relations are views over the live records (facts and signals are in them the moment they
     * are applied), so there is nothing to populate: the state is `completed`, verified now.
     */
    const backfill = fn("MessageMetrics.backfill")(function*(projectId: ProjectId, principal: Principal) {
      yield* gate.open(projectId, principal, "read")
      const counts = yield* engine.counts(projectId)
      const now = yield* DateTime.now
      const response: GetMessageMetricsBackfillResponse = {
        failedWrites: 0,
        lastVerifiedAt: formatTimestamp(now),
        processedWrites: counts.messageEvents + counts.callEvents,
        state: "completed",
        version: sqlSurfaceVersion
      }
      return response
    })

    /** The schema document, to a caller who may see the project. */
    const schema = fn("MessageMetrics.schema")(function*(projectId: ProjectId, principal: Principal) {
      yield* gate.open(projectId, principal, "read")
      return sqlSchemaDocument
    })

    return { query, backfill, schema } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
