/**
 * The ProjectApiKeys feature's part of the repository contract suite (called inside
 * `repositoryContract`): keys stored with their hash, the unrevoked list, verification lookups with
 * the project's state, idempotent revocation, permission changes under a row lock, and the live-key
 * limit — atomic under concurrency, and refused on a missing, closing or deleted project.
 */
import type { Vitest } from "@effect/vitest"
import { type StorePorts } from "@switchboard/core"
import { type ProjectApiKey } from "@switchboard/core/accounts"
import { ProjectApiKeysRepo } from "@switchboard/core/credentials"
import { ProjectsRepo } from "@switchboard/core/projects"
import {
  type AccountId,
  ApiKeyId,
  formatTypeId,
  IdKinds,
  type OrganizationId,
  type ProjectId,
  Transactor,
  uuidv7Bytes
} from "@switchboard/core/shared"
import { DateTime, Effect, Result, Option } from "effect"
import { expect } from "vitest"
import { ownerAndOrganization, projectFixture, storedProject } from "./ProjectsContract.js"

let counter = 0
const rand = () => crypto.getRandomValues(new Uint8Array(10))
const T0 = DateTime.makeUnsafe("2030-01-01T00:00:00.000Z")
const plus = (t: DateTime.Utc, ms: number) => DateTime.makeUnsafe(DateTime.toEpochMillis(t) + ms)

type Owner = { readonly accountId: AccountId; readonly organizationId: OrganizationId }

const keyFixture = (owner: Owner, projectId: ProjectId, overrides: Partial<ProjectApiKey> = {}): ProjectApiKey => {
  const createdAt = overrides.createdAt ?? T0
  return {
    apiKeyId: ApiKeyId.make(formatTypeId(IdKinds.projectApiKey, uuidv7Bytes(DateTime.toEpochMillis(createdAt), rand()))),
    projectId,
    createdByAccountId: owner.accountId,
    name: `key ${++counter}`,
    createdAt,
    expiresAt: null,
    permissionsUpdatedAt: null,
    revokedAt: null,
    permissions: ["project:read"],
    ...overrides
  }
}

/** An owner, an organization and an active project in the store. */
const withProject = Effect.gen(function*() {
  const owner = yield* ownerAndOrganization
  const project = yield* storedProject(owner)
  return { owner, project }
})

export const projectApiKeysContract = (it: Vitest.MethodsNonLive<StorePorts>): void => {
  it.effect("project keys: stored with their hash; unrevoked listed newest first, expired included; unknown permissions kept", () =>
    Effect.gen(function*() {
      const keys = yield* ProjectApiKeysRepo
      const { owner, project } = yield* withProject
      const older = keyFixture(owner, project.projectId, {
        expiresAt: plus(T0, 1000),
        permissions: ["project:read", "platforms:write", "future:thing"]
      })
      const newer = keyFixture(owner, project.projectId, { createdAt: plus(T0, 5000) })
      yield* keys.insert({ apiKey: older, secretHash: "a".repeat(64), limit: 50, now: T0 })
      yield* keys.insert({ apiKey: newer, secretHash: "b".repeat(64), limit: 50, now: plus(T0, 5000) })
      const found = Option.getOrThrow(yield* keys.findForVerification(older.apiKeyId))
      expect(found).toEqual({ stored: { apiKey: older, secretHash: "a".repeat(64) }, projectState: "active" })
      expect((yield* keys.listUnrevoked(project.projectId)).map((k) => k.apiKeyId)).toEqual([newer.apiKeyId, older.apiKeyId])
      expect((yield* keys.listUnrevoked(project.projectId))[1]).toEqual(older)
      expect(Option.isNone(yield* keys.findForVerification(keyFixture(owner, project.projectId).apiKeyId))).toBe(true)
    }))

  it.effect("project keys: revoke sets revokedAt once, hides the key from the list, and is scoped to the project", () =>
    Effect.gen(function*() {
      const keys = yield* ProjectApiKeysRepo
      const { owner, project } = yield* withProject
      const other = yield* storedProject(owner)
      const key = keyFixture(owner, project.projectId)
      yield* keys.insert({ apiKey: key, secretHash: "c".repeat(64), limit: 50, now: T0 })
      expect(Option.isNone(yield* keys.revoke({ projectId: other.projectId, apiKeyId: key.apiKeyId, now: T0 }))).toBe(true)
      const first = Option.getOrThrow(yield* keys.revoke({ projectId: project.projectId, apiKeyId: key.apiKeyId, now: plus(T0, 10) }))
      expect(first).toEqual({ ...key, revokedAt: plus(T0, 10) })
      const again = Option.getOrThrow(yield* keys.revoke({ projectId: project.projectId, apiKeyId: key.apiKeyId, now: plus(T0, 99) }))
      expect(again).toEqual(first)
      expect(yield* keys.listUnrevoked(project.projectId)).toEqual([])
      expect(Option.getOrThrow(yield* keys.findForVerification(key.apiKeyId)).stored.apiKey.revokedAt).toEqual(plus(T0, 10))
      const unknown = keyFixture(owner, project.projectId).apiKeyId
      expect(Option.isNone(yield* keys.revoke({ projectId: project.projectId, apiKeyId: unknown, now: T0 }))).toBe(true)
    }))

  it.effect("project keys: lock is scoped to the project; setPermissions replaces the list and its time", () =>
    Effect.gen(function*() {
      const keys = yield* ProjectApiKeysRepo
      const tx = yield* Transactor
      const { owner, project } = yield* withProject
      const other = yield* storedProject(owner)
      const key = keyFixture(owner, project.projectId, { permissions: ["project:read"] })
      yield* keys.insert({ apiKey: key, secretHash: "d".repeat(64), limit: 50, now: T0 })
      expect(Option.isNone(yield* tx.withTransaction(keys.lock(other.projectId, key.apiKeyId)))).toBe(true)
      const updated = yield* tx.withTransaction(Effect.gen(function*() {
        const locked = Option.getOrThrow(yield* keys.lock(project.projectId, key.apiKeyId))
        expect(locked).toEqual(key)
        yield* keys.setPermissions({ apiKeyId: key.apiKeyId, permissions: ["events:read", "x-vendor:do"], permissionsUpdatedAt: plus(T0, 7) })
        return yield* keys.lock(project.projectId, key.apiKeyId)
      }))
      const expected = { ...key, permissions: ["events:read", "x-vendor:do"], permissionsUpdatedAt: plus(T0, 7) }
      expect(Option.getOrThrow(updated)).toEqual(expected)
      expect(Option.getOrThrow(yield* keys.findForVerification(key.apiKeyId)).stored.apiKey).toEqual(expected)
    }))

  it.effect("project keys: verification sees the project's state", () =>
    Effect.gen(function*() {
      const keys = yield* ProjectApiKeysRepo
      const projects = yield* ProjectsRepo
      const { owner, project } = yield* withProject
      const key = keyFixture(owner, project.projectId)
      yield* keys.insert({ apiKey: key, secretHash: "e".repeat(64), limit: 50, now: T0 })
      yield* projects.update({ ...project, state: "closing", deletedAt: plus(T0, 1) })
      expect(Option.getOrThrow(yield* keys.findForVerification(key.apiKeyId)).projectState).toBe("closing")
      yield* projects.update({ ...project, state: "deleted", deletedAt: plus(T0, 1), closedAt: plus(T0, 2) })
      expect(Option.getOrThrow(yield* keys.findForVerification(key.apiKeyId)).projectState).toBe("deleted")
    }))

  it.effect("project keys: the limit counts live keys only; a missing, closing or deleted project is refused", () =>
    Effect.gen(function*() {
      const keys = yield* ProjectApiKeysRepo
      const projects = yield* ProjectsRepo
      const { owner, project } = yield* withProject
      const now = plus(T0, 60_000)
      yield* keys.insert({ apiKey: keyFixture(owner, project.projectId, { expiresAt: plus(T0, 1) }), secretHash: "f".repeat(64), limit: 3, now: T0 })
      const revoked = keyFixture(owner, project.projectId)
      yield* keys.insert({ apiKey: revoked, secretHash: "f".repeat(64), limit: 3, now: T0 })
      yield* keys.revoke({ projectId: project.projectId, apiKeyId: revoked.apiKeyId, now: T0 })
      for (let i = 0; i < 3; i++) {
        yield* keys.insert({ apiKey: keyFixture(owner, project.projectId, { createdAt: now }), secretHash: "f".repeat(64), limit: 3, now })
      }
      const over = yield* Effect.result(
        keys.insert({ apiKey: keyFixture(owner, project.projectId, { createdAt: now }), secretHash: "f".repeat(64), limit: 3, now })
      )
      expect(Result.isFailure(over) && over.failure).toMatchObject({ _tag: "ApiKeyLimitReached", limit: 3 })
      const ghost = projectFixture(owner).projectId
      const orphan = yield* Effect.result(keys.insert({ apiKey: keyFixture(owner, ghost), secretHash: "f".repeat(64), limit: 3, now }))
      expect(Result.isFailure(orphan) && orphan.failure._tag).toBe("ProjectNotFound")
      const closing = yield* storedProject(owner, { state: "closing", deletedAt: T0 })
      const onClosing = yield* Effect.result(keys.insert({ apiKey: keyFixture(owner, closing.projectId), secretHash: "f".repeat(64), limit: 3, now }))
      expect(Result.isFailure(onClosing) && onClosing.failure._tag).toBe("ProjectClosing")
      yield* projects.update({ ...closing, state: "deleted", closedAt: plus(T0, 1) })
      const onDeleted = yield* Effect.result(keys.insert({ apiKey: keyFixture(owner, closing.projectId), secretHash: "f".repeat(64), limit: 3, now }))
      expect(Result.isFailure(onDeleted) && onDeleted.failure._tag).toBe("ProjectDeleted")
      expect(yield* keys.listUnrevoked(closing.projectId)).toEqual([])
    }))

  it.effect("project keys: concurrent creates never exceed the limit", () =>
    Effect.gen(function*() {
      const keys = yield* ProjectApiKeysRepo
      const { owner, project } = yield* withProject
      const attempts = Array.from({ length: 10 }, () =>
        Effect.result(keys.insert({ apiKey: keyFixture(owner, project.projectId), secretHash: "0".repeat(64), limit: 4, now: T0 })))
      const results = yield* Effect.all(attempts, { concurrency: "unbounded" })
      expect(results.filter(Result.isSuccess)).toHaveLength(4)
      expect(results.filter(Result.isFailure).every((r) => Result.isFailure(r) && r.failure._tag === "ApiKeyLimitReached")).toBe(true)
      expect(yield* keys.listUnrevoked(project.projectId)).toHaveLength(4)
    }))
}
