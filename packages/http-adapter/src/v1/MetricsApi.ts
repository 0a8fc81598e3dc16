/**
 * The Metrics feature's /v1 routes (docs/sql-query.md): the read-only SQL query operation
 * over `message_events` and `call_events`, its SQL schema document and the backfill state. All
 * three need `events:read` on the project.
 */
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import {
  GetMessageMetricsBackfillResponse,
  GetMessageMetricsSqlSchemaResponse,
  QueryMessageMetricsResponse
} from "@switchboard/core/metrics"
import { SqlQueryRequest } from "@switchboard/core/projects"
import { ProjectId } from "@switchboard/core/shared"
import { Schema } from "effect"
import { projectProblems as common } from "./CommonProblems.js"
import { projectAccess } from "./Access.js"
import { Requires, problems } from "./Declare.js"
import { authenticated } from "./V1Group.js"

const ProjectPath = Schema.Struct({ projectId: ProjectId })

export const MetricsGroup = HttpApiGroup.make("metrics")
  .add(
    HttpApiEndpoint.post("queryMessageMetrics", "/v1/projects/:projectId/metrics/query", {
      params: ProjectPath,
      payload: SqlQueryRequest,
      success: QueryMessageMetricsResponse,
      error: problems(common, "QUERY_RESOURCE_LIMIT", "PAYLOAD_TOO_LARGE")
    }).annotate(Requires, projectAccess("events:read")).annotateMerge(OpenApi.annotations({
      summary: "Run a SQL query",
      description: "Runs one read-only SELECT, with named parameters, over the project's message_events and call_events and answers the columns and rows. Needs `events:read`; 422 VALIDATION_FAILED for a syntax error or a construct outside the allowed subset (named in SQL words, with its position), 422 QUERY_RESOURCE_LIMIT past 10 000 rows, 4 MiB or the cost cap, 504 REQUEST_TIMEOUT past 5 s."
    }))
  )
  .add(
    HttpApiEndpoint.get("getMessageMetricsSqlSchema", "/v1/projects/:projectId/metrics/query", {
      params: ProjectPath,
      success: GetMessageMetricsSqlSchemaResponse,
      error: problems(common)
    }).annotate(Requires, projectAccess("events:read")).annotateMerge(OpenApi.annotations({
      summary: "Get the SQL schema",
      description: "The schema document of the query operation: tables and columns, functions, operators, limits and parameter syntax. Needs `events:read`."
    }))
  )
  .add(
    HttpApiEndpoint.get("getMessageMetricsBackfill", "/v1/projects/:projectId/metrics/backfill", {
      params: ProjectPath,
      success: GetMessageMetricsBackfillResponse,
      error: problems(common)
    }).annotate(Requires, projectAccess("events:read")).annotateMerge(OpenApi.annotations({
      summary: "Get the backfill state",
      description: "How far the project's message_events and call_events are populated; they are views over the live records, so the state is always completed. Needs `events:read`."
    }))
  )
  .pipe(authenticated)
  .annotateMerge(OpenApi.annotations({
    title: "Metrics",
    description: "Read-only SQL over the project's message_events and call_events (docs/sql-query.md)."
  }))
