/**
 * The Metrics feature's /v1 handlers (docs/sql-query.md): the route's permission (`events:read`)
 * here, then the core service, which decides whether the caller may see the project (its gate)
 * before anything is read. The SQL runs in the store's engine (sql-adapter metrics/), never here.
 */
import { HttpApiBuilder } from "effect/http-api"
import { MessageMetrics } from "@switchboard/core/metrics"
import { Effect } from "effect"
import { onProject } from "./Access.js"
import { v1Group } from "./V1Group.js"
import { MetricsGroup } from "./MetricsApi.js"
import { domain } from "./Pipeline.js"

export const MetricsGroupLive = HttpApiBuilder.group(v1Group(MetricsGroup), "metrics", (handlers) =>
  Effect.gen(function*() {
    const metrics = yield* MessageMetrics
    return handlers
      .handle("queryMessageMetrics", ({ params: path, payload }) =>
        Effect.gen(function*() {
          const principal = yield* onProject(path.projectId, "events:read")
          return yield* domain(metrics.query({
            projectId: path.projectId,
            sql: payload.sql,
            parameters: payload.parameters ?? {}
          }, principal))
        }))
      .handle("getMessageMetricsSqlSchema", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* onProject(path.projectId, "events:read")
          return yield* domain(metrics.schema(path.projectId, principal))
        }))
      .handle("getMessageMetricsBackfill", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* onProject(path.projectId, "events:read")
          return yield* domain(metrics.backfill(path.projectId, principal))
        }))
  }))
