/**
 * The events outbox's part of the repository contract suite: appended events read back in order
 * with their envelopes intact, and a rolled-back transaction leaves none of its events behind.
 */
import type { Vitest } from "@effect/vitest"
import { type Events, type StorePorts } from "@switchboard/core"
import { EventOutbox } from "@switchboard/core/events"
import { IdKinds, formatTypeId, Transactor, uuidv7Bytes } from "@switchboard/core/shared"
import { DateTime, Effect, Result } from "effect"
import { expect } from "vitest"

const T0 = Date.parse("2030-01-01T00:00:00.000Z")
const projectId = () => crypto.randomUUID()
const event = (type: string, ms: number, data: Record<string, unknown>): Events.EventEnvelope => ({
  id: formatTypeId(IdKinds.event, uuidv7Bytes(ms, crypto.getRandomValues(new Uint8Array(10)))) as Events.EventEnvelope["id"],
  type,
  apiVersion: "2026-07-01",
  source: "test",
  timestamp: DateTime.makeUnsafe(ms) as DateTime.Utc,
  data
})

export const eventsContract = (it: Vitest.MethodsNonLive<StorePorts>): void => {
  it.effect("events outbox: appended events read back per project, in order, after a position", () =>
    Effect.gen(function*() {
      const outbox = yield* EventOutbox
      const p = projectId()
      const other = projectId()
      const a = event("call.started", T0, { callId: "c1", nested: { n: 1, list: [1, "x", null] } })
      const b = event("call.ringing", T0 + 1, { callId: "c1" })
      yield* outbox.append([{ projectId: p, event: a }, { projectId: other, event: event("x.y", T0, {}) }, { projectId: p, event: b }])
      const all = yield* outbox.list({ projectId: p, after: 0, limit: 10 })
      expect(all.map((e) => e.event)).toEqual([a, b])
      expect(all[0]!.position).toBeLessThan(all[1]!.position)
      expect(all.every((e) => e.projectId === p)).toBe(true)
      const rest = yield* outbox.list({ projectId: p, after: all[0]!.position, limit: 10 })
      expect(rest.map((e) => e.event.id)).toEqual([b.id])
      expect(yield* outbox.list({ projectId: p, after: 0, limit: 1 })).toHaveLength(1)
    }))

  it.effect("events outbox: events of a rolled-back transaction are gone", () =>
    Effect.gen(function*() {
      const outbox = yield* EventOutbox
      const tx = yield* Transactor
      const p = projectId()
      const result = yield* tx.withTransaction(
        Effect.andThen(outbox.append([{ projectId: p, event: event("call.started", T0, {}) }]), Effect.fail("boom" as const))
      ).pipe(Effect.result)
      expect(Result.isFailure(result)).toBe(true)
      expect(yield* outbox.list({ projectId: p, after: 0, limit: 10 })).toEqual([])
    }))
}
