import { SqlClient } from "effect/sql"
import { Effect } from "effect"

/** The events outbox (core events/EventsFeature.ts): written in the transaction of each change. */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    create table events (
      position bigserial primary key,
      id text not null unique,
      project_id uuid,
      type text not null,
      source text not null,
      occurred_at timestamptz not null,
      api_version text not null,
      data jsonb not null,
      dispatched_at timestamptz
    )`
  yield* sql`create index events_project on events (project_id, position)`
  yield* sql`create index events_undispatched on events (position) where dispatched_at is null`
})
