/**
 * The event channel's ports in SQL (migration 0030): the per-project stream over `events.seq`,
 * wake-ups and reply signals through `pg_notify`/`LISTEN` (on PostgreSQL across processes; PGlite
 * delivers them within its one process), presence in `channel_sessions`, ingress endpoints.
 */
import { SqlClient, SqlSchema } from "effect/sql"
import { PgClient } from "../PgClient.js"
import { Events } from "@switchboard/core"
import { EventChannelStore, type IngressEndpointRecord, IngressEndpointsRepo, type RelayedReply } from "@switchboard/core/events"
import { DateTime, Effect, Layer, Option, Schema, Stream } from "effect"
import { DbTime, DbTimeOrNull, orDie, toDate, toDateOrNull } from "../shared/Sql.js"

export const EVENTS_CHANNEL = "sb_events"
export const REPLIES_CHANNEL = "sb_channel_replies"

const Num = Schema.Union([Schema.Number, Schema.NumberFromString])
const EventRow = Schema.Struct({
  seq: Num,
  projectId: Schema.String,
  id: Schema.String,
  type: Schema.String,
  source: Schema.String,
  occurredAt: DbTime,
  data: Schema.Unknown,
  replyUntil: DbTimeOrNull,
  ingressPlatform: Schema.NullOr(Schema.String)
})
const toChannelEvent = (r: typeof EventRow.Type) => ({
  seq: Number(r.seq),
  projectId: r.projectId,
  replyUntil: r.replyUntil,
  platform: r.ingressPlatform,
  event: {
    id: r.id as Events.EventEnvelope["id"],
    type: r.type,
    apiVersion: Events.EVENT_API_VERSION,
    source: r.source,
    timestamp: r.occurredAt,
    data: (typeof r.data === "string" ? JSON.parse(r.data) : r.data) as Record<string, unknown>
  }
})

const listened = (pg: PgClient, channel: string) =>
  pg.listen(channel).pipe(
    Stream.catch((e) => Stream.fromEffect(Effect.logWarning(`${channel} listener stopped`, e.message)).pipe(Stream.drain))
  )

export const EventChannelStoreSql = Layer.effect(
  EventChannelStore,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const pg = yield* PgClient
    const read = SqlSchema.findAll({
      Request: Schema.Struct({ projectId: Schema.String, after: Schema.Number, limit: Schema.Number, maxBytes: Schema.optional(Schema.Number) }),
      Result: EventRow,
      execute: ({ after, limit, maxBytes, projectId }) =>
        maxBytes === undefined
          ? sql`
            select seq, project_id, id, type, source, occurred_at, data, reply_until, ingress_platform from events
            where project_id = ${projectId} and seq > ${after} order by seq limit ${limit}`
          // The sizes first (computed in the database, nothing sent), then the events up to the last
          // seq within maxBytes — the first one always.
          : sql`
            with sized as (
              select seq, octet_length(data::text) as size from events
              where project_id = ${projectId} and seq > ${after} order by seq limit ${limit}
            ), running as (
              select seq, sum(size) over (order by seq) as total, row_number() over (order by seq) as n from sized
            )
            select seq, project_id, id, type, source, occurred_at, data, reply_until, ingress_platform from events
            where project_id = ${projectId} and seq > ${after}
              and seq <= (select max(seq) from running where total <= ${maxBytes} or n = 1)
            order by seq`
    })
    const counters = (projectId: string) =>
      orDie(sql<{ lastSeq: string | number; prunedThrough: string | number }>`
        select last_seq, pruned_through from event_seqs where project_id = ${projectId}`)
    return EventChannelStore.of({
      read: (args) => orDie(read(args)).pipe(Effect.map((rows) => rows.map(toChannelEvent))),
      head: (projectId) => Effect.map(counters(projectId), (rows) => Number(rows[0]?.lastSeq ?? 0)),
      floor: (projectId) => Effect.map(counters(projectId), (rows) => Number(rows[0]?.prunedThrough ?? 0)),
      append: ({ event, platform, projectId, replyUntil }) =>
        orDie(sql<{ seq: string | number }>`
          insert into events (id, project_id, type, source, occurred_at, api_version, data, reply_until, ingress_platform)
          values (${event.id}, ${projectId}, ${event.type}, ${event.source}, ${toDate(event.timestamp)}, ${event.apiVersion},
            ${JSON.stringify(event.data)}, ${toDateOrNull(replyUntil)}, ${platform})
          returning seq`).pipe(Effect.map((rows) => Number(rows[0]!.seq))),
      replyDeadline: (projectId, eventId) =>
        orDie(SqlSchema.findAll({
          Request: Schema.String,
          Result: Schema.Struct({ replyUntil: DbTime }),
          execute: (id) => sql`
            select reply_until from events
            where id = ${id} and project_id = ${projectId} and seq is not null and reply_until is not null`
        })(eventId)).pipe(Effect.map((rows) => Option.fromNullishOr(rows[0]).pipe(Option.map((r) => r.replyUntil)))),
      prune: (before, limit) =>
        orDie(sql<{ n: string | number }>`
          with gone as (
            delete from events where position in (
              select e.position from events e
              where e.occurred_at < ${toDate(before)} and e.dispatched_at is not null
                -- a webhook delivery's record keeps its event (deliveries stay visible and retryable)
                and not exists (select 1 from webhook_deliveries d where d.event_position = e.position)
              order by e.position limit ${limit})
            returning project_id, seq),
          floors as (
            update event_seqs s set pruned_through = greatest(s.pruned_through, f.top)
            from (select project_id, max(seq) as top from gone where seq is not null group by project_id) f
            where s.project_id = f.project_id)
          select count(*) as n from gone`).pipe(Effect.map((rows) => Number(rows[0]?.n ?? 0))),
      wakeups: listened(pg, EVENTS_CHANNEL),
      join: (s) =>
        orDie(sql`
          insert into channel_sessions (session_id, project_id, protocol, process_id, seen_at)
          values (${s.sessionId}, ${s.projectId}, ${s.protocol}, ${s.processId}, ${toDate(s.now)})
          on conflict (session_id) do update set seen_at = excluded.seen_at`).pipe(Effect.asVoid),
      leave: (sessionId) => orDie(sql`delete from channel_sessions where session_id = ${sessionId}`).pipe(Effect.asVoid),
      touch: (processId, now) =>
        orDie(sql`update channel_sessions set seen_at = ${toDate(now)} where process_id = ${processId}`).pipe(Effect.asVoid),
      dropStale: (before) =>
        orDie(sql`
          with gone as (delete from channel_sessions where seen_at < ${toDate(before)} returning 1)
          select count(*) as n from gone`).pipe(Effect.map((rows) => Number(rows[0]?.n ?? 0))),
      present: (projectId, protocol, since) =>
        orDie(sql`
          select 1 from channel_sessions
          where project_id = ${projectId} and protocol = ${protocol} and seen_at >= ${toDate(since)} limit 1`).pipe(
          Effect.map((rows) => rows.length > 0)
        ),
      putReply: (eventId, reply) =>
        sql.withTransaction(Effect.gen(function*() {
          const rows = yield* sql`
            insert into channel_replies (event_id, status, headers, body, error_reason)
            values (${eventId}, ${reply.status}, ${JSON.stringify(reply.headers)}, ${reply.body}, ${reply.errorReason})
            on conflict (event_id) do nothing returning event_id`
          if (rows.length === 0) return false
          yield* sql`select pg_notify(${REPLIES_CHANNEL}, ${eventId})`
          return true
        })).pipe(orDie),
      takeReply: (eventId) =>
        orDie(sql<{ status: number; headers: unknown; body: string; errorReason: string }>`
          select status, headers, body, error_reason from channel_replies where event_id = ${eventId}`).pipe(
          Effect.map((rows) =>
            Option.fromNullishOr(rows[0]).pipe(Option.map((r): RelayedReply => ({
              status: r.status,
              headers: (typeof r.headers === "string" ? JSON.parse(r.headers) : r.headers) as Record<string, string>,
              body: r.body,
              errorReason: r.errorReason
            })))
          )
        ),
      replies: listened(pg, REPLIES_CHANNEL)
    })
  })
)

const EndpointRow = Schema.Struct({
  endpointId: Schema.String,
  projectId: Schema.String,
  platform: Schema.String,
  sourceId: Schema.String,
  secretHash: Schema.String,
  createdAt: DbTime,
  revokedAt: DbTimeOrNull
})

export const IngressEndpointsRepoSql = Layer.effect(
  IngressEndpointsRepo,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rows = (q: Effect.Effect<ReadonlyArray<unknown>, unknown>) =>
      orDie(Effect.flatMap(q, Schema.decodeUnknownEffect(Schema.Array(EndpointRow)))) as Effect.Effect<
        ReadonlyArray<IngressEndpointRecord>
      >
    return IngressEndpointsRepo.of({
      insert: (r) =>
        orDie(sql`
          insert into ingress_endpoints (endpoint_id, project_id, platform, source_id, secret_hash, created_at)
          values (${r.endpointId}, ${r.projectId}, ${r.platform}, ${r.sourceId}, ${r.secretHash}, ${toDate(r.createdAt)})`).pipe(
          Effect.asVoid
        ),
      list: (projectId) =>
        rows(sql`
          select * from ingress_endpoints where project_id = ${projectId} and revoked_at is null
          order by created_at, endpoint_id`),
      revoke: (projectId, endpointId, now) =>
        rows(sql`
          update ingress_endpoints set revoked_at = coalesce(revoked_at, ${toDate(now)})
          where project_id = ${projectId} and endpoint_id = ${endpointId} returning *`).pipe(
          Effect.map((r) => Option.fromNullishOr(r[0]))
        ),
      findBySecretHash: (secretHash) =>
        rows(sql`select * from ingress_endpoints where secret_hash = ${secretHash} and revoked_at is null`).pipe(
          Effect.map((r) => Option.fromNullishOr(r[0]))
        )
    })
  })
)

export const ChannelReposSql = Layer.mergeAll(EventChannelStoreSql, IngressEndpointsRepoSql)
void DateTime
