/**
 * The metrics query engine's contract (docs/sql-query.md): what every store that can run SQL must show.
 * Run on PGlite and PostgreSQL (the in-memory store has no SQL: its engine answers
 * `MetricsQueryUnavailable`, checked in testkit/test). The hostile-SQL suite is the SQL adapter's
 * (packages/sql-adapter/test/MetricsQuery.test.ts).
 */
import { layer } from "@effect/vitest"
import { MetricsQueryEngine } from "@switchboard/core/metrics"
import type { ProjectId } from "@switchboard/core/shared"
import { Effect, type Layer } from "effect"
import { expect } from "vitest"

const fresh = "01890000-0000-7000-8000-0000000000c1" as ProjectId

export const metricsQueryContract = <E>(name: string, makeLayer: () => Layer.Layer<MetricsQueryEngine, E>) =>
  layer(makeLayer(), { excludeTestServices: true, timeout: "120 seconds" })(`${name}: metrics query contract`, (it) => {
    it.effect("answers columns with types and rows as JSON", () =>
      Effect.gen(function*() {
        const engine = yield* MetricsQueryEngine
        const result = yield* engine.run({
          projectId: fresh,
          sql: "select 1 as one, :name as name, count(*) as events from message_events",
          parameters: { name: "x" }
        })
        expect(result.columns).toEqual([
          { name: "one", type: "integer" },
          { name: "name", type: "text" },
          { name: "events", type: "bigint" }
        ])
        expect(result.rows).toEqual([[1, "x", 0]])
        expect(result.statistics.rowsRead).toBe(1)
      }))

    it.effect("refuses what is not a SELECT over the two relations, at its position", () =>
      Effect.gen(function*() {
        const engine = yield* MetricsQueryEngine
        const error = yield* Effect.flip(engine.run({ projectId: fresh, sql: "select * from accounts", parameters: {} }))
        expect(error).toMatchObject({ _tag: "MetricsQueryInvalid", construct: "relation", position: 15 })
      }))

    it.effect("counts a project's rows (none for a fresh project)", () =>
      Effect.gen(function*() {
        const engine = yield* MetricsQueryEngine
        expect(yield* engine.counts(fresh)).toEqual({ messageEvents: 0, callEvents: 0 })
      }))
  })
