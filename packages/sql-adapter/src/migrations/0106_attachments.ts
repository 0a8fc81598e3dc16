import { SqlClient } from "effect/sql"
import { Effect } from "effect"

/**
 * Attachments (docs/provisioning.md): one row per file a project uploaded or received; the
 * bytes are in the blob store under `blob_key` once `ready`. Lists order by creation or update time.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    create table attachments (
      attachment_id text collate "C" primary key,
      project_id uuid not null references projects (project_id),
      content_type text not null,
      size_bytes bigint not null,
      state text not null check (state in ('processing', 'ready')),
      blob_key text,
      created_at timestamptz not null,
      updated_at timestamptz not null
    )`
  yield* sql`create index attachments_by_created on attachments (project_id, created_at, attachment_id)`
  yield* sql`create index attachments_by_updated on attachments (project_id, updated_at, attachment_id)`
})
