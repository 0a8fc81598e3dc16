/**
 * Webhooks' ports: the store of webhooks and deliveries, and the outbound HTTP sender.
 *
 * Both kinds of webhook — management webhooks (docs/api-notes/management-api.md) and v1
 * destinations (docs/api-notes/events-and-webhooks.md) — are *endpoints* of one table: a URL, a
 * sealed signing secret (sealed with `ServerSecret.seal`, since signing needs it back), an event
 * selection and a status. The delivery engine fans each outbox event out to one *delivery* per
 * matching endpoint, then attempts due deliveries.
 */
import { Context, DateTime, type Effect, type Option } from "effect"
import type { StoredOutboxEvent } from "./EventsFeature.js"
import type { SendOutcome } from "./DeliveryPolicy.js"
import type { EventEnvelope } from "./Schema.js"
import type { WebhookUrlTaken } from "./WebhookErrors.js"

/** `destination`: a v1 webhook destination; `management`: a management-API webhook. */
export type EndpointKind = "destination" | "management"

export interface WebhookEndpoint {
  /** `sb_whd_…` for destinations, a UUID for management webhooks. */
  readonly endpointId: string
  readonly kind: EndpointKind
  readonly projectId: string
  readonly url: string
  readonly name: string | null
  readonly description: string | null
  readonly status: "enabled" | "disabled"
  /** `["*"]` or event types. */
  readonly enabledEvents: ReadonlyArray<string>
  readonly apiVersion: string
  /** The signing secret, sealed. */
  readonly secret: Uint8Array
  /** During a rotation overlap: the previous secret (sealed) and when it stops signing. */
  readonly previousSecret: Uint8Array | null
  readonly previousSecretExpiresAt: DateTime.Utc | null
  readonly createdAt: DateTime.Utc
  readonly updatedAt: DateTime.Utc
  readonly deletedAt: DateTime.Utc | null
  /**
   * The outbox position the endpoint starts after (`WebhooksRepo.outboxHead` when it was
   * created): fan-out gives it only events at later positions, so a new endpoint never receives
   * the events committed before it existed, even those not fanned out yet (docs/api-notes/events-and-webhooks.md). The boundary is the outbox position, taken when an event is written: an event whose
   * transaction wrote it before the endpoint's creation read the head, but committed only after,
   * falls before the boundary and does not reach the new endpoint.
   */
  readonly startsAfterPosition: number
}

/** An endpoint as its creator makes it: the store's outbox head, read when it is inserted, completes it. */
export type NewWebhookEndpoint = Omit<WebhookEndpoint, "startsAfterPosition">

export type DeliveryStatus = "pending" | "delivered" | "dead_lettered" | "cancelled"

export interface DeliveryRecord {
  readonly deliveryId: string
  readonly endpointId: string
  readonly projectId: string
  readonly eventId: string
  /** The event's outbox position. */
  readonly eventPosition: number
  readonly eventType: string
  readonly status: DeliveryStatus
  /** Finished attempts. */
  readonly attemptCount: number
  /** When a pending delivery is next due. */
  readonly nextAttemptAt: DateTime.Utc
  /** Set while an engine holds the delivery (an attempt in flight); it may be claimed again after. */
  readonly leasedUntil: DateTime.Utc | null
  /** Bumped by every claim; an attempt's outcome is recorded only under the claim that made it. */
  readonly claimSeq: number
  readonly lastAttemptAt: DateTime.Utc | null
  readonly lastError: string | null
  readonly lastResponseStatus: number | null
  readonly deliveredAt: DateTime.Utc | null
  readonly createdAt: DateTime.Utc
}

/** A claimed delivery with what the attempt needs. */
export interface ClaimedDelivery {
  readonly delivery: DeliveryRecord
  readonly endpoint: WebhookEndpoint
  readonly event: EventEnvelope
}

/** The outcome of a finished attempt, written under its claim. */
export interface AttemptRecord {
  readonly deliveryId: string
  readonly claimSeq: number
  readonly status: "pending" | "delivered" | "dead_lettered"
  readonly attemptCount: number
  readonly nextAttemptAt: DateTime.Utc
  readonly lastAttemptAt: DateTime.Utc
  readonly lastError: string | null
  readonly lastResponseStatus: number | null
  readonly deliveredAt: DateTime.Utc | null
}

/** A cursor in a list ordered by creation time, then id. */
export interface CreatedCursor {
  readonly createdAt: DateTime.Utc
  readonly id: string
}

export class WebhooksRepo extends Context.Service<WebhooksRepo, {
  // --- endpoints ---------------------------------------------------------------------------
  /** Inserts an endpoint; a live management webhook of the project with the same URL is `WebhookUrlTaken`. */
  readonly insertEndpoint: (endpoint: WebhookEndpoint) => Effect.Effect<void, WebhookUrlTaken>
  /** The endpoint of that kind on that project (deleted ones too). */
  readonly findEndpoint: (kind: EndpointKind, projectId: string, endpointId: string) => Effect.Effect<Option.Option<WebhookEndpoint>>
  /** Like `findEndpoint`, with the row locked until the surrounding transaction ends. */
  readonly lockEndpoint: (kind: EndpointKind, projectId: string, endpointId: string) => Effect.Effect<Option.Option<WebhookEndpoint>>
  /** Writes the mutable fields (url, name, description, status, events, secrets, updatedAt, deletedAt). */
  readonly updateEndpoint: (endpoint: WebhookEndpoint) => Effect.Effect<void>
  /** Live endpoints of a kind on a project, oldest first, after the cursor, at most `limit`. */
  readonly listEndpoints: (args: {
    readonly kind: EndpointKind
    readonly projectId: string
    readonly after: CreatedCursor | undefined
    readonly limit: number
  }) => Effect.Effect<ReadonlyArray<WebhookEndpoint>>
  /** Live endpoints of a kind on a project. */
  readonly countLiveEndpoints: (kind: EndpointKind, projectId: string) => Effect.Effect<number>
  /** Deliveries waiting for an attempt (pending) and kept after their last attempt (dead-lettered), all projects. */
  readonly deliveryCounts: Effect.Effect<{ readonly pending: number; readonly deadLettered: number }>
  /** When the longest-waiting pending delivery was due (epoch ms), or null when none is pending. */
  readonly oldestPendingDueMillis: Effect.Effect<number | null>
  /** Cancels the endpoint's pending deliveries (it was deleted); returns how many. */
  readonly cancelPendingDeliveries: (endpointId: string) => Effect.Effect<number>

  // --- fan-out -------------------------------------------------------------------------------
  /**
   * Up to `limit` events not yet fanned out, in outbox order, locked for the surrounding
   * transaction; rows another transaction holds are skipped (`FOR UPDATE SKIP LOCKED`).
   */
  readonly takeUndispatched: (limit: number) => Effect.Effect<ReadonlyArray<StoredOutboxEvent>>
  /**
   * The outbox's highest position (0 when it holds no event): an endpoint created now starts
   * after it (`WebhookEndpoint.startsAfterPosition`). Read in the endpoint's creation transaction.
   */
  readonly outboxHead: Effect.Effect<number>
  /** Enabled, live endpoints of these projects. */
  readonly subscribers: (projectIds: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<WebhookEndpoint>>
  /**
   * Records a test event for one endpoint and its pending delivery, due at once. The event belongs
   * to no project's event log and is never fanned out: only this endpoint receives it.
   */
  readonly insertTestDelivery: (args: { readonly event: EventEnvelope; readonly delivery: DeliveryRecord }) => Effect.Effect<void>
  /** Inserts deliveries; one that already exists (same endpoint and event) is left as it is. */
  readonly insertDeliveries: (deliveries: ReadonlyArray<DeliveryRecord>) => Effect.Effect<void>
  /** Marks events fanned out. */
  readonly markDispatched: (positions: ReadonlyArray<number>, at: DateTime.Utc) => Effect.Effect<void>
  /**
   * Lets the store refresh its query planner's statistics of the outbox and delivery tables (the
   * engine asks after fanning out many deliveries): PGlite runs no autovacuum, and a planner that
   * has never seen these tables grow sorts every due delivery to claim a few. A no-op in memory.
   */
  readonly refreshStatistics: Effect.Effect<void>

  // --- attempts ------------------------------------------------------------------------------
  /**
   * Claims up to `limit` pending deliveries due at `now` whose endpoint is enabled and live and
   * that no live lease holds: each gets `leasedUntil` and a new `claimSeq`. Concurrent claimers
   * never get the same delivery (`FOR UPDATE SKIP LOCKED`).
   */
  readonly claimDue: (args: {
    readonly now: DateTime.Utc
    readonly leaseUntil: DateTime.Utc
    readonly limit: number
    /**
     * Fair claiming: at most this many deliveries of one endpoint in flight (leased, by any
     * process) at once, and the claim goes round-robin over endpoints — each endpoint's earliest
     * due delivery first, then each one's second, … — so one endpoint's backlog never holds up
     * another's deliveries.
     */
    readonly perEndpoint: number
  }) => Effect.Effect<ReadonlyArray<ClaimedDelivery>>
  /**
   * Records attempts' outcomes and ends their leases, each only if its claim is still the current
   * one; returns the ids of the deliveries recorded.
   */
  readonly completeAttempts: (attempts: ReadonlyArray<AttemptRecord>) => Effect.Effect<ReadonlyArray<string>>
  /**
   * `completeAttempts(attempts)` then `claimDue(claim)`, as one statement where the store can (one
   * round trip for the engine's writer): the recorded deliveries no longer count against their
   * endpoint's in-flight cap, and none of them is claimed again by this call. Returns the claim.
   */
  readonly completeAndClaim: (args: {
    readonly attempts: ReadonlyArray<AttemptRecord>
    readonly now: DateTime.Utc
    readonly leaseUntil: DateTime.Utc
    readonly limit: number
    readonly perEndpoint: number
  }) => Effect.Effect<ReadonlyArray<ClaimedDelivery>>
  /** Gives a claimed delivery back unattempted (shutdown), due at once, if the claim is current. */
  readonly releaseClaim: (args: { readonly deliveryId: string; readonly claimSeq: number; readonly now: DateTime.Utc }) => Effect.Effect<void>

  // --- deliveries ----------------------------------------------------------------------------
  /** The delivery of an event to an endpoint, with its row locked until the transaction ends. */
  readonly lockDelivery: (endpointId: string, eventId: string) => Effect.Effect<Option.Option<DeliveryRecord>>
  /** Makes a pending or dead-lettered delivery pending and due at `at` (a manual retry). */
  readonly scheduleDelivery: (args: { readonly deliveryId: string; readonly at: DateTime.Utc }) => Effect.Effect<void>
  /** An endpoint's deliveries, newest first, optionally of one status, after the cursor. */
  readonly listDeliveries: (args: {
    readonly endpointId: string
    readonly status: DeliveryStatus | undefined
    readonly before: CreatedCursor | undefined
    readonly limit: number
  }) => Effect.Effect<ReadonlyArray<DeliveryRecord>>
}>()("core/WebhooksRepo") {}

/** A new delivery of an event to an endpoint: pending, due `now`, never attempted. */
export const newDelivery = (args: {
  readonly deliveryId: string
  readonly endpoint: WebhookEndpoint
  readonly eventId: string
  readonly eventPosition: number
  readonly eventType: string
  readonly now: DateTime.Utc
}): DeliveryRecord => ({
  deliveryId: args.deliveryId,
  endpointId: args.endpoint.endpointId,
  projectId: args.endpoint.projectId,
  eventId: args.eventId,
  eventPosition: args.eventPosition,
  eventType: args.eventType,
  status: "pending",
  attemptCount: 0,
  nextAttemptAt: args.now,
  leasedUntil: null,
  claimSeq: 0,
  lastAttemptAt: null,
  lastError: null,
  lastResponseStatus: null,
  deliveredAt: null,
  createdAt: args.now
})

/** One outbound webhook request. */
export interface OutboundRequest {
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
  readonly timeoutMs: number
}

/**
 * The outbound HTTP port. The server's implementation guards the target (https only, public
 * addresses only, no redirects) unless the operator allows private targets; tests record or fake.
 * It never fails: every outcome, including refusals, is a `SendOutcome`.
 */
export class WebhookSender extends Context.Service<WebhookSender, {
  readonly send: (request: OutboundRequest) => Effect.Effect<SendOutcome>
  /**
   * The same request as plain callbacks, for the engine's batch path (no fiber
   * per delivery): calls `onOutcome` once with the outcome, never after the returned function
   * (which cancels the request) ran. Optional: without it the engine sends through `send`.
   */
  readonly start?: (request: OutboundRequest, onOutcome: (outcome: SendOutcome) => void) => () => void
}>()("core/WebhookSender") {}
