/**
 * Outbound SIP of a voice profile (docs/api-notes/voice.md): `configureOutbound`
 * creates the Digest credential and returns the password **once**; only sealed Digest material is
 * stored (voice/SipDigest.ts). A normal rotation keeps the previous password valid for a grace
 * period (1 h by default) — while it runs, another normal rotation is
 * `VOICE_OUTBOUND_OPERATION_PENDING`; an emergency rotation ends it at once. The SIP edge checks a
 * password with `verifyOutboundPassword`.
 */
import { DateTime, Duration, Effect, Option, Redacted } from "effect"
import type { Principal } from "../credentials/Access.js"
import { encodeBase32, type ProjectId } from "../shared/Identifiers.js"
import { Secrets } from "../shared/Secrets.js"
import { fn } from "../internal/Traced.js"
import { VoiceOutboundConfigured, VoiceOutboundNotConfigured, VoiceOutboundOperationPending } from "./Errors.js"
import { type StoredSipOutbound, VoiceProfilesRepo, VoiceSettings } from "./Ports.js"
import { digestMaterial, matchesDigest, sealDigestMaterial } from "./SipDigest.js"
import type { ProfileRef, VoiceProfileStore } from "./VoiceProfileStore.js"
import type { SipAuthenticationAlgorithm } from "./VoiceProfileSchema.js"

export const makeVoiceSipOutbound = (store: VoiceProfileStore) =>
  Effect.gen(function*() {
    const repo = yield* VoiceProfilesRepo
    const secrets = yield* Secrets
    const settings = yield* VoiceSettings
    const { changedTo, mutate, outboundView, unchanged, withKeys } = store

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
            input.mode === "normal" && outbound.previous !== null && DateTime.isGreaterThan(outbound.previous.validUntil, now)
          ) {
            return yield* new VoiceOutboundOperationPending({
              profileId: r.profileId,
              until: DateTime.formatIso(outbound.previous.validUntil),
              retryAfterSeconds: Math.max(1, Math.ceil((DateTime.toEpochMillis(outbound.previous.validUntil) - DateTime.toEpochMillis(now)) / 1000))
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
      return o.previous !== null && DateTime.isGreaterThan(o.previous.validUntil, now) &&
        (yield* withKeys(matchesDigest(o.previous.material, o.algorithm, o.username, o.realm, password)))
    })
    return { configureOutbound, updateOutboundAuthentication, rotateOutbound, deleteOutbound, verifyOutboundPassword } as const
  })
