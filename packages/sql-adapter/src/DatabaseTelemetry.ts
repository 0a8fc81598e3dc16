/**
 * What the database clients tell an observer of the process (the server's metrics): each
 * statement's duration, and the connection pools open now (node-postgres pools; the embedded
 * database's one session, with the statements waiting for it). Nothing is measured while no
 * observer is set: a statement then pays one property read.
 */
import * as SqlClient from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"
import { Effect } from "effect"

export interface PoolStats {
  /** Connections open (idle or in use). */
  readonly total: number
  readonly idle: number
  /** Requests waiting for a connection. */
  readonly waiting: number
  /** The pool's `max`. */
  readonly max: number
}

export interface DatabaseTelemetryShape {
  /** Called once per statement with its duration in milliseconds and whether it failed. */
  onStatement: ((durationMs: number, failed: boolean) => void) | undefined
  /** The pools of the database clients open in this process, read when metrics are collected. */
  readonly pools: Set<() => PoolStats>
}

/** The process's one observer point (set by the server when metrics are on). */
export const DatabaseTelemetry: DatabaseTelemetryShape = { onStatement: undefined, pools: new Set() }

/**
 * Platform provisioning operations not finished yet, by state (`pending`, `running`): the
 * server's `provisioning_operations` gauge. Reads the partial index of unfinished operations only.
 */
export const activePlatformOperationCounts: Effect.Effect<ReadonlyArray<{ readonly state: string; readonly count: number }>, SqlError, SqlClient.SqlClient> =
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.map(
      sql<{ readonly state: string; readonly n: number }>`select state, count(*)::int as n from platform_operations where state in ('pending', 'running') group by state`,
      (rows) => rows.map((r) => ({ state: r.state, count: Number(r.n) }))
    ))
