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
import { DateTime, Effect, Layer, Option } from "effect"
import { MemoryState } from "./MemoryState.js"

const make = Effect.gen(function*() {
  const state = yield* MemoryState
  const accounts = state.table<string, WhatsappAccountRecord>("whatsapp_accounts")
  const assignments = state.table<string, SharedAssignmentRecord>("whatsapp_assignments")
  const codes = state.table<string, FilteredCodeRecord>("filtered_verification_codes")

  const matches = (f: FilteredCodeFilter) => (r: FilteredCodeRecord) =>
    r.projectId === f.projectId && (f.resourceId === undefined || r.resourceId === f.resourceId) &&
    (f.platform === undefined || r.platform === f.platform) &&
    DateTime.toEpochMillis(r.receivedAt) > DateTime.toEpochMillis(f.receivedAfter) && DateTime.toEpochMillis(r.receivedAt) < DateTime.toEpochMillis(f.receivedBefore)
  const newestFirst = (a: FilteredCodeRecord, b: FilteredCodeRecord) =>
    DateTime.toEpochMillis(b.receivedAt) - DateTime.toEpochMillis(a.receivedAt) || (a.filteredCodeId < b.filteredCodeId ? 1 : a.filteredCodeId > b.filteredCodeId ? -1 : 0)

  return Layer.mergeAll(
    Layer.succeed(WhatsappAccountsRepo, WhatsappAccountsRepo.of({
      find: (projectId) => Effect.sync(() => Option.fromNullishOr(accounts.get(projectId))),
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
      handleTaken: (projectId, handle) =>
        Effect.sync(() => [...assignments.values()].some((a) => a.projectId === projectId && a.handle === handle && a.releasedAt === null)),
      find: (projectId, assignmentId) =>
        Effect.sync(() => Option.filter(Option.fromNullishOr(assignments.get(assignmentId)), (a) => a.projectId === projectId)),
      list: ({ after, includeReleased, limit, projectId }) =>
        Effect.sync(() =>
          [...assignments.values()]
            .filter((a) =>
              a.projectId === projectId && (includeReleased || a.releasedAt === null) &&
              (after === undefined || DateTime.toEpochMillis(a.createdAt) > DateTime.toEpochMillis(after.createdAt) ||
                (DateTime.toEpochMillis(a.createdAt) === DateTime.toEpochMillis(after.createdAt) && a.assignmentId > after.assignmentId))
            )
            .sort((a, b) => DateTime.toEpochMillis(a.createdAt) - DateTime.toEpochMillis(b.createdAt) || (a.assignmentId < b.assignmentId ? -1 : 1))
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
      insertFromFacts: (records) =>
        Effect.sync(() => {
          const taken = new Set([...codes.values()].flatMap((r) => r.factId == null ? [] : [`${r.projectId}\u0000${r.factId}`]))
          if (records.some((r) => r.factId != null && taken.has(`${r.projectId}\u0000${r.factId}`))) return false
          for (const r of records) codes.set(r.filteredCodeId, r)
          return true
        }),
      factsHeldBack: (projectId, factIds) =>
        Effect.sync(() => {
          const wanted = new Set(factIds)
          return new Set([...codes.values()].flatMap((r) => r.projectId === projectId && r.factId != null && wanted.has(r.factId) ? [r.factId] : []))
        }),
      count: (f) => Effect.sync(() => [...codes.values()].filter(matches(f)).length),
      list: ({ before, limit, ...f }) =>
        Effect.sync(() =>
          [...codes.values()]
            .filter(matches(f))
            .filter((r) =>
              before === undefined || DateTime.toEpochMillis(r.receivedAt) < DateTime.toEpochMillis(before.receivedAt) ||
              (DateTime.toEpochMillis(r.receivedAt) === DateTime.toEpochMillis(before.receivedAt) && r.filteredCodeId < before.filteredCodeId)
            )
            .sort(newestFirst)
            .slice(0, limit)
        ),
      latestWhatsappCode: ({ after, projectId, resourceId }) =>
        Effect.sync(() =>
          Option.map(
            Option.fromNullishOr(
              [...codes.values()]
                .filter((r) =>
                  r.projectId === projectId && r.resourceId === resourceId && r.whatsappCode !== null &&
                  DateTime.toEpochMillis(r.receivedAt) > DateTime.toEpochMillis(after)
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
> = Layer.unwrap(make)
