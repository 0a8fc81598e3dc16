/**
 * The API requests per project and hour in memory (the console's overview): one row per project,
 * hour, surface and outcome in a table of the shared `MemoryState`, each batch added in one
 * synchronous step. Counts of a project the store does not hold are dropped, as in SQL.
 */
import { ProjectRequestCounts, type RequestCount } from "@switchboard/core/projects"
import { DateTime, Effect, Layer } from "effect"
import { MemoryState } from "./MemoryState.js"
import { PROJECTS_TABLE, type ProjectRow } from "./ProjectsMemory.js"

const HOUR = 3_600_000

const hourOf = (t: DateTime.Utc) => Math.floor(DateTime.toEpochMillis(t) / HOUR) * HOUR

const make = Effect.gen(function*() {
  const state = yield* MemoryState
  const projects = state.table<string, ProjectRow>(PROJECTS_TABLE)
  const rows = state.table<string, RequestCount>("project_request_counts")

  return ProjectRequestCounts.of({
    add: (batch) =>
      Effect.sync(() => {
        for (const c of batch) {
          if (!projects.has(c.projectId) || c.count <= 0) continue
          const hour = hourOf(c.hour)
          const key = `${c.projectId}|${hour}|${c.surface}|${c.outcome}`
          const row = rows.get(key)
          rows.set(key, { ...c, hour: DateTime.makeUnsafe(hour) as DateTime.Utc, count: (row?.count ?? 0) + c.count })
        }
      }),
    last24h: (projectId, now) =>
      Effect.sync(() => {
        const from = hourOf(now) - 23 * HOUR
        const to = hourOf(now)
        return [...rows.values()]
          .filter((r) => {
            const h = DateTime.toEpochMillis(r.hour)
            return r.projectId === projectId && h >= from && h <= to
          })
          .sort((a, b) =>
            DateTime.toEpochMillis(a.hour) - DateTime.toEpochMillis(b.hour) || a.surface.localeCompare(b.surface) || a.outcome.localeCompare(b.outcome)
          )
      }),
    purge: (before) =>
      Effect.sync(() => {
        const cut = DateTime.toEpochMillis(before)
        let n = 0
        for (const [key, r] of rows) {
          if (DateTime.toEpochMillis(r.hour) < cut) {
            rows.delete(key)
            n++
          }
        }
        return n
      })
  })
})

export const RequestCountsMemory: Layer.Layer<ProjectRequestCounts, never, MemoryState> = Layer.effect(ProjectRequestCounts, make)
