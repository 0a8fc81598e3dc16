/**
 * Webhooks in memory: endpoints and deliveries in tables of the shared `MemoryState` (so
 * transactions roll them back), fan-out reading the events outbox's table `"events"`. Transactions
 * run one at a time here, so "locking" a row is reading it. Also a recording `WebhookSender` double.
 */
import {
  type ClaimedDelivery,
  type DeliveryRecord,
  type OutboundRequest,
  type OutboxRow,
  type SendOutcome,
  type WebhookEndpoint,
  WebhookSender,
  WebhooksRepo,
  WebhookUrlTaken
} from "@switchboard/core/events"
import { DateTime, Effect, Layer, Option } from "effect"
import { MemoryState } from "./MemoryState.js"

const live = (e: WebhookEndpoint) => e.deletedAt === null
const ms = (t: DateTime.Utc) => DateTime.toEpochMillis(t)

/** (createdAt, id) ascending. */
const byCreated = <T>(created: (x: T) => DateTime.Utc, id: (x: T) => string) => (a: T, b: T) =>
  ms(created(a)) - ms(created(b)) || (id(a) < id(b) ? -1 : id(a) > id(b) ? 1 : 0)

export const WebhooksRepoMemory: Layer.Layer<WebhooksRepo, never, MemoryState> = Layer.effect(
  WebhooksRepo,
  Effect.gen(function*() {
    const state = yield* MemoryState
    const endpoints = state.table<string, WebhookEndpoint>("webhook_endpoints")
    const deliveries = state.table<string, DeliveryRecord>("webhook_deliveries")
    const events = state.table<number, OutboxRow>("events")
    let testEvents = 0

    const findEndpoint = (kind: WebhookEndpoint["kind"], projectId: string, endpointId: string) =>
      Effect.sync(() => {
        const e = endpoints.get(endpointId)
        return e !== undefined && e.kind === kind && e.projectId === projectId ? Option.some(e) : Option.none()
      })

    const deliveryOf = (endpointId: string, eventId: string) =>
      [...deliveries.values()].find((d) => d.endpointId === endpointId && d.eventId === eventId)

    /** The claim of `claimDue`, leaving out the deliveries in `exclude`. */
    const claimExcept = (
      { leaseUntil, limit, now, perEndpoint }: Parameters<WebhooksRepo["Service"]["claimDue"]>[0],
      exclude: ReadonlySet<string>
    ): Array<ClaimedDelivery> => {
      const busy = new Map<string, number>()
      for (const d of deliveries.values()) {
        if (d.status === "pending" && d.leasedUntil !== null && ms(d.leasedUntil) > ms(now)) busy.set(d.endpointId, (busy.get(d.endpointId) ?? 0) + 1)
      }
      const rank = new Map<string, number>()
      const due = [...deliveries.values()]
        .filter((d) =>
          !exclude.has(d.deliveryId) && d.status === "pending" && ms(d.nextAttemptAt) <= ms(now) &&
          (d.leasedUntil === null || ms(d.leasedUntil) <= ms(now))
        )
        .filter((d) => {
          const e = endpoints.get(d.endpointId)
          return e !== undefined && live(e) && e.status === "enabled"
        })
        // Then round-robin over endpoints, each within its in-flight cap (as the SQL store does).
        .sort((a, b) => ms(a.nextAttemptAt) - ms(b.nextAttemptAt) || a.eventPosition - b.eventPosition)
        .map((d) => {
          const rn = (rank.get(d.endpointId) ?? 0) + 1
          rank.set(d.endpointId, rn)
          return { d, rn }
        })
        .filter(({ d, rn }) => rn + (busy.get(d.endpointId) ?? 0) <= perEndpoint)
        .sort((a, b) => a.rn - b.rn || ms(a.d.nextAttemptAt) - ms(b.d.nextAttemptAt) || a.d.eventPosition - b.d.eventPosition)
        .map(({ d }) => d)
        .slice(0, limit)
      const out: Array<ClaimedDelivery> = []
      for (const d of due) {
        const claimed = { ...d, leasedUntil: leaseUntil, claimSeq: d.claimSeq + 1 }
        deliveries.set(d.deliveryId, claimed)
        const event = events.get(d.eventPosition)
        if (event === undefined) continue
        out.push({ delivery: claimed, endpoint: endpoints.get(d.endpointId)!, event: event.event })
      }
      return out
    }

    const store: WebhooksRepo["Service"] = WebhooksRepo.of({
      insertEndpoint: (endpoint) =>
        Effect.suspend(() => {
          const taken = endpoint.kind === "management" && [...endpoints.values()].some((e) =>
            e.kind === "management" && live(e) && e.projectId === endpoint.projectId && e.url === endpoint.url
          )
          if (taken) return Effect.fail(new WebhookUrlTaken({ webhookUrl: endpoint.url }))
          endpoints.set(endpoint.endpointId, endpoint)
          return Effect.void
        }),
      findEndpoint,
      lockEndpoint: findEndpoint,
      updateEndpoint: (endpoint) => Effect.sync(() => void endpoints.set(endpoint.endpointId, endpoint)),
      listEndpoints: ({ after, kind, limit, projectId }) =>
        Effect.sync(() =>
          [...endpoints.values()]
            .filter((e) => e.kind === kind && e.projectId === projectId && live(e))
            .filter((e) =>
              after === undefined ||
              ms(e.createdAt) > ms(after.createdAt) ||
              (ms(e.createdAt) === ms(after.createdAt) && e.endpointId > after.id)
            )
            .sort(byCreated((e) => e.createdAt, (e) => e.endpointId))
            .slice(0, limit)
        ),
      countLiveEndpoints: (kind, projectId) =>
        Effect.sync(() => [...endpoints.values()].filter((e) => e.kind === kind && e.projectId === projectId && live(e)).length),
      deliveryCounts: Effect.sync(() => {
        const all = [...deliveries.values()]
        return {
          pending: all.filter((d) => d.status === "pending").length,
          deadLettered: all.filter((d) => d.status === "dead_lettered").length
        }
      }),
      oldestPendingDueMillis: Effect.sync(() => {
        const due = [...deliveries.values()].filter((d) => d.status === "pending").map((d) => ms(d.nextAttemptAt))
        return due.length === 0 ? null : Math.min(...due)
      }),
      cancelPendingDeliveries: (endpointId) =>
        Effect.sync(() => {
          let n = 0
          for (const d of [...deliveries.values()]) {
            if (d.endpointId === endpointId && d.status === "pending") {
              deliveries.set(d.deliveryId, { ...d, status: "cancelled", leasedUntil: null })
              n++
            }
          }
          return n
        }),

      takeUndispatched: (limit) =>
        Effect.sync(() =>
          [...events.values()]
            .filter((r) => r.dispatchedAt === null)
            .sort((a, b) => a.position - b.position)
            .slice(0, limit)
            .map(({ event, position, projectId }) => ({ event, position, projectId }))
        ),
      subscribers: (projectIds) =>
        Effect.sync(() => {
          const wanted = new Set(projectIds)
          return [...endpoints.values()].filter((e) => wanted.has(e.projectId) && live(e) && e.status === "enabled")
        }),
      // Test events' negative positions never count: they are never fanned out.
      outboxHead: Effect.sync(() => [...events.keys()].reduce((head, p) => Math.max(head, p), 0)),
      insertTestDelivery: ({ delivery, event }) =>
        Effect.sync(() => {
          // Test events take negative positions: the outbox's own counter never reaches them.
          const position = -(++testEvents)
          events.set(position, { position, projectId: null, event, dispatchedAt: delivery.createdAt })
          deliveries.set(delivery.deliveryId, { ...delivery, eventPosition: position })
        }),
      insertDeliveries: (rows) =>
        Effect.sync(() => {
          for (const d of rows) if (deliveryOf(d.endpointId, d.eventId) === undefined) deliveries.set(d.deliveryId, d)
        }),
      markDispatched: (positions, at) =>
        Effect.sync(() => {
          for (const p of positions) {
            const row = events.get(p)
            if (row !== undefined) events.set(p, { ...row, dispatchedAt: at })
          }
        }),

      refreshStatistics: Effect.void,

      claimDue: (args) => Effect.sync(() => claimExcept(args, new Set())),
      completeAndClaim: ({ attempts, ...claim }) =>
        Effect.flatMap(store.completeAttempts(attempts), (recorded) =>
          // As in one SQL statement: the deliveries just recorded are not claimed again by this call.
          Effect.sync(() => claimExcept(claim, new Set(recorded)))),
      completeAttempts: (attempts) =>
        Effect.sync(() => {
          const recorded: Array<string> = []
          for (const a of attempts) {
            const d = deliveries.get(a.deliveryId)
            if (d === undefined || d.claimSeq !== a.claimSeq || d.leasedUntil === null || d.status !== "pending") continue
            deliveries.set(d.deliveryId, {
              ...d,
              status: a.status,
              attemptCount: a.attemptCount,
              nextAttemptAt: a.nextAttemptAt,
              leasedUntil: null,
              lastAttemptAt: a.lastAttemptAt,
              lastError: a.lastError,
              lastResponseStatus: a.lastResponseStatus,
              deliveredAt: a.deliveredAt
            })
            recorded.push(d.deliveryId)
          }
          return recorded
        }),
      releaseClaim: ({ claimSeq, deliveryId, now }) =>
        Effect.sync(() => {
          const d = deliveries.get(deliveryId)
          if (d !== undefined && d.claimSeq === claimSeq && d.leasedUntil !== null && d.status === "pending") {
            deliveries.set(deliveryId, { ...d, leasedUntil: null, nextAttemptAt: now })
          }
        }),

      lockDelivery: (endpointId, eventId) => Effect.sync(() => Option.fromNullishOr(deliveryOf(endpointId, eventId))),
      scheduleDelivery: ({ at, deliveryId }) =>
        Effect.sync(() => {
          const d = deliveries.get(deliveryId)
          if (d !== undefined && (d.status === "pending" || d.status === "dead_lettered")) {
            deliveries.set(deliveryId, { ...d, status: "pending", nextAttemptAt: at, leasedUntil: null })
          }
        }),
      listDeliveries: ({ before, endpointId, limit, status }) =>
        Effect.sync(() =>
          [...deliveries.values()]
            .filter((d) => d.endpointId === endpointId && (status === undefined || d.status === status))
            .filter((d) =>
              before === undefined ||
              ms(d.createdAt) < ms(before.createdAt) ||
              (ms(d.createdAt) === ms(before.createdAt) && d.deliveryId < before.id)
            )
            .sort(byCreated((d) => d.createdAt, (d) => d.deliveryId))
            .reverse()
            .slice(0, limit)
        )
    })
    return store
  })
)

export const WebhooksMemory = WebhooksRepoMemory

/** A `WebhookSender` double: records every request and answers with `respond` (default: 204). */
export const makeRecordingSender = (respond: (request: OutboundRequest, index: number) => SendOutcome = () => ({
  _tag: "Response",
  status: 204,
  body: ""
})) => {
  const requests: Array<OutboundRequest> = []
  const layer = Layer.succeed(WebhookSender, {
    send: (request) =>
      Effect.sync(() => {
        requests.push(request)
        return respond(request, requests.length - 1)
      })
  })
  return { requests, layer }
}
