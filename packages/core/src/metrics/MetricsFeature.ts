/**
 * The Metrics feature in core (docs/sql-query.md): the read-only SQL query operation over the
 * project's `message_events` and `call_events`, its schema document and its backfill state.
 */
import type { MetricsQueryEngine } from "./Ports.js"
import { MessageMetrics } from "./MessageMetrics.js"

export * from "./Errors.js"
export * from "./MessageMetrics.js"
export * from "./Ports.js"
export * from "./Schema.js"
export * from "./SqlSurface.js"

export const MetricsCore = MessageMetrics.layer
export type MetricsPorts = MetricsQueryEngine
