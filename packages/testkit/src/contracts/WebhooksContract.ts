/**
 * Webhooks' part of the repository contract suite: endpoints (scoped by kind and project, listed
 * oldest first after a cursor, one live management webhook per URL), fan-out (undispatched events
 * in outbox order, taken once; the outbox head an endpoint starts after; duplicate deliveries ignored), inserted deliveries, the oldest due
 * time, manual retries, cancellation and the newest-first delivery list. Claims, leases, fairness
 * and recorded outcomes are in WebhookClaimsContract.ts, run from here; the fixtures and the drain
 * each case starts with are in WebhooksFixtures.ts.
 */
import type { Vitest } from "@effect/vitest"
import { type StorePorts } from "@switchboard/core"
import { type DeliveryRecord, WebhooksRepo } from "@switchboard/core/events"
import { Transactor } from "@switchboard/core/shared"
import { Effect, Result, Option } from "effect"
import { expect } from "vitest"
import { appendEvents, at, deliveryFor, endpointFixture, endpointsWithEvents, eventFixture, FAR, newProjectId, quiesce, T0 } from "./WebhooksFixtures.js"
import { webhookClaimsContract } from "./WebhookClaimsContract.js"

export const webhooksContract = (it: Vitest.MethodsNonLive<StorePorts>): void => {
  it.effect("webhooks: endpoints by kind and project, oldest first after a cursor, counted, updated", () =>
    Effect.gen(function*() {
      const repo = yield* WebhooksRepo
      const projectId = newProjectId()
      const a = endpointFixture({ projectId, createdAt: at(T0), secret: new Uint8Array([0, 255, 7]) })
      const b = endpointFixture({ projectId, createdAt: at(T0 + 1000), enabledEvents: ["call.started", "project.created"] })
      const c = endpointFixture({ projectId, createdAt: at(T0 + 2000), description: "third" })
      const other = endpointFixture({ createdAt: at(T0) })
      for (const e of [c, a, b, other]) yield* repo.insertEndpoint(e)
      expect(Option.getOrThrow(yield* repo.findEndpoint("destination", projectId, a.endpointId))).toEqual(a)
      expect(Option.isNone(yield* repo.findEndpoint("management", projectId, a.endpointId))).toBe(true)
      expect(Option.isNone(yield* repo.findEndpoint("destination", other.projectId, a.endpointId))).toBe(true)
      const all = yield* repo.listEndpoints({ kind: "destination", projectId, after: undefined, limit: 10 })
      expect(all.map((e) => e.endpointId)).toEqual([a.endpointId, b.endpointId, c.endpointId])
      expect(all[1]!.enabledEvents).toEqual(["call.started", "project.created"])
      const rest = yield* repo.listEndpoints({ kind: "destination", projectId, after: { createdAt: a.createdAt, id: a.endpointId }, limit: 1 })
      expect(rest.map((e) => e.endpointId)).toEqual([b.endpointId])
      expect(yield* repo.countLiveEndpoints("destination", projectId)).toBe(3)

      const rotated = {
        ...b,
        url: "https://hooks.example.com/v2",
        status: "disabled" as const,
        secret: new Uint8Array([9, 9]),
        previousSecret: b.secret,
        previousSecretExpiresAt: at(T0 + 86_400_000),
        updatedAt: at(T0 + 5000)
      }
      yield* repo.updateEndpoint(rotated)
      expect(Option.getOrThrow(yield* repo.lockEndpoint("destination", projectId, b.endpointId))).toEqual(rotated)
      yield* repo.updateEndpoint({ ...c, deletedAt: at(T0 + 6000), updatedAt: at(T0 + 6000) })
      expect(yield* repo.countLiveEndpoints("destination", projectId)).toBe(2)
      expect((yield* repo.listEndpoints({ kind: "destination", projectId, after: undefined, limit: 10 })).map((e) => e.endpointId))
        .toEqual([a.endpointId, b.endpointId])
    }))

  it.effect("webhooks: one live management webhook per project and URL; a deleted URL can be registered again", () =>
    Effect.gen(function*() {
      const repo = yield* WebhooksRepo
      const projectId = newProjectId()
      const first = endpointFixture({ kind: "management", endpointId: crypto.randomUUID(), projectId, url: "https://m.example.com/a" })
      yield* repo.insertEndpoint(first)
      const dup = yield* Effect.result(repo.insertEndpoint({ ...first, endpointId: crypto.randomUUID() }))
      expect(Result.isFailure(dup) && dup.failure._tag).toBe("WebhookUrlTaken")
      // Another project, or a v1 destination, may use the same URL.
      yield* repo.insertEndpoint({ ...first, endpointId: crypto.randomUUID(), projectId: newProjectId() })
      yield* repo.insertEndpoint(endpointFixture({ projectId, url: first.url }))
      yield* repo.updateEndpoint({ ...first, deletedAt: at(T0 + 1), updatedAt: at(T0 + 1) })
      yield* repo.insertEndpoint({ ...first, endpointId: crypto.randomUUID(), createdAt: at(T0 + 2) })
      expect(yield* repo.countLiveEndpoints("management", projectId)).toBe(1)
    }))

  it.effect("webhooks: fan-out takes undispatched events in outbox order, once; subscribers are enabled live endpoints", () =>
    Effect.gen(function*() {
      yield* quiesce
      const repo = yield* WebhooksRepo
      const tx = yield* Transactor
      const projectId = newProjectId()
      const e1 = eventFixture("project.created", T0, { n: 1, nested: { list: [1, "x", null] } })
      const e2 = eventFixture("project.updated", T0 + 1)
      const taken = yield* appendEvents(projectId, [e1, e2])
      expect(taken.map((t) => t.event)).toEqual([e1, e2])
      expect(taken[0]!.position).toBeLessThan(taken[1]!.position)
      expect(taken.every((t) => t.projectId === projectId)).toBe(true)
      // Rolled back: still undispatched.
      const failed = yield* Effect.result(tx.withTransaction(Effect.andThen(
        repo.markDispatched(taken.map((t) => t.position), at(T0)),
        Effect.fail("boom" as const)
      )))
      expect(Result.isFailure(failed)).toBe(true)
      expect((yield* tx.withTransaction(repo.takeUndispatched(10))).map((t) => t.event.id)).toEqual([e1.id, e2.id])
      yield* tx.withTransaction(repo.markDispatched(taken.map((t) => t.position), at(T0)))
      expect(yield* tx.withTransaction(repo.takeUndispatched(10))).toEqual([])

      const on = endpointFixture({ projectId })
      const off = endpointFixture({ projectId, status: "disabled" })
      const gone = endpointFixture({ projectId, deletedAt: at(T0) })
      const elsewhere = endpointFixture()
      for (const e of [on, off, gone, elsewhere]) yield* repo.insertEndpoint(e)
      expect((yield* repo.subscribers([projectId])).map((e) => e.endpointId)).toEqual([on.endpointId])
      expect((yield* repo.subscribers([projectId, elsewhere.projectId])).map((e) => e.endpointId).sort())
        .toEqual([on.endpointId, elsewhere.endpointId].sort())
      expect(yield* repo.subscribers([])).toEqual([])
    }))

  it.effect("webhooks: the outbox head is its highest position; an endpoint's start position is kept, claimed endpoints included", () =>
    Effect.gen(function*() {
      yield* quiesce
      const repo = yield* WebhooksRepo
      const tx = yield* Transactor
      const projectId = newProjectId()
      const before = yield* tx.withTransaction(repo.outboxHead)
      const taken = yield* appendEvents(projectId, [eventFixture("project.updated", T0), eventFixture("project.updated", T0 + 1)])
      const head = yield* tx.withTransaction(repo.outboxHead)
      expect(head).toBe(taken[1]!.position)
      expect(head).toBeGreaterThan(before)
      // Fanning out moves no position: the head stays.
      yield* tx.withTransaction(repo.markDispatched(taken.map((t) => t.position), at(T0)))
      expect(yield* tx.withTransaction(repo.outboxHead)).toBe(head)

      const started = endpointFixture({ projectId, startsAfterPosition: head })
      yield* repo.insertEndpoint(started)
      expect(Option.getOrThrow(yield* repo.findEndpoint("destination", projectId, started.endpointId)).startsAfterPosition).toBe(head)
      expect((yield* repo.subscribers([projectId])).map((e) => e.startsAfterPosition)).toEqual([head])
      const later = yield* appendEvents(projectId, [eventFixture("project.updated", T0 + 2)])
      yield* repo.insertDeliveries([deliveryFor(started, later[0]!, T0 + 3)])
      yield* tx.withTransaction(repo.markDispatched(later.map((t) => t.position), at(T0)))
      const claimed = yield* repo.claimDue({ now: FAR, leaseUntil: FAR, limit: 10, perEndpoint: 10 })
      expect(claimed.map((c) => c.endpoint)).toEqual([started])
      yield* quiesce
    }))

  // Claims, leases, fairness and recorded outcomes: WebhookClaimsContract.ts (run here, in order).
  webhookClaimsContract(it)

  it.effect("webhooks: inserted deliveries keep every column, null or not; a duplicate is ignored", () =>
    Effect.gen(function*() {
      const { endpoint, events: [e0, e1], repo } = yield* endpointsWithEvents(2)
      const plain = deliveryFor(endpoint, e0!, T0 + 1000)
      const full: DeliveryRecord = {
        ...deliveryFor(endpoint, e1!, T0 + 2000),
        status: "dead_lettered",
        attemptCount: 3,
        nextAttemptAt: at(T0 + 3000),
        leasedUntil: at(T0 + 4000),
        claimSeq: 7,
        lastAttemptAt: at(T0 + 2500),
        lastError: "HTTP 503: \"busy\" — ünïcode",
        lastResponseStatus: 503,
        deliveredAt: at(T0 + 2600)
      }
      yield* repo.insertDeliveries([plain, full])
      yield* repo.insertDeliveries([{ ...plain, deliveryId: deliveryFor(endpoint, e0!, T0 + 1).deliveryId }])
      expect(Option.getOrThrow(yield* repo.lockDelivery(endpoint.endpointId, e0!.event.id))).toEqual(plain)
      expect(Option.getOrThrow(yield* repo.lockDelivery(endpoint.endpointId, e1!.event.id))).toEqual(full)
      yield* repo.cancelPendingDeliveries(endpoint.endpointId)
    }))

  it.effect("webhooks: the oldest pending delivery's due time, over every endpoint, leased or not", () =>
    Effect.gen(function*() {
      const { endpoints, events: [e0, e1, e2], repo } = yield* endpointsWithEvents(3, "https://hooks.example.com/b")
      const [a, b] = [endpoints[0]!, endpoints[1]!]
      // Earlier than any other case's deliveries; what earlier cases left pending still counts.
      const base = yield* repo.oldestPendingDueMillis
      const expected = (ms: number | null) => (base === null ? ms : ms === null ? base : Math.min(base, ms))
      const early = T0 - 10 * 86_400_000
      const da = deliveryFor(a, e0!, early + 5000)
      const db1 = deliveryFor(b, e1!, early + 2000)
      const db2 = deliveryFor(b, e2!, early + 7000)
      yield* repo.insertDeliveries([da, db1, db2])
      expect(yield* repo.oldestPendingDueMillis).toBe(expected(early + 2000))
      // Leased, it is still pending and still the oldest.
      const claimed = yield* repo.claimDue({ now: at(early + 2000), leaseUntil: at(early + 60_000), limit: 1, perEndpoint: 1000 })
      expect(claimed.map((c) => c.delivery.deliveryId)).toEqual([db1.deliveryId])
      expect(yield* repo.oldestPendingDueMillis).toBe(expected(early + 2000))
      yield* repo.completeAttempts([{
        deliveryId: db1.deliveryId,
        claimSeq: claimed[0]!.delivery.claimSeq,
        status: "delivered",
        attemptCount: 1,
        nextAttemptAt: at(early + 2500),
        lastAttemptAt: at(early + 2500),
        lastError: null,
        lastResponseStatus: 200,
        deliveredAt: at(early + 2500)
      }])
      // The other endpoint's delivery is the oldest now.
      expect(yield* repo.oldestPendingDueMillis).toBe(expected(early + 5000))
      expect(yield* repo.cancelPendingDeliveries(a.endpointId)).toBe(1)
      expect(yield* repo.oldestPendingDueMillis).toBe(expected(early + 7000))
      expect(yield* repo.cancelPendingDeliveries(b.endpointId)).toBe(1)
      expect(yield* repo.oldestPendingDueMillis).toBe(expected(null))
    }))

  it.effect("webhooks: retry scheduling, cancellation, and the newest-first delivery list by status", () =>
    Effect.gen(function*() {
      const { endpoint, events, repo } = yield* endpointsWithEvents(4)
      const ds = events.map((e, i) => deliveryFor(endpoint, e, T0 + 1000 * (i + 1)))
      const base = yield* repo.deliveryCounts
      yield* repo.insertDeliveries(ds)
      expect(yield* repo.deliveryCounts).toEqual({ pending: base.pending + 4, deadLettered: base.deadLettered })
      // d0 dead-lettered after one attempt.
      const [c0] = yield* repo.claimDue({ now: at(T0 + 1000), leaseUntil: at(T0 + 2000), limit: 1, perEndpoint: 1000 })
      yield* repo.completeAttempts([{
        deliveryId: c0!.delivery.deliveryId,
        claimSeq: c0!.delivery.claimSeq,
        status: "dead_lettered",
        attemptCount: 6,
        nextAttemptAt: at(T0 + 1500),
        lastAttemptAt: at(T0 + 1500),
        lastError: "HTTP 500",
        lastResponseStatus: 500,
        deliveredAt: null
      }])
      expect((yield* repo.listDeliveries({ endpointId: endpoint.endpointId, status: "dead_lettered", before: undefined, limit: 10 }))
        .map((d) => d.deliveryId)).toEqual([ds[0]!.deliveryId])
      expect(yield* repo.deliveryCounts).toEqual({ pending: base.pending + 3, deadLettered: base.deadLettered + 1 })
      // A manual retry makes it pending and due at the given time.
      yield* repo.scheduleDelivery({ deliveryId: ds[0]!.deliveryId, at: at(T0 + 9000) })
      const revived = Option.getOrThrow(yield* repo.lockDelivery(endpoint.endpointId, ds[0]!.eventId))
      expect(revived).toMatchObject({ status: "pending", attemptCount: 6, leasedUntil: null })
      expect(revived.nextAttemptAt).toEqual(at(T0 + 9000))

      const all = yield* repo.listDeliveries({ endpointId: endpoint.endpointId, status: undefined, before: undefined, limit: 10 })
      expect(all.map((d) => d.deliveryId)).toEqual([...ds].reverse().map((d) => d.deliveryId))
      const page = yield* repo.listDeliveries({
        endpointId: endpoint.endpointId,
        status: undefined,
        before: { createdAt: ds[2]!.createdAt, id: ds[2]!.deliveryId },
        limit: 1
      })
      expect(page.map((d) => d.deliveryId)).toEqual([ds[1]!.deliveryId])

      expect(yield* repo.deliveryCounts).toEqual({ pending: base.pending + 4, deadLettered: base.deadLettered })
      expect(yield* repo.cancelPendingDeliveries(endpoint.endpointId)).toBe(4)
      expect(yield* repo.deliveryCounts).toEqual(base)
      expect((yield* repo.listDeliveries({ endpointId: endpoint.endpointId, status: "cancelled", before: undefined, limit: 10 })).length).toBe(4)
      expect(yield* repo.claimDue({ now: FAR, leaseUntil: FAR, limit: 10, perEndpoint: 1000 })).toEqual([])
      // A cancelled delivery cannot be scheduled again.
      yield* repo.scheduleDelivery({ deliveryId: ds[1]!.deliveryId, at: at(T0) })
      expect(Option.getOrThrow(yield* repo.lockDelivery(endpoint.endpointId, ds[1]!.eventId)).status).toBe("cancelled")
      expect(Option.isNone(yield* repo.lockDelivery(endpoint.endpointId, eventFixture("x.y", T0).id))).toBe(true)
    }))
}
