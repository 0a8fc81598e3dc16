/**
 * The metrics context's port: the engine that runs a read-only SQL query over the project's two
 * relations. The SQL adapter implements it with PostgreSQL's own parser (a WASM build), a
 * sandboxed read-only transaction and project-restricted views; the in-memory store has no SQL and
 * answers `MetricsQueryUnavailable`.
 */
import { Context, type Effect } from "effect"
import type { ProjectId } from "../shared/Identifiers.js"
import type { MetricsQueryInvalid, MetricsQueryResourceLimit, MetricsQueryTimeout, MetricsQueryUnavailable } from "./Errors.js"
import type { QueryMessageMetricsResponse } from "./Schema.js"

export interface MetricsQuery {
  readonly projectId: ProjectId
  readonly sql: string
  readonly parameters: Readonly<Record<string, string>>
}

/** How many rows the relations hold for a project (the backfill document's `processedWrites`). */
export interface MetricsRelationCounts {
  readonly messageEvents: number
  readonly callEvents: number
}

export class MetricsQueryEngine extends Context.Service<MetricsQueryEngine, {
  readonly run: (
    query: MetricsQuery
  ) => Effect.Effect<
    QueryMessageMetricsResponse,
    MetricsQueryInvalid | MetricsQueryTimeout | MetricsQueryResourceLimit | MetricsQueryUnavailable
  >
  readonly counts: (projectId: ProjectId) => Effect.Effect<MetricsRelationCounts, MetricsQueryUnavailable>
}>()("MetricsQueryEngine") {}
