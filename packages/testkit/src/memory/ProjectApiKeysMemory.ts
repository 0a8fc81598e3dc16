/**
 * The ProjectApiKeys feature's memory layers: keys (with the SHA-256 of their secret) as a table of
 * the shared `MemoryState`. A key's project is read from the Projects memory table, as the SQL layer
 * joins it. Each operation is one synchronous step, so the limit check and the insert are atomic.
 */
import { ApiKeyLimitReached, ProjectApiKeysRepo, type StoredProjectApiKey } from "@switchboard/core/credentials"
import { ProjectClosing, ProjectDeleted, ProjectNotFound } from "@switchboard/core/projects"
import { DateTime, Effect, Layer, Option } from "effect"
import { MemoryState } from "./MemoryState.js"
import { PROJECTS_TABLE, type ProjectRow } from "./ProjectsMemory.js"

const newestFirst = (a: StoredProjectApiKey, b: StoredProjectApiKey) =>
  DateTime.toEpochMillis(b.apiKey.createdAt) - DateTime.toEpochMillis(a.apiKey.createdAt) ||
  (b.apiKey.apiKeyId < a.apiKey.apiKeyId ? -1 : b.apiKey.apiKeyId > a.apiKey.apiKeyId ? 1 : 0)

const make = Effect.gen(function*() {
  const state = yield* MemoryState
  const keys = state.table<string, StoredProjectApiKey>("project_api_keys")
  const projects = state.table<string, ProjectRow>(PROJECTS_TABLE)
  const ownKey = (projectId: string, apiKeyId: string) => {
    const stored = keys.get(apiKeyId)
    return stored !== undefined && stored.apiKey.projectId === projectId ? stored : undefined
  }

  return ProjectApiKeysRepo.of({
    insert: ({ apiKey, limit, now, secretHash }) =>
      Effect.suspend((): Effect.Effect<void, ApiKeyLimitReached | ProjectNotFound | ProjectClosing | ProjectDeleted> => {
        const project = projects.get(apiKey.projectId)?.project
        if (project === undefined) return Effect.fail(new ProjectNotFound({ projectId: apiKey.projectId }))
        if (project.state === "closing") return Effect.fail(new ProjectClosing({ projectId: apiKey.projectId }))
        if (project.state === "deleted") return Effect.fail(new ProjectDeleted({ projectId: apiKey.projectId }))
        const live = [...keys.values()].filter(({ apiKey: k }) =>
          k.projectId === apiKey.projectId && k.revokedAt === null &&
          (k.expiresAt === null || DateTime.isGreaterThan(k.expiresAt, now))
        ).length
        if (live >= limit) return Effect.fail(new ApiKeyLimitReached({ limit }))
        keys.set(apiKey.apiKeyId, { apiKey, secretHash })
        return Effect.void
      }),
    listUnrevoked: (projectId) =>
      Effect.sync(() =>
        [...keys.values()]
          .filter(({ apiKey: k }) => k.projectId === projectId && k.revokedAt === null)
          .sort(newestFirst)
          .map((s) => s.apiKey)
      ),
    findForVerification: (apiKeyId) =>
      Effect.sync(() => {
        const stored = keys.get(apiKeyId)
        const project = stored === undefined ? undefined : projects.get(stored.apiKey.projectId)?.project
        return stored === undefined || project === undefined
          ? Option.none()
          : Option.some({ stored, projectState: project.state })
      }),
    lock: (projectId, apiKeyId) => Effect.sync(() => Option.fromNullishOr(ownKey(projectId, apiKeyId)?.apiKey)),
    setPermissions: ({ apiKeyId, permissions, permissionsUpdatedAt }) =>
      Effect.sync(() => {
        const stored = keys.get(apiKeyId)
        if (stored !== undefined) {
          keys.set(apiKeyId, { ...stored, apiKey: { ...stored.apiKey, permissions, permissionsUpdatedAt } })
        }
      }),
    revoke: ({ apiKeyId, now, projectId }) =>
      Effect.sync(() => {
        const stored = ownKey(projectId, apiKeyId)
        if (stored === undefined) return Option.none()
        if (stored.apiKey.revokedAt !== null) return Option.some(stored.apiKey)
        const apiKey = { ...stored.apiKey, revokedAt: now }
        keys.set(apiKeyId, { ...stored, apiKey })
        return Option.some(apiKey)
      })
  })
})

export const ProjectApiKeysMemory: Layer.Layer<ProjectApiKeysRepo, never, MemoryState> = Layer.effect(ProjectApiKeysRepo, make)
