import { SqlClient } from "effect/sql"
import { Effect } from "effect"

// Upload tickets (docs/api-notes/accounts-and-projects.md "Uploads"). Every lookup is by upload id
// (the primary key); account pictures live on `accounts.picture_url`, which the identity migration
// created.
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    create table upload_tickets (
      upload_id text primary key,
      owner text not null,
      purpose text not null,
      content_type text not null,
      max_bytes integer not null check (max_bytes > 0),
      state text not null check (state in ('pending', 'received', 'committed')),
      blob_key text,
      byte_size integer,
      created_at timestamptz not null,
      expires_at timestamptz not null,
      received_at timestamptz,
      committed_at timestamptz,
      check ((state = 'pending') = (blob_key is null))
    )`
})
