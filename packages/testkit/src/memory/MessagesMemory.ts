/**
 * The messages context's store in memory: message records per project and the applied facts (the
 * event log), over `MemoryState` so they roll back with transactions. Memory transactions run one
 * at a time, so `loadBatch` has nothing to lock and `writeBatch` never meets a race.
 */
import { type Message, MessagesRepo } from "@switchboard/core/messages"
import { DateTime, Effect, Layer, Option } from "effect"
import { MemoryState } from "./MemoryState.js"

export const MESSAGES_TABLE = "messages"
export const MESSAGE_EVENT_LOG_TABLE = "message_event_log"

const key = (projectId: string, id: string) => `${projectId}\u0000${id}`

export const MessagesMemory = Layer.effect(
  MessagesRepo,
  Effect.gen(function*() {
    const state = yield* MemoryState
    const messages = state.table<string, Message>(MESSAGES_TABLE)
    const facts = state.table<string, { readonly messageId: string; readonly recordedAt: number }>(MESSAGE_EVENT_LOG_TABLE)

    return MessagesRepo.of({
      find: (projectId, messageId) => Effect.sync(() => Option.fromNullishOr(messages.get(key(projectId, messageId)))),
      list: ({ after, createdAfter, createdBefore, limit, platform, projectId, status }) =>
        Effect.sync(() =>
          [...messages.values()]
            .filter((m) =>
              m.projectId === projectId &&
              (platform === undefined || m.platform === platform) &&
              (status === undefined || m.status === status) &&
              (createdAfter === undefined || DateTime.toEpochMillis(m.createdAt) > DateTime.toEpochMillis(createdAfter)) &&
              (createdBefore === undefined || DateTime.toEpochMillis(m.createdAt) < DateTime.toEpochMillis(createdBefore)) &&
              (after === undefined || DateTime.toEpochMillis(m.createdAt) < DateTime.toEpochMillis(after.createdAt) ||
                (DateTime.toEpochMillis(m.createdAt) === DateTime.toEpochMillis(after.createdAt) && m.id < after.messageId))
            )
            .sort((a, b) => DateTime.toEpochMillis(b.createdAt) - DateTime.toEpochMillis(a.createdAt) || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
            .slice(0, limit)
        ),
      loadBatch: ({ factIds, messageIds, projectId }) =>
        Effect.sync(() => {
          const found = new Map<string, Message>()
          for (const id of messageIds) {
            const m = messages.get(key(projectId, id))
            if (m !== undefined) found.set(id, m)
          }
          return { messages: found, applied: new Set(factIds.filter((f) => facts.has(key(projectId, f)))) }
        }),
      writeBatch: ({ created, facts: applied, projectId, recordedAt, updated }) =>
        Effect.sync(() => {
          if (created.some((m) => messages.has(key(projectId, m.id)))) return false
          if (applied.some((f) => facts.has(key(projectId, f.factId)))) return false
          for (const m of [...created, ...updated]) messages.set(key(projectId, m.id), m)
          for (const f of applied) facts.set(key(projectId, f.factId), { messageId: f.messageId, recordedAt: DateTime.toEpochMillis(recordedAt) })
          return true
        })
    })
  })
)
