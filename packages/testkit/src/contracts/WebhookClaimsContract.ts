/**
 * Webhooks' claims in the repository contract suite: only due, unleased deliveries of enabled live
 * endpoints are claimed; a lease hides a delivery until it runs out; claims are fair (round-robin,
 * per-endpoint caps counting live leases); record-and-claim in one call; outcomes recorded only
 * under the current claim, in batches as one at a time. Run by `webhooksContract`.
 */
import type { Vitest } from "@effect/vitest"
import { type StorePorts } from "@switchboard/core"
import { type DeliveryRecord, WebhooksRepo } from "@switchboard/core/events"
import { formatTypeId, IdKinds, uuidv7Bytes } from "@switchboard/core/shared"
import { DateTime, Effect, Option } from "effect"
import { expect } from "vitest"
import { appendEvents, at, deliveryFor, endpointFixture, eventFixture, newProjectId, quiesce, rand, T0 } from "./WebhooksFixtures.js"

export const webhookClaimsContract = (it: Vitest.MethodsNonLive<StorePorts>): void => {
  it.effect("webhooks: claims lease due deliveries of enabled endpoints once; outcomes only under the current claim", () =>
    Effect.gen(function*() {
      yield* quiesce
      const repo = yield* WebhooksRepo
      const projectId = newProjectId()
      const endpoint = endpointFixture({ projectId, secret: new Uint8Array([42, 0, 1]) })
      const disabled = endpointFixture({ projectId, status: "disabled" })
      yield* repo.insertEndpoint(endpoint)
      yield* repo.insertEndpoint(disabled)
      const [ev1, ev2, ev3] = yield* appendEvents(projectId, [
        eventFixture("project.created", T0, { a: 1 }),
        eventFixture("project.updated", T0 + 1),
        eventFixture("project.updated", T0 + 2)
      ])
      const now = T0 + 10_000
      const d1 = deliveryFor(endpoint, ev1!, now - 100)
      const d2 = { ...deliveryFor(endpoint, ev2!, now - 50), nextAttemptAt: at(now + 60_000) } // not yet due
      const d3 = deliveryFor(disabled, ev3!, now - 100) // endpoint disabled: held
      yield* repo.insertDeliveries([d1, d2, d3])
      yield* repo.insertDeliveries([{ ...d1, deliveryId: formatTypeId(IdKinds.delivery, uuidv7Bytes(now, rand())) }]) // same endpoint+event: ignored

      const claimed = yield* repo.claimDue({ now: at(now), leaseUntil: at(now + 30_000), limit: 10, perEndpoint: 1000 })
      expect(claimed.map((c) => c.delivery.deliveryId)).toEqual([d1.deliveryId])
      const c = claimed[0]!
      expect(c.delivery.claimSeq).toBe(1)
      expect(c.delivery.leasedUntil).toEqual(at(now + 30_000))
      expect(c.endpoint).toEqual(endpoint)
      expect(c.event).toEqual(ev1!.event)
      // Leased: nobody else gets it until the lease runs out.
      expect(yield* repo.claimDue({ now: at(now + 1000), leaseUntil: at(now + 31_000), limit: 10, perEndpoint: 1000 })).toEqual([])
      // The lease ran out (the process died): claimed again, with a new claim number.
      const again = yield* repo.claimDue({ now: at(now + 30_000), leaseUntil: at(now + 60_000), limit: 10, perEndpoint: 1000 })
      expect(again.map((x) => [x.delivery.deliveryId, x.delivery.claimSeq])).toEqual([[d1.deliveryId, 2]])
      const record = {
        deliveryId: d1.deliveryId,
        status: "pending" as const,
        attemptCount: 1,
        nextAttemptAt: at(now + 40_000),
        lastAttemptAt: at(now + 30_000),
        lastError: "HTTP 503",
        lastResponseStatus: 503,
        deliveredAt: null
      }
      expect(yield* repo.completeAttempts([{ ...record, claimSeq: 1 }])).toEqual([]) // stale claim
      expect(yield* repo.completeAttempts([{ ...record, claimSeq: 2 }])).toEqual([d1.deliveryId])
      expect(yield* repo.completeAttempts([{ ...record, claimSeq: 2 }])).toEqual([]) // not leased any more
      const after = Option.getOrThrow(yield* repo.lockDelivery(endpoint.endpointId, ev1!.event.id))
      expect(after).toMatchObject({ status: "pending", attemptCount: 1, leasedUntil: null, lastError: "HTTP 503", lastResponseStatus: 503 })
      expect(after.nextAttemptAt).toEqual(at(now + 40_000))

      // Release (shutdown): due at once, claimable again.
      const third = yield* repo.claimDue({ now: at(now + 40_000), leaseUntil: at(now + 70_000), limit: 1, perEndpoint: 1000 })
      expect(third.map((x) => x.delivery.deliveryId)).toEqual([d1.deliveryId])
      yield* repo.releaseClaim({ deliveryId: d1.deliveryId, claimSeq: third[0]!.delivery.claimSeq, now: at(now + 41_000) })
      const released = Option.getOrThrow(yield* repo.lockDelivery(endpoint.endpointId, ev1!.event.id))
      expect(released.leasedUntil).toBeNull()
      expect(released.nextAttemptAt).toEqual(at(now + 41_000))

      // Delivered: never claimed again.
      const fourth = yield* repo.claimDue({ now: at(now + 41_000), leaseUntil: at(now + 70_000), limit: 10, perEndpoint: 1000 })
      expect(fourth.map((x) => x.delivery.deliveryId)).toEqual([d1.deliveryId])
      expect(yield* repo.completeAttempts([{
        ...record,
        claimSeq: fourth[0]!.delivery.claimSeq,
        status: "delivered",
        attemptCount: 2,
        lastError: null,
        lastResponseStatus: 204,
        deliveredAt: at(now + 41_500)
      }])).toEqual([d1.deliveryId])
      // d2 becomes due later; d3 waits for its endpoint to be enabled.
      expect((yield* repo.claimDue({ now: at(now + 60_000), leaseUntil: at(now + 90_000), limit: 10, perEndpoint: 1000 })).map((x) => x.delivery.deliveryId))
        .toEqual([d2.deliveryId])
      yield* repo.updateEndpoint({ ...disabled, status: "enabled" })
      expect((yield* repo.claimDue({ now: at(now + 60_000), leaseUntil: at(now + 90_000), limit: 10, perEndpoint: 1000 })).map((x) => x.delivery.deliveryId))
        .toEqual([d3.deliveryId])
    }))

  it.effect("webhooks: claims are fair — round-robin over endpoints, at most perEndpoint in flight per endpoint", () =>
    Effect.gen(function*() {
      yield* quiesce
      const repo = yield* WebhooksRepo
      const projectA = newProjectId()
      const projectB = newProjectId()
      const dead = endpointFixture({ projectId: projectA })
      const healthy = endpointFixture({ projectId: projectB })
      yield* repo.insertEndpoint(dead)
      yield* repo.insertEndpoint(healthy)
      const now = T0 + 20_000
      // A backlog of 30 older deliveries to one endpoint, then 3 newer ones to another.
      const backlog = yield* appendEvents(projectA, Array.from({ length: 30 }, (_, i) => eventFixture("project.updated", T0 + i)))
      const fresh = yield* appendEvents(projectB, Array.from({ length: 3 }, (_, i) => eventFixture("project.updated", T0 + 100 + i)))
      yield* repo.insertDeliveries(backlog.map((e, i) => deliveryFor(dead, e, now - 10_000 + i)))
      yield* repo.insertDeliveries(fresh.map((e, i) => deliveryFor(healthy, e, now - 100 + i)))

      const perEndpointOf = (claimed: ReadonlyArray<{ readonly endpoint: { readonly endpointId: string } }>) =>
        [dead.endpointId, healthy.endpointId].map((id) => claimed.filter((c) => c.endpoint.endpointId === id).length)
      const first = yield* repo.claimDue({ now: at(now), leaseUntil: at(now + 30_000), limit: 4, perEndpoint: 2 })
      // Round-robin: each endpoint's earliest first, then each one's second; two per endpoint at most.
      expect(perEndpointOf(first)).toEqual([2, 2])
      expect(first.filter((c) => c.endpoint.endpointId === healthy.endpointId).map((c) => c.event.id)).toEqual(fresh.slice(0, 2).map((e) => e.event.id))
      // While those are in flight, the dead endpoint gets nothing more; the healthy one its third.
      const second = yield* repo.claimDue({ now: at(now + 1), leaseUntil: at(now + 30_000), limit: 10, perEndpoint: 2 })
      expect(perEndpointOf(second)).toEqual([0, 0])
      const third = yield* repo.claimDue({ now: at(now + 2), leaseUntil: at(now + 30_000), limit: 10, perEndpoint: 3 })
      expect(perEndpointOf(third)).toEqual([1, 1])
      yield* quiesce
    }))

  it.effect("webhooks: a claim batch is the fair reference batch — round-robin, each endpoint within its cap counting live leases, at most limit", () =>
    Effect.gen(function*() {
      const repo = yield* WebhooksRepo
      // A small seeded generator: the same scenarios on every store.
      let seed = 20261125
      const next = (n: number) => {
        seed = (Math.imul(seed, 1103515245) + 12345) >>> 0
        return (seed >>> 8) % n
      }
      for (let scenario = 0; scenario < 8; scenario++) {
        yield* quiesce
        const now = T0 + 1_000_000 * (scenario + 1)
        const projectId = newProjectId()
        const endpoints = Array.from({ length: 2 + next(4) }, (_, i) =>
          endpointFixture({ projectId, status: i === 0 && scenario % 3 === 0 ? "disabled" : "enabled" }))
        for (const e of endpoints) yield* repo.insertEndpoint(e)
        const all: Array<DeliveryRecord> = []
        for (const e of endpoints) {
          const n = next(13)
          if (n === 0) continue
          const events = yield* appendEvents(projectId, Array.from({ length: n }, (_, i) => eventFixture("project.updated", now + i)))
          // Due times spread around `now` (some not due yet), distinct so the order is total.
          all.push(...events.map((ev) => ({ ...deliveryFor(e, ev, now - 60_000), nextAttemptAt: at(now - 5_000 + next(8_000) * 2 + (ev.position % 2)) })))
        }
        yield* repo.insertDeliveries(all)
        // Some deliveries already in flight (a live lease at `now`), claimed a moment before.
        const leased = yield* repo.claimDue({ now: at(now - 1), leaseUntil: at(now + 30_000), limit: next(6), perEndpoint: 1000 })
        const leasedIds = new Set(leased.map((c) => c.delivery.deliveryId))
        const limit = 1 + next(12)
        const perEndpoint = 1 + next(5)

        // The reference: per enabled endpoint, its due unleased deliveries by (due, position),
        // ranked; those whose rank plus the endpoint's live leases fit the cap; by (rank, due,
        // position); the first `limit`.
        const enabled = new Set(endpoints.filter((e) => e.status === "enabled").map((e) => e.endpointId))
        const ms = (d: DeliveryRecord) => DateTime.toEpochMillis(d.nextAttemptAt)
        const byDue = (a: DeliveryRecord, b: DeliveryRecord) => ms(a) - ms(b) || a.eventPosition - b.eventPosition
        const ranked = endpoints.flatMap((e) => {
          const busy = leased.filter((c) => c.endpoint.endpointId === e.endpointId).length
          return all
            .filter((d) => d.endpointId === e.endpointId && enabled.has(d.endpointId) && ms(d) <= now && !leasedIds.has(d.deliveryId))
            .sort(byDue)
            .map((d, i) => ({ d, rn: i + 1 }))
            .filter(({ rn }) => rn + busy <= perEndpoint)
        })
        const expected = ranked
          .sort((a, b) => a.rn - b.rn || byDue(a.d, b.d))
          .slice(0, limit)
          .map(({ d }) => d.deliveryId)

        const claimed = yield* repo.claimDue({ now: at(now), leaseUntil: at(now + 30_000), limit, perEndpoint })
        expect(claimed.map((c) => c.delivery.deliveryId).sort(), `scenario ${scenario}`).toEqual([...expected].sort())
        for (const e of endpoints) {
          const inFlight = [...leased, ...claimed].filter((c) => c.endpoint.endpointId === e.endpointId).length
          expect(inFlight, `scenario ${scenario}`).toBeLessThanOrEqual(Math.max(perEndpoint, leased.filter((c) => c.endpoint.endpointId === e.endpointId).length))
        }
        // Each claimed delivery comes with its own endpoint and event, under a new claim.
        for (const c of claimed) {
          const d = all.find((x) => x.deliveryId === c.delivery.deliveryId)!
          expect(c.endpoint.endpointId).toBe(d.endpointId)
          expect(c.event.id).toBe(d.eventId)
          expect(c.delivery.claimSeq).toBe(1)
          expect(c.delivery.leasedUntil).toEqual(at(now + 30_000))
        }
      }
      yield* quiesce
    }))

  it.effect("webhooks: record-and-claim in one call — recorded deliveries free their places, stale records change nothing, none is claimed again at once", () =>
    Effect.gen(function*() {
      yield* quiesce
      const repo = yield* WebhooksRepo
      const endpoint = endpointFixture()
      yield* repo.insertEndpoint(endpoint)
      const now = T0 + 50_000
      const evs = yield* appendEvents(endpoint.projectId, Array.from({ length: 5 }, (_, i) => eventFixture("project.updated", T0 + i)))
      const ds = evs.map((e, i) => deliveryFor(endpoint, e, now - 10_000 + i))
      yield* repo.insertDeliveries(ds)
      const ids = (claimed: ReadonlyArray<{ readonly delivery: { readonly deliveryId: string } }>) => claimed.map((c) => c.delivery.deliveryId)
      const lease = { leaseUntil: at(now + 30_000), limit: 10, perEndpoint: 2 }
      const first = yield* repo.claimDue({ now: at(now), ...lease })
      expect(ids(first)).toEqual([ds[0]!.deliveryId, ds[1]!.deliveryId])
      const recordOf = (c: (typeof first)[number], status: "pending" | "delivered", t: number) => ({
        deliveryId: c.delivery.deliveryId,
        claimSeq: c.delivery.claimSeq,
        status,
        attemptCount: 1,
        nextAttemptAt: at(t),
        lastAttemptAt: at(t),
        lastError: status === "pending" ? "HTTP 500" : null,
        lastResponseStatus: status === "pending" ? 500 : 204,
        deliveredAt: status === "delivered" ? at(t) : null
      })
      // d0 delivered; d1 to be retried, due at once; a stale record for d2 (never claimed).
      const second = yield* repo.completeAndClaim({
        attempts: [
          recordOf(first[0]!, "delivered", now + 1),
          recordOf(first[1]!, "pending", now + 1),
          { ...recordOf(first[0]!, "delivered", now + 1), deliveryId: ds[2]!.deliveryId, claimSeq: 7 }
        ],
        now: at(now + 1),
        ...lease
      })
      // The two places freed are claimed at once, with the earliest due others; d1, just
      // recorded, is not claimed again by the same call.
      expect(ids(second)).toEqual([ds[2]!.deliveryId, ds[3]!.deliveryId])
      expect(second.map((c) => c.delivery.attemptCount)).toEqual([0, 0])
      // Both places are taken again: nothing more for now.
      expect(yield* repo.claimDue({ now: at(now + 2), ...lease })).toEqual([])
      const third = yield* repo.completeAndClaim({
        attempts: second.map((c) => recordOf(c, "delivered", now + 3)),
        now: at(now + 3),
        ...lease
      })
      expect(ids(third)).toEqual([ds[4]!.deliveryId, ds[1]!.deliveryId])
      expect(third[1]!.delivery.attemptCount).toEqual(1)
      // With nothing to record it is a plain claim.
      expect(yield* repo.completeAndClaim({ attempts: [], now: at(now + 4), ...lease })).toEqual([])
      const delivered = yield* repo.listDeliveries({ endpointId: endpoint.endpointId, status: "delivered", before: undefined, limit: 10 })
      expect(delivered.map((d) => d.deliveryId).sort()).toEqual([ds[0]!, ds[2]!, ds[3]!].map((d) => d.deliveryId).sort())
      yield* quiesce
    }))

  it.effect("webhooks: a batch of attempt outcomes (delivered, retried, dead-lettered, stale) records the same rows as one at a time", () =>
    Effect.gen(function*() {
      yield* quiesce
      const repo = yield* WebhooksRepo
      const projectId = newProjectId()
      const batched = endpointFixture({ projectId })
      const single = endpointFixture({ projectId })
      yield* repo.insertEndpoint(batched)
      yield* repo.insertEndpoint(single)
      const now = T0 + 50_000_000
      const events = yield* appendEvents(projectId, Array.from({ length: 7 }, (_, i) => eventFixture("project.updated", now + i)))
      yield* repo.insertDeliveries(events.flatMap((ev, i) => [deliveryFor(batched, ev, now - 100 + i), deliveryFor(single, ev, now - 100 + i)]))
      // The 7th delivery's lease runs out and it is claimed again: its first claim's outcome is stale.
      const first = yield* repo.claimDue({ now: at(now), leaseUntil: at(now + 1_000), limit: 100, perEndpoint: 1000 })
      expect(first).toHaveLength(14)
      const retaken = yield* repo.claimDue({ now: at(now + 1_000), leaseUntil: at(now + 30_000), limit: 100, perEndpoint: 1000 })
      expect(retaken).toHaveLength(14)
      const claimOf = (endpointId: string, eventId: string) =>
        retaken.find((c) => c.endpoint.endpointId === endpointId && c.event.id === eventId)!.delivery
      const outcome = (i: number, claimSeq: (seq: number) => number) => {
        const t = now + 2_000 + i
        const kinds = [
          { status: "delivered" as const, lastError: null, lastResponseStatus: 204, deliveredAt: at(t), nextAttemptAt: at(t) },
          { status: "pending" as const, lastError: "HTTP 503: busy", lastResponseStatus: 503, deliveredAt: null, nextAttemptAt: at(t + 700) },
          { status: "dead_lettered" as const, lastError: "HTTP 410", lastResponseStatus: 410, deliveredAt: null, nextAttemptAt: at(t) },
          { status: "pending" as const, lastError: "timed out", lastResponseStatus: null, deliveredAt: null, nextAttemptAt: at(t + 9_000) }
        ]
        return { ...kinds[i % kinds.length]!, attemptCount: 1 + i, lastAttemptAt: at(t - 1), claimSeq: claimSeq(2) }
      }
      const recordsFor = (endpointId: string) =>
        events.map((ev, i) => {
          const d = claimOf(endpointId, ev.event.id)
          return { deliveryId: d.deliveryId, ...outcome(i, (seq) => (i === 6 ? seq - 1 : d.claimSeq)) }
        })
      const batch = yield* repo.completeAttempts(recordsFor(batched.endpointId))
      const oneByOne: Array<string> = []
      for (const r of recordsFor(single.endpointId)) oneByOne.push(...(yield* repo.completeAttempts([r])))
      const eventOf = (deliveryId: string) => retaken.find((c) => c.delivery.deliveryId === deliveryId)!.event.id
      expect(batch.map(eventOf).sort()).toEqual(oneByOne.map(eventOf).sort())
      expect(batch).toHaveLength(6) // the stale outcome is not recorded
      for (const ev of events) {
        const a = Option.getOrThrow(yield* repo.lockDelivery(batched.endpointId, ev.event.id))
        const b = Option.getOrThrow(yield* repo.lockDelivery(single.endpointId, ev.event.id))
        const { deliveryId: _a, endpointId: _ea, ...restA } = a
        const { deliveryId: _b, endpointId: _eb, ...restB } = b
        expect(restA).toEqual(restB)
      }
      // The stale one is still leased under its second claim, untouched.
      const stale = Option.getOrThrow(yield* repo.lockDelivery(batched.endpointId, events[6]!.event.id))
      expect(stale).toMatchObject({ status: "pending", attemptCount: 0, claimSeq: 2 })
      expect(stale.leasedUntil).toEqual(at(now + 30_000))
      yield* quiesce
    }))
}
