/**
 * Webhooks in SQL (migration 0014): endpoints and deliveries. Fan-out takes outbox rows with
 * `FOR UPDATE SKIP LOCKED` inside the engine's transaction; claims are one statement that picks due
 * deliveries with `FOR UPDATE SKIP LOCKED`, leases them and returns them with their endpoint and
 * event — so any number of server processes share the work and never attempt the same claim twice.
 */
import { SqlClient, type SqlError } from "@effect/sql"
import { Events } from "@switchboard/core"
import {
  type ClaimedDelivery,
  type DeliveryRecord,
  type StoredOutboxEvent,
  type WebhookEndpoint,
  WebhooksRepo,
  WebhookUrlTaken
} from "@switchboard/core/events"
import { type DateTime, Effect, Layer, Option, Schema } from "effect"
import { DbTime, DbTimeOrNull, isUniqueViolation, orDie, toDate, toDateOrNull } from "../shared/Sql.js"

const BigIntNumber = Schema.Union(Schema.Number, Schema.NumberFromString)
const Bytes = Schema.Uint8ArrayFromSelf

const EndpointRow = Schema.Struct({
  endpointId: Schema.String,
  kind: Schema.Literal("destination", "management"),
  projectId: Schema.String,
  url: Schema.String,
  name: Schema.NullOr(Schema.String),
  description: Schema.NullOr(Schema.String),
  status: Schema.Literal("enabled", "disabled"),
  enabledEvents: Schema.Array(Schema.String),
  apiVersion: Schema.String,
  secretSealed: Bytes,
  previousSecretSealed: Schema.NullOr(Bytes),
  previousSecretExpiresAt: DbTimeOrNull,
  createdAt: DbTime,
  updatedAt: DbTime,
  deletedAt: DbTimeOrNull
})
type EndpointRow = typeof EndpointRow.Type

const DeliveryRow = Schema.Struct({
  deliveryId: Schema.String,
  endpointId: Schema.String,
  projectId: Schema.String,
  eventId: Schema.String,
  eventPosition: BigIntNumber,
  eventType: Schema.String,
  status: Schema.Literal("pending", "delivered", "dead_lettered", "cancelled"),
  attemptCount: Schema.Number,
  nextAttemptAt: DbTime,
  leasedUntil: DbTimeOrNull,
  claimSeq: Schema.Number,
  lastAttemptAt: DbTimeOrNull,
  lastError: Schema.NullOr(Schema.String),
  lastResponseStatus: Schema.NullOr(Schema.Number),
  deliveredAt: DbTimeOrNull,
  createdAt: DbTime
})

const EventRow = Schema.Struct({
  position: BigIntNumber,
  id: Schema.String,
  projectId: Schema.NullOr(Schema.String),
  type: Schema.String,
  source: Schema.String,
  occurredAt: DbTime,
  data: Schema.Unknown
})

/** A claimed delivery joined with its endpoint (columns `ep_*`) and event (columns `ev_*`). */
const ClaimRow = Schema.Struct({
  ...DeliveryRow.fields,
  epEndpointId: Schema.String,
  epKind: Schema.Literal("destination", "management"),
  epProjectId: Schema.String,
  epUrl: Schema.String,
  epName: Schema.NullOr(Schema.String),
  epDescription: Schema.NullOr(Schema.String),
  epStatus: Schema.Literal("enabled", "disabled"),
  epEnabledEvents: Schema.Array(Schema.String),
  epApiVersion: Schema.String,
  epSecretSealed: Bytes,
  epPreviousSecretSealed: Schema.NullOr(Bytes),
  epPreviousSecretExpiresAt: DbTimeOrNull,
  epCreatedAt: DbTime,
  epUpdatedAt: DbTime,
  epDeletedAt: DbTimeOrNull,
  evId: Schema.String,
  evType: Schema.String,
  evSource: Schema.String,
  evOccurredAt: DbTime,
  evData: Schema.Unknown
})

const decodeEndpoints = Schema.decodeUnknown(Schema.Array(EndpointRow))
const decodeDeliveries = Schema.decodeUnknown(Schema.Array(DeliveryRow))
const decodeEvents = Schema.decodeUnknown(Schema.Array(EventRow))
const decodeClaims = Schema.decodeUnknown(Schema.Array(ClaimRow))

const bytes = (b: Uint8Array) => new Uint8Array(b)
const buffer = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.byteLength)
const json = (v: unknown) => (typeof v === "string" ? JSON.parse(v) : v) as Record<string, unknown>

const toEndpoint = (r: EndpointRow): WebhookEndpoint => ({
  endpointId: r.endpointId,
  kind: r.kind,
  projectId: r.projectId,
  url: r.url,
  name: r.name,
  description: r.description,
  status: r.status,
  enabledEvents: r.enabledEvents,
  apiVersion: r.apiVersion,
  secret: bytes(r.secretSealed),
  previousSecret: r.previousSecretSealed === null ? null : bytes(r.previousSecretSealed),
  previousSecretExpiresAt: r.previousSecretExpiresAt,
  createdAt: r.createdAt,
  updatedAt: r.updatedAt,
  deletedAt: r.deletedAt
})

const toDelivery = (r: typeof DeliveryRow.Type): DeliveryRecord => ({
  deliveryId: r.deliveryId,
  endpointId: r.endpointId,
  projectId: r.projectId,
  eventId: r.eventId,
  eventPosition: Number(r.eventPosition),
  eventType: r.eventType,
  status: r.status,
  attemptCount: r.attemptCount,
  nextAttemptAt: r.nextAttemptAt,
  leasedUntil: r.leasedUntil,
  claimSeq: r.claimSeq,
  lastAttemptAt: r.lastAttemptAt,
  lastError: r.lastError,
  lastResponseStatus: r.lastResponseStatus,
  deliveredAt: r.deliveredAt,
  createdAt: r.createdAt
})

const toEvent = (id: string, type: string, source: string, occurredAt: DateTime.Utc, data: unknown): Events.EventEnvelope => ({
  id: id as Events.EventEnvelope["id"],
  type,
  apiVersion: Events.EVENT_API_VERSION,
  source,
  timestamp: occurredAt,
  data: json(data)
})

const isoOrNull = (dt: DateTime.Utc | null) => (dt === null ? null : toDate(dt).toISOString())

/** A delivery as a row of `jsonb_to_recordset` (see `insertDeliveries`). */
const deliveryJson = (d: DeliveryRecord) => ({
  delivery_id: d.deliveryId,
  endpoint_id: d.endpointId,
  project_id: d.projectId,
  event_id: d.eventId,
  event_position: d.eventPosition,
  event_type: d.eventType,
  status: d.status,
  attempt_count: d.attemptCount,
  next_attempt_at: toDate(d.nextAttemptAt).toISOString(),
  leased_until: isoOrNull(d.leasedUntil),
  claim_seq: d.claimSeq,
  last_attempt_at: isoOrNull(d.lastAttemptAt),
  last_error: d.lastError,
  last_response_status: d.lastResponseStatus,
  delivered_at: isoOrNull(d.deliveredAt),
  created_at: toDate(d.createdAt).toISOString()
})

const CHUNK = 1000

export const WebhooksRepoSql = Layer.effect(
  WebhooksRepo,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const endpointRows = (statement: Effect.Effect<ReadonlyArray<unknown>, SqlError.SqlError>) =>
      orDie(Effect.flatMap(statement, decodeEndpoints)).pipe(Effect.map((rows) => rows.map(toEndpoint)))
    const deliveryRows = (statement: Effect.Effect<ReadonlyArray<unknown>, SqlError.SqlError>) =>
      orDie(Effect.flatMap(statement, decodeDeliveries)).pipe(Effect.map((rows) => rows.map(toDelivery)))

    /**
     * The engine's own bookkeeping (fan-out, claims, attempt records) commits without waiting for
     * the WAL flush (`synchronous_commit = off` for that transaction only). If the database
     * itself crashes, the last few such commits may be lost — which only ever means an event is
     * fanned out again or a delivery attempted again: at least once still holds, and nothing
     * committed by a feature (the events themselves) is affected. It saves a disk flush per claim
     * and per batch of attempt records. Used as a one-row `FROM` item.
     */
    const asyncCommit = sql`(select set_config('synchronous_commit', 'off', true)) as async_commit`

    const findEndpoint = (kind: WebhookEndpoint["kind"], projectId: string, endpointId: string, lock: boolean) =>
      endpointRows(sql`
        select * from webhook_endpoints
        where endpoint_id = ${endpointId} and kind = ${kind} and project_id = ${projectId}
        ${lock ? sql`for update` : sql``}`).pipe(Effect.map((rows) => Option.fromNullable(rows[0])))

    return WebhooksRepo.of({
      insertEndpoint: (e) =>
        sql`insert into webhook_endpoints ${sql.insert({
          endpointId: e.endpointId,
          kind: e.kind,
          projectId: e.projectId,
          url: e.url,
          name: e.name,
          description: e.description,
          status: e.status,
          enabledEvents: JSON.stringify(e.enabledEvents),
          apiVersion: e.apiVersion,
          secretSealed: buffer(e.secret),
          previousSecretSealed: e.previousSecret === null ? null : buffer(e.previousSecret),
          previousSecretExpiresAt: toDateOrNull(e.previousSecretExpiresAt),
          createdAt: toDate(e.createdAt),
          updatedAt: toDate(e.updatedAt),
          deletedAt: toDateOrNull(e.deletedAt)
        })}`.pipe(
          Effect.asVoid,
          Effect.catchIf(isUniqueViolation, () => Effect.fail(new WebhookUrlTaken({ webhookUrl: e.url }))),
          Effect.catchTag("SqlError", Effect.die)
        ),
      findEndpoint: (kind, projectId, endpointId) => findEndpoint(kind, projectId, endpointId, false),
      lockEndpoint: (kind, projectId, endpointId) => findEndpoint(kind, projectId, endpointId, true),
      updateEndpoint: (e) =>
        orDie(sql`
          update webhook_endpoints set
            url = ${e.url},
            name = ${e.name},
            description = ${e.description},
            status = ${e.status},
            enabled_events = ${JSON.stringify(e.enabledEvents)},
            secret_sealed = ${buffer(e.secret)},
            previous_secret_sealed = ${e.previousSecret === null ? null : buffer(e.previousSecret)},
            previous_secret_expires_at = ${toDateOrNull(e.previousSecretExpiresAt)},
            updated_at = ${toDate(e.updatedAt)},
            deleted_at = ${toDateOrNull(e.deletedAt)}
          where endpoint_id = ${e.endpointId}`).pipe(Effect.asVoid),
      listEndpoints: ({ after, kind, limit, projectId }) =>
        endpointRows(sql`
          select * from webhook_endpoints
          where project_id = ${projectId} and kind = ${kind} and deleted_at is null
            ${after === undefined ? sql`` : sql`and (created_at, endpoint_id) > (${toDate(after.createdAt)}, ${after.id})`}
          order by created_at, endpoint_id
          limit ${limit}`),
      countLiveEndpoints: (kind, projectId) =>
        orDie(sql<{ count: number }>`
          select count(*)::int as count from webhook_endpoints
          where project_id = ${projectId} and kind = ${kind} and deleted_at is null`).pipe(Effect.map((rows) => rows[0]?.count ?? 0)),
      deliveryCounts: orDie(sql<{ pending: number; deadLettered: number }>`
        select count(*) filter (where status = 'pending')::int as pending,
               count(*) filter (where status = 'dead_lettered')::int as dead_lettered
        from webhook_deliveries where status in ('pending', 'dead_lettered')`).pipe(
        Effect.map((rows) => ({ pending: rows[0]?.pending ?? 0, deadLettered: rows[0]?.deadLettered ?? 0 }))
      ),
      oldestPendingDueMillis: orDie(sql<{ due: number | null }>`
        select (extract(epoch from min(next_attempt_at)) * 1000)::float8 as due
        from webhook_deliveries where status = 'pending'`).pipe(Effect.map((rows) => rows[0]?.due ?? null)),
      cancelPendingDeliveries: (endpointId) =>
        orDie(sql<{ deliveryId: string }>`
          update webhook_deliveries set status = 'cancelled', leased_until = null
          where endpoint_id = ${endpointId} and status = 'pending'
          returning delivery_id`).pipe(Effect.map((rows) => rows.length)),

      takeUndispatched: (limit) =>
        orDie(Effect.flatMap(
          sql`
            select position, id, project_id, type, source, occurred_at, data from ${asyncCommit}, events
            where dispatched_at is null
            order by position
            limit ${limit}
            for update of events skip locked`,
          decodeEvents
        )).pipe(Effect.map((rows) =>
          rows.map((r): StoredOutboxEvent => ({
            position: Number(r.position),
            projectId: r.projectId,
            event: toEvent(r.id, r.type, r.source, r.occurredAt, r.data)
          }))
        )),
      subscribers: (projectIds) =>
        projectIds.length === 0 ? Effect.succeed([]) : endpointRows(sql`
          select * from webhook_endpoints
          where ${sql.in("project_id", projectIds)} and deleted_at is null and status = 'enabled'`),
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
              select delivery_id, endpoint_id, project_id, event_id, event_position, event_type, status,
                attempt_count, next_attempt_at, leased_until, claim_seq, last_attempt_at, last_error, last_response_status,
                delivered_at, created_at
              from jsonb_to_recordset(${JSON.stringify(chunk.map(deliveryJson))}::jsonb) as v(
                delivery_id text, endpoint_id text, project_id uuid, event_id text, event_position bigint, event_type text,
                status text, attempt_count integer, next_attempt_at timestamptz, leased_until timestamptz, claim_seq integer,
                last_attempt_at timestamptz, last_error text, last_response_status integer, delivered_at timestamptz,
                created_at timestamptz
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
        Effect.catchAll((e) => Effect.logWarning("webhook tables: analyze failed", e))
      ),

      claimDue: ({ leaseUntil, limit, now, perEndpoint }) =>
        orDie(Effect.flatMap(
          sql`
            with recursive endpoints_pending (endpoint_id) as (
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
              for update of d skip locked
            ), claimed as (
              update webhook_deliveries w set leased_until = ${toDate(leaseUntil)}, claim_seq = w.claim_seq + 1
              where w.delivery_id = any(array(select delivery_id from due))
              returning w.*
            )
            select c.*,
              e.endpoint_id as ep_endpoint_id, e.kind as ep_kind, e.project_id as ep_project_id, e.url as ep_url,
              e.name as ep_name, e.description as ep_description, e.status as ep_status,
              e.enabled_events as ep_enabled_events, e.api_version as ep_api_version,
              e.secret_sealed as ep_secret_sealed, e.previous_secret_sealed as ep_previous_secret_sealed,
              e.previous_secret_expires_at as ep_previous_secret_expires_at, e.created_at as ep_created_at,
              e.updated_at as ep_updated_at, e.deleted_at as ep_deleted_at,
              ev.id as ev_id, ev.type as ev_type, ev.source as ev_source, ev.occurred_at as ev_occurred_at, ev.data as ev_data
            from claimed c
            join webhook_endpoints e on e.endpoint_id = c.endpoint_id
            join events ev on ev.position = c.event_position
            order by c.next_attempt_at, c.event_position`,
          decodeClaims
        )).pipe(Effect.map((rows) =>
          rows.map((r): ClaimedDelivery => ({
            delivery: toDelivery(r),
            endpoint: toEndpoint({
              endpointId: r.epEndpointId,
              kind: r.epKind,
              projectId: r.epProjectId,
              url: r.epUrl,
              name: r.epName,
              description: r.epDescription,
              status: r.epStatus,
              enabledEvents: r.epEnabledEvents,
              apiVersion: r.epApiVersion,
              secretSealed: r.epSecretSealed,
              previousSecretSealed: r.epPreviousSecretSealed,
              previousSecretExpiresAt: r.epPreviousSecretExpiresAt,
              createdAt: r.epCreatedAt,
              updatedAt: r.epUpdatedAt,
              deletedAt: r.epDeletedAt
            }),
            event: toEvent(r.evId, r.evType, r.evSource, r.evOccurredAt, r.evData)
          }))
        )),
      completeAttempts: (attempts) =>
        attempts.length === 0 ? Effect.succeed([]) : orDie(sql<{ deliveryId: string }>`
          update webhook_deliveries d set
            status = v.status,
            attempt_count = v.attempt_count,
            next_attempt_at = v.next_attempt_at,
            leased_until = null,
            last_attempt_at = v.last_attempt_at,
            last_error = v.last_error,
            last_response_status = v.last_response_status,
            delivered_at = v.delivered_at
          from ${asyncCommit}, jsonb_to_recordset(${JSON.stringify(attempts.map((a) => ({
            delivery_id: a.deliveryId,
            claim_seq: a.claimSeq,
            status: a.status,
            attempt_count: a.attemptCount,
            next_attempt_at: toDate(a.nextAttemptAt).toISOString(),
            last_attempt_at: toDate(a.lastAttemptAt).toISOString(),
            last_error: a.lastError,
            last_response_status: a.lastResponseStatus,
            delivered_at: a.deliveredAt === null ? null : toDate(a.deliveredAt).toISOString()
          })))}::jsonb) as v(
            delivery_id text, claim_seq integer, status text, attempt_count integer, next_attempt_at timestamptz,
            last_attempt_at timestamptz, last_error text, last_response_status integer, delivered_at timestamptz
          )
          where d.delivery_id = v.delivery_id and d.claim_seq = v.claim_seq
            and d.leased_until is not null and d.status = 'pending'
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
          for update`).pipe(Effect.map((rows) => Option.fromNullable(rows[0]))),
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
    })
  })
)

export const WebhooksReposSql = WebhooksRepoSql
