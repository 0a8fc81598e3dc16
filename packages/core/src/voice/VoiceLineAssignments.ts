/**
 * Line profile assignments (docs/api-notes/voice.md): a voice-capable line's
 * explicit override of the default profile, with its own `resourceVersion`; the batch form (1–100)
 * is all-or-nothing: every line and profile is checked before anything is written.
 */
import { DateTime, Effect, Option } from "effect"
import type { Principal } from "../credentials/Access.js"
import { InvalidInput } from "../accounts/Errors.js"
import { makeProjectGate } from "../projects/ProjectGate.js"
import { type ProjectId, VoiceProfileId } from "../shared/Identifiers.js"
import { Transactor } from "../shared/Ports.js"
import { fn } from "../internal/Traced.js"
import { VoiceDefaultProfileAssignmentForbidden, VoiceLineNotFound } from "./Errors.js"
import { type LineRecord, LinesRepo } from "./Lines.js"
import { type VoiceProfileRecord, VoiceProfilesRepo } from "./Ports.js"
import type { VoiceProfileStore } from "./VoiceProfileStore.js"
import type { VoiceLineProfileAssignment, VoiceLineProfileAssignmentUpdate } from "./VoiceProfileSchema.js"

export const makeVoiceLineAssignments = (store: VoiceProfileStore) =>
  Effect.gen(function*() {
    const repo = yield* VoiceProfilesRepo
    const lines = yield* LinesRepo
    const tx = yield* Transactor
    const gate = yield* makeProjectGate
    const { checkVersion, lookup } = store

    const voiceLine = (projectId: string, lineId: string, lock: boolean) =>
      Effect.flatMap(lock ? lines.lock(projectId, lineId) : lines.find(projectId, lineId), (o) =>
        Option.isSome(o) && o.value.line.voiceCapable
          ? Effect.succeed(o.value)
          : Effect.fail(new VoiceLineNotFound({ lineId })))

    const assignmentView = (
      line: LineRecord,
      profile: VoiceProfileRecord | undefined
    ): VoiceLineProfileAssignment => ({
      ...(line.profileId === null || profile === undefined
        ? {}
        : { profileId: VoiceProfileId.make(line.profileId), profileVersion: profile.version }),
      projectId: line.line.projectId as ProjectId,
      resourceId: line.line.lineId,
      resourceVersion: line.assignmentVersion,
      updatedAt: line.assignmentUpdatedAt
    })

    const getAssignment = fn("VoiceProfiles.getAssignment")(function*(
      projectId: ProjectId,
      principal: Principal,
      lineId: string
    ) {
      yield* gate.open(projectId, principal, "read")
      const line = yield* voiceLine(projectId, lineId, false)
      const profile = line.profileId === null ? Option.none() : yield* repo.find(projectId, line.profileId)
      return assignmentView(line, Option.getOrUndefined(profile))
    })

    /**
     * Applies assignment updates all-or-nothing: profiles are locked first, then lines (both in id
     * order, the same order everywhere, so concurrent batches cannot deadlock); every check runs
     * before the first write.
     */
    const applyAssignments = (projectId: ProjectId, updates: ReadonlyArray<VoiceLineProfileAssignmentUpdate>) =>
      Effect.gen(function*() {
        const profileIds = [...new Set(updates.flatMap((u) => (u.profileId === null ? [] : [u.profileId])))].sort()
        const profiles = new Map<string, VoiceProfileRecord>()
        for (const profileId of profileIds) {
          const profile = yield* lookup(projectId, profileId, true)
          if (profile.isDefault) return yield* new VoiceDefaultProfileAssignmentForbidden({ profileId })
          profiles.set(profileId, profile)
        }
        const locked = new Map<string, LineRecord>()
        for (const lineId of [...updates.map((u) => u.resourceId)].sort()) {
          locked.set(lineId, yield* voiceLine(projectId, lineId, true))
        }
        for (const u of updates) {
          const line = locked.get(u.resourceId)!
          yield* checkVersion(u.resourceId, u.expectedVersion, line.assignmentVersion)
        }
        const now = yield* DateTime.now
        const out: Array<VoiceLineProfileAssignment> = []
        for (const u of updates) {
          const line = locked.get(u.resourceId)!
          let next = line
          if (line.profileId !== u.profileId) {
            next = { ...line, profileId: u.profileId, assignmentVersion: line.assignmentVersion + 1, assignmentUpdatedAt: now }
            yield* repo.setAssignment({
              projectId,
              lineId: u.resourceId,
              profileId: u.profileId,
              version: next.assignmentVersion,
              updatedAt: now
            })
          }
          out.push(assignmentView(next, u.profileId === null ? undefined : profiles.get(u.profileId)))
        }
        return out
      })

    const assign = fn("VoiceProfiles.assign")(function*(
      projectId: ProjectId,
      principal: Principal,
      lineId: string,
      input: { readonly expectedVersion: number; readonly profileId: string }
    ) {
      return yield* tx.withTransaction(Effect.gen(function*() {
        yield* gate.open(projectId, principal, "write")
        const [assignment] = yield* applyAssignments(projectId, [{
          resourceId: lineId,
          expectedVersion: input.expectedVersion,
          profileId: VoiceProfileId.make(input.profileId)
        }])
        return assignment!
      }))
    })

    /** Back to the default profile. */
    const unassign = fn("VoiceProfiles.unassign")(function*(
      projectId: ProjectId,
      principal: Principal,
      lineId: string,
      expectedVersion: number
    ) {
      yield* tx.withTransaction(Effect.gen(function*() {
        yield* gate.open(projectId, principal, "write")
        yield* applyAssignments(projectId, [{ resourceId: lineId, expectedVersion, profileId: null }])
      }))
    })

    const batchAssign = fn("VoiceProfiles.batchAssign")(function*(
      projectId: ProjectId,
      principal: Principal,
      updates: ReadonlyArray<VoiceLineProfileAssignmentUpdate>
    ) {
      if (updates.length < 1 || updates.length > 100) {
        return yield* new InvalidInput({ field: "updates", message: "must hold 1 to 100 updates" })
      }
      return yield* tx.withTransaction(Effect.gen(function*() {
        yield* gate.open(projectId, principal, "write")
        return yield* applyAssignments(projectId, updates)
      }))
    })

    return { getAssignment, assign, unassign, batchAssign } as const
  })
