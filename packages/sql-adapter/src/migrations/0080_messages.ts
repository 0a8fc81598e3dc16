import { SqlClient } from "effect/sql"
import { Effect } from "effect"

/**
 * Message records (docs/messages.md): `messages` keeps each record as the JSON of core's `Message`
 * next to the columns its lookups use; a message id is unique within its project. The facts
 * applied to them are rows of `message_event_log` (0040), whose primary key (project, fact id)
 * makes a fact apply once. Lists are newest first, optionally by platform or status.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    create table messages (
      project_id uuid not null references projects (project_id),
      message_id text collate "C" not null,
      platform text not null,
      status text not null,
      created_at timestamptz not null,
      record json not null,
      primary key (project_id, message_id)
    )`
  yield* sql`create index messages_by_created on messages (project_id, created_at desc, message_id desc)`
})
