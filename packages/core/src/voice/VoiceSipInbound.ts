/**
 * Inbound SIP of a voice profile (docs/api-notes/voice.md): where calls are
 * delivered, with optional credentials whose password is stored sealed (it must be replayed to the
 * customer's server) and never shown again. The SIP edge reads it with `inboundDestination`.
 */
import { Effect, Option, Redacted } from "effect"
import type { Principal } from "../credentials/Access.js"
import { InvalidInput } from "../accounts/Errors.js"
import type { ProjectId } from "../shared/Identifiers.js"
import { fn } from "../internal/Traced.js"
import { VoiceInboundNotConfigured } from "./Errors.js"
import { VoiceProfilesRepo } from "./Ports.js"
import { sealInboundPassword, unsealInboundPassword } from "./SipDigest.js"
import { inboundView, type ProfileRef, type VoiceProfileStore } from "./VoiceProfileStore.js"
import type { SipInboundCredentialsWithPassword } from "./VoiceProfileSchema.js"

export const makeVoiceSipInbound = (store: VoiceProfileStore) =>
  Effect.gen(function*() {
    const repo = yield* VoiceProfilesRepo
    const { changedTo, mutate, unchanged, withKeys } = store

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
    return { replaceInbound, updateInbound, deleteInbound, inboundDestination } as const
  })
