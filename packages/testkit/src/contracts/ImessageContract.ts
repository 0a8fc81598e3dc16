/**
 * iMessage's part of the repository contract suite: shared-line assignments (whole records
 * round-trip, one live assignment per project, platform and handle — case-insensitively — while
 * released ones do not count, release once and repeat-safe, list filters and cursor, live counts,
 * rollback) and core's simulated `ImessagePool` (dedicated capacity and its growth, returned lines
 * first, shared seats and auto-scale, failure settings).
 */
import type { Vitest } from "@effect/vitest"
import type { StorePorts } from "@switchboard/core"
import {
  handleKeyOf,
  ImessagePool,
  type SharedLineAssignmentRecord,
  SharedLineAssignmentsRepo
} from "@switchboard/core/platforms"
import { defaultSimulatedImessageSettings, makeSimulatedImessagePool } from "../simulated/index.js"
import { formatTypeId, IdKinds, Transactor, uuidv7Bytes } from "@switchboard/core/shared"
import { DateTime, Effect, Result, Option } from "effect"
import { expect } from "vitest"
import { newProject } from "./PlatformsContract.js"

const T0 = Date.parse("2030-03-01T00:00:00.000Z")
const at = (ms: number) => DateTime.makeUnsafe(ms) as DateTime.Utc
const assignmentId = (ms: number) => formatTypeId(IdKinds.assignment, uuidv7Bytes(ms, crypto.getRandomValues(new Uint8Array(10))))

const fixture = (projectId: string, ms: number, handle: string, patch: Partial<SharedLineAssignmentRecord> = {}): SharedLineAssignmentRecord => ({
  assignmentId: assignmentId(ms),
  projectId,
  platform: "imessage",
  handle,
  handleKey: handleKeyOf(handle),
  assignedPhoneNumber: "+16285550200",
  email: null,
  firstName: null,
  lastName: null,
  createdAt: at(ms),
  updatedAt: at(ms),
  releasedAt: null,
  ...patch
})

export const imessageContract = (it: Vitest.MethodsNonLive<StorePorts>): void => {
  it.effect("shared-line assignments: round-trip, one live per handle (case-insensitive), release once", () =>
    Effect.gen(function*() {
      const repo = yield* SharedLineAssignmentsRepo
      const projectId = yield* newProject
      const other = yield* newProject
      const a = fixture(projectId, T0, "Ada@Example.com", { email: "ada@example.com", firstName: "Ada", lastName: "L" })
      expect(yield* repo.insert(a)).toBe(true)
      expect(Option.getOrThrow(yield* repo.find(projectId, a.assignmentId))).toEqual(a)
      expect(Option.isNone(yield* repo.find(other, a.assignmentId))).toBe(true)
      // The same handle (any case) is taken in this project and platform, free elsewhere.
      expect(yield* repo.insert(fixture(projectId, T0 + 1, "ada@example.COM"))).toBe(false)
      expect(yield* repo.insert(fixture(other, T0 + 1, "ada@example.com"))).toBe(true)
      expect(yield* repo.insert(fixture(projectId, T0 + 1, "ada@example.com", { platform: "whatsapp" }))).toBe(true)
      expect(yield* repo.countLive(projectId, "imessage")).toBe(1)
      expect(yield* repo.handleTaken(projectId, "imessage", a.handleKey)).toBe(true)
      expect(yield* repo.handleTaken(projectId, "whatsapp", a.handleKey)).toBe(true)
      expect(yield* repo.handleTaken(projectId, "imessage", "grace@example.com")).toBe(false)

      const first = Option.getOrThrow(yield* repo.release({ projectId, assignmentId: a.assignmentId, now: at(T0 + 5) }))
      expect(first.released).toBe(true)
      expect(first.assignment).toEqual({ ...a, releasedAt: at(T0 + 5), updatedAt: at(T0 + 5) })
      const again = Option.getOrThrow(yield* repo.release({ projectId, assignmentId: a.assignmentId, now: at(T0 + 9) }))
      expect(again).toEqual({ assignment: first.assignment, released: false })
      expect(Option.isNone(yield* repo.release({ projectId: other, assignmentId: a.assignmentId, now: at(T0 + 9) }))).toBe(true)
      expect(yield* repo.countLive(projectId, "imessage")).toBe(0)
      expect(yield* repo.handleTaken(projectId, "imessage", a.handleKey)).toBe(false)
      // Released, the handle can be assigned again.
      expect(yield* repo.insert(fixture(projectId, T0 + 10, "ada@example.com"))).toBe(true)
    }))

  it.effect("shared-line assignments: list oldest first, released only on request, with a cursor", () =>
    Effect.gen(function*() {
      const repo = yield* SharedLineAssignmentsRepo
      const projectId = yield* newProject
      const rows = [0, 1, 2, 3].map((i) => fixture(projectId, T0 + i, `+1555010${i}`))
      for (const r of [...rows].reverse()) yield* repo.insert(r)
      yield* repo.insert(fixture(projectId, T0 + 9, "+15550109", { platform: "whatsapp" }))
      yield* repo.release({ projectId, assignmentId: rows[1]!.assignmentId, now: at(T0 + 20) })
      const live = yield* repo.list({ projectId, platform: "imessage", includeReleased: false, limit: 10 })
      expect(live.map((r) => r.handle)).toEqual(["+15550100", "+15550102", "+15550103"])
      const all = yield* repo.list({ projectId, platform: "imessage", includeReleased: true, limit: 10 })
      expect(all.map((r) => r.handle)).toEqual(["+15550100", "+15550101", "+15550102", "+15550103"])
      const page = yield* repo.list({
        projectId,
        platform: "imessage",
        includeReleased: true,
        after: { createdAt: all[1]!.createdAt, assignmentId: all[1]!.assignmentId },
        limit: 1
      })
      expect(page.map((r) => r.handle)).toEqual(["+15550102"])
    }))

  it.effect("shared-line assignments: a failed transaction stores nothing", () =>
    Effect.gen(function*() {
      const repo = yield* SharedLineAssignmentsRepo
      const tx = yield* Transactor
      const projectId = yield* newProject
      const a = fixture(projectId, T0, "+15550111")
      const failed = yield* Effect.result(tx.withTransaction(Effect.andThen(repo.insert(a), Effect.fail("boom"))))
      expect(Result.isFailure(failed)).toBe(true)
      expect(Option.isNone(yield* repo.find(projectId, a.assignmentId))).toBe(true)
    }))

  it.effect("simulated pool: dedicated capacity, growth, returned lines first; shared seats and auto-scale", () =>
    Effect.gen(function*() {
      const { control, layer } = makeSimulatedImessagePool({
        ...defaultSimulatedImessageSettings,
        dedicatedCapacity: 1,
        sharedLines: 1,
        seatsPerSharedLine: 2,
        maxSharedLines: 2
      })
      const pool = yield* Effect.provide(ImessagePool, layer)
      const ask = { projectId: "p", operationId: "o" }
      expect(yield* pool.dedicatedAvailable).toBe(1)
      const first = Option.getOrThrow(yield* pool.claimDedicated(ask))
      expect(first.phoneNumber).toBe("+16285550300")
      expect(Option.isNone(yield* pool.claimDedicated(ask))).toBe(true)
      control.addDedicatedCapacity(1)
      expect(Option.getOrThrow(yield* pool.claimDedicated(ask)).phoneNumber).toBe("+16285550301")
      yield* pool.releaseDedicated(first.phoneNumber)
      expect(yield* pool.dedicatedAvailable).toBe(1)
      expect(Option.getOrThrow(yield* pool.claimDedicated(ask)).phoneNumber).toBe(first.phoneNumber)

      const seat = () => pool.claimSharedSeat({ projectId: "p", autoScale: false })
      expect(Option.getOrThrow(yield* seat()).phoneNumber).toBe("+16285550200")
      expect(Option.getOrThrow(yield* seat()).phoneNumber).toBe("+16285550200")
      expect(Option.isNone(yield* seat())).toBe(true)
      const grown = yield* pool.claimSharedSeat({ projectId: "p", autoScale: true })
      expect(Option.getOrThrow(grown).phoneNumber).toBe("+16285550201")
      yield* pool.claimSharedSeat({ projectId: "p", autoScale: true })
      expect(Option.isNone(yield* pool.claimSharedSeat({ projectId: "p", autoScale: true }))).toBe(true)
      yield* pool.releaseSharedSeat("+16285550200")
      expect(Option.getOrThrow(yield* seat()).phoneNumber).toBe("+16285550200")

      const failing = yield* Effect.provide(ImessagePool, makeSimulatedImessagePool({ ...defaultSimulatedImessageSettings, fail: "transient" }).layer)
      const failed = yield* Effect.result(failing.claimDedicated(ask))
      expect(Result.isFailure(failed) && failed.failure.retryable).toBe(true)
    }))
}
