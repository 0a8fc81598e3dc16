/**
 * What every voice-profile use case shares (docs/api-notes/voice.md): rendering a profile, finding
 * one by `"default"` or id, and `mutate` — the versioned write under the row lock
 * (`expectedVersion` against the profile's `version`; a change bumps it, a write that changes
 * nothing does not). `VoiceProfiles.ts` composes the use cases built on it.
 */
import { DateTime, Effect, Option, Schema } from "effect"
import type { Principal } from "../credentials/Access.js"
import { makeProjectGate } from "../projects/ProjectGate.js"
import { type ProjectId, VoiceProfileId } from "../shared/Identifiers.js"
import { Transactor } from "../shared/Ports.js"
import { Secrets } from "../shared/Secrets.js"
import { ServerSecret } from "../shared/ServerSecret.js"
import { VoiceProfileNotFound, VoiceProfileVersionConflict } from "./Errors.js"
import { type StoredSipInbound, type StoredSipOutbound, type VoiceProfileRecord, VoiceProfilesRepo, VoiceSettings } from "./Ports.js"
import type { SipInboundConfiguration, SipOutboundConfiguration, VoiceProfile } from "./VoiceProfileSchema.js"

/** `"default"` or a profile id. */
export type ProfileRef = string

/** The inbound configuration as shown: never the password. */
export const inboundView = (inbound: StoredSipInbound | null): SipInboundConfiguration | null =>
  inbound === null ? null : {
    credentials: inbound.credentials === null ? null : { username: inbound.credentials.username },
    destinationUri: inbound.destinationUri
  }

export const makeVoiceProfileStore = Effect.gen(function*() {
  const repo = yield* VoiceProfilesRepo
  const tx = yield* Transactor
  const secrets = yield* Secrets
  const serverSecret = yield* ServerSecret
  const gate = yield* makeProjectGate
  const settings = yield* VoiceSettings
  const withKeys = <A, E>(self: Effect.Effect<A, E, ServerSecret | Secrets>) =>
    self.pipe(Effect.provideService(ServerSecret, serverSecret), Effect.provideService(Secrets, secrets))

  // -------------------------------------------------------------------------------------------
  // Rendering

  const outboundView = (outbound: StoredSipOutbound | null, now: DateTime.Utc) =>
    Effect.succeed<SipOutboundConfiguration | null>(
      outbound === null ? null : {
        authentication: {
          algorithm: outbound.algorithm,
          previousPasswordValidUntil:
            outbound.previous !== null && DateTime.isGreaterThan(outbound.previous.validUntil, now)
              ? outbound.previous.validUntil
              : null,
          username: outbound.username,
          validFrom: outbound.validFrom
        },
        connection: { endpoints: settings.sipEndpoints, realm: outbound.realm }
      })

  const view = (record: VoiceProfileRecord, lineCount: number) =>
    Effect.gen(function*() {
      const now = yield* DateTime.now
      return {
        configuration: { inbound: inboundView(record.inbound), outbound: yield* outboundView(record.outbound, now) },
        createdAt: record.createdAt,
        isDefault: record.isDefault,
        lineCount,
        mediaEncryption: record.mediaEncryption,
        name: record.name,
        profileId: record.profileId,
        projectId: record.projectId,
        protocol: record.protocol,
        updatedAt: record.updatedAt,
        version: record.version
      } satisfies VoiceProfile
    })

  const lineCountOf = (record: VoiceProfileRecord) =>
    record.isDefault
      ? repo.defaultLineCount(record.projectId)
      : Effect.map(repo.lineCounts(record.projectId, [record.profileId]), (m) => m.get(record.profileId) ?? 0)

  const render = (record: VoiceProfileRecord) => Effect.flatMap(lineCountOf(record), (n) => view(record, n))

  // -------------------------------------------------------------------------------------------
  // Reads and versioned writes

  const found = (profileId: string) => (o: Option.Option<VoiceProfileRecord>) =>
    Option.isSome(o) ? Effect.succeed(o.value) : Effect.fail(new VoiceProfileNotFound({ profileId }))

  const lookup = (projectId: string, ref: ProfileRef, lock: boolean) =>
    ref === "default"
      ? Effect.flatMap(lock ? repo.lockDefault(projectId) : repo.findDefault(projectId), found("default"))
      : Schema.is(VoiceProfileId)(ref)
      ? Effect.flatMap(lock ? repo.lock(projectId, ref) : repo.find(projectId, ref), found(ref))
      : Effect.fail(new VoiceProfileNotFound({ profileId: ref }))

  const checkVersion = (resourceId: string, expectedVersion: number, currentVersion: number) =>
    expectedVersion === currentVersion
      ? Effect.void
      : Effect.fail(new VoiceProfileVersionConflict({ resourceId, expectedVersion, currentVersion }))

  /**
   * Locks the profile, checks `expectedVersion`, applies `change` (which may fail, or return the
   * record unchanged), and stores a changed record with the next version. One transaction.
   */
  const mutate = <A, E>(
    projectId: ProjectId,
    principal: Principal,
    ref: ProfileRef,
    expectedVersion: number,
    change: (record: VoiceProfileRecord, now: DateTime.Utc) => Effect.Effect<{ readonly record: VoiceProfileRecord; readonly result: A }, E>
  ) =>
    tx.withTransaction(Effect.gen(function*() {
      yield* gate.open(projectId, principal, "write")
      const record = yield* lookup(projectId, ref, true)
      yield* checkVersion(record.profileId, expectedVersion, record.version)
      const now = yield* DateTime.now
      const changed = yield* change(record, now)
      if (changed.record === record) return { record, result: changed.result }
      const next: VoiceProfileRecord = { ...changed.record, version: record.version + 1, updatedAt: now }
      yield* repo.update(next)
      return { record: next, result: changed.result }
    }))

  const unchanged = <A>(record: VoiceProfileRecord, result: A) => Effect.succeed({ record, result })
  const changedTo = <A>(record: VoiceProfileRecord, result: A) => Effect.succeed({ record, result })

  return { withKeys, outboundView, view, lineCountOf, render, lookup, checkVersion, mutate, unchanged, changedTo } as const
})

export type VoiceProfileStore = Effect.Success<typeof makeVoiceProfileStore>
