/**
 * The API requests per project and hour (`ProjectRequestCounts`), part of the repository contract
 * suite: batches add to their rows (also several batches at once, as several processes flush), an
 * hour is taken down to its whole hour, the counts of a project the store does not hold are dropped,
 * the last 24 hours end with the hour of `now`, and the purge deletes the hours before its cut. The
 * store is shared by the whole block: every case makes its own projects and keeps to its own hours.
 */
import type { Vitest } from "@effect/vitest"
import type { StorePorts } from "@switchboard/core"
import { ProjectRequestCounts, ProjectsRepo, type RequestCount } from "@switchboard/core/projects"
import { formatUuid, ProjectId, uuidv7Bytes } from "@switchboard/core/shared"
import { DateTime, Effect } from "effect"
import { expect } from "vitest"
import { ownerAndOrganization, projectFixture } from "./ProjectsContract.js"

const HOUR = 3_600_000
const at = (iso: string) => DateTime.makeUnsafe(iso) as DateTime.Utc
const plus = (t: DateTime.Utc, ms: number) => DateTime.makeUnsafe(DateTime.toEpochMillis(t) + ms) as DateTime.Utc

const newProject = Effect.gen(function*() {
  const project = projectFixture(yield* ownerAndOrganization)
  yield* (yield* ProjectsRepo).insert({ project, secretHash: "0".repeat(64) })
  return project.projectId
})

/** The rows as plain values, to compare. */
const plain = (rows: ReadonlyArray<RequestCount>) =>
  rows.map((r) => ({ hour: DateTime.formatIso(r.hour), surface: r.surface, outcome: r.outcome, count: r.count, projectId: r.projectId }))

export const requestCountsContract = (it: Vitest.MethodsNonLive<StorePorts>): void => {
  it.effect("request counts: batches add up per hour, surface and outcome; an hour is taken down to its whole hour", () =>
    Effect.gen(function*() {
      const counts = yield* ProjectRequestCounts
      const projectId = yield* newProject
      const h = at("2030-03-01T10:00:00.000Z")
      yield* counts.add([
        { projectId, hour: h, surface: "v1", outcome: "success", count: 3 },
        { projectId, hour: plus(h, 59 * 60_000), surface: "v1", outcome: "success", count: 2 },
        { projectId, hour: h, surface: "v1", outcome: "client_error", count: 1 },
        { projectId, hour: plus(h, HOUR + 5), surface: "management", outcome: "server_error", count: 4 }
      ])
      yield* counts.add([{ projectId, hour: h, surface: "v1", outcome: "success", count: 10 }, { projectId, hour: h, surface: "v1", outcome: "success", count: 0 }])
      expect(plain(yield* counts.last24h(projectId, plus(h, HOUR + 30 * 60_000)))).toEqual([
        { projectId, hour: "2030-03-01T10:00:00.000Z", surface: "v1", outcome: "client_error", count: 1 },
        { projectId, hour: "2030-03-01T10:00:00.000Z", surface: "v1", outcome: "success", count: 15 },
        { projectId, hour: "2030-03-01T11:00:00.000Z", surface: "management", outcome: "server_error", count: 4 }
      ])
    }))

  it.effect("request counts: batches added at once (several processes) all count", () =>
    Effect.gen(function*() {
      const counts = yield* ProjectRequestCounts
      const projectId = yield* newProject
      const h = at("2030-03-02T08:00:00.000Z")
      yield* Effect.all(
        Array.from({ length: 8 }, (_, i) => counts.add([{ projectId, hour: h, surface: "v1", outcome: "success", count: i + 1 }])),
        { concurrency: "unbounded", discard: true }
      )
      expect(plain(yield* counts.last24h(projectId, h)).map((r) => r.count)).toEqual([36])
    }))

  it.effect("request counts: a project the store does not hold is dropped; another project's rows are not read", () =>
    Effect.gen(function*() {
      const counts = yield* ProjectRequestCounts
      const projectId = yield* newProject
      const other = yield* newProject
      const unknown = ProjectId.make(formatUuid(uuidv7Bytes(Date.now(), crypto.getRandomValues(new Uint8Array(10)))))
      const h = at("2030-03-03T08:00:00.000Z")
      yield* counts.add([
        { projectId: unknown, hour: h, surface: "v1", outcome: "success", count: 5 },
        { projectId, hour: h, surface: "v1", outcome: "success", count: 1 },
        { projectId: other, hour: h, surface: "v1", outcome: "success", count: 7 }
      ])
      expect(yield* counts.last24h(unknown, h)).toEqual([])
      expect(plain(yield* counts.last24h(projectId, h)).map((r) => r.count)).toEqual([1])
    }))

  it.effect("request counts: the last 24 hours are the hour of now and the 23 before it, oldest first", () =>
    Effect.gen(function*() {
      const counts = yield* ProjectRequestCounts
      const projectId = yield* newProject
      const now = at("2030-03-05T12:34:00.000Z")
      const hourOfNow = at("2030-03-05T12:00:00.000Z")
      yield* counts.add([
        { projectId, hour: plus(hourOfNow, -24 * HOUR), surface: "v1", outcome: "success", count: 1 },
        { projectId, hour: plus(hourOfNow, -23 * HOUR), surface: "v1", outcome: "success", count: 2 },
        { projectId, hour: hourOfNow, surface: "v1", outcome: "success", count: 3 },
        { projectId, hour: plus(hourOfNow, HOUR), surface: "v1", outcome: "success", count: 4 }
      ])
      expect(plain(yield* counts.last24h(projectId, now)).map((r) => [r.hour, r.count])).toEqual([
        ["2030-03-04T13:00:00.000Z", 2],
        ["2030-03-05T12:00:00.000Z", 3]
      ])
    }))

  it.effect("request counts: the purge deletes the hours before its cut, and says how many", () =>
    Effect.gen(function*() {
      const counts = yield* ProjectRequestCounts
      const projectId = yield* newProject
      // Hours long before every other case's, so the purge takes only this case's rows.
      const h = at("2001-01-01T00:00:00.000Z")
      yield* counts.add([
        { projectId, hour: h, surface: "v1", outcome: "success", count: 1 },
        { projectId, hour: h, surface: "management", outcome: "success", count: 1 },
        { projectId, hour: plus(h, 2 * HOUR), surface: "v1", outcome: "success", count: 1 }
      ])
      expect(yield* counts.purge(plus(h, 2 * HOUR))).toBeGreaterThanOrEqual(2)
      expect(plain(yield* counts.last24h(projectId, plus(h, 3 * HOUR))).map((r) => r.hour)).toEqual(["2001-01-01T02:00:00.000Z"])
    }))
}
