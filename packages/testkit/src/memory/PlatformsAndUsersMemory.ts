/**
 * The Management feature's ports in memory: platform switches and end users as tables of the shared
 * `MemoryState` (so transactions roll them back). Each operation is one synchronous step, hence
 * atomic; the unique user key (project, phone number, assigned number) is checked on insert as the
 * SQL unique index does.
 */
import {
  type PlatformName,
  PlatformsRepo,
  ProjectUserExists,
  type ProjectUserRecord,
  ProjectUsersRepo
} from "@switchboard/core/projects"
import { type ProjectId } from "@switchboard/core/shared"
import { DateTime, Effect, Layer, Option } from "effect"
import { MemoryState } from "./MemoryState.js"

interface PlatformRow {
  readonly projectId: ProjectId
  readonly platform: PlatformName
  readonly enabled: boolean
  readonly updatedAt: DateTime.Utc
}

const keyOf = (u: { readonly projectId: string; readonly phoneNumber: string; readonly assignedPhoneNumber: string | null }) =>
  `${u.projectId}|${u.phoneNumber}|${u.assignedPhoneNumber ?? ""}`

const oldestFirst = (a: ProjectUserRecord, b: ProjectUserRecord) =>
  DateTime.toEpochMillis(a.createdAt) - DateTime.toEpochMillis(b.createdAt) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)

const platforms = Layer.effect(
  PlatformsRepo,
  Effect.map(MemoryState, (state) => {
    const table = state.table<string, PlatformRow>("project_platforms")
    return PlatformsRepo.of({
      list: (projectId) =>
        Effect.sync(() =>
          [...table.values()].filter((r) => r.projectId === projectId).map((r) => ({ platform: r.platform, enabled: r.enabled }))
        ),
      set: ({ enabled, now, platform, projectId }) =>
        Effect.sync(() => {
          table.set(`${projectId}|${platform}`, { projectId, platform, enabled, updatedAt: now })
        })
    })
  })
)

const users = Layer.effect(
  ProjectUsersRepo,
  Effect.map(MemoryState, (state) => {
    const table = state.table<string, ProjectUserRecord>("project_users")
    const ofProject = (projectId: ProjectId) => [...table.values()].filter((u) => u.projectId === projectId)
    const find = (projectId: ProjectId, userId: string) => {
      const user = table.get(userId)
      return user !== undefined && user.projectId === projectId ? Option.some(user) : Option.none()
    }
    return ProjectUsersRepo.of({
      list: ({ ids, projectId, type }) =>
        Effect.sync(() => {
          const wanted = ids === undefined ? undefined : new Set<string>(ids)
          return ofProject(projectId)
            .filter((u) =>
              (type === undefined || (type === "shared") === (u.assignedPhoneNumber === null)) &&
              (wanted === undefined || wanted.has(u.id))
            )
            .sort(oldestFirst)
        }),
      findById: (projectId, userId) => Effect.sync(() => find(projectId, userId)),
      findByKey: (key) => Effect.sync(() => Option.fromNullishOr(ofProject(key.projectId).find((u) => keyOf(u) === keyOf(key)))),
      count: (projectId) => Effect.sync(() => ofProject(projectId).length),
      insert: (user) =>
        Effect.suspend(() => {
          if (ofProject(user.projectId).some((u) => keyOf(u) === keyOf(user))) {
            return Effect.fail(new ProjectUserExists({ phoneNumber: user.phoneNumber }))
          }
          table.set(user.id, user)
          return Effect.void
        }),
      update: (user) =>
        Effect.sync(() => {
          const row = table.get(user.id)
          if (row !== undefined && row.projectId === user.projectId) {
            table.set(user.id, { ...row, firstName: user.firstName, lastName: user.lastName, email: user.email, updatedAt: user.updatedAt })
          }
        }),
      remove: (projectId, userId) =>
        Effect.sync(() => {
          const user = find(projectId, userId)
          if (Option.isSome(user)) table.delete(userId)
          return user
        })
    })
  })
)

export const PlatformsAndUsersMemory: Layer.Layer<PlatformsRepo | ProjectUsersRepo, never, MemoryState> = Layer.mergeAll(platforms, users)
