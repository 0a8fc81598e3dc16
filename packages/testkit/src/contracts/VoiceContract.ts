/**
 * The Voice feature's part of the repository contract suite: lines (active only, release drops the
 * override), voice profiles (one default per project, whole records round-trip, list cursor, line
 * counts, assignments), calls (insert once across projects, scoped reads, list filters and cursor,
 * applied signal ids), and the concurrency the service relies on — concurrent signals of one call
 * serialise on the call's row lock (no lost update), concurrent `started` inserts create one call,
 * and a rolled-back transaction leaves neither the call change nor the signal id behind.
 */
import type { Vitest } from "@effect/vitest"
import { type StorePorts, type Voice } from "@switchboard/core"
import { ProjectsRepo } from "@switchboard/core/projects"
import { formatTypeId, IdKinds, Transactor, uuidv7Bytes, VoiceProfileId } from "@switchboard/core/shared"
import {
  CallMachine,
  CallSignal,
  CallsRepo,
  type Line,
  LinesRepo,
  type VoiceProfileRecord,
  VoiceProfilesRepo
} from "@switchboard/core/voice"
import { DateTime, Effect, Result, Option, Schema } from "effect"
import { expect } from "vitest"
import { ownerAndOrganization, projectFixture } from "./ProjectsContract.js"

const T0 = Date.parse("2030-01-01T00:00:00.000Z")
const at = (ms: number) => DateTime.makeUnsafe(ms) as DateTime.Utc
const rand = () => crypto.getRandomValues(new Uint8Array(10))
const id = (kind: (typeof IdKinds)[keyof typeof IdKinds], ms = T0) => formatTypeId(kind, uuidv7Bytes(ms, rand()))
let numbers = 0

const newProject = Effect.gen(function*() {
  const owner = yield* ownerAndOrganization
  const project = projectFixture(owner)
  yield* (yield* ProjectsRepo).insert({ project, secretHash: "0".repeat(64) })
  return project.projectId as string
})

const lineFixture = (projectId: string, ms: number, platform: Line["platform"] = "voice"): Line => ({
  lineId: id(IdKinds.line, ms),
  projectId,
  platform,
  phoneNumber: `+1999${String(Date.now() % 1_000_000).padStart(6, "0")}${String(++numbers % 100).padStart(2, "0")}`,
  voiceCapable: platform === "voice",
  createdAt: at(ms)
})

const profileFixture = (projectId: string, ms: number, isDefault: boolean, name = isDefault ? "Default" : "Extra"): VoiceProfileRecord => ({
  profileId: VoiceProfileId.make(id(IdKinds.voiceProfile, ms)),
  projectId: projectId as VoiceProfileRecord["projectId"],
  name,
  isDefault,
  protocol: "sip",
  mediaEncryption: "auto",
  version: 1,
  createdAt: at(ms),
  updatedAt: at(ms),
  inbound: null,
  outbound: null
})

const signal = (callId: string, signalId: string, type: string, ms: number, data: unknown = {}) =>
  Schema.decodeUnknownSync(CallSignal)({ id: signalId, callId, type, timestamp: new Date(ms).toISOString(), data })

/** A call in `status` after the given steps (built by the reducer, so it is a valid call). */
const callFixture = (projectId: string, profileId: string, ms: number, steps: ReadonlyArray<"ringing" | "answered" | "connected"> = []) => {
  const callId = id(IdKinds.call, ms)
  const user = id(IdKinds.user)
  const started = signal(callId, "s0", "started", ms, {
    projectId,
    direction: "inbound",
    voiceProfile: { id: profileId, endpoint: { type: "sip" } },
    space: { id: "space", type: "direct" },
    caller: { id: user, handle: "+15550100" },
    callee: { id: id(IdKinds.user) },
    metadata: { k: "v" }
  })
  const run = CallMachine.run([started, ...steps.map((s, i) => signal(callId, `s${i + 1}`, s, ms + i + 1))])
  return { call: run.state.call!, user }
}

export const voiceContract = (it: Vitest.MethodsNonLive<StorePorts>): void => {
  it.effect("voice lines: active lines oldest first per project; release hides the line and drops its override", () =>
    Effect.gen(function*() {
      const lines = yield* LinesRepo
      const profiles = yield* VoiceProfilesRepo
      const projectId = yield* newProject
      const other = yield* newProject
      const b = lineFixture(projectId, T0 + 2000)
      const a = lineFixture(projectId, T0 + 1000, "sms")
      yield* lines.insert(b)
      yield* lines.insert(a)
      expect(yield* lines.listActive(projectId)).toEqual([a, b])
      expect(yield* lines.listActive(other)).toEqual([])
      const found = Option.getOrThrow(yield* lines.find(projectId, b.lineId))
      expect(found).toEqual({ line: b, releasedAt: null, profileId: null, assignmentVersion: 1, assignmentUpdatedAt: b.createdAt })
      expect(Option.isNone(yield* lines.find(other, b.lineId))).toBe(true)
      const extra = profileFixture(projectId, T0, false)
      yield* profiles.insert(extra)
      yield* profiles.setAssignment({ projectId, lineId: b.lineId, profileId: extra.profileId, version: 2, updatedAt: at(T0 + 5000) })
      expect(Option.getOrThrow(yield* lines.lock(projectId, b.lineId))).toMatchObject({ profileId: extra.profileId, assignmentVersion: 2 })
      expect(Option.isNone(yield* lines.release({ projectId: other, lineId: b.lineId, now: at(T0 + 9000) }))).toBe(true)
      expect(yield* lines.release({ projectId, lineId: b.lineId, now: at(T0 + 9000) })).toEqual(Option.some(b))
      expect(Option.isNone(yield* lines.release({ projectId, lineId: b.lineId, now: at(T0 + 9999) }))).toBe(true)
      expect(yield* lines.listActive(projectId)).toEqual([a])
      expect(Option.isNone(yield* lines.find(projectId, b.lineId))).toBe(true)
      // The released line no longer counts, and the profile can go.
      expect((yield* profiles.lineCounts(projectId, [extra.profileId])).get(extra.profileId) ?? 0).toBe(0)
      yield* profiles.remove(projectId, extra.profileId)
      expect(Option.isNone(yield* profiles.find(projectId, extra.profileId))).toBe(true)
    }))

  it.effect("voice profiles: one default per project (the transaction goes on after the refusal); records round-trip; list and counts", () =>
    Effect.gen(function*() {
      const profiles = yield* VoiceProfilesRepo
      const lines = yield* LinesRepo
      const tx = yield* Transactor
      const projectId = yield* newProject
      const def = profileFixture(projectId, T0, true)
      yield* profiles.insert(def)
      const late = profileFixture(projectId, T0 + 3000, false, "Late")
      const second = yield* tx.withTransaction(Effect.gen(function*() {
        const r = yield* Effect.result(profiles.insert(profileFixture(projectId, T0 + 1, true)))
        yield* profiles.insert(late)
        return r
      }))
      expect(Result.isFailure(second) && second.failure._tag).toBe("VoiceDefaultProfileExists")
      const early = profileFixture(projectId, T0 + 1000, false, "Early")
      yield* profiles.insert(early)
      const full: VoiceProfileRecord = {
        ...early,
        version: 3,
        mediaEncryption: "srtp",
        updatedAt: at(T0 + 7000),
        inbound: { destinationUri: "sip:a@b.example", credentials: { username: "u", passwordSealed: "sealed-1" } },
        outbound: {
          algorithm: "md5",
          username: "sbuser",
          realm: "sip.example",
          validFrom: at(T0 + 6000),
          current: "sealed-2",
          previous: { material: "sealed-3", validUntil: at(T0 + 3_600_000) }
        }
      }
      yield* profiles.update(full)
      expect(yield* profiles.find(projectId, early.profileId)).toEqual(Option.some(full))
      expect(yield* profiles.lock(projectId, early.profileId)).toEqual(Option.some(full))
      expect(yield* profiles.findDefault(projectId)).toEqual(Option.some(def))
      expect(yield* profiles.lockDefault(projectId)).toEqual(Option.some(def))
      const other = yield* newProject
      expect(Option.isNone(yield* profiles.find(other, early.profileId))).toBe(true)
      expect(Option.isNone(yield* profiles.findDefault(other))).toBe(true)
      const all = yield* profiles.list({ projectId, isDefault: undefined, after: undefined, limit: 10 })
      expect(all.map((p) => p.name)).toEqual(["Default", "Early", "Late"])
      expect((yield* profiles.list({ projectId, isDefault: false, after: undefined, limit: 10 })).map((p) => p.name))
        .toEqual(["Early", "Late"])
      const rest = yield* profiles.list({ projectId, isDefault: undefined, after: { createdAt: def.createdAt, profileId: def.profileId }, limit: 1 })
      expect(rest.map((p) => p.name)).toEqual(["Early"])
      // Counts: explicit overrides per profile; the default counts voice lines without one.
      const ls = [lineFixture(projectId, T0 + 1), lineFixture(projectId, T0 + 2), lineFixture(projectId, T0 + 3), lineFixture(projectId, T0 + 4, "imessage")]
      yield* Effect.forEach(ls, (l) => lines.insert(l))
      yield* profiles.setAssignment({ projectId, lineId: ls[0]!.lineId, profileId: early.profileId, version: 2, updatedAt: at(T0 + 10) })
      yield* profiles.setAssignment({ projectId, lineId: ls[1]!.lineId, profileId: early.profileId, version: 2, updatedAt: at(T0 + 10) })
      const counts = yield* profiles.lineCounts(projectId, [early.profileId, late.profileId])
      expect([counts.get(early.profileId), counts.get(late.profileId) ?? 0]).toEqual([2, 0])
      expect(yield* profiles.defaultLineCount(projectId)).toBe(1)
      expect(yield* profiles.clearAssignments({ projectId, profileId: early.profileId, now: at(T0 + 20) })).toBe(2)
      expect(Option.getOrThrow(yield* lines.find(projectId, ls[0]!.lineId))).toMatchObject({
        profileId: null,
        assignmentVersion: 3,
        assignmentUpdatedAt: at(T0 + 20)
      })
      expect(yield* profiles.defaultLineCount(projectId)).toBe(3)
    }))

  it.effect("calls: inserted once with their first signal (whatever the project), read and locked per project, updated, listed newest first", () =>
    Effect.gen(function*() {
      const calls = yield* CallsRepo
      const profiles = yield* VoiceProfilesRepo
      const projectId = yield* newProject
      const other = yield* newProject
      const profile = profileFixture(projectId, T0, true)
      yield* profiles.insert(profile)
      const c1 = callFixture(projectId, profile.profileId, T0 + 1000).call
      const c2 = callFixture(projectId, profile.profileId, T0 + 2000, ["answered"]).call
      const c3 = callFixture(projectId, profile.profileId, T0 + 3000, ["ringing", "answered", "connected"]).call
      const insert = (p: string, call: Voice.Call, signalId = "s0") => calls.insertApplied({ projectId: p, call, signalId, appliedAt: call.createdAt })
      for (const c of [c2, c1, c3]) expect(yield* insert(projectId, c)).toBe(true)
      expect(yield* insert(projectId, c1, "again")).toBe(false)
      expect(yield* insert(other, c1, "elsewhere")).toBe(false)
      expect(yield* calls.find(projectId, c3.id)).toEqual(Option.some(c3))
      expect(yield* calls.lock(projectId, c3.id)).toEqual(Option.some(c3))
      expect(yield* calls.lockForSignal(projectId, c1.id, "s0")).toEqual(Option.some({ call: c1, signalApplied: true }))
      expect(yield* calls.lockForSignal(projectId, c1.id, "again")).toEqual(Option.some({ call: c1, signalApplied: false }))
      expect(Option.isNone(yield* calls.find(other, c3.id))).toBe(true)
      expect(Option.isNone(yield* calls.lock(other, c3.id))).toBe(true)
      expect(Option.isNone(yield* calls.lockForSignal(other, c1.id, "s0"))).toBe(true)
      const list = (filters: Partial<Parameters<Effect.Success<typeof CallsRepo>["list"]>[0]> = {}) =>
        Effect.map(
          calls.list({
            projectId,
            status: undefined,
            direction: undefined,
            createdAfter: undefined,
            createdBefore: undefined,
            after: undefined,
            limit: 10,
            ...filters
          }),
          (cs) => cs.map((c) => c.id)
        )
      expect(yield* list()).toEqual([c3.id, c2.id, c1.id])
      expect(yield* list({ status: "answered" })).toEqual([c2.id])
      expect(yield* list({ direction: "outbound" })).toEqual([])
      expect(yield* list({ createdAfter: c1.createdAt, createdBefore: c3.createdAt })).toEqual([c2.id])
      expect(yield* list({ after: { createdAt: c3.createdAt, callId: c3.id }, limit: 1 })).toEqual([c2.id])
      const ended = CallMachine.apply(c2, signal(c2.id, "end", "ended", T0 + 9000, { status: "completed" }), new Set())
      yield* calls.updateApplied({ projectId, call: ended.call!, signalId: "end", appliedAt: at(T0 + 9000) })
      expect(yield* calls.find(projectId, c2.id)).toEqual(Option.some(ended.call))
      expect(yield* calls.lockForSignal(projectId, c2.id, "end")).toEqual(Option.some({ call: ended.call, signalApplied: true }))
      expect(yield* list({ status: "failed" })).toEqual([c2.id])
      // Another project's write does not touch the call.
      yield* calls.updateApplied({ projectId: other, call: c2, signalId: "foreign", appliedAt: at(T0) })
      expect(yield* calls.find(projectId, c2.id)).toEqual(Option.some(ended.call))
      expect(yield* calls.lockForSignal(projectId, c2.id, "foreign")).toEqual(Option.some({ call: ended.call, signalApplied: false }))
      // A full DTMF buffer survives the round trip.
      let full = c3
      for (let i = 0; i < 101; i++) {
        full = CallMachine.apply(full, signal(c3.id, `k${i}`, "dtmf", T0 + 4000 + i, { digit: "#", actorId: full.caller.id }), new Set()).call!
      }
      yield* calls.updateApplied({ projectId, call: full, signalId: "k100", appliedAt: at(T0 + 4100) })
      const back = Option.getOrThrow(yield* calls.find(projectId, c3.id))
      expect(back).toEqual(full)
      expect([back.dtmfInputs.length, back.dtmfInputsTruncated]).toEqual([100, true])
    }))

  it.effect("call batches: one read of calls, applied ids, ids of other projects and the project's profiles; one write of new and changed calls and ids; a taken id writes nothing but new calls", () =>
    Effect.gen(function*() {
      const calls = yield* CallsRepo
      const profiles = yield* VoiceProfilesRepo
      const tx = yield* Transactor
      const projectId = yield* newProject
      const other = yield* newProject
      const profile = profileFixture(projectId, T0, true)
      const otherProfile = profileFixture(other, T0 + 1, true)
      yield* profiles.insert(profile)
      yield* profiles.insert(otherProfile)
      const mine = callFixture(projectId, profile.profileId, T0 + 1000).call
      const theirs = callFixture(other, otherProfile.profileId, T0 + 1500).call
      // Signal ids are opaque text: quotes, backslashes, commas and braces survive the array parameters.
      const odd = `m"2,{x}\\ ' y`
      yield* calls.insertApplied({ projectId, call: mine, signalId: "m0", appliedAt: mine.createdAt })
      yield* calls.updateApplied({ projectId, call: mine, signalId: odd, appliedAt: mine.createdAt })
      yield* calls.insertApplied({ projectId: other, call: theirs, signalId: "t0", appliedAt: theirs.createdAt })
      const fresh = callFixture(projectId, profile.profileId, T0 + 2000).call
      const loaded = yield* tx.withTransaction(calls.loadBatch({
        projectId,
        callIds: [fresh.id, theirs.id, mine.id],
        signalIds: ["m0", "m1", "t0", odd],
        profileIds: [otherProfile.profileId, profile.profileId, id(IdKinds.voiceProfile, T0 + 3)]
      }))
      expect([...loaded.calls.keys()]).toEqual([mine.id])
      expect(loaded.calls.get(mine.id)).toEqual({ call: mine, applied: new Set(["m0", odd]) })
      expect([...loaded.elsewhere]).toEqual([theirs.id])
      expect([...loaded.profiles]).toEqual([profile.profileId])
      const none = yield* tx.withTransaction(calls.loadBatch({ projectId, callIds: [fresh.id], signalIds: ["f0"], profileIds: [] }))
      expect([none.calls.size, none.elsewhere.size, none.profiles.size]).toEqual([0, 0, 0])
      const ended = CallMachine.apply(mine, signal(mine.id, "m1", "ended", T0 + 9000, { status: "completed" }), new Set()).call!
      const odd2 = `f"0\\,}`
      expect(yield* tx.withTransaction(calls.writeBatch({
        projectId,
        created: [fresh],
        updated: [ended],
        applied: [
          { callId: fresh.id, signalId: "f0", appliedAt: fresh.createdAt },
          { callId: fresh.id, signalId: odd2, appliedAt: fresh.createdAt },
          { callId: mine.id, signalId: "m1", appliedAt: at(T0 + 9000) }
        ]
      }))).toBe(true)
      expect(yield* calls.find(projectId, fresh.id)).toEqual(Option.some(fresh))
      expect(yield* calls.find(projectId, mine.id)).toEqual(Option.some(ended))
      expect(yield* calls.lockForSignal(projectId, mine.id, "m1")).toEqual(Option.some({ call: ended, signalApplied: true }))
      expect(yield* calls.lockForSignal(projectId, fresh.id, "f0")).toEqual(Option.some({ call: fresh, signalApplied: true }))
      expect(yield* calls.lockForSignal(projectId, fresh.id, odd2)).toEqual(Option.some({ call: fresh, signalApplied: true }))
      // A new call whose id another project holds: false; the call there is untouched, and neither
      // the changed call nor the applied ids of the batch are written.
      const later = CallMachine.apply(fresh, signal(fresh.id, "f1", "ringing", T0 + 2500), new Set()).call!
      expect(yield* tx.withTransaction(calls.writeBatch({
        projectId,
        created: [{ ...theirs, projectId } as Voice.Call],
        updated: [later],
        applied: [{ callId: fresh.id, signalId: "f1", appliedAt: at(T0 + 2500) }]
      }))).toBe(false)
      expect(yield* calls.find(other, theirs.id)).toEqual(Option.some(theirs))
      expect(yield* calls.find(projectId, fresh.id)).toEqual(Option.some(fresh))
      expect(yield* calls.lockForSignal(projectId, fresh.id, "f1")).toEqual(Option.some({ call: fresh, signalApplied: false }))
      // Nothing to write is a success.
      expect(yield* tx.withTransaction(calls.writeBatch({ projectId, created: [], updated: [], applied: [] }))).toBe(true)
    }))

  it.effect("call signals: concurrent signals of one call serialise on its row lock; concurrent creates make one call; a rollback leaves nothing", () =>
    Effect.gen(function*() {
      const calls = yield* CallsRepo
      const profiles = yield* VoiceProfilesRepo
      const tx = yield* Transactor
      const projectId = yield* newProject
      const profile = profileFixture(projectId, T0, true)
      yield* profiles.insert(profile)
      const { call } = callFixture(projectId, profile.profileId, T0, ["answered"])
      const applied = (signalId: string) =>
        Effect.map(calls.lockForSignal(projectId, call.id, signalId), (o) => Option.getOrThrow(o).signalApplied)
      // Concurrent started signals: exactly one creates the call.
      const inserts = yield* Effect.all(
        Array.from({ length: 4 }, (_, i) =>
          tx.withTransaction(calls.insertApplied({ projectId, call, signalId: `start-${i}`, appliedAt: call.createdAt }))),
        { concurrency: "unbounded" }
      )
      expect(inserts.filter(Boolean)).toHaveLength(1)
      expect((yield* Effect.forEach([0, 1, 2, 3], (i) => applied(`start-${i}`))).filter(Boolean)).toHaveLength(1)
      // Eight key presses at once, each a read-decide-write under the row lock: none is lost.
      const press = (i: number) =>
        tx.withTransaction(Effect.gen(function*() {
          const current = Option.getOrThrow(yield* calls.lockForSignal(projectId, call.id, `p${i}`))
          expect(current.signalApplied).toBe(false)
          yield* Effect.sleep("5 millis")
          const t = CallMachine.apply(
            current.call,
            signal(call.id, `p${i}`, "dtmf", T0 + 100 + i, { digit: String(i), actorId: call.caller.id }),
            new Set()
          )
          yield* calls.updateApplied({ projectId, call: t.call!, signalId: `p${i}`, appliedAt: at(T0 + 100 + i) })
        }))
      yield* Effect.all(Array.from({ length: 8 }, (_, i) => press(i)), { concurrency: "unbounded" })
      const after = Option.getOrThrow(yield* calls.find(projectId, call.id))
      expect(after.dtmfInputs.map((p) => p.digit).sort()).toEqual(["0", "1", "2", "3", "4", "5", "6", "7"])
      for (let i = 0; i < 8; i++) expect(yield* applied(`p${i}`)).toBe(true)
      // A failed transaction: neither the call change nor the signal id stays.
      const failed = yield* Effect.result(tx.withTransaction(Effect.gen(function*() {
        const current = Option.getOrThrow(yield* calls.lockForSignal(projectId, call.id, "x"))
        const t = CallMachine.apply(current.call, signal(call.id, "x", "connected", T0 + 500), new Set())
        yield* calls.updateApplied({ projectId, call: t.call!, signalId: "x", appliedAt: at(T0 + 500) })
        return yield* Effect.fail("boom" as const)
      })))
      expect(Result.isFailure(failed)).toBe(true)
      expect(yield* calls.find(projectId, call.id)).toEqual(Option.some(after))
      expect(yield* applied("x")).toBe(false)
    }))
}
