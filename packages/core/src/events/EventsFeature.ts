/**
 * The events outbox (docs/api-notes/events-and-webhooks.md): every event is written to the outbox
 * in the transaction of the change that caused it, and a delivery engine drains it afterwards.
 *
 * - `EventOutbox` is the port: `append` joins the caller's transaction (call it inside
 *   `Transactor.withTransaction`, next to the writes that caused the events), so an event exists
 *   exactly when its change committed. `list` reads a project's events in outbox order.
 * - `EventPublisher` is the service features use: it builds envelopes (`sb_evt_…` id, `apiVersion`
 *   2026-07-01) and appends them.
 *
 * Storage shape, for the delivery engine (it may read it directly): SQL table `events`
 * (`position bigserial` — outbox order, `id`, `project_id uuid null`, `type`, `source`,
 * `occurred_at timestamptz`, `data jsonb`, `api_version`, `dispatched_at timestamptz null`, with a
 * partial index on `position` where `dispatched_at is null`); memory table `"events"`
 * (`Map<position, OutboxRow>`).
 */
import { Context, DateTime, Effect, Layer } from "effect"
import { IdKinds } from "../shared/Identifiers.js"
import { Ids } from "../shared/Ids.js"
import { EVENT_API_VERSION, type EventEnvelope } from "./Schema.js"
import { fn } from "../internal/Traced.js"

/** One event as the outbox holds it: the envelope and the project it belongs to (if any). */
export interface OutboxEvent {
  readonly projectId: string | null
  readonly event: EventEnvelope
}

/** An event read back from the outbox, with its position (strictly increasing in append order). */
export interface StoredOutboxEvent extends OutboxEvent {
  readonly position: number
}

/** A row of the memory table `"events"`. */
export interface OutboxRow extends StoredOutboxEvent {
  readonly dispatchedAt: DateTime.Utc | null
}

export class EventOutbox extends Context.Service<EventOutbox, {
  /** Appends the events in order, inside the caller's transaction (they commit or roll back with it). */
  readonly append: (events: ReadonlyArray<OutboxEvent>) => Effect.Effect<void>
  /** A project's events after `after` (a position; 0 for the first), in outbox order, at most `limit`. */
  readonly list: (args: {
    readonly projectId: string
    readonly after: number
    readonly limit: number
  }) => Effect.Effect<ReadonlyArray<StoredOutboxEvent>>
}>()("core/EventOutbox") {}

/** What a feature says happened; the publisher adds the id and the `apiVersion`. */
export interface EventInput {
  readonly type: string
  readonly source: string
  readonly timestamp: DateTime.Utc
  readonly data: Record<string, unknown>
}

export class EventPublisher extends Context.Service<EventPublisher>()("core/EventPublisher", {
  make: Effect.gen(function*() {
    const outbox = yield* EventOutbox
    const ids = yield* Ids

    /** The envelope of one event (a fresh `sb_evt_…` id). */
    const envelope = (input: EventInput): Effect.Effect<EventEnvelope> =>
      Effect.map(ids.typeId(IdKinds.event), (id) => ({
        id: id as EventEnvelope["id"],
        type: input.type,
        apiVersion: EVENT_API_VERSION,
        source: input.source,
        timestamp: input.timestamp,
        data: input.data
      }))

    /**
     * Appends the events of one change, in order, to the outbox; run it inside the change's
     * transaction. Returns the envelopes as written.
     */
    const publish = fn("EventPublisher.publish")(function*(
      projectId: string | null,
      inputs: ReadonlyArray<EventInput>
    ) {
      const events = yield* Effect.forEach(inputs, envelope)
      if (events.length > 0) yield* outbox.append(events.map((event) => ({ projectId, event })))
      return events
    })

    return { envelope, publish }
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(Layer.provide([Ids.layer]))
}

export const EventsCore = EventPublisher.layer
export type EventsPorts = EventOutbox
