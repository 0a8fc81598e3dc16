/**
 * The Metrics feature's /v1 handlers (docs/sql-query.md): the route's permission (`events:read`)
 * here, then the core service, which decides whether the caller may see the project (its gate)
 * before anything is read. The SQL runs in the store's engine (sql-adapter metrics/), never here.
 */
import { HttpApiBuilder } from "effect/http-api"
import {
  GetMessageMetricsBackfillResponse,
  GetMessageMetricsSqlSchemaResponse,
  MessageMetrics,
  QueryMessageMetricsResponse
} from "@switchboard/core/metrics"
import { SqlQueryRequest } from "@switchboard/core/projects"
import { Effect } from "effect"
import { v1Group } from "./V1Group.js"
import { MetricsGroup } from "./MetricsApi.js"
import { decodeJsonBody, domain, rendered, toResponse } from "./Pipeline.js"
import { onProject } from "./ProjectsHandlers.js"

export const MetricsGroupLive = HttpApiBuilder.group(v1Group(MetricsGroup), "metrics", (handlers) =>
  Effect.gen(function*() {
    const metrics = yield* MessageMetrics
    return handlers
      .handleRaw("queryMessageMetrics", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* onProject(path.projectId, "events:read")
          const body = yield* decodeJsonBody(SqlQueryRequest)
          const result = yield* domain(metrics.query({
            projectId: path.projectId,
            sql: body.value.sql,
            parameters: body.value.parameters ?? {}
          }, principal))
          return toResponse(yield* rendered(QueryMessageMetricsResponse, result))
        }))
      .handleRaw("getMessageMetricsSqlSchema", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* onProject(path.projectId, "events:read")
          return toResponse(yield* rendered(GetMessageMetricsSqlSchemaResponse, yield* domain(metrics.schema(path.projectId, principal))))
        }))
      .handleRaw("getMessageMetricsBackfill", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* onProject(path.projectId, "events:read")
          return toResponse(yield* rendered(GetMessageMetricsBackfillResponse, yield* domain(metrics.backfill(path.projectId, principal))))
        }))
  }))
