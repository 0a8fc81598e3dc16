/**
 * The event channel's ports in memory: the stream reads the shared `"events"` table (seq = outbox
 * position, which in one process is commit order), wake-ups come from a PubSub fed by `append` and
 * by a light poll of the table (events the plain outbox appended), presence and replies are maps.
 */
import {
  type ChannelEvent,
  EventChannelStore,
  type IngressEndpointRecord,
  IngressEndpointsRepo,
  type OutboxRow,
  type RelayedReply
} from "@switchboard/core/events"
import { DateTime, Effect, Layer, Option, PubSub, Stream } from "effect"
import { MemoryState } from "./MemoryState.js"

interface SessionRow {
  readonly projectId: string
  readonly protocol: string
  readonly processId: string
  seenAt: number
}

export const EventChannelStoreMemory: Layer.Layer<EventChannelStore, never, MemoryState> = Layer.effect(
  EventChannelStore,
  Effect.gen(function*() {
    const state = yield* MemoryState
    const events = state.table<number, OutboxRow>("events")
    const replyUntil = state.table<string, DateTime.Utc | null>("event_reply_until")
    const platforms = state.table<string, string | null>("event_ingress_platform")
    const floors = state.table<string, number>("event_floors")
    const sessions = new Map<string, SessionRow>()
    const replies = new Map<string, RelayedReply>()
    const wake = yield* PubSub.unbounded<string>()
    const replied = yield* PubSub.unbounded<string>()
    const toChannel = (r: OutboxRow): ChannelEvent => ({
      seq: r.position,
      projectId: r.projectId!,
      event: r.event,
      replyUntil: replyUntil.get(r.event.id) ?? null,
      platform: platforms.get(r.event.id) ?? null
    })
    const ofProject = (projectId: string) => [...events.values()].filter((r) => r.projectId === projectId)
    let polled = 0
    const poll = Effect.sync(() => {
      const fresh = [...events.values()].filter((r) => r.position > polled && r.projectId !== null)
      for (const r of fresh) polled = Math.max(polled, r.position)
      return [...new Set(fresh.map((r) => r.projectId!))]
    })
    return EventChannelStore.of({
      read: ({ after, limit, maxBytes, projectId }) =>
        Effect.sync(() => {
          const rows = ofProject(projectId).filter((r) => r.position > after).sort((a, b) => a.position - b.position).slice(0, limit)
          if (maxBytes === undefined) return rows.map(toChannel)
          const within: Array<OutboxRow> = []
          let total = 0
          for (const r of rows) {
            total += JSON.stringify(r.event.data).length
            if (within.length > 0 && total > maxBytes) break
            within.push(r)
          }
          return within.map(toChannel)
        }),
      head: (projectId) => Effect.sync(() => Math.max(0, floors.get(projectId) ?? 0, ...ofProject(projectId).map((r) => r.position))),
      floor: (projectId) => Effect.sync(() => floors.get(projectId) ?? 0),
      append: ({ event, platform, projectId, replyUntil: until }) =>
        Effect.gen(function*() {
          const position = Math.max(0, ...events.keys()) + 1
          events.set(position, { projectId, event, position, dispatchedAt: null })
          replyUntil.set(event.id, until)
          platforms.set(event.id, platform)
          yield* PubSub.publish(wake, projectId)
          return position
        }),
      replyDeadline: (projectId, eventId) =>
        Effect.sync(() =>
          Option.fromNullishOr(ofProject(projectId).find((r) => r.event.id === eventId)).pipe(
            Option.flatMap((r) => Option.fromNullishOr(replyUntil.get(r.event.id)))
          )
        ),
      prune: (before, limit) =>
        Effect.sync(() => {
          const gone = [...events.values()]
            .filter((r) => r.dispatchedAt !== null && DateTime.toEpochMillis(r.event.timestamp) < DateTime.toEpochMillis(before))
            .sort((a, b) => a.position - b.position)
            .slice(0, limit)
          for (const r of gone) {
            events.delete(r.position)
            if (r.projectId !== null) floors.set(r.projectId, Math.max(floors.get(r.projectId) ?? 0, r.position))
          }
          return gone.length
        }),
      wakeups: Stream.merge(
        Stream.fromPubSub(wake),
        Stream.fromIterableEffectRepeat(Effect.andThen(Effect.sleep("50 millis"), poll))
      ),
      join: (s) =>
        Effect.sync(() => {
          sessions.set(s.sessionId, { projectId: s.projectId, protocol: s.protocol, processId: s.processId, seenAt: DateTime.toEpochMillis(s.now) })
        }),
      leave: (sessionId) => Effect.sync(() => void sessions.delete(sessionId)),
      touch: (processId, now) =>
        Effect.sync(() => {
          for (const s of sessions.values()) if (s.processId === processId) s.seenAt = DateTime.toEpochMillis(now)
        }),
      dropStale: (before) =>
        Effect.sync(() => {
          let n = 0
          for (const [id, s] of sessions) {
            if (s.seenAt < DateTime.toEpochMillis(before)) {
              sessions.delete(id)
              n++
            }
          }
          return n
        }),
      present: (projectId, protocol, since) =>
        Effect.sync(() =>
          [...sessions.values()].some((s) => s.projectId === projectId && s.protocol === protocol && s.seenAt >= DateTime.toEpochMillis(since))
        ),
      putReply: (eventId, reply) =>
        Effect.gen(function*() {
          if (replies.has(eventId)) return false
          replies.set(eventId, reply)
          yield* PubSub.publish(replied, eventId)
          return true
        }),
      takeReply: (eventId) => Effect.sync(() => Option.fromNullishOr(replies.get(eventId))),
      replies: Stream.fromPubSub(replied)
    })
  })
)

export const IngressEndpointsRepoMemory: Layer.Layer<IngressEndpointsRepo, never, MemoryState> = Layer.effect(
  IngressEndpointsRepo,
  Effect.gen(function*() {
    const state = yield* MemoryState
    const table = state.table<string, IngressEndpointRecord>("ingress_endpoints")
    return IngressEndpointsRepo.of({
      insert: (r) => Effect.sync(() => void table.set(r.endpointId, r)),
      list: (projectId) =>
        Effect.sync(() =>
          [...table.values()]
            .filter((r) => r.projectId === projectId && r.revokedAt === null)
            .sort((a, b) => DateTime.toEpochMillis(a.createdAt) - DateTime.toEpochMillis(b.createdAt) || a.endpointId.localeCompare(b.endpointId))
        ),
      revoke: (projectId, endpointId, now) =>
        Effect.sync(() => {
          const r = table.get(endpointId)
          if (r === undefined || r.projectId !== projectId) return Option.none()
          const revoked = { ...r, revokedAt: r.revokedAt ?? now }
          table.set(endpointId, revoked)
          return Option.some(revoked)
        }),
      findBySecretHash: (hash) =>
        Effect.sync(() => Option.fromNullishOr([...table.values()].find((r) => r.secretHash === hash && r.revokedAt === null)))
    })
  })
)

export const ChannelMemory = Layer.mergeAll(EventChannelStoreMemory, IngressEndpointsRepoMemory)
void DateTime
