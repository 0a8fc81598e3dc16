/**
 * Fixtures shared by the webhooks contract suites (WebhooksContract.ts, WebhookClaimsContract.ts):
 * endpoints, events and deliveries, and the drain each case starts with (the suites share one store
 * with the others, so each case first drains what earlier cases left).
 */
import { type Events } from "@switchboard/core"
import { type DeliveryRecord, EventOutbox, type WebhookEndpoint, WebhooksRepo } from "@switchboard/core/events"
import { formatTypeId, formatUuid, IdKinds, Transactor, uuidv7Bytes } from "@switchboard/core/shared"
import { DateTime, Effect } from "effect"

export const rand = () => crypto.getRandomValues(new Uint8Array(10))
export const T0 = Date.parse("2031-01-01T00:00:00.000Z")
export const at = (ms: number) => DateTime.makeUnsafe(ms) as DateTime.Utc
export const FAR = at(Date.parse("2999-01-01T00:00:00.000Z"))
export const newProjectId = () => formatUuid(uuidv7Bytes(Date.now(), rand()))

export const endpointFixture = (overrides: Partial<WebhookEndpoint> = {}): WebhookEndpoint => {
  const createdAt = overrides.createdAt ?? at(T0)
  return {
    endpointId: formatTypeId(IdKinds.webhookDestination, uuidv7Bytes(DateTime.toEpochMillis(createdAt), rand())),
    kind: "destination",
    projectId: newProjectId(),
    url: "https://hooks.example.com/in",
    name: "hook",
    description: null,
    status: "enabled",
    enabledEvents: ["*"],
    apiVersion: "2026-07-01",
    secret: new Uint8Array([1, 2, 3, 250]),
    previousSecret: null,
    previousSecretExpiresAt: null,
    createdAt,
    updatedAt: createdAt,
    deletedAt: null,
    startsAfterPosition: 0,
    ...overrides
  }
}

export const eventFixture = (type: string, ms: number, data: Record<string, unknown> = {}): Events.EventEnvelope => ({
  id: formatTypeId(IdKinds.event, uuidv7Bytes(ms, rand())) as Events.EventEnvelope["id"],
  type,
  apiVersion: "2026-07-01",
  source: "test.contract",
  timestamp: at(ms),
  data
})

/** Marks every leftover event dispatched and finishes every leftover claimable delivery. */
export const quiesce = Effect.gen(function*() {
  const repo = yield* WebhooksRepo
  const tx = yield* Transactor
  for (;;) {
    const n = yield* tx.withTransaction(Effect.gen(function*() {
      const events = yield* repo.takeUndispatched(500)
      yield* repo.markDispatched(events.map((e) => e.position), at(T0))
      return events.length
    }))
    if (n === 0) break
  }
  for (;;) {
    const claimed = yield* repo.claimDue({ now: FAR, leaseUntil: FAR, limit: 500, perEndpoint: 1000 })
    for (const c of claimed) {
      yield* repo.completeAttempts([{
        deliveryId: c.delivery.deliveryId,
        claimSeq: c.delivery.claimSeq,
        status: "delivered",
        attemptCount: c.delivery.attemptCount + 1,
        nextAttemptAt: FAR,
        lastAttemptAt: FAR,
        lastError: null,
        lastResponseStatus: 200,
        deliveredAt: FAR
      }])
    }
    if (claimed.length === 0) break
  }
})

/** Appends events for a project and returns them with their positions (as fan-out sees them). */
export const appendEvents = (projectId: string, events: ReadonlyArray<Events.EventEnvelope>) =>
  Effect.gen(function*() {
    const outbox = yield* EventOutbox
    const repo = yield* WebhooksRepo
    const tx = yield* Transactor
    yield* outbox.append(events.map((event) => ({ projectId, event })))
    return yield* tx.withTransaction(repo.takeUndispatched(1000))
  })

/**
 * A drained store, a fresh project with one endpoint (and one more per extra URL), and `n`
 * `project.updated` events appended and taken as fan-out takes them.
 */
export const endpointsWithEvents = (n: number, ...extraUrls: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    yield* quiesce
    const repo = yield* WebhooksRepo
    const projectId = newProjectId()
    const endpoints = [endpointFixture({ projectId }), ...extraUrls.map((url) => endpointFixture({ projectId, url }))]
    for (const endpoint of endpoints) yield* repo.insertEndpoint(endpoint)
    const events = yield* appendEvents(projectId, Array.from({ length: n }, (_, i) => eventFixture("project.updated", T0 + i)))
    return { repo, endpoint: endpoints[0]!, endpoints, events }
  })

export const deliveryFor = (endpoint: WebhookEndpoint, event: { position: number; event: Events.EventEnvelope }, createdMs: number): DeliveryRecord => ({
  deliveryId: formatTypeId(IdKinds.delivery, uuidv7Bytes(createdMs, rand())),
  endpointId: endpoint.endpointId,
  projectId: endpoint.projectId,
  eventId: event.event.id,
  eventPosition: event.position,
  eventType: event.event.type,
  status: "pending",
  attemptCount: 0,
  nextAttemptAt: at(createdMs),
  leasedUntil: null,
  claimSeq: 0,
  lastAttemptAt: null,
  lastError: null,
  lastResponseStatus: null,
  deliveredAt: null,
  createdAt: at(createdMs)
})
