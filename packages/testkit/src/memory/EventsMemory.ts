/**
 * The events outbox in memory: the table `"events"` of the shared `MemoryState` (so a rolled-back
 * transaction drops its events too), positions from a counter that never goes back.
 */
import { EventOutbox, type OutboxRow } from "@switchboard/core/events"
import { Effect, Layer } from "effect"
import { MemoryState } from "./MemoryState.js"

export const EventOutboxMemory: Layer.Layer<EventOutbox, never, MemoryState> = Layer.effect(
  EventOutbox,
  Effect.gen(function*() {
    const state = yield* MemoryState
    const table = state.table<number, OutboxRow>("events")
    let next = 1
    return EventOutbox.of({
      append: (events) =>
        Effect.sync(() => {
          for (const e of events) {
            // Past any position another writer of the table (the channel's ingress) took.
            let top = next
            for (const k of table.keys()) if (k >= top) top = k + 1
            const position = top
            next = top + 1
            table.set(position, { ...e, position, dispatchedAt: null })
          }
        }),
      list: ({ after, limit, projectId }) =>
        Effect.sync(() =>
          [...table.values()]
            .filter((r) => r.projectId === projectId && r.position > after)
            .sort((a, b) => a.position - b.position)
            .slice(0, limit)
            .map(({ event, position, projectId }) => ({ event, position, projectId }))
        )
    })
  })
)

export const EventsMemory = EventOutboxMemory
