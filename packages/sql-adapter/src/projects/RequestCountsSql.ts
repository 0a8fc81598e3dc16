/**
 * The API requests per project and hour on SQL (migration 0170): a batch is one additive upsert
 * (`count = count + excluded.count`), so the batches of several processes add up; the rows of a
 * project that does not exist are dropped by the join. The last 24 hours are read by the primary
 * key; housekeeping's purge by the hour index.
 */
import { SqlClient } from "effect/sql"
import { ProjectRequestCounts, type RequestCount } from "@switchboard/core/projects"
import { ProjectId } from "@switchboard/core/shared"
import { DateTime, Effect, Layer, Schema } from "effect"
import { DbTime, orDie, rowsOf, toDate } from "../shared/Sql.js"

const HOUR = 3_600_000

const CountRow = Schema.Struct({
  projectId: ProjectId,
  hour: DbTime,
  surface: Schema.Literals(["v1", "management"]),
  outcome: Schema.Literals(["success", "client_error", "server_error"]),
  count: Schema.NumberFromString
})

export const RequestCountsReposSql = Layer.effect(
  ProjectRequestCounts,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rows = rowsOf(CountRow)

    const add = (batch: ReadonlyArray<RequestCount>) =>
      Effect.suspend(() => {
        // One row per key: an upsert may not touch a row twice.
        const merged = new Map<string, { projectId: string; hour: number; surface: string; outcome: string; count: number }>()
        for (const c of batch) {
          if (c.count <= 0) continue
          const hour = Math.floor(DateTime.toEpochMillis(c.hour) / HOUR) * HOUR
          const key = `${c.projectId}|${hour}|${c.surface}|${c.outcome}`
          const row = merged.get(key)
          if (row === undefined) merged.set(key, { projectId: c.projectId, hour, surface: c.surface, outcome: c.outcome, count: c.count })
          else row.count += c.count
        }
        if (merged.size === 0) return Effect.void
        const all = [...merged.values()]
        return orDie(sql`
          insert into project_request_counts (project_id, hour, surface, outcome, count)
          select v.project_id, v.hour, v.surface, v.outcome, v.count
          from unnest(
            ${all.map((r) => r.projectId)}::uuid[], ${all.map((r) => new Date(r.hour).toISOString())}::timestamptz[],
            ${all.map((r) => r.surface)}::text[], ${all.map((r) => r.outcome)}::text[], ${all.map((r) => r.count)}::bigint[]
          ) as v (project_id, hour, surface, outcome, count)
          join projects p on p.project_id = v.project_id
          on conflict (project_id, hour, surface, outcome) do update set count = project_request_counts.count + excluded.count`)
          .pipe(Effect.asVoid)
      })

    return ProjectRequestCounts.of({
      add,
      last24h: (projectId, now) => {
        const to = Math.floor(DateTime.toEpochMillis(now) / HOUR) * HOUR
        return rows(sql`
          select project_id, hour, surface, outcome, count::text as count from project_request_counts
          where project_id = ${projectId} and hour >= ${new Date(to - 23 * HOUR)} and hour <= ${new Date(to)}
          order by hour, surface, outcome`)
      },
      purge: (before) =>
        orDie(sql<{ n: number }>`
          with gone as (delete from project_request_counts where hour < ${toDate(before)} returning 1)
          select count(*)::int as n from gone`).pipe(Effect.map((r) => r[0]?.n ?? 0))
    })
  })
)
