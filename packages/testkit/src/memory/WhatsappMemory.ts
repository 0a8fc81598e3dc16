/**
 * WhatsApp's and the filtered verification codes' memory repositories (tables
 * `"whatsapp_accounts"`, `"whatsapp_assignments"`, `"filtered_verification_codes"`), the same
 * contract as the SQL ones.
 */
import {
  AssignmentHandleTaken,
  type FilteredCodeFilter,
  type FilteredCodeRecord,
  type SharedAssignmentRecord,
  VerificationCodesRepo,
  type WhatsappAccountRecord,
  WhatsappAccountsRepo,
  WhatsappAssignmentsRepo
} from "@switchboard/core/platforms"
import { Effect, Layer, Option } from "effect"
import { MemoryState } from "./MemoryState.js"

const make = Effect.gen(function*() {
  const state = yield* MemoryState
  const accounts = state.table<string, WhatsappAccountRecord>("whatsapp_accounts")
  const assignments = state.table<string, SharedAssignmentRecord>("whatsapp_assignments")
  const codes = state.table<string, FilteredCodeRecord>("filtered_verification_codes")

  const matches = (f: FilteredCodeFilter) => (r: FilteredCodeRecord) =>
    r.projectId === f.projectId && (f.resourceId === undefined || r.resourceId === f.resourceId) &&
    (f.platform === undefined || r.platform === f.platform) &&
    r.receivedAt.epochMillis > f.receivedAfter.epochMillis && r.receivedAt.epochMillis < f.receivedBefore.epochMillis
  const newestFirst = (a: FilteredCodeRecord, b: FilteredCodeRecord) =>
    b.receivedAt.epochMillis - a.receivedAt.epochMillis || (a.filteredCodeId < b.filteredCodeId ? 1 : a.filteredCodeId > b.filteredCodeId ? -1 : 0)

  return Layer.mergeAll(
    Layer.succeed(WhatsappAccountsRepo, WhatsappAccountsRepo.of({
      find: (projectId) => Effect.sync(() => Option.fromNullable(accounts.get(projectId))),
      upsert: (a) => Effect.sync(() => void accounts.set(a.projectId, a)),
      remove: (projectId) => Effect.sync(() => void accounts.delete(projectId))
    })),
    Layer.succeed(WhatsappAssignmentsRepo, WhatsappAssignmentsRepo.of({
      insert: (r) =>
        Effect.suspend(() => {
          const taken = [...assignments.values()].some((a) => a.projectId === r.projectId && a.handle === r.handle && a.releasedAt === null)
          if (taken) return Effect.fail(new AssignmentHandleTaken({ handle: r.handle }))
          assignments.set(r.assignmentId, r)
          return Effect.void
        }),
      find: (projectId, assignmentId) =>
        Effect.sync(() => Option.filter(Option.fromNullable(assignments.get(assignmentId)), (a) => a.projectId === projectId)),
      list: ({ after, includeReleased, limit, projectId }) =>
        Effect.sync(() =>
          [...assignments.values()]
            .filter((a) =>
              a.projectId === projectId && (includeReleased || a.releasedAt === null) &&
              (after === undefined || a.createdAt.epochMillis > after.createdAt.epochMillis ||
                (a.createdAt.epochMillis === after.createdAt.epochMillis && a.assignmentId > after.assignmentId))
            )
            .sort((a, b) => a.createdAt.epochMillis - b.createdAt.epochMillis || (a.assignmentId < b.assignmentId ? -1 : 1))
            .slice(0, limit)
        ),
      release: ({ assignmentId, now, projectId }) =>
        Effect.sync(() => {
          const a = assignments.get(assignmentId)
          if (a === undefined || a.projectId !== projectId || a.releasedAt !== null) return Option.none()
          const released = { ...a, releasedAt: now, updatedAt: now }
          assignments.set(assignmentId, released)
          return Option.some(released)
        }),
      countActive: (projectId) =>
        Effect.sync(() => [...assignments.values()].filter((a) => a.projectId === projectId && a.releasedAt === null).length)
    })),
    Layer.succeed(VerificationCodesRepo, VerificationCodesRepo.of({
      insert: (r) => Effect.sync(() => void codes.set(r.filteredCodeId, r)),
      count: (f) => Effect.sync(() => [...codes.values()].filter(matches(f)).length),
      list: ({ before, limit, ...f }) =>
        Effect.sync(() =>
          [...codes.values()]
            .filter(matches(f))
            .filter((r) =>
              before === undefined || r.receivedAt.epochMillis < before.receivedAt.epochMillis ||
              (r.receivedAt.epochMillis === before.receivedAt.epochMillis && r.filteredCodeId < before.filteredCodeId)
            )
            .sort(newestFirst)
            .slice(0, limit)
        ),
      latestWhatsappCode: ({ after, projectId, resourceId }) =>
        Effect.sync(() =>
          Option.map(
            Option.fromNullable(
              [...codes.values()]
                .filter((r) =>
                  r.projectId === projectId && r.resourceId === resourceId && r.whatsappCode !== null &&
                  r.receivedAt.epochMillis > after.epochMillis
                )
                .sort(newestFirst)[0]
            ),
            (r) => ({ code: r.whatsappCode!, receivedAt: r.receivedAt })
          )
        )
    }))
  )
})

export const WhatsappMemory: Layer.Layer<
  WhatsappAccountsRepo | WhatsappAssignmentsRepo | VerificationCodesRepo,
  never,
  MemoryState
> = Layer.unwrapEffect(make)
