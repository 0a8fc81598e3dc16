/**
 * The event channel's ports: the per-project event stream read by sequence number, the
 * wake-ups that tell every server process a project has new events, the sessions connected
 * anywhere (presence, for the reply relay), the relayed replies, and the ingress endpoints.
 *
 * `seq` is a per-project cursor: strictly increasing in commit order within a project (the SQL
 * store assigns it under a per-project row lock held until commit, so a reader that has seen seq n
 * committed has seen every seq below n of that project). Sequence numbers are not contiguous.
 */
import { Context, DateTime, type Effect, type Option, type Stream } from "effect"
import type { EventEnvelope } from "./Schema.js"

/** One event of a project's stream. `replyUntil`: an ingress event whose poster waits for a reply. */
export interface ChannelEvent {
  readonly seq: number
  readonly projectId: string
  readonly event: EventEnvelope
  readonly replyUntil: DateTime.Utc | null
  /** The platform of the ingress endpoint an `external-webhook.received` event came through. */
  readonly platform: string | null
}

/** A reply relayed from a session to the ingress request waiting for it. */
export interface RelayedReply {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  /** Base64 of the body (may be empty). */
  readonly body: string
  readonly errorReason: string
}

export type ChannelProtocolName = "fusor" | "events"

export class EventChannelStore extends Context.Service<EventChannelStore, {
  /**
   * A project's events with seq > `after`, in seq order, at most `limit`. With `maxBytes`, also at
   * most that many bytes of event data (its JSON text) in all — the first event always comes, so a
   * larger one is never stuck — which bounds the memory one read takes whatever the events' size.
   */
  readonly read: (args: {
    readonly projectId: string
    readonly after: number
    readonly limit: number
    readonly maxBytes?: number
  }) => Effect.Effect<ReadonlyArray<ChannelEvent>>
  /** The highest seq committed for the project (0: none yet). */
  readonly head: (projectId: string) => Effect.Effect<number>
  /** The highest seq dropped by retention (0: none); a cursor below it cannot be resumed. */
  readonly floor: (projectId: string) => Effect.Effect<number>
  /** Appends one event in its own transaction (ingress) and returns its seq. */
  readonly append: (args: {
    readonly projectId: string
    readonly event: EventEnvelope
    readonly replyUntil: DateTime.Utc | null
    readonly platform: string | null
  }) => Effect.Effect<number>
  /**
   * Until when the project's event of that id waits for a reply; none when there is no such event
   * or it expects no reply. (Its data is not read: a reply is checked without loading the request.)
   */
  readonly replyDeadline: (projectId: string, eventId: string) => Effect.Effect<Option.Option<DateTime.Utc>>
  /**
   * Drops events that occurred before `before`, were already dispatched and no webhook delivery record
   * refers to; returns how many.
   */
  readonly prune: (before: DateTime.Utc, limit: number) => Effect.Effect<number>
  /** Project ids with newly committed events, from every process (wake-ups, may repeat). */
  readonly wakeups: Stream.Stream<string>
  /** A session of `protocol` opened (`seenAt` now); `touch` refreshes every session of a process. */
  readonly join: (s: {
    readonly sessionId: string
    readonly projectId: string
    readonly protocol: ChannelProtocolName
    readonly processId: string
    readonly now: DateTime.Utc
  }) => Effect.Effect<void>
  readonly leave: (sessionId: string) => Effect.Effect<void>
  readonly touch: (processId: string, now: DateTime.Utc) => Effect.Effect<void>
  /**
   * Drops the sessions last seen before `before` — those of a process that died without closing
   * them (a live process touches its sessions every heartbeat); returns how many.
   */
  readonly dropStale: (before: DateTime.Utc) => Effect.Effect<number>
  /** Whether a session of `protocol` of the project was seen at or after `since`, on any process. */
  readonly present: (projectId: string, protocol: ChannelProtocolName, since: DateTime.Utc) => Effect.Effect<boolean>
  /** Records the first reply for the event (false: one was recorded already). Tells every process. */
  readonly putReply: (eventId: string, reply: RelayedReply) => Effect.Effect<boolean>
  readonly takeReply: (eventId: string) => Effect.Effect<Option.Option<RelayedReply>>
  /** Event ids that got a reply, from every process. */
  readonly replies: Stream.Stream<string>
}>()("core/EventChannelStore") {}

/** An ingress endpoint: where a third party posts webhooks for a project. */
export interface IngressEndpointRecord {
  readonly endpointId: string
  readonly projectId: string
  readonly platform: string
  readonly sourceId: string
  readonly secretHash: string
  readonly createdAt: DateTime.Utc
  readonly revokedAt: DateTime.Utc | null
}

export class IngressEndpointsRepo extends Context.Service<IngressEndpointsRepo, {
  readonly insert: (record: IngressEndpointRecord) => Effect.Effect<void>
  /** The project's unrevoked endpoints, oldest first. */
  readonly list: (projectId: string) => Effect.Effect<ReadonlyArray<IngressEndpointRecord>>
  /** Revokes (idempotent: a second revoke keeps the first time); none when unknown. */
  readonly revoke: (projectId: string, endpointId: string, now: DateTime.Utc) => Effect.Effect<Option.Option<IngressEndpointRecord>>
  /** The unrevoked endpoint of that secret hash. */
  readonly findBySecretHash: (secretHash: string) => Effect.Effect<Option.Option<IngressEndpointRecord>>
}>()("core/IngressEndpointsRepo") {}
