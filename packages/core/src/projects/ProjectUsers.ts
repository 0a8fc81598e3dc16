/**
 * End users of a project (docs/api-notes/management-api.md users): the people a project's agent
 * talks to.
 *
 * - A user's key in its project is (phoneNumber, assignedPhoneNumber). Creating a user whose key
 *   exists returns that user with the names and email sent applied (an upsert, as the contract's
 *   shared users are "upserted by phoneNumber"; dedicated ones are idempotent on both numbers).
 * - A dedicated user's `assignedPhoneNumber` must be one of the project's active lines.
 * - Each project holds at most `ManagementLimits.maxUsersPerProject` users.
 * - Changes need an active project: they lock its row, so they are ordered against its deletion and
 *   concurrent creates never pass the limit.
 */
import { Context, DateTime, Effect, Layer, Option, Schema } from "effect"
import { ProjectClosing, ProjectDeleted, ProjectNotFound } from "./Errors.js"
import { ProjectsRepo } from "./Ports.js"
import { IdKinds, type ProjectId, UserId } from "../shared/Identifiers.js"
import { Ids } from "../shared/Ids.js"
import { Transactor } from "../shared/Ports.js"
import { AssignedNumberNotALine, ProjectUserLimitReached, ProjectUserNotFound } from "./PlatformsAndUsersErrors.js"
import { ManagementLimits, type ProjectUserRecord, ProjectUsersRepo } from "./PlatformsAndUsersPorts.js"
import type { UserType } from "./PlatformsAndUsersSchema.js"
import { fn } from "../internal/Traced.js"

const decodeUserId = Schema.decodeUnknownOption(UserId)

export interface CreateProjectUserInput {
  readonly projectId: ProjectId
  readonly phoneNumber: string
  /** Absent: unchanged on an existing user (null on a new one). */
  readonly firstName?: string | null | undefined
  readonly lastName?: string | null | undefined
  readonly email?: string | null | undefined
  /** Absent or null: a shared user. */
  readonly assignedPhoneNumber?: string | null | undefined
}

/** The fields of `input` that were sent, applied to `user` (the same object when nothing changes). */
export const applyUserFields = (user: ProjectUserRecord, input: CreateProjectUserInput, now: DateTime.Utc): ProjectUserRecord => {
  const firstName = input.firstName === undefined ? user.firstName : input.firstName
  const lastName = input.lastName === undefined ? user.lastName : input.lastName
  const email = input.email === undefined ? user.email : input.email
  return firstName === user.firstName && lastName === user.lastName && email === user.email
    ? user
    : { ...user, firstName, lastName, email, updatedAt: now }
}

export class ProjectUsers extends Context.Service<ProjectUsers>()("core/ProjectUsers", {
  make: Effect.gen(function*() {
    const repo = yield* ProjectsRepo
    const users = yield* ProjectUsersRepo
    const tx = yield* Transactor
    const ids = yield* Ids
    const { maxUsersPerProject } = yield* ManagementLimits

    /** Locks the project for a change: it must exist and be active. */
    const lockActive = (projectId: ProjectId): Effect.Effect<void, ProjectNotFound | ProjectDeleted | ProjectClosing> =>
      Effect.flatMap(repo.lock(projectId), (project): Effect.Effect<void, ProjectNotFound | ProjectDeleted | ProjectClosing> =>
        Option.isNone(project)
          ? Effect.fail(new ProjectNotFound({ projectId }))
          : project.value.state === "deleted"
          ? Effect.fail(new ProjectDeleted({ projectId }))
          : project.value.state === "closing"
          ? Effect.fail(new ProjectClosing({ projectId }))
          : Effect.void)

    /** The project's users, oldest first; `type` and `ids` narrow the list. */
    const list = fn("ProjectUsers.list")(function*(input: {
      readonly projectId: ProjectId
      readonly type?: UserType | undefined
      readonly ids?: ReadonlyArray<UserId> | undefined
    }) {
      return yield* users.list(input)
    })

    const get = fn("ProjectUsers.get")(function*(projectId: ProjectId, userId: string) {
      const id = decodeUserId(userId)
      const found = Option.isNone(id) ? Option.none() : yield* users.findById(projectId, id.value)
      if (Option.isNone(found)) return yield* new ProjectUserNotFound({ userId })
      return found.value
    })

    /**
     * Creates a user, or returns the existing one with that key (with the fields sent applied).
     * `lineNumbers` are the phone numbers of the project's active lines.
     */
    const create = fn("ProjectUsers.create")(function*(input: CreateProjectUserInput, lineNumbers: ReadonlyArray<string>) {
      const assignedPhoneNumber = input.assignedPhoneNumber ?? null
      if (assignedPhoneNumber !== null && !lineNumbers.includes(assignedPhoneNumber)) {
        return yield* new AssignedNumberNotALine({ assignedPhoneNumber })
      }
      return yield* tx.withTransaction(Effect.gen(function*() {
        yield* lockActive(input.projectId)
        const now = yield* DateTime.now
        const existing = yield* users.findByKey({ projectId: input.projectId, phoneNumber: input.phoneNumber, assignedPhoneNumber })
        if (Option.isSome(existing)) {
          const next = applyUserFields(existing.value, input, now)
          if (next !== existing.value) yield* users.update(next)
          return { user: next, created: false }
        }
        if ((yield* users.count(input.projectId)) >= maxUsersPerProject) {
          return yield* new ProjectUserLimitReached({ limit: maxUsersPerProject })
        }
        const user: ProjectUserRecord = {
          id: UserId.make(yield* ids.typeId(IdKinds.user)),
          projectId: input.projectId,
          firstName: input.firstName ?? null,
          lastName: input.lastName ?? null,
          email: input.email ?? null,
          phoneNumber: input.phoneNumber,
          assignedPhoneNumber,
          createdAt: now,
          updatedAt: now
        }
        yield* users.insert(user)
        return { user, created: true }
      }))
    })

    /** Deletes a user for good; an unknown or already deleted one is not found. */
    const remove = fn("ProjectUsers.remove")(function*(projectId: ProjectId, userId: string) {
      const id = decodeUserId(userId)
      if (Option.isNone(id)) return yield* new ProjectUserNotFound({ userId })
      return yield* tx.withTransaction(Effect.gen(function*() {
        yield* lockActive(projectId)
        const removed = yield* users.remove(projectId, id.value)
        if (Option.isNone(removed)) return yield* new ProjectUserNotFound({ userId })
        return removed.value
      }))
    })

    return { list, get, create, remove } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(Layer.provide([Ids.layer]))
}
