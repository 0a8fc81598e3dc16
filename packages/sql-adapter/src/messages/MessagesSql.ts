/**
 * The messages context's SQL repository (docs/messages.md): records in `messages` (the JSON of
 * core's `Message`), applied facts in `message_event_log` (what the SQL query operation's
 * `message_events` shows). A batch reads with two statements — the messages locked in id order,
 * then, under those locks, the fact ids the project already has — and writes with one: new messages
 * (skipping ids taken meanwhile), changed ones and the facts (skipping ids taken meanwhile);
 * anything skipped answers false and the service rolls the transaction back.
 */
import { SqlClient } from "effect/sql"
import { encodeMessage, Message, MessagesRepo } from "@switchboard/core/messages"
import { formatTimestamp } from "@switchboard/core/shared"
import { Effect, Layer, Schema } from "effect"
import { firstRow, orDie, parseJson, recordsOf, toDate } from "../shared/Sql.js"

const decodeMessage = Schema.decodeUnknownEffect(Message)

export const MessagesRepoSql = Layer.effect(
  MessagesRepo,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const records = recordsOf(Message)
    // Records written here come from the reducer (MessageRecords.ts), whose records the strict
    // schema accepts (MessageRecords.test.ts); records read back are decoded by the schema.
    const text = (m: Message) => JSON.stringify(encodeMessage(m))

    return MessagesRepo.of({
      find: (projectId, messageId) =>
        Effect.map(records(sql`select record from messages where project_id = ${projectId} and message_id = ${messageId}`), firstRow),
      list: ({ after, createdAfter, createdBefore, limit, platform, projectId, status }) =>
        records(sql`
          select record from messages
          where ${sql.and([
            sql`project_id = ${projectId}`,
            platform === undefined ? sql`true` : sql`platform = ${platform}`,
            status === undefined ? sql`true` : sql`status = ${status}`,
            createdAfter === undefined ? sql`true` : sql`created_at > ${toDate(createdAfter)}`,
            createdBefore === undefined ? sql`true` : sql`created_at < ${toDate(createdBefore)}`,
            after === undefined ? sql`true` : sql`(created_at, message_id) < (${toDate(after.createdAt)}, ${after.messageId})`
          ])}
          order by created_at desc, message_id desc
          limit ${limit}`),
      loadBatch: ({ factIds, messageIds, projectId }) =>
        Effect.gen(function*() {
          const rows = yield* orDie(sql<{ record: unknown }>`
            select record from messages
            where project_id = ${projectId}::uuid and message_id = any(${[...messageIds]}::text[])
            order by message_id
            for update`)
          // A statement of its own, after the locks are held: it sees facts committed meanwhile.
          const facts = yield* orDie(sql<{ eventId: string }>`
            select event_id from message_event_log
            where project_id = ${projectId}::uuid and event_id = any(${[...factIds]}::text[])`)
          const messages = new Map<string, Message>()
          for (const r of rows) {
            const m = yield* orDie(decodeMessage(parseJson(r.record)))
            messages.set(m.id, m)
          }
          return { messages, applied: new Set(facts.map((f) => f.eventId)) }
        }),
      writeBatch: ({ created, facts, projectId, recordedAt, updated }) =>
        Effect.gen(function*() {
          // In id order, like the locks: concurrent batches creating the same messages never deadlock.
          const fresh = [...created].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
          // One statement, arrays as one parameter each.
          const [row] = yield* orDie(sql<{ created: number | string; facts: number | string }>`
            with new_messages as (
              insert into messages (project_id, message_id, platform, status, created_at, record)
              select ${projectId}::uuid, n.message_id, n.platform, n.status, n.created_at, n.record::json
              from unnest(
                ${fresh.map((m) => m.id)}::text[], ${fresh.map((m) => m.platform)}::text[],
                ${fresh.map((m) => m.status)}::text[], ${fresh.map((m) => formatTimestamp(m.createdAt))}::timestamptz[],
                ${fresh.map(text)}::text[]
              ) as n(message_id, platform, status, created_at, record)
              order by n.message_id
              on conflict do nothing
              returning message_id
            ),
            changed as (
              update messages m set status = u.status, record = u.record::json
              from unnest(${updated.map((m) => m.id)}::text[], ${updated.map((m) => m.status)}::text[], ${updated.map(text)}::text[])
                as u(message_id, status, record)
              where m.project_id = ${projectId}::uuid and m.message_id = u.message_id
              returning m.message_id
            ),
            logged as (
              insert into message_event_log
                (project_id, event_id, message_id, platform, direction, event_type, status, occurred_at, recorded_at)
              select ${projectId}::uuid, f.event_id, f.message_id, f.platform, f.direction, f.event_type, f.status, f.occurred_at,
                ${toDate(recordedAt)}
              from unnest(
                ${facts.map((f) => f.factId)}::text[], ${facts.map((f) => f.messageId)}::text[], ${facts.map((f) => f.platform)}::text[],
                ${facts.map((f) => f.direction)}::text[], ${facts.map((f) => f.type)}::text[], ${facts.map((f) => f.status)}::text[],
                ${facts.map((f) => formatTimestamp(f.occurredAt))}::timestamptz[]
              ) as f(event_id, message_id, platform, direction, event_type, status, occurred_at)
              on conflict do nothing
              returning event_id
            )
            select (select count(*) from new_messages) as created, (select count(*) from logged) as facts,
              (select count(*) from changed) as changed`)
          return Number(row?.created) === fresh.length && Number(row?.facts) === facts.length
        })
    })
  })
)

export const MessagesReposSql = MessagesRepoSql
