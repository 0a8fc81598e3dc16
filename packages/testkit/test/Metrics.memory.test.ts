import { it } from "@effect/vitest"
import { MetricsQueryEngine } from "@switchboard/core/metrics"
import type { ProjectId } from "@switchboard/core/shared"
import { MetricsMemory } from "@switchboard/testkit"
import { Effect } from "effect"
import { expect } from "vitest"

// The in-memory store has no SQL: the engine says so (503 on /v1) and runs nothing.
it.effect("the in-memory metrics engine answers MetricsQueryUnavailable", () =>
  Effect.gen(function*() {
    const engine = yield* MetricsQueryEngine
    const projectId = "01890000-0000-7000-8000-0000000000c1" as ProjectId
    expect(yield* Effect.flip(engine.run({ projectId, sql: "select 1", parameters: {} }))).toMatchObject({ _tag: "MetricsQueryUnavailable" })
    expect(yield* Effect.flip(engine.counts(projectId))).toMatchObject({ _tag: "MetricsQueryUnavailable" })
  }).pipe(Effect.provide(MetricsMemory)))
