/**
 * Voice profiles and line profile assignments (API.md §1.5; reference/contract.md §1 9e, §3.6).
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
import { DateTime, Duration, Effect, Either, Option, Redacted } from "effect"
import type { Principal } from "../credentials/Access.js"
import { InvalidInput } from "../accounts/Errors.js"
import { makeProjectGate } from "../projects/ProjectGate.js"
import { canonicalJson } from "../shared/Idempotency.js"
import { encodeBase32, IdKinds, type ProjectId, VoiceProfileId } from "../shared/Identifiers.js"
import { Ids } from "../shared/Ids.js"
import { createdAtPage } from "../shared/PageToken.js"
import { Transactor } from "../shared/Ports.js"
import { Secrets } from "../shared/Secrets.js"
import { ServerSecret } from "../shared/ServerSecret.js"
import { Schema } from "effect"
import {
  InvalidVoiceQuery,
  VoiceDefaultProfileAssignmentForbidden,
  VoiceDefaultProfileDeletionForbidden,
  VoiceDefaultProfileExists,
  VoiceDefaultProfileImmutable,
  VoiceDefaultProfileRequired,
  VoiceInboundNotConfigured,
  VoiceLineNotFound,
  VoiceOutboundConfigured,
  VoiceOutboundNotConfigured,
  VoiceOutboundOperationPending,
  VoiceProfileInUse,
  VoiceProfileNotFound,
  VoiceProfileVersionConflict
} from "./Errors.js"
import { type LineRecord, LinesRepo } from "./Lines.js"
import {
  type StoredSipInbound,
  type StoredSipOutbound,
  type VoiceProfileRecord,
  VoiceProfilesRepo,
  VoiceSettings
} from "./Ports.js"
import { digestMaterial, matchesDigest, sealDigestMaterial, sealInboundPassword, unsealInboundPassword } from "./SipDigest.js"
import type {
  SipAuthenticationAlgorithm,
  SipInboundConfiguration,
  SipInboundCredentialsWithPassword,
  SipOutboundConfiguration,
  VoiceLineProfileAssignment,
  VoiceLineProfileAssignmentUpdate,
  VoiceMediaEncryption,
  VoiceProfile
} from "./VoiceProfileSchema.js"
import { fn } from "../shared/Traced.js"

/** The default profile's fixed name. */
export const DEFAULT_VOICE_PROFILE_NAME = "Default"
const DEFAULT_PAGE_SIZE = 20

/** The inbound configuration as shown: never the password. */
export const inboundView = (inbound: StoredSipInbound | null): SipInboundConfiguration | null =>
  inbound === null ? null : {
    credentials: inbound.credentials === null ? null : { username: inbound.credentials.username },
    destinationUri: inbound.destinationUri
  }

export class VoiceProfiles extends Effect.Service<VoiceProfiles>()("core/VoiceProfiles", {
  effect: Effect.gen(function*() {
    const repo = yield* VoiceProfilesRepo
    const lines = yield* LinesRepo
    const ids = yield* Ids
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
              outbound.previous !== null && DateTime.greaterThan(outbound.previous.validUntil, now)
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

    /** `"default"` or a profile id. */
    type ProfileRef = string
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
        const inserted = yield* Effect.either(repo.insert(record))
        if (Either.isLeft(inserted)) {
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

    // -------------------------------------------------------------------------------------------
    // Outbound SIP

    /** A fresh SIP password: 32 base32 characters (160 bits). */
    const newPassword = Effect.map(secrets.randomBytes(20), (b) => Redacted.make(encodeBase32(b)))
    const newUsername = Effect.map(secrets.randomBytes(10), (b) => `sb${encodeBase32(b)}`)

    const configureOutbound = fn("VoiceProfiles.configureOutbound")(function*(
      projectId: ProjectId,
      principal: Principal,
      ref: ProfileRef,
      input: { readonly algorithm: SipAuthenticationAlgorithm; readonly expectedVersion: number }
    ) {
      const password = yield* newPassword
      const { record } = yield* mutate(projectId, principal, ref, input.expectedVersion, (r, now) =>
        Effect.gen(function*() {
          if (r.outbound !== null) return yield* new VoiceOutboundConfigured({ profileId: r.profileId })
          const username = yield* newUsername
          const material = yield* digestMaterial(username, settings.sipRealm, Redacted.value(password))
          const outbound: StoredSipOutbound = {
            algorithm: input.algorithm,
            username,
            realm: settings.sipRealm,
            validFrom: now,
            current: yield* withKeys(sealDigestMaterial(material)),
            previous: null
          }
          return { record: { ...r, outbound }, result: undefined }
        }))
      const now = yield* DateTime.now
      return { outbound: (yield* outboundView(record.outbound, now))!, password, profileVersion: record.version }
    })

    /** Changes the Digest algorithm only: username, password and grace period stay. */
    const updateOutboundAuthentication = fn("VoiceProfiles.updateOutboundAuthentication")(function*(
      projectId: ProjectId,
      principal: Principal,
      ref: ProfileRef,
      input: { readonly algorithm: SipAuthenticationAlgorithm; readonly expectedVersion: number }
    ) {
      const { record } = yield* mutate(projectId, principal, ref, input.expectedVersion, (r) => {
        if (r.outbound === null) return Effect.fail(new VoiceOutboundNotConfigured({ profileId: r.profileId }))
        return r.outbound.algorithm === input.algorithm
          ? unchanged(r, undefined)
          : changedTo({ ...r, outbound: { ...r.outbound, algorithm: input.algorithm } }, undefined)
      })
      const now = yield* DateTime.now
      return { outbound: (yield* outboundView(record.outbound, now))!, profileVersion: record.version }
    })

    const rotateOutbound = fn("VoiceProfiles.rotateOutbound")(function*(
      projectId: ProjectId,
      principal: Principal,
      ref: ProfileRef,
      input: { readonly mode: "normal" | "emergency"; readonly expectedVersion: number }
    ) {
      const password = yield* newPassword
      const { record, result } = yield* mutate(projectId, principal, ref, input.expectedVersion, (r, now) =>
        Effect.gen(function*() {
          const outbound = r.outbound
          if (outbound === null) return yield* new VoiceOutboundNotConfigured({ profileId: r.profileId })
          if (
            input.mode === "normal" && outbound.previous !== null && DateTime.greaterThan(outbound.previous.validUntil, now)
          ) {
            return yield* new VoiceOutboundOperationPending({
              profileId: r.profileId,
              until: DateTime.formatIso(outbound.previous.validUntil),
              retryAfterSeconds: Math.max(1, Math.ceil((outbound.previous.validUntil.epochMillis - now.epochMillis) / 1000))
            })
          }
          const material = yield* digestMaterial(outbound.username, outbound.realm, Redacted.value(password))
          const validUntil = input.mode === "normal"
            ? DateTime.addDuration(now, Duration.seconds(settings.rotationGraceSeconds))
            : null
          const next: StoredSipOutbound = {
            ...outbound,
            validFrom: now,
            current: yield* withKeys(sealDigestMaterial(material)),
            previous: validUntil === null ? null : { material: outbound.current, validUntil }
          }
          return { record: { ...r, outbound: next }, result: validUntil }
        }))
      return { password, previousPasswordValidUntil: result, profileVersion: record.version }
    })

    const deleteOutbound = fn("VoiceProfiles.deleteOutbound")(function*(
      projectId: ProjectId,
      principal: Principal,
      ref: ProfileRef,
      expectedVersion: number
    ) {
      const { record } = yield* mutate(projectId, principal, ref, expectedVersion, (r) =>
        r.outbound === null
          ? Effect.fail(new VoiceOutboundNotConfigured({ profileId: r.profileId }))
          : changedTo({ ...r, outbound: null }, undefined))
      return { profileVersion: record.version }
    })

    /**
     * For the SIP edge: whether a Digest username/password is the profile's current outbound
     * credential, or the previous one within its grace period.
     */
    const verifyOutboundPassword = fn("VoiceProfiles.verifyOutboundPassword")(function*(
      projectId: string,
      profileId: string,
      credentials: { readonly username: string; readonly password: Redacted.Redacted<string> }
    ) {
      const found = yield* repo.find(projectId, profileId)
      if (Option.isNone(found) || found.value.outbound === null) return false
      const o = found.value.outbound
      if (credentials.username !== o.username) return false
      const password = Redacted.value(credentials.password)
      if (yield* withKeys(matchesDigest(o.current, o.algorithm, o.username, o.realm, password))) return true
      const now = yield* DateTime.now
      return o.previous !== null && DateTime.greaterThan(o.previous.validUntil, now) &&
        (yield* withKeys(matchesDigest(o.previous.material, o.algorithm, o.username, o.realm, password)))
    })

    // -------------------------------------------------------------------------------------------
    // Inbound SIP

    const storedCredentials = (credentials: SipInboundCredentialsWithPassword | null) =>
      credentials === null
        ? Effect.succeed(null)
        : Effect.map(withKeys(sealInboundPassword(credentials.password)), (passwordSealed) => ({
          username: credentials.username,
          passwordSealed
        }))

    /** Creates or replaces the inbound destination; `created` when there was none. */
    const replaceInbound = fn("VoiceProfiles.replaceInbound")(function*(
      projectId: ProjectId,
      principal: Principal,
      ref: ProfileRef,
      input: {
        readonly credentials: SipInboundCredentialsWithPassword | null
        readonly destinationUri: string
        readonly expectedVersion: number
      }
    ) {
      const credentials = yield* storedCredentials(input.credentials)
      const { record, result } = yield* mutate(projectId, principal, ref, input.expectedVersion, (r) =>
        changedTo({ ...r, inbound: { destinationUri: input.destinationUri, credentials } }, r.inbound === null))
      return { inbound: inboundView(record.inbound), profileVersion: record.version, created: result }
    })

    /** Partial update: `credentials` omitted keeps them, null removes them, an object replaces them. */
    const updateInbound = fn("VoiceProfiles.updateInbound")(function*(
      projectId: ProjectId,
      principal: Principal,
      ref: ProfileRef,
      input: {
        readonly expectedVersion: number
        readonly credentials?: SipInboundCredentialsWithPassword | null | undefined
        readonly destinationUri?: string | undefined
      }
    ) {
      if (input.credentials === undefined && input.destinationUri === undefined) {
        return yield* new InvalidInput({ field: "destinationUri", message: "or credentials must be given" })
      }
      const credentials = input.credentials === undefined ? undefined : yield* storedCredentials(input.credentials)
      const { record } = yield* mutate(projectId, principal, ref, input.expectedVersion, (r) => {
        if (r.inbound === null) return Effect.fail(new VoiceInboundNotConfigured({ profileId: r.profileId }))
        return changedTo({
          ...r,
          inbound: {
            destinationUri: input.destinationUri ?? r.inbound.destinationUri,
            credentials: credentials === undefined ? r.inbound.credentials : credentials
          }
        }, undefined)
      })
      return { inbound: inboundView(record.inbound), profileVersion: record.version }
    })

    const deleteInbound = fn("VoiceProfiles.deleteInbound")(function*(
      projectId: ProjectId,
      principal: Principal,
      ref: ProfileRef,
      expectedVersion: number
    ) {
      const { record } = yield* mutate(projectId, principal, ref, expectedVersion, (r) =>
        r.inbound === null ? unchanged(r, undefined) : changedTo({ ...r, inbound: null }, undefined))
      return { inbound: null, profileVersion: record.version }
    })

    /** For the SIP edge: where to deliver a call of this profile, with the password to present. */
    const inboundDestination = fn("VoiceProfiles.inboundDestination")(function*(projectId: string, profileId: string) {
      const found = yield* repo.find(projectId, profileId)
      if (Option.isNone(found) || found.value.inbound === null) return Option.none()
      const inbound = found.value.inbound
      if (inbound.credentials === null) {
        return Option.some({ destinationUri: inbound.destinationUri, credentials: null })
      }
      const password = yield* withKeys(unsealInboundPassword(inbound.credentials.passwordSealed))
      return Option.some({
        destinationUri: inbound.destinationUri,
        credentials: password === undefined
          ? null
          : { username: inbound.credentials.username, password: Redacted.make(password) }
      })
    })

    // -------------------------------------------------------------------------------------------
    // Line profile assignments

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

    return {
      getDefault,
      get,
      createDefault,
      create,
      update,
      list,
      remove,
      configureOutbound,
      updateOutboundAuthentication,
      rotateOutbound,
      deleteOutbound,
      verifyOutboundPassword,
      replaceInbound,
      updateInbound,
      deleteInbound,
      inboundDestination,
      getAssignment,
      assign,
      unassign,
      batchAssign
    } as const
  }),
  dependencies: [Ids.Default]
}) {}
