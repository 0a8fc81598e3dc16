/** The events outbox in SQL: `append` runs on the caller's connection, so it joins its transaction. */
import { SqlClient, SqlSchema } from "effect/sql"
import { Events } from "@switchboard/core"
import { EventOutbox } from "@switchboard/core/events"
import { Array as Arr, Effect, Layer, Schema } from "effect"
import { DbTime, orDie, toDate } from "../shared/Sql.js"

const Row = Schema.Struct({
  position: Schema.Union([Schema.Number, Schema.NumberFromString]),
  id: Schema.String,
  projectId: Schema.NullOr(Schema.String),
  type: Schema.String,
  source: Schema.String,
  occurredAt: DbTime,
  data: Schema.Unknown
})

export const EventOutboxSql = Layer.effect(
  EventOutbox,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const list = SqlSchema.findAll({
      Request: Schema.Struct({ projectId: Schema.String, after: Schema.Number, limit: Schema.Number }),
      Result: Row,
      execute: ({ after, limit, projectId }) => sql`
        select position, id, project_id, type, source, occurred_at, data from events
        where project_id = ${projectId} and position > ${after}
        order by position limit ${limit}`
    })
    return EventOutbox.of({
      append: (events) =>
        !Arr.isReadonlyArrayNonEmpty(events) ? Effect.void : orDie(sql`insert into events ${sql.insert(Arr.map(events, ({ event, projectId }) => ({
          id: event.id,
          project_id: projectId,
          type: event.type,
          source: event.source,
          occurred_at: toDate(event.timestamp),
          api_version: event.apiVersion,
          data: JSON.stringify(event.data)
        })))}`).pipe(Effect.asVoid),
      list: (args) =>
        orDie(list(args)).pipe(Effect.map((rows) =>
          rows.map((r) => ({
            position: Number(r.position),
            projectId: r.projectId,
            event: {
              id: r.id as Events.EventEnvelope["id"],
              type: r.type,
              apiVersion: Events.EVENT_API_VERSION,
              source: r.source,
              timestamp: r.occurredAt,
              data: (typeof r.data === "string" ? JSON.parse(r.data) : r.data) as Record<string, unknown>
            }
          }))
        ))
    })
  })
)

export const EventsReposSql = EventOutboxSql
