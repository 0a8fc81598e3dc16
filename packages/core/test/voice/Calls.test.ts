/**
 * Calls (docs/api-notes/voice.md) on the memory store: signals applied through the reducer with the
 * call, the applied ids and the outbox written together; the started-signal checks; the API
 * actions (create, cancel, reject, hangup) and their SIP commands; the list.
 */
import { describe, expect, it } from "@effect/vitest"
import { EventOutbox } from "@switchboard/core/events"
import { IdKinds, formatTypeId, uuidv7Bytes } from "@switchboard/core/shared"
import { CallEvent, Calls, CallSignal, Lines, VoiceProfiles } from "@switchboard/core/voice"
import { SipGatewayRecording } from "@switchboard/testkit"
import { DateTime, Effect, Result, Schema } from "effect"
import { TestClock } from "effect/testing"
import { Env, failureOf, iso, type ProjectCtx, setupProject, T0 } from "./VoiceFixtures.js"

let seq = 0
const newCallId = () => formatTypeId(IdKinds.call, uuidv7Bytes(T0 + ++seq, crypto.getRandomValues(new Uint8Array(10))))
const userId = (n: number) => formatTypeId(IdKinds.user, uuidv7Bytes(T0, new Uint8Array(10).fill(n)))

const wire = (ctx: ProjectCtx, profileId: string, callId: string) => {
  const s = (id: string, type: string, t: number, data: unknown = {}) =>
    Schema.decodeUnknownSync(CallSignal)({ id, callId, type, timestamp: iso(T0 + t * 1000), data })
  return {
    started: (id = `${callId}-started`, projectId: string = ctx.projectId) =>
      s(id, "started", 0, {
        projectId,
        direction: "inbound",
        voiceProfile: { id: profileId, endpoint: { type: "sip" } },
        space: { id: "space-1", type: "direct" },
        caller: { id: userId(1), handle: "+15550100" },
        callee: { id: userId(2), handle: "+12015550100" },
        metadata: { source: "test" }
      }),
    ringing: (id = `${callId}-ringing`, t = 1) => s(id, "ringing", t),
    answered: (id = `${callId}-answered`, t = 2) => s(id, "answered", t),
    connected: (id = `${callId}-connected`, t = 3) => s(id, "connected", t),
    dtmf: (id: string, digit: string, t = 4) => s(id, "dtmf", t, { digit, actorId: userId(1) }),
    ended: (status: string, id = `${callId}-ended`, t = 9) => s(id, "ended", t, { status, reason: { sipCode: 200 } })
  }
}

const withDefault = (ctx: ProjectCtx) =>
  Effect.map(
    Effect.flatMap(VoiceProfiles, (p) => p.createDefault(ctx.projectId, ctx.principal, { protocol: "sip" })),
    (r) => r.profile.profileId as string
  )

/** The project's call events in the outbox (other features publish events of their own). */
const outbox = (projectId: string) =>
  Effect.flatMap(EventOutbox, (o) => o.list({ projectId, after: 0, limit: 1000 })).pipe(
    Effect.map((events) => events.filter((e) => e.event.type.startsWith("call.")))
  )
/** The envelope in its wire form (as a webhook would carry it) decodes strictly as its call event. */
const isCallEvent = (event: { readonly timestamp: { readonly epochMilliseconds: number } }) =>
  Result.isSuccess(Schema.decodeUnknownResult(CallEvent)(
    { ...event, timestamp: new Date(event.timestamp.epochMilliseconds).toISOString() },
    { onExcessProperty: "error" }
  ))

describe("Calls: signals", () => {
  it.effect("a whole inbound call: each applied signal writes the call and one event, in order; duplicates and stale ones write nothing", () =>
    Effect.gen(function*() {
      const ctx = yield* setupProject
      const calls = yield* Calls
      const profileId = yield* withDefault(ctx)
      const callId = newCallId()
      const sig = wire(ctx, profileId, callId)
      const results = yield* calls.ingest(ctx.projectId, ctx.principal, [
        sig.started(),
        sig.ringing(),
        sig.answered(),
        sig.ringing("late-180", 5),
        sig.answered(),
        sig.connected(),
        sig.dtmf("k1", "4"),
        sig.dtmf("k1", "4"),
        sig.dtmf("k2", "A"),
        sig.ended("completed")
      ])
      expect(results.map((r) => [r.outcome, r.reason ?? ""])).toEqual([
        ["applied", ""],
        ["applied", ""],
        ["applied", ""],
        ["ignored", "stale-signal"],
        ["ignored", "duplicate-signal"],
        ["applied", ""],
        ["applied", ""],
        ["ignored", "duplicate-signal"],
        ["rejected", "invalid-digit"],
        ["applied", ""]
      ])
      const call = (yield* calls.get(ctx.projectId, ctx.principal, callId))
      expect(results[9]!.call).toEqual(call)
      expect(call.status).toBe("completed")
      const events = yield* outbox(ctx.projectId)
      expect(events.map((e) => e.event.type)).toEqual([
        "call.started", "call.ringing", "call.answered", "call.connected", "call.dtmf.received", "call.ended"
      ])
      for (const e of events) {
        expect(isCallEvent(e.event)).toBe(true)
        expect(e.event.source).toBe(`/v1/projects/${ctx.projectId}/platforms/voice/calls/${callId}`)
      }
      // Every *At equals the timestamp of the event that set it; the key press too.
      const at = (type: string) => events.find((e) => e.event.type === type)!.event.timestamp.epochMilliseconds
      const t = call.timestamps as Record<string, { epochMilliseconds: number }>
      expect(t.startedAt!.epochMilliseconds).toBe(at("call.started"))
      expect(t.ringingAt!.epochMilliseconds).toBe(at("call.ringing"))
      expect(t.answeredAt!.epochMilliseconds).toBe(at("call.answered"))
      expect(t.connectedAt!.epochMilliseconds).toBe(at("call.connected"))
      expect(t.endedAt!.epochMilliseconds).toBe(at("call.ended"))
      expect(call.dtmfInputs.map((p) => [p.digit, DateTime.toEpochMillis(p.timestamp)])).toEqual([["4", at("call.dtmf.received")]])
      expect(events.at(-1)!.event.data).toEqual({ callId, status: "completed", reason: { sipCode: 200 } })
      // Replaying the whole batch changes nothing and writes no event.
      const replay = yield* calls.ingest(ctx.projectId, ctx.principal, [sig.started(), sig.connected(), sig.ended("busy", "other-end")])
      expect(replay.map((r) => r.outcome)).toEqual(["ignored", "ignored", "ignored"])
      expect(yield* calls.get(ctx.projectId, ctx.principal, callId)).toEqual(call)
      expect(yield* outbox(ctx.projectId)).toHaveLength(6)
    }).pipe(Effect.provide(Env)))

  it.effect("started checks: another project's data, an unknown profile, a call id another project holds; other signals need the call", () =>
    Effect.gen(function*() {
      const ctx = yield* setupProject
      const other = yield* setupProject
      const calls = yield* Calls
      const profileId = yield* withDefault(ctx)
      const otherProfile = yield* withDefault(other)
      const callId = newCallId()
      const sig = wire(ctx, profileId, callId)
      const [mismatch, unknownProfile, early] = yield* calls.ingest(ctx.projectId, ctx.principal, [
        sig.started("s1", other.projectId),
        wire(ctx, otherProfile, callId).started("s2"),
        sig.ringing()
      ])
      expect([mismatch, unknownProfile, early].map((r) => [r!.outcome, r!.reason])).toEqual([
        ["rejected", "project-mismatch"],
        ["rejected", "unknown-voice-profile"],
        ["rejected", "unknown-call"]
      ])
      expect(mismatch).not.toHaveProperty("call")
      yield* calls.ingest(ctx.projectId, ctx.principal, [sig.started()])
      const [taken] = yield* calls.ingest(other.projectId, other.principal, [wire(other, otherProfile, callId).started("s3")])
      expect([taken!.outcome, taken!.reason]).toEqual(["rejected", "call-id-taken"])
      expect(yield* outbox(other.projectId)).toEqual([])
      expect((yield* failureOf(calls.get(other.projectId, other.principal, callId)))?._tag).toBe("CallNotFound")
    }).pipe(Effect.provide(Env)))
})

describe("Calls: API actions", () => {
  it.effect("create: an outbound started call from a voice line with its profile; the INVITE goes to the SIP gateway", () =>
    Effect.gen(function*() {
      const ctx = yield* setupProject
      const calls = yield* Calls
      const lines = yield* Lines
      const recording = yield* SipGatewayRecording
      const line = yield* lines.allocate({ projectId: ctx.projectId, platform: "voice" })
      const chat = yield* lines.allocate({ projectId: ctx.projectId, platform: "telegram" })
      expect((yield* failureOf(calls.create(ctx.projectId, ctx.principal, { lineId: line.lineId, to: "+15550142" })))?._tag)
        .toBe("VoiceDefaultProfileRequired")
      const profileId = yield* withDefault(ctx)
      expect((yield* failureOf(calls.create(ctx.projectId, ctx.principal, { lineId: chat.lineId, to: "+15550142" })))?._tag)
        .toBe("VoiceLineNotFound")
      const call = yield* calls.create(ctx.projectId, ctx.principal, { lineId: line.lineId, to: "+15550142" })
      expect(call).toMatchObject({
        status: "started",
        direction: "outbound",
        platform: "voice",
        projectId: ctx.projectId,
        voiceProfile: { id: profileId, endpoint: { type: "sip" } },
        caller: { handle: line.phoneNumber },
        callee: { handle: "+15550142" },
        dtmfInputs: [],
        dtmfInputsTruncated: false,
        timestamps: { startedAt: call.createdAt }
      })
      expect(DateTime.toEpochMillis(call.createdAt)).toBe(T0)
      expect(recording.commands).toEqual([{
        _tag: "dial",
        projectId: ctx.projectId,
        callId: call.id,
        lineId: line.lineId,
        from: line.phoneNumber,
        to: "+15550142",
        voiceProfileId: profileId
      }])
      // The same party is the same user on every call; the space is the pair's.
      const again = yield* calls.create(ctx.projectId, ctx.principal, { lineId: line.lineId, to: "+15550142" })
      expect([again.callee.id, again.caller.id, again.space.id]).toEqual([call.callee.id, call.caller.id, call.space.id])
      expect((yield* outbox(ctx.projectId)).map((e) => e.event.type)).toEqual(["call.started", "call.started"])
      // An unreachable SIP edge: nothing is written.
      recording.failNext()
      expect((yield* failureOf(calls.create(ctx.projectId, ctx.principal, { lineId: line.lineId, to: "+15550199" })))?._tag)
        .toBe("SipGatewayUnavailable")
      expect((yield* calls.list(ctx.projectId, ctx.principal, {})).calls).toHaveLength(2)
      expect(yield* outbox(ctx.projectId)).toHaveLength(2)
    }).pipe(Effect.provide(Env)))

  it.effect("cancel, reject, hangup: the direction and state rules, the terminal status, the SIP command; nothing on refusal", () =>
    Effect.gen(function*() {
      const ctx = yield* setupProject
      const calls = yield* Calls
      const recording = yield* SipGatewayRecording
      const profileId = yield* withDefault(ctx)
      const line = yield* (yield* Lines).allocate({ projectId: ctx.projectId, platform: "voice" })
      const outbound = yield* calls.create(ctx.projectId, ctx.principal, { lineId: line.lineId, to: "+15550142" })
      const inboundId = newCallId()
      const sig = wire(ctx, profileId, inboundId)
      yield* calls.ingest(ctx.projectId, ctx.principal, [sig.started(), sig.ringing()])
      const tagOf = <A, E extends { _tag: string }, R>(e: Effect.Effect<A, E, R>) => Effect.map(failureOf(e), (x) => x?._tag)
      expect(yield* tagOf(calls.reject(ctx.projectId, ctx.principal, outbound.id, "busy"))).toBe("CallActionNotAllowed")
      expect(yield* tagOf(calls.cancel(ctx.projectId, ctx.principal, inboundId))).toBe("CallActionNotAllowed")
      expect(yield* tagOf(calls.hangup(ctx.projectId, ctx.principal, inboundId))).toBe("CallActionNotAllowed")
      yield* TestClock.adjust("2 seconds")
      const canceled = yield* calls.cancel(ctx.projectId, ctx.principal, outbound.id)
      expect(canceled).toMatchObject({ status: "canceled" })
      expect(canceled.timestamps).toEqual({ startedAt: outbound.createdAt, endedAt: canceled.updatedAt })
      expect(yield* tagOf(calls.cancel(ctx.projectId, ctx.principal, outbound.id))).toBe("CallActionNotAllowed")
      const busy = yield* calls.reject(ctx.projectId, ctx.principal, inboundId, "busy")
      expect(busy.status).toBe("busy")
      // The edge's clock ran ahead (ringing at T0+1 s); the end is never before the last milestone.
      expect(busy.timestamps.endedAt!.epochMilliseconds).toBe(T0 + 2000)
      // hangup: answered → failed, connected → completed.
      const a = newCallId()
      const b = newCallId()
      yield* calls.ingest(ctx.projectId, ctx.principal, [
        wire(ctx, profileId, a).started(), wire(ctx, profileId, a).answered(),
        wire(ctx, profileId, b).started(), wire(ctx, profileId, b).answered(), wire(ctx, profileId, b).connected()
      ])
      expect((yield* calls.hangup(ctx.projectId, ctx.principal, a)).status).toBe("failed")
      yield* TestClock.adjust("5 seconds")
      expect((yield* calls.hangup(ctx.projectId, ctx.principal, b)).status).toBe("completed")
      recording.failNext()
      const c = newCallId()
      yield* calls.ingest(ctx.projectId, ctx.principal, [wire(ctx, profileId, c).started()])
      expect(yield* tagOf(calls.reject(ctx.projectId, ctx.principal, c, "rejected"))).toBe("SipGatewayUnavailable")
      expect((yield* calls.get(ctx.projectId, ctx.principal, c)).status).toBe("started")
      expect(recording.commands.map((x) => x._tag)).toEqual(["dial", "cancel", "reject", "hangup", "hangup"])
      const ends = (yield* outbox(ctx.projectId)).filter((e) => e.event.type === "call.ended").map((e) => e.event.data)
      expect(ends).toEqual([
        { callId: outbound.id, status: "canceled", reason: { sipCode: 487, hangupCause: "api_cancel" } },
        { callId: inboundId, status: "busy", reason: { sipCode: 486, hangupCause: "api_reject" } },
        { callId: a, status: "failed", reason: { hangupCause: "api_hangup" } },
        { callId: b, status: "completed", reason: { hangupCause: "api_hangup" } }
      ])
      expect(yield* tagOf(calls.hangup(ctx.projectId, ctx.principal, newCallId()))).toBe("CallNotFound")
    }).pipe(Effect.provide(Env)))

  it.effect("list: newest first, filters, page tokens bound to the filters", () =>
    Effect.gen(function*() {
      const ctx = yield* setupProject
      const calls = yield* Calls
      const profileId = yield* withDefault(ctx)
      const line = yield* (yield* Lines).allocate({ projectId: ctx.projectId, platform: "voice" })
      const made: Array<string> = []
      for (let i = 0; i < 5; i++) {
        yield* TestClock.adjust("1 second")
        made.push((yield* calls.create(ctx.projectId, ctx.principal, { lineId: line.lineId, to: `+1555010${i}` })).id)
      }
      const inbound = newCallId()
      yield* calls.ingest(ctx.projectId, ctx.principal, [wire(ctx, profileId, inbound).started()])
      yield* calls.cancel(ctx.projectId, ctx.principal, made[1]!)
      const all = yield* calls.list(ctx.projectId, ctx.principal, {})
      expect(all.calls.map((c) => c.id)).toEqual([...made].reverse().concat(inbound))
      const p1 = yield* calls.list(ctx.projectId, ctx.principal, { pageSize: 2, direction: "outbound" })
      const p2 = yield* calls.list(ctx.projectId, ctx.principal, { pageSize: 2, direction: "outbound", pageToken: p1.nextPageToken })
      const p3 = yield* calls.list(ctx.projectId, ctx.principal, { pageSize: 2, direction: "outbound", pageToken: p2.nextPageToken })
      expect([...p1.calls, ...p2.calls, ...p3.calls].map((c) => c.id)).toEqual([...made].reverse())
      expect(p3.nextPageToken).toBeUndefined()
      expect((yield* calls.list(ctx.projectId, ctx.principal, { status: "canceled" })).calls.map((c) => c.id)).toEqual([made[1]])
      expect((yield* calls.list(ctx.projectId, ctx.principal, { direction: "inbound" })).calls.map((c) => c.id)).toEqual([inbound])
      const window = yield* calls.list(ctx.projectId, ctx.principal, {
        createdAfter: all.calls.find((c) => c.id === made[0])!.createdAt,
        createdBefore: all.calls.find((c) => c.id === made[4])!.createdAt
      })
      expect(window.calls.map((c) => c.id)).toEqual([made[3], made[2], made[1]])
      expect((yield* failureOf(calls.list(ctx.projectId, ctx.principal, { pageSize: 2, pageToken: p1.nextPageToken })))?._tag)
        .toBe("InvalidVoiceQuery")
    }).pipe(Effect.provide(Env)))
})
