/** The projects context's store port (docs/architecture.md#rules-of-the-road): a `Context.Tag` with no implementation. */
import { Context, DateTime, type Effect, type Option } from "effect"
import type { AccountId, OrganizationId, ProjectId } from "../shared/Identifiers.js"
import type { SlugInUse } from "./Errors.js"
import type { ProjectSlug } from "./Schema.js"

/**
 * A project's lifecycle: `active`; `closing` once deleted (reads work, writes are refused) until
 * the closure job finishes it; then `deleted` (every route answers 410).
 */
export type ProjectState = "active" | "closing" | "deleted"

/** A project as stored. Null agent fields mean "the default" (see `toAgentProfile`). */
export interface ProjectRecord {
  readonly projectId: ProjectId
  readonly organizationId: OrganizationId
  readonly name: string
  readonly slug: ProjectSlug
  readonly state: ProjectState
  readonly agentFirstName: string | null
  readonly agentLastName: string | null
  readonly agentAvatarUrl: string | null
  readonly createdByAccountId: AccountId
  readonly createdAt: DateTime.Utc
  readonly updatedAt: DateTime.Utc
  /** When deletion was asked for (the project is closing or deleted), else null. */
  readonly deletedAt: DateTime.Utc | null
  /** When the closure finished (state `deleted`), else null. */
  readonly closedAt: DateTime.Utc | null
}

/** Which of an organization's live projects (not closing, not deleted) a list or a count takes. */
export interface ProjectFilter {
  readonly organizationId: OrganizationId
  /** Case-insensitive substring of the name or the slug. */
  readonly query: string | undefined
  /** Strict bounds on `createdAt`. */
  readonly createdAfter: DateTime.Utc | undefined
  readonly createdBefore: DateTime.Utc | undefined
}

/** One page of an organization's live projects, newest first (by `createdAt`, then id). */
export interface ProjectListRequest extends ProjectFilter {
  /** Rows strictly after this cursor in the order (older, or same time and smaller id). */
  readonly after: { readonly createdAt: DateTime.Utc; readonly projectId: ProjectId } | undefined
  readonly limit: number
}

export class ProjectsRepo extends Context.Service<ProjectsRepo, {
  /** Inserts a project with the hash of its management secret; a held slug (any state) is `SlugInUse`. */
  readonly insert: (args: { readonly project: ProjectRecord; readonly secretHash: string }) => Effect.Effect<void, SlugInUse>
  readonly findById: (projectId: ProjectId) => Effect.Effect<Option.Option<ProjectRecord>>
  /** Like `findById`, with the row locked until the surrounding transaction ends. */
  readonly lock: (projectId: ProjectId) => Effect.Effect<Option.Option<ProjectRecord>>
  /** Writes the mutable fields (name, agent profile, state, updatedAt, deletedAt, closedAt). */
  readonly update: (project: ProjectRecord) => Effect.Effect<void>
  readonly setSecretHash: (projectId: ProjectId, secretHash: string) => Effect.Effect<void>
  readonly findSecretHash: (projectId: ProjectId) => Effect.Effect<Option.Option<string>>
  /** Which of `slugs` are held, and whether by a live project (`active`) or a deleted one (`retired`). */
  readonly slugHolders: (slugs: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<{
    readonly slug: string
    readonly holder: "active" | "retired"
  }>>
  /** Live projects (not deleted, not closing) of an organization, newest first. */
  readonly list: (request: ProjectListRequest) => Effect.Effect<ReadonlyArray<ProjectRecord>>
  /** How many projects `list` would give with no cursor and no limit. */
  readonly count: (filter: ProjectFilter) => Effect.Effect<number>
  /**
   * Moves up to `limit` closing projects whose `deletedAt` is at or before `closingBefore` to
   * `deleted` (closedAt = updatedAt = `now`) and returns their ids. Safe to run from several
   * processes at once: each project is finished once.
   */
  readonly finishClosings: (args: {
    readonly closingBefore: DateTime.Utc
    readonly now: DateTime.Utc
    readonly limit: number
  }) => Effect.Effect<ReadonlyArray<ProjectId>>
}>()("core/ProjectsRepo") {}
