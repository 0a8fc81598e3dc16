/**
 * The Management feature's part of the repository contract suite (called inside
 * `repositoryContract`): platform switches upserted per project and platform; end users listed
 * oldest first with their filters, looked up by id and by key, unique per (project, phone number,
 * assigned number), updated in their mutable fields only, and removed once.
 */
import type { Vitest } from "@effect/vitest"
import { type StorePorts } from "@switchboard/core"
import { PlatformsRepo, type ProjectUserRecord, ProjectUsersRepo } from "@switchboard/core/projects"
import { formatTypeId, IdKinds, type ProjectId, UserId, uuidv7Bytes } from "@switchboard/core/shared"
import { DateTime, Effect, Result, Option } from "effect"
import { expect } from "vitest"
import { ownerAndOrganization, storedProject } from "./ProjectsContract.js"

const T0 = DateTime.makeUnsafe("2030-01-01T00:00:00.000Z")
const plus = (t: DateTime.Utc, ms: number) => DateTime.makeUnsafe(DateTime.toEpochMillis(t) + ms)
let counter = 0

const userFixture = (projectId: ProjectId, overrides: Partial<ProjectUserRecord> = {}): ProjectUserRecord => {
  const createdAt = overrides.createdAt ?? T0
  counter += 1
  return {
    id: UserId.make(formatTypeId(IdKinds.user, uuidv7Bytes(DateTime.toEpochMillis(createdAt), crypto.getRandomValues(new Uint8Array(10))))),
    projectId,
    firstName: "Ada",
    lastName: null,
    email: null,
    phoneNumber: `+1555${String(1000000 + counter).slice(-7)}`,
    assignedPhoneNumber: null,
    createdAt,
    updatedAt: createdAt,
    ...overrides
  }
}

const twoProjects = Effect.gen(function*() {
  const owner = yield* ownerAndOrganization
  return { a: (yield* storedProject(owner)).projectId, b: (yield* storedProject(owner)).projectId }
})

export const managementContract = (it: Vitest.MethodsNonLive<StorePorts>): void => {
  it.effect("management platforms: one switch per project and platform, set again replaces it", () =>
    Effect.gen(function*() {
      const repo = yield* PlatformsRepo
      const { a, b } = yield* twoProjects
      expect(yield* repo.list(a)).toEqual([])
      yield* repo.set({ projectId: a, platform: "sms", enabled: true, now: T0 })
      yield* repo.set({ projectId: a, platform: "voice", enabled: true, now: T0 })
      yield* repo.set({ projectId: a, platform: "sms", enabled: false, now: plus(T0, 1000) })
      yield* repo.set({ projectId: b, platform: "email", enabled: true, now: T0 })
      const sorted = (rows: ReadonlyArray<{ platform: string; enabled: boolean }>) =>
        [...rows].sort((x, y) => x.platform.localeCompare(y.platform))
      expect(sorted(yield* repo.list(a))).toEqual([{ platform: "sms", enabled: false }, { platform: "voice", enabled: true }])
      expect(yield* repo.list(b)).toEqual([{ platform: "email", enabled: true }])
    }))

  it.effect("management users: stored, found by id and key, listed oldest first with type and id filters, per project", () =>
    Effect.gen(function*() {
      const repo = yield* ProjectUsersRepo
      const { a, b } = yield* twoProjects
      const later = userFixture(a, { createdAt: plus(T0, 2000), email: "later@example.com" })
      const earlier = userFixture(a, { createdAt: plus(T0, 1000) })
      const dedicated = userFixture(a, {
        createdAt: plus(T0, 3000),
        phoneNumber: earlier.phoneNumber,
        assignedPhoneNumber: "+15550100001"
      })
      const elsewhere = userFixture(b, { phoneNumber: earlier.phoneNumber })
      for (const u of [later, earlier, dedicated, elsewhere]) yield* repo.insert(u)

      expect(yield* repo.list({ projectId: a })).toEqual([earlier, later, dedicated])
      expect((yield* repo.list({ projectId: a, type: "shared" })).map((u) => u.id)).toEqual([earlier.id, later.id])
      expect((yield* repo.list({ projectId: a, type: "dedicated" })).map((u) => u.id)).toEqual([dedicated.id])
      expect((yield* repo.list({ projectId: a, ids: [dedicated.id, elsewhere.id, later.id] })).map((u) => u.id))
        .toEqual([later.id, dedicated.id])
      expect(yield* repo.list({ projectId: a, ids: [] })).toEqual([])
      expect(yield* repo.count(a)).toBe(3)
      expect(yield* repo.count(b)).toBe(1)

      expect(Option.getOrThrow(yield* repo.findById(a, later.id))).toEqual(later)
      expect(Option.isNone(yield* repo.findById(b, later.id))).toBe(true)
      const byKey = (projectId: ProjectId, phoneNumber: string, assignedPhoneNumber: string | null) =>
        Effect.map(repo.findByKey({ projectId, phoneNumber, assignedPhoneNumber }), Option.map((u) => u.id))
      expect(yield* byKey(a, earlier.phoneNumber, null)).toEqual(Option.some(earlier.id))
      expect(yield* byKey(a, earlier.phoneNumber, "+15550100001")).toEqual(Option.some(dedicated.id))
      expect(yield* byKey(a, earlier.phoneNumber, "+15550100002")).toEqual(Option.none())
      expect(yield* byKey(b, earlier.phoneNumber, null)).toEqual(Option.some(elsewhere.id))
    }))

  it.effect("management users: the key is unique per project; update changes names and email only; remove once", () =>
    Effect.gen(function*() {
      const repo = yield* ProjectUsersRepo
      const { a } = yield* twoProjects
      const user = userFixture(a)
      yield* repo.insert(user)
      const twin = yield* Effect.result(repo.insert(userFixture(a, { phoneNumber: user.phoneNumber })))
      expect(Result.isFailure(twin) && twin.failure._tag).toBe("ProjectUserExists")
      const twinDedicated = userFixture(a, { phoneNumber: user.phoneNumber, assignedPhoneNumber: "+15550100009" })
      yield* repo.insert(twinDedicated)
      const again = yield* Effect.result(repo.insert(userFixture(a, { phoneNumber: user.phoneNumber, assignedPhoneNumber: "+15550100009" })))
      expect(Result.isFailure(again) && again.failure._tag).toBe("ProjectUserExists")

      const changed: ProjectUserRecord = {
        ...user,
        firstName: null,
        lastName: "Lovelace",
        email: "ada@example.com",
        updatedAt: plus(T0, 5000),
        // Not mutable: ignored by update.
        phoneNumber: "+15559999999",
        createdAt: plus(T0, 9000)
      }
      yield* repo.update(changed)
      expect(Option.getOrThrow(yield* repo.findById(a, user.id))).toEqual({
        ...user,
        firstName: null,
        lastName: "Lovelace",
        email: "ada@example.com",
        updatedAt: plus(T0, 5000)
      })

      const removed = yield* repo.remove(a, user.id)
      expect(Option.map(removed, (u) => u.lastName)).toEqual(Option.some("Lovelace"))
      expect(Option.isNone(yield* repo.remove(a, user.id))).toBe(true)
      expect(Option.isNone(yield* repo.findById(a, user.id))).toBe(true)
      expect(yield* repo.count(a)).toBe(1)
      // The removed user's key is free again.
      yield* repo.insert(userFixture(a, { phoneNumber: user.phoneNumber }))
    }))
}
