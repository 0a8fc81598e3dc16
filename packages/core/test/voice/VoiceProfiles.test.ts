/**
 * Voice profiles (docs/api-notes/voice.md) on the memory store: default and additional
 * profiles with versions, outbound SIP (password once, digest material only, rotation grace driven
 * by TestClock), inbound SIP (sealed password), and line profile assignments.
 */
import { describe, expect, it } from "@effect/vitest"
import { VoiceProfileId } from "@switchboard/core/shared"
import { Lines, VoiceProfiles } from "@switchboard/core/voice"
import { MemoryState, VOICE_PROFILES_TABLE } from "@switchboard/testkit"
import { DateTime, Effect, Redacted } from "effect"
import { TestClock } from "effect/testing"
import { Env, failureOf, type ProjectCtx, setupProject, T0 } from "./VoiceFixtures.js"

const tagOf = <A, E extends { readonly _tag: string }, R>(self: Effect.Effect<A, E, R>) =>
  Effect.map(failureOf(self), (e) => e?._tag)

/** Everything the memory store holds for voice profiles, as text (to look for secrets in it). */
const storedProfilesText = Effect.map(MemoryState, (s) => JSON.stringify([...s.table(VOICE_PROFILES_TABLE).values()]))

const withDefault = (ctx: ProjectCtx) =>
  Effect.flatMap(VoiceProfiles, (p) => p.createDefault(ctx.projectId, ctx.principal, { protocol: "sip" }))

describe("VoiceProfiles: profiles and versions", () => {
  it.effect("createDefault: created once; an identical repeat returns it unchanged; a different one conflicts", () =>
    Effect.gen(function*() {
      const ctx = yield* setupProject
      const profiles = yield* VoiceProfiles
      expect(yield* tagOf(profiles.getDefault(ctx.projectId, ctx.principal))).toBe("VoiceProfileNotFound")
      const first = yield* profiles.createDefault(ctx.projectId, ctx.principal, { protocol: "sip" })
      expect(first.created).toBe(true)
      expect(first.profile).toMatchObject({
        isDefault: true,
        name: "Default",
        protocol: "sip",
        mediaEncryption: "auto",
        version: 1,
        lineCount: 0,
        configuration: { inbound: null, outbound: null }
      })
      const again = yield* profiles.createDefault(ctx.projectId, ctx.principal, { protocol: "sip", mediaEncryption: "auto" })
      expect(again).toEqual({ profile: first.profile, created: false })
      expect(yield* tagOf(profiles.createDefault(ctx.projectId, ctx.principal, { protocol: "sip", mediaEncryption: "srtp" })))
        .toBe("VoiceDefaultProfileExists")
      expect(yield* profiles.getDefault(ctx.projectId, ctx.principal)).toEqual(first.profile)
    }).pipe(Effect.provide(Env)))

  it.effect("additional profiles need the default; updates check expectedVersion and bump only on change", () =>
    Effect.gen(function*() {
      const ctx = yield* setupProject
      const profiles = yield* VoiceProfiles
      expect(yield* tagOf(profiles.create(ctx.projectId, ctx.principal, { name: "Sales", protocol: "sip" })))
        .toBe("VoiceDefaultProfileRequired")
      yield* withDefault(ctx)
      // Lists are ordered by creation time (then id): the profiles are created a second apart.
      yield* TestClock.adjust("1 second")
      const sales = yield* profiles.create(ctx.projectId, ctx.principal, { name: "Sales", protocol: "sip" })
      expect(sales).toMatchObject({ isDefault: false, name: "Sales", version: 1 })
      const conflict = yield* failureOf(profiles.update(ctx.projectId, ctx.principal, sales.profileId, { expectedVersion: 2, name: "X" }))
      expect(conflict).toMatchObject({ _tag: "VoiceProfileVersionConflict", expectedVersion: 2, currentVersion: 1 })
      const same = yield* profiles.update(ctx.projectId, ctx.principal, sales.profileId, { expectedVersion: 1, name: "Sales" })
      expect(same.version).toBe(1)
      yield* TestClock.adjust("1 second")
      const renamed = yield* profiles.update(ctx.projectId, ctx.principal, sales.profileId, { expectedVersion: 1, name: "Support", mediaEncryption: "srtp" })
      expect(renamed).toMatchObject({ name: "Support", mediaEncryption: "srtp", version: 2 })
      expect(DateTime.toEpochMillis(renamed.updatedAt)).toBe(T0 + 2000)
      expect(yield* tagOf(profiles.update(ctx.projectId, ctx.principal, "default", { expectedVersion: 1, name: "Mine" })))
        .toBe("VoiceDefaultProfileImmutable")
      const page = yield* profiles.list(ctx.projectId, ctx.principal, {})
      expect(page.profiles.map((p) => p.name)).toEqual(["Default", "Support"])
      expect((yield* profiles.list(ctx.projectId, ctx.principal, { default: "false" })).profiles.map((p) => p.name)).toEqual(["Support"])
      const first = yield* profiles.list(ctx.projectId, ctx.principal, { pageSize: 1 })
      expect(first.profiles.map((p) => p.name)).toEqual(["Default"])
      const second = yield* profiles.list(ctx.projectId, ctx.principal, { pageSize: 1, pageToken: first.nextPageToken })
      expect(second.profiles.map((p) => p.name)).toEqual(["Support"])
      expect(second.nextPageToken).toBeUndefined()
      expect(yield* tagOf(profiles.list(ctx.projectId, ctx.principal, { default: "true", pageToken: first.nextPageToken })))
        .toBe("InvalidVoiceQuery")
    }).pipe(Effect.provide(Env)))

  it.effect("delete: never the default; an assigned profile needs force, which moves its lines back to the default", () =>
    Effect.gen(function*() {
      const ctx = yield* setupProject
      const profiles = yield* VoiceProfiles
      const def = (yield* withDefault(ctx)).profile
      const sales = yield* profiles.create(ctx.projectId, ctx.principal, { name: "Sales", protocol: "sip" })
      const line = yield* (yield* Lines).allocate({ projectId: ctx.projectId, platform: "voice" })
      yield* profiles.assign(ctx.projectId, ctx.principal, line.lineId, { expectedVersion: 1, profileId: sales.profileId })
      expect((yield* profiles.get(ctx.projectId, ctx.principal, sales.profileId)).lineCount).toBe(1)
      expect((yield* profiles.getDefault(ctx.projectId, ctx.principal)).lineCount).toBe(0)
      expect(yield* tagOf(profiles.remove(ctx.projectId, ctx.principal, def.profileId, { expectedVersion: 1, force: true })))
        .toBe("VoiceDefaultProfileDeletionForbidden")
      expect(yield* tagOf(profiles.remove(ctx.projectId, ctx.principal, sales.profileId, { expectedVersion: 9, force: true })))
        .toBe("VoiceProfileVersionConflict")
      expect(yield* failureOf(profiles.remove(ctx.projectId, ctx.principal, sales.profileId, { expectedVersion: 1, force: false })))
        .toMatchObject({ _tag: "VoiceProfileInUse", lineCount: 1 })
      yield* profiles.remove(ctx.projectId, ctx.principal, sales.profileId, { expectedVersion: 1, force: true })
      expect(yield* tagOf(profiles.get(ctx.projectId, ctx.principal, sales.profileId))).toBe("VoiceProfileNotFound")
      const assignment = yield* profiles.getAssignment(ctx.projectId, ctx.principal, line.lineId)
      expect(assignment).not.toHaveProperty("profileId")
      expect(assignment.resourceVersion).toBe(3)
      expect((yield* profiles.getDefault(ctx.projectId, ctx.principal)).lineCount).toBe(1)
    }).pipe(Effect.provide(Env)))
})

describe("VoiceProfiles: outbound SIP", () => {
  it.effect("configure: the password once, only sealed digest material stored; a second configure conflicts", () =>
    Effect.gen(function*() {
      const ctx = yield* setupProject
      const profiles = yield* VoiceProfiles
      const def = (yield* withDefault(ctx)).profile
      const r = yield* profiles.configureOutbound(ctx.projectId, ctx.principal, "default", { algorithm: "sha-256", expectedVersion: 1 })
      const password = Redacted.value(r.password)
      expect(password).toMatch(/^[0-9a-hjkmnp-tv-z]{32}$/)
      expect(r.profileVersion).toBe(2)
      expect(r.outbound.authentication).toMatchObject({ algorithm: "sha-256", previousPasswordValidUntil: null })
      expect(r.outbound.connection.realm).toBe("sip.switchboard.local")
      expect(r.outbound.connection.endpoints.length).toBeGreaterThan(0)
      const username = r.outbound.authentication.username
      const stored = yield* storedProfilesText
      expect(stored).toContain(username)
      expect(stored).not.toContain(password)
      expect(JSON.stringify(yield* profiles.get(ctx.projectId, ctx.principal, def.profileId))).not.toContain(password)
      const verify = (p: string, u = username) =>
        profiles.verifyOutboundPassword(ctx.projectId, def.profileId, { username: u, password: Redacted.make(p) })
      expect(yield* verify(password)).toBe(true)
      expect(yield* verify(`${password}x`)).toBe(false)
      expect(yield* verify(password, "someone-else")).toBe(false)
      expect(yield* tagOf(profiles.configureOutbound(ctx.projectId, ctx.principal, "default", { algorithm: "md5", expectedVersion: 2 })))
        .toBe("VoiceOutboundConfigured")
      // The algorithm changes without a new password (both HA1s are kept).
      const md5 = yield* profiles.updateOutboundAuthentication(ctx.projectId, ctx.principal, "default", { algorithm: "md5", expectedVersion: 2 })
      expect(md5).toMatchObject({ profileVersion: 3, outbound: { authentication: { algorithm: "md5", username } } })
      expect(yield* verify(password)).toBe(true)
      const deleted = yield* profiles.deleteOutbound(ctx.projectId, ctx.principal, "default", 3)
      expect(deleted.profileVersion).toBe(4)
      expect(yield* verify(password)).toBe(false)
      expect(yield* tagOf(profiles.rotateOutbound(ctx.projectId, ctx.principal, "default", { mode: "normal", expectedVersion: 4 })))
        .toBe("VoiceOutboundNotConfigured")
    }).pipe(Effect.provide(Env)))

  it.effect("rotation: normal keeps the previous password for the grace hour (another normal rotation is pending); emergency ends it", () =>
    Effect.gen(function*() {
      const ctx = yield* setupProject
      const profiles = yield* VoiceProfiles
      const def = (yield* withDefault(ctx)).profile
      const configured = yield* profiles.configureOutbound(ctx.projectId, ctx.principal, "default", { algorithm: "sha-256", expectedVersion: 1 })
      const username = configured.outbound.authentication.username
      const verify = (p: Redacted.Redacted<string>) => profiles.verifyOutboundPassword(ctx.projectId, def.profileId, { username, password: p })
      yield* TestClock.adjust("10 seconds")
      const rotated = yield* profiles.rotateOutbound(ctx.projectId, ctx.principal, "default", { mode: "normal", expectedVersion: 2 })
      expect(rotated.previousPasswordValidUntil?.epochMilliseconds).toBe(T0 + 10_000 + 3600_000)
      expect(rotated.profileVersion).toBe(3)
      expect(yield* verify(configured.password)).toBe(true)
      expect(yield* verify(rotated.password)).toBe(true)
      const shown = yield* profiles.get(ctx.projectId, ctx.principal, def.profileId)
      expect(shown.configuration.outbound?.authentication.previousPasswordValidUntil?.epochMilliseconds).toBe(T0 + 10_000 + 3600_000)
      expect(shown.configuration.outbound?.authentication.validFrom.epochMilliseconds).toBe(T0 + 10_000)
      expect(yield* failureOf(profiles.rotateOutbound(ctx.projectId, ctx.principal, "default", { mode: "normal", expectedVersion: 3 })))
        .toMatchObject({ _tag: "VoiceOutboundOperationPending", retryAfterSeconds: 3600 })
      yield* TestClock.adjust("3599 seconds")
      expect(yield* verify(configured.password)).toBe(true)
      yield* TestClock.adjust("1 second")
      expect(yield* verify(configured.password)).toBe(false)
      expect(yield* verify(rotated.password)).toBe(true)
      expect((yield* profiles.get(ctx.projectId, ctx.principal, def.profileId)).configuration.outbound?.authentication.previousPasswordValidUntil)
        .toBeNull()
      const again = yield* profiles.rotateOutbound(ctx.projectId, ctx.principal, "default", { mode: "normal", expectedVersion: 3 })
      const emergency = yield* profiles.rotateOutbound(ctx.projectId, ctx.principal, "default", { mode: "emergency", expectedVersion: 4 })
      expect(emergency.previousPasswordValidUntil).toBeNull()
      expect(yield* verify(again.password)).toBe(false)
      expect(yield* verify(rotated.password)).toBe(false)
      expect(yield* verify(emergency.password)).toBe(true)
    }).pipe(Effect.provide(Env)))
})

describe("VoiceProfiles: inbound SIP", () => {
  it.effect("replace creates then replaces; the password is stored sealed and handed only to the SIP edge; partial updates", () =>
    Effect.gen(function*() {
      const ctx = yield* setupProject
      const profiles = yield* VoiceProfiles
      const def = (yield* withDefault(ctx)).profile
      const created = yield* profiles.replaceInbound(ctx.projectId, ctx.principal, def.profileId, {
        credentials: { username: "pbx", password: "hunter2-inbound" },
        destinationUri: "sip:agents@pbx.example.com",
        expectedVersion: 1
      })
      expect(created).toEqual({
        inbound: { credentials: { username: "pbx" }, destinationUri: "sip:agents@pbx.example.com" },
        profileVersion: 2,
        created: true
      })
      expect(yield* storedProfilesText).toContain("pbx.example.com")
      expect(yield* storedProfilesText).not.toContain("hunter2-inbound")
      const destination = yield* profiles.inboundDestination(ctx.projectId, def.profileId)
      expect(destination._tag === "Some" && destination.value.credentials !== null && Redacted.value(destination.value.credentials.password))
        .toBe("hunter2-inbound")
      const keep = yield* profiles.updateInbound(ctx.projectId, ctx.principal, def.profileId, {
        expectedVersion: 2,
        destinationUri: "sips:agents@pbx.example.com"
      })
      expect(keep.inbound).toEqual({ credentials: { username: "pbx" }, destinationUri: "sips:agents@pbx.example.com" })
      const removed = yield* profiles.updateInbound(ctx.projectId, ctx.principal, def.profileId, { expectedVersion: 3, credentials: null })
      expect(removed).toEqual({ inbound: { credentials: null, destinationUri: "sips:agents@pbx.example.com" }, profileVersion: 4 })
      expect(yield* tagOf(profiles.updateInbound(ctx.projectId, ctx.principal, def.profileId, { expectedVersion: 4 }))).toBe("InvalidInput")
      const replaced = yield* profiles.replaceInbound(ctx.projectId, ctx.principal, def.profileId, {
        credentials: null,
        destinationUri: "sip:x@y",
        expectedVersion: 4
      })
      expect(replaced.created).toBe(false)
      expect(yield* profiles.deleteInbound(ctx.projectId, ctx.principal, def.profileId, 5)).toEqual({ inbound: null, profileVersion: 6 })
      expect(yield* tagOf(profiles.updateInbound(ctx.projectId, ctx.principal, def.profileId, { expectedVersion: 6, destinationUri: "sip:a@b" })))
        .toBe("VoiceInboundNotConfigured")
    }).pipe(Effect.provide(Env)))
})

describe("VoiceProfiles: line profile assignments", () => {
  it.effect("single: follows the default until assigned; default forbidden; versions; non-voice lines are not found", () =>
    Effect.gen(function*() {
      const ctx = yield* setupProject
      const profiles = yield* VoiceProfiles
      const lines = yield* Lines
      const def = (yield* withDefault(ctx)).profile
      const sales = yield* profiles.create(ctx.projectId, ctx.principal, { name: "Sales", protocol: "sip" })
      const line = yield* lines.allocate({ projectId: ctx.projectId, platform: "voice" })
      const chat = yield* lines.allocate({ projectId: ctx.projectId, platform: "imessage" })
      expect(yield* profiles.getAssignment(ctx.projectId, ctx.principal, line.lineId)).toEqual({
        projectId: ctx.projectId,
        resourceId: line.lineId,
        resourceVersion: 1,
        updatedAt: line.createdAt
      })
      expect(yield* tagOf(profiles.getAssignment(ctx.projectId, ctx.principal, chat.lineId))).toBe("VoiceLineNotFound")
      expect(yield* tagOf(profiles.assign(ctx.projectId, ctx.principal, line.lineId, { expectedVersion: 1, profileId: def.profileId })))
        .toBe("VoiceDefaultProfileAssignmentForbidden")
      expect(yield* tagOf(profiles.assign(ctx.projectId, ctx.principal, line.lineId, { expectedVersion: 2, profileId: sales.profileId })))
        .toBe("VoiceProfileVersionConflict")
      const ghost = VoiceProfileId.make(sales.profileId.replace(/.$/, (c) => (c === "0" ? "1" : "0")))
      expect(yield* tagOf(profiles.assign(ctx.projectId, ctx.principal, line.lineId, { expectedVersion: 1, profileId: ghost })))
        .toBe("VoiceProfileNotFound")
      yield* TestClock.adjust("5 seconds")
      const assigned = yield* profiles.assign(ctx.projectId, ctx.principal, line.lineId, { expectedVersion: 1, profileId: sales.profileId })
      expect(assigned).toMatchObject({ profileId: sales.profileId, profileVersion: 1, resourceVersion: 2 })
      expect(DateTime.toEpochMillis(assigned.updatedAt)).toBe(T0 + 5000)
      // The same profile again changes nothing.
      expect(yield* profiles.assign(ctx.projectId, ctx.principal, line.lineId, { expectedVersion: 2, profileId: sales.profileId }))
        .toEqual(assigned)
      expect(yield* tagOf(profiles.unassign(ctx.projectId, ctx.principal, line.lineId, 1))).toBe("VoiceProfileVersionConflict")
      yield* profiles.unassign(ctx.projectId, ctx.principal, line.lineId, 2)
      const back = yield* profiles.getAssignment(ctx.projectId, ctx.principal, line.lineId)
      expect(back).not.toHaveProperty("profileId")
      expect(back.resourceVersion).toBe(3)
    }).pipe(Effect.provide(Env)))

  it.effect("batch: all or nothing — one stale version or one default profile and no line changes", () =>
    Effect.gen(function*() {
      const ctx = yield* setupProject
      const profiles = yield* VoiceProfiles
      const lines = yield* Lines
      const def = (yield* withDefault(ctx)).profile
      const sales = yield* profiles.create(ctx.projectId, ctx.principal, { name: "Sales", protocol: "sip" })
      const support = yield* profiles.create(ctx.projectId, ctx.principal, { name: "Support", protocol: "sip" })
      const ls = yield* Effect.forEach([1, 2, 3], () => lines.allocate({ projectId: ctx.projectId, platform: "voice" }))
      const snapshot = Effect.forEach(ls, (l) => profiles.getAssignment(ctx.projectId, ctx.principal, l.lineId))
      const before = yield* snapshot
      const stale = yield* failureOf(profiles.batchAssign(ctx.projectId, ctx.principal, [
        { resourceId: ls[0]!.lineId, expectedVersion: 1, profileId: sales.profileId },
        { resourceId: ls[1]!.lineId, expectedVersion: 1, profileId: support.profileId },
        { resourceId: ls[2]!.lineId, expectedVersion: 7, profileId: sales.profileId }
      ]))
      expect(stale).toMatchObject({ _tag: "VoiceProfileVersionConflict", resourceId: ls[2]!.lineId })
      expect(yield* snapshot).toEqual(before)
      expect(yield* tagOf(profiles.batchAssign(ctx.projectId, ctx.principal, [
        { resourceId: ls[0]!.lineId, expectedVersion: 1, profileId: sales.profileId },
        { resourceId: ls[1]!.lineId, expectedVersion: 1, profileId: def.profileId }
      ]))).toBe("VoiceDefaultProfileAssignmentForbidden")
      expect(yield* snapshot).toEqual(before)
      const done = yield* profiles.batchAssign(ctx.projectId, ctx.principal, [
        { resourceId: ls[2]!.lineId, expectedVersion: 1, profileId: support.profileId },
        { resourceId: ls[0]!.lineId, expectedVersion: 1, profileId: sales.profileId },
        { resourceId: ls[1]!.lineId, expectedVersion: 1, profileId: null }
      ])
      expect(done.map((a) => [a.resourceId, a.profileId, a.resourceVersion])).toEqual([
        [ls[2]!.lineId, support.profileId, 2],
        [ls[0]!.lineId, sales.profileId, 2],
        [ls[1]!.lineId, undefined, 1]
      ])
      expect((yield* profiles.getDefault(ctx.projectId, ctx.principal)).lineCount).toBe(1)
    }).pipe(Effect.provide(Env)))
})
