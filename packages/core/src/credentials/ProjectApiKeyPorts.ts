/** Project API keys' store port and limits (docs/architecture.md#rules-of-the-road: a `Context.Tag` with no implementation). */
import { Context, DateTime, type Effect, type Option } from "effect"
import type { ProjectClosing, ProjectDeleted, ProjectNotFound } from "../projects/Errors.js"
import type { ProjectState } from "../projects/Ports.js"
import type { ApiKeyId, ProjectId } from "../shared/Identifiers.js"
import type { ApiKeyLimitReached } from "./ProjectApiKeyErrors.js"
import type { ProjectApiKey } from "../accounts/Schema.js"
import { Setting } from "../internal/Settings.js"

/** A key with the SHA-256 of its secret. */
export interface StoredProjectApiKey {
  readonly apiKey: ProjectApiKey
  readonly secretHash: string
}

/** Live keys per project (docs/api-notes/credentials.md: default 50); a host or the server may override it. */
export class ProjectApiKeyLimits extends Setting<ProjectApiKeyLimits>()("core/ProjectApiKeyLimits", {
  defaultValue: () => ({ maxApiKeysPerProject: 50 })
}) {}

export class ProjectApiKeysRepo extends Context.Service<ProjectApiKeysRepo, {
  /**
   * Inserts a key unless its project is missing, not active, or already has `limit` live keys
   * (unrevoked, unexpired at `now`). Check and insert are atomic (the project row is locked), so
   * concurrent creates never exceed the limit and never land on a project being deleted.
   */
  readonly insert: (args: {
    readonly apiKey: ProjectApiKey
    readonly secretHash: string
    readonly limit: number
    readonly now: DateTime.Utc
  }) => Effect.Effect<void, ApiKeyLimitReached | ProjectNotFound | ProjectClosing | ProjectDeleted>
  /** The project's unrevoked keys (expired included), newest first. */
  readonly listUnrevoked: (projectId: ProjectId) => Effect.Effect<ReadonlyArray<ProjectApiKey>>
  /** What verifying a presented key needs, in one lookup by key id: the key, its hash, its project's state. */
  readonly findForVerification: (apiKeyId: ApiKeyId) => Effect.Effect<Option.Option<{
    readonly stored: StoredProjectApiKey
    readonly projectState: ProjectState
  }>>
  /** The project's key, with its row locked until the surrounding transaction ends. */
  readonly lock: (projectId: ProjectId, apiKeyId: ApiKeyId) => Effect.Effect<Option.Option<ProjectApiKey>>
  /** Replaces the permissions and sets `permissionsUpdatedAt`. */
  readonly setPermissions: (args: {
    readonly apiKeyId: ApiKeyId
    readonly permissions: ReadonlyArray<string>
    readonly permissionsUpdatedAt: DateTime.Utc
  }) => Effect.Effect<void>
  /**
   * Sets `revokedAt` to `now` unless already set (a repeat keeps the first time) and returns the
   * key; none when the project has no such key.
   */
  readonly revoke: (args: {
    readonly projectId: ProjectId
    readonly apiKeyId: ApiKeyId
    readonly now: DateTime.Utc
  }) => Effect.Effect<Option.Option<ProjectApiKey>>
}>()("core/ProjectApiKeysRepo") {}
