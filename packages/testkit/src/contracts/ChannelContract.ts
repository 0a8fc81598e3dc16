/**
 * The event channel's part of the repository contract suite: per-project seqs strictly increasing
 * and read back after a cursor (plain outbox appends included), reads bounded in bytes, the head,
 * the reply deadline, presence, the first reply winning, and ingress endpoints (secret lookup, list,
 * idempotent revoke).
 */
import type { Vitest } from "@effect/vitest"
import { type Events, type StorePorts } from "@switchboard/core"
import { EventChannelStore, EventOutbox, IngressEndpointsRepo } from "@switchboard/core/events"
import { formatTypeId, IdKinds, uuidv7Bytes } from "@switchboard/core/shared"
import { DateTime, Effect, Option } from "effect"
import { expect } from "vitest"

const T0 = Date.parse("2030-01-01T00:00:00.000Z")
const event = (ms: number): Events.EventEnvelope => ({
  id: formatTypeId(IdKinds.event, uuidv7Bytes(ms, crypto.getRandomValues(new Uint8Array(10)))) as Events.EventEnvelope["id"],
  type: "external-webhook.received",
  apiVersion: "2026-07-01",
  source: "s1.external-webhook.switchboard",
  timestamp: DateTime.makeUnsafe(ms) as DateTime.Utc,
  data: { rawRequestBase64: "R0VUIC8gSFRUUC8xLjENCg0K" }
})
const at = (ms: number) => DateTime.makeUnsafe(ms) as DateTime.Utc

export const channelContract = (it: Vitest.MethodsNonLive<StorePorts>): void => {
  it.effect("event channel: seqs per project increase, reads after a cursor, head and find", () =>
    Effect.gen(function*() {
      const store = yield* EventChannelStore
      const outbox = yield* EventOutbox
      const p = crypto.randomUUID()
      const other = crypto.randomUUID()
      expect(yield* store.head(p)).toBe(0)
      const a = event(T0)
      const s1 = yield* store.append({ projectId: p, event: a, replyUntil: at(T0 + 10_000), platform: "slack" })
      yield* store.append({ projectId: other, event: event(T0), replyUntil: null, platform: null })
      const b = event(T0 + 1)
      yield* outbox.append([{ projectId: p, event: b }])
      const all = yield* store.read({ projectId: p, after: 0, limit: 10 })
      expect(all.map((e) => e.event.id)).toEqual([a.id, b.id])
      expect(all[0]!.seq).toBe(s1)
      expect(all[1]!.seq).toBeGreaterThan(s1)
      expect(all[0]!.replyUntil?.epochMilliseconds).toBe(T0 + 10_000)
      expect(all[1]!.replyUntil).toBeNull()
      expect(all.map((e) => e.platform)).toEqual(["slack", null])
      expect(all[0]!.event.data).toEqual(a.data)
      expect(yield* store.head(p)).toBe(all[1]!.seq)
      expect((yield* store.read({ projectId: p, after: s1, limit: 10 })).map((e) => e.event.id)).toEqual([b.id])
      expect(yield* store.read({ projectId: p, after: 0, limit: 1 })).toHaveLength(1)
      expect(Option.map(yield* store.replyDeadline(p, a.id), (d) => DateTime.toEpochMillis(d))).toEqual(Option.some(T0 + 10_000))
      expect(Option.isNone(yield* store.replyDeadline(p, b.id))).toBe(true)
      expect(Option.isNone(yield* store.replyDeadline(other, a.id))).toBe(true)
      expect(yield* store.floor(p)).toBe(0)
    }))

  it.effect("event channel: a read bounded in bytes stops before the event that would pass them, never before the first", () =>
    Effect.gen(function*() {
      const store = yield* EventChannelStore
      const p = crypto.randomUUID()
      const sized = (ms: number, n: number): Events.EventEnvelope => ({ ...event(ms), data: { rawRequestBase64: "A".repeat(n) } })
      for (const [i, n] of [1_000, 1_000, 1_000, 50_000, 10].entries()) {
        yield* store.append({ projectId: p, event: sized(T0 + i, n), replyUntil: null, platform: null })
      }
      const lengths = (events: ReadonlyArray<{ event: Events.EventEnvelope }>) =>
        events.map((e) => (e.event.data as { rawRequestBase64: string }).rawRequestBase64.length)
      const all = yield* store.read({ projectId: p, after: 0, limit: 10 })
      expect(lengths(all)).toEqual([1_000, 1_000, 1_000, 50_000, 10])
      // Each event's data is its size plus a little JSON: two fit in 2 500 bytes, three do not.
      expect(lengths(yield* store.read({ projectId: p, after: 0, limit: 10, maxBytes: 2_500 }))).toEqual([1_000, 1_000])
      expect(lengths(yield* store.read({ projectId: p, after: 0, limit: 1, maxBytes: 1_000_000 }))).toEqual([1_000])
      // The big one comes alone, however small the bound.
      expect(lengths(yield* store.read({ projectId: p, after: all[2]!.seq, limit: 10, maxBytes: 100 }))).toEqual([50_000])
      expect(lengths(yield* store.read({ projectId: p, after: all[3]!.seq, limit: 10, maxBytes: 100 }))).toEqual([10])
      expect(yield* store.read({ projectId: p, after: all[4]!.seq, limit: 10, maxBytes: 100 })).toEqual([])
    }))

  it.effect("event channel: dropStale removes the sessions of a process that stopped refreshing them, only those", () =>
    Effect.gen(function*() {
      const store = yield* EventChannelStore
      // Long before any other test's sessions, so that the sweep touches this test's rows only.
      const OLD = Date.parse("2001-01-01T00:00:00.000Z")
      const p = crypto.randomUUID()
      const dead = crypto.randomUUID()
      const alive = crypto.randomUUID()
      yield* store.join({ sessionId: dead, projectId: p, protocol: "fusor", processId: `crashed-${p}`, now: at(OLD) })
      yield* store.join({ sessionId: alive, projectId: p, protocol: "events", processId: `alive-${p}`, now: at(OLD) })
      yield* store.touch(`alive-${p}`, at(OLD + 10_000))
      expect(yield* store.dropStale(at(OLD + 5_000))).toBe(1)
      expect(yield* store.present(p, "fusor", at(OLD - 1))).toBe(false)
      expect(yield* store.present(p, "events", at(OLD + 10_000))).toBe(true)
      expect(yield* store.dropStale(at(OLD + 5_000))).toBe(0)
      yield* store.leave(alive)
    }))

  it.effect("event channel: presence by protocol and time; the first reply wins", () =>
    Effect.gen(function*() {
      const store = yield* EventChannelStore
      const p = crypto.randomUUID()
      const sessionId = crypto.randomUUID()
      expect(yield* store.present(p, "fusor", at(T0))).toBe(false)
      yield* store.join({ sessionId, projectId: p, protocol: "fusor", processId: "proc-a", now: at(T0) })
      expect(yield* store.present(p, "fusor", at(T0))).toBe(true)
      expect(yield* store.present(p, "events", at(T0))).toBe(false)
      expect(yield* store.present(p, "fusor", at(T0 + 1))).toBe(false)
      yield* store.touch("proc-a", at(T0 + 5))
      expect(yield* store.present(p, "fusor", at(T0 + 1))).toBe(true)
      yield* store.leave(sessionId)
      expect(yield* store.present(p, "fusor", at(T0))).toBe(false)
      const eventId = event(T0).id
      expect(Option.isNone(yield* store.takeReply(eventId))).toBe(true)
      const first = { status: 200, headers: { "content-type": "text/plain" }, body: "b2s=", errorReason: "" }
      expect(yield* store.putReply(eventId, first)).toBe(true)
      expect(yield* store.putReply(eventId, { ...first, status: 500 })).toBe(false)
      expect(yield* store.takeReply(eventId)).toEqual(Option.some(first))
    }))

  it.effect("ingress endpoints: found by secret hash until revoked; revoke keeps its first time", () =>
    Effect.gen(function*() {
      const repo = yield* IngressEndpointsRepo
      const p = crypto.randomUUID()
      const record = {
        endpointId: `sb_ing_${crypto.randomUUID()}`,
        projectId: p,
        platform: "slack",
        sourceId: "team-1",
        secretHash: crypto.randomUUID(),
        createdAt: at(T0),
        revokedAt: null
      }
      yield* repo.insert(record)
      expect(yield* repo.list(p)).toEqual([record])
      expect(yield* repo.findBySecretHash(record.secretHash)).toEqual(Option.some(record))
      const revoked = yield* repo.revoke(p, record.endpointId, at(T0 + 1))
      expect(Option.map(revoked, (r) => r.revokedAt?.epochMilliseconds)).toEqual(Option.some(T0 + 1))
      const again = yield* repo.revoke(p, record.endpointId, at(T0 + 2))
      expect(Option.map(again, (r) => r.revokedAt?.epochMilliseconds)).toEqual(Option.some(T0 + 1))
      expect(Option.isNone(yield* repo.revoke(crypto.randomUUID(), record.endpointId, at(T0)))).toBe(true)
      expect(Option.isNone(yield* repo.findBySecretHash(record.secretHash))).toBe(true)
      expect(yield* repo.list(p)).toEqual([])
    }))
}
