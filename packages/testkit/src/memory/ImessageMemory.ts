/**
 * iMessage's memory layers: shared-line assignments in the table `"shared_line_assignments"`, and
 * the simulated `ImessagePool` (simulated/) (default settings) as the non-store port.
 */
import {
  type ImessagePool,
  type SharedLineAssignmentRecord,
  SharedLineAssignmentsRepo
} from "@switchboard/core/platforms"
import { makeSimulatedImessagePool } from "../simulated/index.js"
import { DateTime, Effect, Layer, Option } from "effect"
import { MemoryState } from "./MemoryState.js"

export const SHARED_LINE_ASSIGNMENTS_TABLE = "shared_line_assignments"

const byCreation = (a: SharedLineAssignmentRecord, b: SharedLineAssignmentRecord) =>
  DateTime.toEpochMillis(a.createdAt) - DateTime.toEpochMillis(b.createdAt) ||
  (a.assignmentId < b.assignmentId ? -1 : a.assignmentId > b.assignmentId ? 1 : 0)

const make = Effect.gen(function*() {
  const state = yield* MemoryState
  const rows = state.table<string, SharedLineAssignmentRecord>(SHARED_LINE_ASSIGNMENTS_TABLE)
  const live = (projectId: string, platform: string) =>
    [...rows.values()].filter((r) => r.projectId === projectId && r.platform === platform && r.releasedAt === null)
  return SharedLineAssignmentsRepo.of({
    insert: (r) =>
      Effect.sync(() => {
        if (live(r.projectId, r.platform).some((x) => x.handleKey === r.handleKey)) return false
        rows.set(r.assignmentId, r)
        return true
      }),
    handleTaken: (projectId, platform, handleKey) => Effect.sync(() => live(projectId, platform).some((x) => x.handleKey === handleKey)),
    find: (projectId, assignmentId) =>
      Effect.sync(() => Option.filter(Option.fromNullishOr(rows.get(assignmentId)), (r) => r.projectId === projectId)),
    list: ({ after, includeReleased, limit, platform, projectId }) =>
      Effect.sync(() =>
        [...rows.values()]
          .filter((r) => r.projectId === projectId && r.platform === platform && (includeReleased || r.releasedAt === null))
          .filter((r) =>
            after === undefined ||
            DateTime.toEpochMillis(r.createdAt) > DateTime.toEpochMillis(after.createdAt) ||
            (DateTime.toEpochMillis(r.createdAt) === DateTime.toEpochMillis(after.createdAt) && r.assignmentId > after.assignmentId)
          )
          .sort(byCreation)
          .slice(0, limit)
      ),
    countLive: (projectId, platform) => Effect.sync(() => live(projectId, platform).length),
    release: ({ assignmentId, now, projectId }) =>
      Effect.sync(() => {
        const r = rows.get(assignmentId)
        if (r === undefined || r.projectId !== projectId) return Option.none()
        if (r.releasedAt !== null) return Option.some({ assignment: r, released: false })
        const released = { ...r, releasedAt: now, updatedAt: now }
        rows.set(assignmentId, released)
        return Option.some({ assignment: released, released: true })
      })
  })
})

/** The repository, and the simulated pool (default settings) as the non-store port. */
export const ImessageMemory: Layer.Layer<SharedLineAssignmentsRepo | ImessagePool, never, MemoryState> = Layer.merge(
  Layer.effect(SharedLineAssignmentsRepo, make),
  Layer.suspend(() => makeSimulatedImessagePool().layer)
)
