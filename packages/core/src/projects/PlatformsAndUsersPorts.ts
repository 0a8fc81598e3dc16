/** The management context's store ports and limits (docs/architecture.md#rules-of-the-road: `Context.Tag`s with no implementation). */
import { Context, DateTime, type Effect, type Option } from "effect"
import type { ProjectId, UserId } from "../shared/Identifiers.js"
import type { ProjectUserExists } from "./PlatformsAndUsersErrors.js"
import type { PlatformName, ProjectUser, UserType } from "./PlatformsAndUsersSchema.js"
import { Setting } from "../internal/Settings.js"

/** Limits of the management context with their defaults; the server config may override them. */
export class ManagementLimits extends Setting<ManagementLimits>()("core/ManagementLimits", {
  defaultValue: () => ({
    /** End users per project. */
    maxUsersPerProject: 1000
  })
}) {}

/** A project's platform switches as stored: only platforms ever toggled have a row. */
export class PlatformsRepo extends Context.Service<PlatformsRepo, {
  readonly list: (projectId: ProjectId) => Effect.Effect<ReadonlyArray<{ readonly platform: PlatformName; readonly enabled: boolean }>>
  /** Sets one platform's switch (insert or update). */
  readonly set: (args: {
    readonly projectId: ProjectId
    readonly platform: PlatformName
    readonly enabled: boolean
    readonly now: DateTime.Utc
  }) => Effect.Effect<void>
}>()("core/PlatformsRepo") {}

/** An end user as stored. */
export interface ProjectUserRecord extends ProjectUser {
  readonly updatedAt: DateTime.Utc
}

/**
 * End users. A user's key within its project is (phoneNumber, assignedPhoneNumber): one shared user
 * per phone number, and one dedicated user per phone number and assigned line.
 */
export class ProjectUsersRepo extends Context.Service<ProjectUsersRepo, {
  /** The project's users, oldest first (by `createdAt`, then id), optionally filtered by type and ids. */
  readonly list: (args: {
    readonly projectId: ProjectId
    readonly type?: UserType | undefined
    readonly ids?: ReadonlyArray<UserId> | undefined
  }) => Effect.Effect<ReadonlyArray<ProjectUserRecord>>
  readonly findById: (projectId: ProjectId, userId: UserId) => Effect.Effect<Option.Option<ProjectUserRecord>>
  readonly findByKey: (args: {
    readonly projectId: ProjectId
    readonly phoneNumber: string
    readonly assignedPhoneNumber: string | null
  }) => Effect.Effect<Option.Option<ProjectUserRecord>>
  readonly count: (projectId: ProjectId) => Effect.Effect<number>
  /** Inserts a user; another with the same key is `ProjectUserExists`. */
  readonly insert: (user: ProjectUserRecord) => Effect.Effect<void, ProjectUserExists>
  /** Writes the mutable fields (names, email, updatedAt). */
  readonly update: (user: ProjectUserRecord) => Effect.Effect<void>
  /** Deletes the project's user and returns it, if there was one. */
  readonly remove: (projectId: ProjectId, userId: UserId) => Effect.Effect<Option.Option<ProjectUserRecord>>
}>()("core/ProjectUsersRepo") {}
