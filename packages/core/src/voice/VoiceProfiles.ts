/**
 * Voice profiles and line profile assignments (docs/api-notes/voice.md).
 *
 * - A project has one **default** profile (created by `PUT …/profiles/default`; an identical
 *   repeat returns it unchanged, a different one is `VOICE_DEFAULT_PROFILE_EXISTS`) and any number
 *   of **additional** ones (which need the default first). The default's name is fixed ("Default")
 *   and it can be neither deleted nor assigned explicitly: a line follows it by having no override.
 * - Every change goes through `expectedVersion` against the profile's `version` (mismatch →
 *   `VOICE_PROFILE_VERSION_CONFLICT`), with the row locked; a change bumps the version, a write that
 *   changes nothing does not.
 * - Outbound SIP: `configureOutbound` creates the Digest credential and returns the password
 *   **once**; only sealed Digest material is stored (voice/SipDigest.ts). A normal rotation keeps
 *   the previous password valid for a grace period (1 h by default) — while it runs, another normal
 *   rotation is `VOICE_OUTBOUND_OPERATION_PENDING`; an emergency rotation ends it at once.
 * - Inbound SIP: where calls are delivered, with optional credentials whose password is stored
 *   sealed (it must be replayed to the customer's server) and never shown again.
 * - Assignments: a voice-capable line's explicit override and its own `resourceVersion`; the batch
 *   form (1–100) is all-or-nothing: every line and profile is checked before anything is written.
 */
import { Context, DateTime, Effect, Layer, Option, Result } from "effect"
import type { Principal } from "../credentials/Access.js"
import { makeProjectGate } from "../projects/ProjectGate.js"
import { canonicalJson } from "../shared/Idempotency.js"
import { IdKinds, type ProjectId, VoiceProfileId } from "../shared/Identifiers.js"
import { Ids } from "../shared/Ids.js"
import { createdAtPage } from "../shared/PageToken.js"
import { Transactor } from "../shared/Ports.js"
import { fn } from "../internal/Traced.js"
import {
  InvalidVoiceQuery,
  VoiceDefaultProfileDeletionForbidden,
  VoiceDefaultProfileExists,
  VoiceDefaultProfileImmutable,
  VoiceDefaultProfileRequired,
  VoiceProfileInUse
} from "./Errors.js"
import { type VoiceProfileRecord, VoiceProfilesRepo } from "./Ports.js"
import { makeVoiceLineAssignments } from "./VoiceLineAssignments.js"
import type { VoiceMediaEncryption } from "./VoiceProfileSchema.js"
import { makeVoiceProfileStore, type ProfileRef } from "./VoiceProfileStore.js"
import { makeVoiceSipInbound } from "./VoiceSipInbound.js"
import { makeVoiceSipOutbound } from "./VoiceSipOutbound.js"

export { inboundView } from "./VoiceProfileStore.js"

/** The default profile's fixed name. */
export const DEFAULT_VOICE_PROFILE_NAME = "Default"
const DEFAULT_PAGE_SIZE = 20

export class VoiceProfiles extends Context.Service<VoiceProfiles>()("core/VoiceProfiles", {
  make: Effect.gen(function*() {
    const repo = yield* VoiceProfilesRepo
    const ids = yield* Ids
    const tx = yield* Transactor
    const gate = yield* makeProjectGate
    const store = yield* makeVoiceProfileStore
    const { changedTo, checkVersion, lookup, mutate, render, unchanged, view, withKeys } = store
    const outbound = yield* makeVoiceSipOutbound(store)
    const inbound = yield* makeVoiceSipInbound(store)
    const assignments = yield* makeVoiceLineAssignments(store)

    // -------------------------------------------------------------------------------------------
    // Profiles

    const getDefault = fn("VoiceProfiles.getDefault")(function*(projectId: ProjectId, principal: Principal) {
      yield* gate.open(projectId, principal, "read")
      return yield* render(yield* lookup(projectId, "default", false))
    })

    const get = fn("VoiceProfiles.get")(function*(projectId: ProjectId, principal: Principal, profileId: string) {
      yield* gate.open(projectId, principal, "read")
      return yield* render(yield* lookup(projectId, profileId, false))
    })

    const newRecord = (projectId: ProjectId, fields: {
      readonly name: string
      readonly isDefault: boolean
      readonly mediaEncryption: VoiceMediaEncryption
    }) =>
      Effect.gen(function*() {
        const now = yield* DateTime.now
        return {
          profileId: VoiceProfileId.make(yield* ids.typeId(IdKinds.voiceProfile)),
          projectId,
          name: fields.name,
          isDefault: fields.isDefault,
          protocol: "sip",
          mediaEncryption: fields.mediaEncryption,
          version: 1,
          createdAt: now,
          updatedAt: now,
          inbound: null,
          outbound: null
        } satisfies VoiceProfileRecord
      })

    /**
     * Creates the default profile if absent (`created: true`); an identical existing one is
     * returned as it is; a different one is `VoiceDefaultProfileExists`.
     */
    const createDefault = fn("VoiceProfiles.createDefault")(function*(
      projectId: ProjectId,
      principal: Principal,
      input: { readonly protocol: "sip"; readonly mediaEncryption?: VoiceMediaEncryption | undefined }
    ) {
      const mediaEncryption = input.mediaEncryption ?? "auto"
      const same = (existing: VoiceProfileRecord) =>
        existing.protocol === input.protocol && existing.mediaEncryption === mediaEncryption
          ? Effect.map(render(existing), (profile) => ({ profile, created: false }))
          : Effect.fail(new VoiceDefaultProfileExists({ profileId: existing.profileId }))
      return yield* tx.withTransaction(Effect.gen(function*() {
        yield* gate.open(projectId, principal, "write")
        const existing = yield* repo.findDefault(projectId)
        if (Option.isSome(existing)) return yield* same(existing.value)
        const record = yield* newRecord(projectId, { name: DEFAULT_VOICE_PROFILE_NAME, isDefault: true, mediaEncryption })
        const inserted = yield* Effect.result(repo.insert(record))
        if (Result.isFailure(inserted)) {
          // A concurrent create won: answer as if we had come second.
          return yield* Effect.flatMap(lookup(projectId, "default", false), same)
        }
        return { profile: yield* view(record, yield* repo.defaultLineCount(projectId)), created: true }
      }))
    })

    const create = fn("VoiceProfiles.create")(function*(
      projectId: ProjectId,
      principal: Principal,
      input: { readonly name: string; readonly protocol: "sip"; readonly mediaEncryption?: VoiceMediaEncryption | undefined }
    ) {
      return yield* tx.withTransaction(Effect.gen(function*() {
        yield* gate.open(projectId, principal, "write")
        if (Option.isNone(yield* repo.findDefault(projectId))) return yield* new VoiceDefaultProfileRequired()
        const record = yield* newRecord(projectId, {
          name: input.name,
          isDefault: false,
          mediaEncryption: input.mediaEncryption ?? "auto"
        })
        yield* repo.insert(record)
        return yield* view(record, 0)
      }))
    })

    const update = fn("VoiceProfiles.update")(function*(
      projectId: ProjectId,
      principal: Principal,
      ref: ProfileRef,
      input: {
        readonly expectedVersion: number
        readonly name?: string | undefined
        readonly protocol?: "sip" | undefined
        readonly mediaEncryption?: VoiceMediaEncryption | undefined
      }
    ) {
      const { record } = yield* mutate(projectId, principal, ref, input.expectedVersion, (r) => {
        if (input.name !== undefined && r.isDefault && input.name !== r.name) {
          return Effect.fail(new VoiceDefaultProfileImmutable({ field: "name" }))
        }
        const next: VoiceProfileRecord = {
          ...r,
          name: input.name ?? r.name,
          protocol: input.protocol ?? r.protocol,
          mediaEncryption: input.mediaEncryption ?? r.mediaEncryption
        }
        const same = next.name === r.name && next.protocol === r.protocol && next.mediaEncryption === r.mediaEncryption
        return same ? unchanged(r, undefined) : changedTo(next, undefined)
      })
      return yield* render(record)
    })

    const list = fn("VoiceProfiles.list")(function*(
      projectId: ProjectId,
      principal: Principal,
      input: { readonly default?: "true" | "false" | undefined; readonly pageSize?: number | undefined; readonly pageToken?: string | undefined }
    ) {
      yield* gate.open(projectId, principal, "read")
      const pageSize = input.pageSize ?? DEFAULT_PAGE_SIZE
      const isDefault = input.default === undefined ? undefined : input.default === "true"
      const listName = `voice-profiles:${projectId}:${canonicalJson({ default: isDefault ?? null })}`
      const { page, nextPageToken } = yield* withKeys(createdAtPage({
        list: listName,
        pageSize,
        pageToken: input.pageToken,
        fetch: (after, limit) =>
          repo.list({ projectId, isDefault, after: after && { createdAt: after.createdAt, profileId: after.id }, limit }),
        positionOf: (r) => ({ createdAt: r.createdAt, id: r.profileId }),
        invalidToken: (message) => new InvalidVoiceQuery({ parameter: "pageToken", message })
      }))
      const counts = yield* repo.lineCounts(projectId, page.filter((r) => !r.isDefault).map((r) => r.profileId))
      const defaultCount = page.some((r) => r.isDefault) ? yield* repo.defaultLineCount(projectId) : 0
      const profiles = yield* Effect.forEach(page, (r) => view(r, r.isDefault ? defaultCount : counts.get(r.profileId) ?? 0))
      return { profiles, nextPageToken }
    })

    /** Deletes an additional profile; one assigned to lines needs `force` (its lines go back to the default). */
    const remove = fn("VoiceProfiles.remove")(function*(
      projectId: ProjectId,
      principal: Principal,
      ref: ProfileRef,
      input: { readonly expectedVersion: number; readonly force: boolean }
    ) {
      yield* tx.withTransaction(Effect.gen(function*() {
        yield* gate.open(projectId, principal, "write")
        const record = yield* lookup(projectId, ref, true)
        if (record.isDefault) return yield* new VoiceDefaultProfileDeletionForbidden({ profileId: record.profileId })
        yield* checkVersion(record.profileId, input.expectedVersion, record.version)
        const lineCount = (yield* repo.lineCounts(projectId, [record.profileId])).get(record.profileId) ?? 0
        if (lineCount > 0 && !input.force) return yield* new VoiceProfileInUse({ profileId: record.profileId, lineCount })
        if (lineCount > 0) yield* repo.clearAssignments({ projectId, profileId: record.profileId, now: yield* DateTime.now })
        yield* repo.remove(projectId, record.profileId)
      }))
    })

    return {
      getDefault,
      get,
      createDefault,
      create,
      update,
      list,
      remove,
      ...outbound,
      ...inbound,
      ...assignments
    } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(Layer.provide([Ids.layer]))
}
