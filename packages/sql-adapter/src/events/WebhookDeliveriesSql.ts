/**
 * Webhook deliveries in SQL (migration 0014): fan-out, claims and attempts. Fan-out takes outbox rows with
 * `FOR UPDATE SKIP LOCKED` inside the engine's transaction; claims are one statement that picks due
 * deliveries with `FOR UPDATE SKIP LOCKED`, leases them and returns them with their endpoint and
 * event — so any number of server processes share the work and never attempt the same claim twice.
 */
import { SqlClient } from "effect/sql"
import { type AttemptRecord, type StoredOutboxEvent, type WebhooksRepo } from "@switchboard/core/events"
import { Effect, Option } from "effect"
import { orDie, toDate } from "../shared/Sql.js"
import {
  claimedDeliveries, eventRows, deliveryJson, deliveryRows, toEvent
} from "./WebhookRows.js"

const CHUNK = 1000

/** A finished attempt as a row of `jsonb_to_recordset`: no key for a null column (a missing key reads as null). */
const attemptJson = (a: AttemptRecord): Record<string, string | number> => {
  const row: Record<string, string | number> = {
    delivery_id: a.deliveryId,
    claim_seq: a.claimSeq,
    status: a.status,
    attempt_count: a.attemptCount,
    next_attempt_at: toDate(a.nextAttemptAt).toISOString(),
    last_attempt_at: toDate(a.lastAttemptAt).toISOString()
  }
  if (a.lastError !== null) row.last_error = a.lastError
  if (a.lastResponseStatus !== null) row.last_response_status = a.lastResponseStatus
  if (a.deliveredAt !== null) row.delivered_at = toDate(a.deliveredAt).toISOString()
  return row
}

type ClaimArgs = Parameters<WebhooksRepo["Service"]["claimDue"]>[0]

type DeliveryMethods = Exclude<
  keyof WebhooksRepo["Service"],
  | "insertEndpoint" | "findEndpoint" | "lockEndpoint" | "updateEndpoint" | "listEndpoints" | "countLiveEndpoints"
  | "subscribers" | "outboxHead">

export const makeWebhookDeliveriesSql = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient

  /**
   * The engine's own bookkeeping (fan-out, claims, attempt records) commits without waiting for
   * the WAL flush (`synchronous_commit = off` for that transaction only). If the database
   * itself crashes, the last few such commits may be lost — which only ever means an event is
   * fanned out again or a delivery attempted again: at least once still holds, and nothing
   * committed by a feature (the events themselves) is affected. It saves a disk flush per claim
   * and per batch of attempt records. Used as a one-row `FROM` item.
   */
  const asyncCommit = sql`(select set_config('synchronous_commit', 'off', true)) as async_commit`

  /**
   * The update recording finished attempts under their claims (`update … from …`; the caller adds
   * its `returning`). One JSON parameter for all of them.
   */
  const recordAttempts = (attempts: ReadonlyArray<AttemptRecord>) =>
    sql`
        update webhook_deliveries d set
          status = v.status,
          attempt_count = v.attempt_count,
          next_attempt_at = v.next_attempt_at,
          leased_until = null,
          last_attempt_at = v.last_attempt_at,
          last_error = v.last_error,
          last_response_status = v.last_response_status,
          delivered_at = v.delivered_at
        from ${asyncCommit}, jsonb_to_recordset(${JSON.stringify(attempts.map(attemptJson))}::jsonb) as v(
          delivery_id text, claim_seq integer, status text, attempt_count integer, next_attempt_at timestamptz,
          last_attempt_at timestamptz, last_error text, last_response_status integer, delivered_at timestamptz
        )
        where d.delivery_id = v.delivery_id and d.claim_seq = v.claim_seq
          and d.leased_until is not null and d.status = 'pending'`

  /**
   * The claim (see `WebhooksRepo.claimDue`), optionally recording finished attempts first in the
   * same statement (`completeAndClaim`): the recorded deliveries are still leased in the
   * statement's snapshot, so the in-flight count leaves them out — exactly what it would count
   * after the record committed — and, leased, none of them is claimed again here. The endpoint's
   * columns (`ep_*`) come only on each endpoint's first row, null on the others (`claimedDeliveries`
   * copies them over): the driver parses an endpoint's dates, secrets and event list once per
   * claim, not once per delivery.
   */
  const claimStatement = (
    { leaseUntil, limit, now, perEndpoint }: ClaimArgs,
    attempts: ReadonlyArray<AttemptRecord> | undefined
  ) =>
    sql`
          with recursive ${attempts === undefined ? sql`` : sql`done as (${recordAttempts(attempts)} returning d.delivery_id), `}
          endpoints_pending (endpoint_id) as (
            (select endpoint_id from webhook_deliveries where status = 'pending' order by endpoint_id limit 1)
            union all
            select (select d.endpoint_id from webhook_deliveries d
                    where d.status = 'pending' and d.endpoint_id > p.endpoint_id
                    order by d.endpoint_id limit 1)
            from endpoints_pending p where p.endpoint_id is not null
          ), endpoints_open as (
            select e.endpoint_id, ${perEndpoint} - (
              select count(*) from webhook_deliveries b
              where b.endpoint_id = e.endpoint_id and b.status = 'pending'
                and b.leased_until is not null and b.leased_until > ${toDate(now)}
                ${attempts === undefined ? sql`` : sql`and b.delivery_id <> all(array(select delivery_id from done))`}
            )::int as room
            from endpoints_pending p
            join webhook_endpoints e on e.endpoint_id = p.endpoint_id
            where e.status = 'enabled' and e.deleted_at is null
          ), fair as (
            select c.delivery_id from endpoints_open o cross join lateral (
              select d.delivery_id, d.next_attempt_at, d.event_position,
                row_number() over (order by d.next_attempt_at, d.event_position) as rn
              from webhook_deliveries d
              where d.endpoint_id = o.endpoint_id and d.status = 'pending' and d.next_attempt_at <= ${toDate(now)}
                and (d.leased_until is null or d.leased_until <= ${toDate(now)})
              order by d.next_attempt_at, d.event_position
              limit greatest(o.room, 0)
            ) c
            order by c.rn, c.next_attempt_at, c.event_position
            limit ${limit}
          ), due as (
            select d.delivery_id from ${asyncCommit}, webhook_deliveries d
            where d.delivery_id = any(array(select delivery_id from fair))
              and d.status = 'pending' and (d.leased_until is null or d.leased_until <= ${toDate(now)})
              ${attempts === undefined ? sql`` : sql`and d.delivery_id <> all(array(select delivery_id from done))`}
            for update of d skip locked
          ), claimed as (
            update webhook_deliveries w set leased_until = ${toDate(leaseUntil)}, claim_seq = w.claim_seq + 1
            where w.delivery_id = any(array(select delivery_id from due))
            returning w.*
          )
          select c.delivery_id, c.endpoint_id, c.project_id, c.event_id, c.event_position, c.event_type, c.status,
            c.attempt_count, c.next_attempt_at, c.leased_until, c.claim_seq, c.last_attempt_at, c.last_error,
            c.last_response_status, c.delivered_at, c.created_at,
            e.endpoint_id as ep_endpoint_id, e.kind as ep_kind, e.project_id as ep_project_id, e.url as ep_url,
            e.name as ep_name, e.description as ep_description, e.status as ep_status,
            e.enabled_events as ep_enabled_events, e.api_version as ep_api_version,
            e.secret_sealed as ep_secret_sealed, e.previous_secret_sealed as ep_previous_secret_sealed,
            e.previous_secret_expires_at as ep_previous_secret_expires_at, e.created_at as ep_created_at,
            e.updated_at as ep_updated_at, e.deleted_at as ep_deleted_at,
            e.starts_after_position as ep_starts_after_position,
            ev.id as ev_id, ev.type as ev_type, ev.source as ev_source, ev.occurred_at as ev_occurred_at, ev.data as ev_data
          from (
            select w.*, row_number() over (partition by w.endpoint_id order by w.next_attempt_at, w.event_position) as ep_rn
            from claimed w
          ) c
          left join webhook_endpoints e on e.endpoint_id = c.endpoint_id and c.ep_rn = 1
          join events ev on ev.position = c.event_position
          order by c.next_attempt_at, c.event_position`

  const deliveries: Pick<WebhooksRepo["Service"], DeliveryMethods> = {
    deliveryCounts: orDie(sql<{ pending: number; deadLettered: number }>`
      select count(*) filter (where status = 'pending')::int as pending,
             count(*) filter (where status = 'dead_lettered')::int as dead_lettered
      from webhook_deliveries where status in ('pending', 'dead_lettered')`).pipe(
      Effect.map((rows) => ({ pending: rows[0]?.pending ?? 0, deadLettered: rows[0]?.deadLettered ?? 0 }))
    ),
    // Each endpoint's earliest pending delivery, from `webhook_deliveries_pending_endpoint`
    // (cost per endpoint, not per pending delivery).
    oldestPendingDueMillis: orDie(sql<{ due: number | null }>`
      select (extract(epoch from min(f.next_attempt_at)) * 1000)::float8 as due
      from webhook_endpoints e cross join lateral (
        select d.next_attempt_at from webhook_deliveries d
        where d.endpoint_id = e.endpoint_id and d.status = 'pending'
        order by d.next_attempt_at limit 1
      ) f`).pipe(Effect.map((rows) => rows[0]?.due ?? null)),
    cancelPendingDeliveries: (endpointId) =>
      orDie(sql<{ deliveryId: string }>`
        update webhook_deliveries set status = 'cancelled', leased_until = null
        where endpoint_id = ${endpointId} and status = 'pending'
        returning delivery_id`).pipe(Effect.map((rows) => rows.length)),

    takeUndispatched: (limit) =>
      eventRows(
        sql`
          select position, id, project_id, type, source, occurred_at, data from ${asyncCommit}, events
          where dispatched_at is null
          order by position
          limit ${limit}
          for update of events skip locked`
      ).pipe(Effect.map((rows) =>
        rows.map((r): StoredOutboxEvent => ({
          position: Number(r.position),
          projectId: r.projectId,
          event: toEvent(r.id, r.type, r.source, r.occurredAt, r.data)
        }))
      )),
    insertTestDelivery: ({ delivery: d, event }) =>
      orDie(sql`
        with ev as (
          insert into events (id, project_id, type, source, occurred_at, api_version, data, dispatched_at)
          values (${event.id}, null, ${event.type}, ${event.source}, ${toDate(event.timestamp)}, ${event.apiVersion},
                  ${JSON.stringify(event.data)}::jsonb, ${toDate(d.createdAt)})
          returning position
        )
        insert into webhook_deliveries (delivery_id, endpoint_id, project_id, event_id, event_position, event_type, status,
                                        attempt_count, next_attempt_at, claim_seq, created_at)
        select ${d.deliveryId}, ${d.endpointId}, ${d.projectId}, ${event.id}, ev.position, ${event.type}, 'pending',
               0, ${toDate(d.nextAttemptAt)}, 0, ${toDate(d.createdAt)}
        from ev`).pipe(Effect.asVoid),
    insertDeliveries: (rows) =>
      Effect.forEach(
        Array.from({ length: Math.ceil(rows.length / CHUNK) }, (_, i) => rows.slice(i * CHUNK, (i + 1) * CHUNK)),
        // One parameter per chunk (a JSON array of rows), not 16 per row: binding and parsing
        // thousands of parameters costs more than the insert.
        (chunk) =>
          orDie(sql`
            insert into webhook_deliveries (delivery_id, endpoint_id, project_id, event_id, event_position, event_type, status,
              attempt_count, next_attempt_at, leased_until, claim_seq, last_attempt_at, last_error, last_response_status,
              delivered_at, created_at)
            select d, e, p, v, n, t, s, a, x, l, q, la, le, lr, da, c
            from jsonb_to_recordset(${JSON.stringify(chunk.map(deliveryJson))}::jsonb) as r(
              d text, e text, p uuid, v text, n bigint, t text, s text, a integer, x timestamptz, l timestamptz,
              q integer, la timestamptz, le text, lr integer, da timestamptz, c timestamptz
            )
            on conflict (endpoint_id, event_id) do nothing`),
        { discard: true }
      ),
    markDispatched: (positions, at) =>
      positions.length === 0 ? Effect.void : orDie(sql`
        update events set dispatched_at = ${toDate(at)} where ${sql.in("position", positions)}`).pipe(Effect.asVoid),

    // Planner statistics only: a failure here costs speed, never correctness.
    refreshStatistics: sql`analyze events, webhook_endpoints, webhook_deliveries`.pipe(
      Effect.asVoid,
      Effect.catch((e) => Effect.logWarning("webhook tables: analyze failed", e))
    ),

    claimDue: (args) => claimedDeliveries(claimStatement(args, undefined)),
    completeAndClaim: ({ attempts, ...args }) => claimedDeliveries(claimStatement(args, attempts.length === 0 ? undefined : attempts)),
    completeAttempts: (attempts) =>
      attempts.length === 0 ? Effect.succeed([]) : orDie(sql<{ deliveryId: string }>`
        ${recordAttempts(attempts)}
        returning d.delivery_id`).pipe(Effect.map((rows) => rows.map((r) => r.deliveryId))),
    releaseClaim: ({ claimSeq, deliveryId, now }) =>
      orDie(sql`
        update webhook_deliveries set leased_until = null, next_attempt_at = ${toDate(now)}
        from ${asyncCommit}
        where delivery_id = ${deliveryId} and claim_seq = ${claimSeq}
          and leased_until is not null and status = 'pending'`).pipe(Effect.asVoid),

    lockDelivery: (endpointId, eventId) =>
      deliveryRows(sql`
        select * from webhook_deliveries where endpoint_id = ${endpointId} and event_id = ${eventId}
        for update`).pipe(Effect.map((rows) => Option.fromNullishOr(rows[0]))),
    scheduleDelivery: ({ at, deliveryId }) =>
      orDie(sql`
        update webhook_deliveries set status = 'pending', next_attempt_at = ${toDate(at)}, leased_until = null
        where delivery_id = ${deliveryId} and status in ('pending', 'dead_lettered')`).pipe(Effect.asVoid),
    listDeliveries: ({ before, endpointId, limit, status }) =>
      deliveryRows(sql`
        select * from webhook_deliveries
        where endpoint_id = ${endpointId}
          ${status === undefined ? sql`` : sql`and status = ${status}`}
          ${before === undefined ? sql`` : sql`and (created_at, delivery_id) < (${toDate(before.createdAt)}, ${before.id})`}
        order by created_at desc, delivery_id desc
        limit ${limit}`)
  }
  return deliveries
})
