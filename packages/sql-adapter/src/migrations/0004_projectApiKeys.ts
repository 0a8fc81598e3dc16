import { SqlClient } from "effect/sql"
import { Effect } from "effect"

// Project API keys (docs/api-notes/credentials.md): the key id is the credential's prefix
// (primary key: one indexed lookup per verification); only the SHA-256 of the secret is stored.
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    create table project_api_keys (
      api_key_id text collate "C" primary key,
      project_id uuid not null references projects (project_id),
      created_by_account_id text collate "C" not null references accounts (account_id),
      name text not null,
      permissions jsonb not null check (jsonb_typeof(permissions) = 'array'),
      secret_hash text not null,
      created_at timestamptz not null,
      expires_at timestamptz,
      permissions_updated_at timestamptz,
      revoked_at timestamptz
    )`
  // The list (unrevoked, newest first) and the live-key count both read this index.
  yield* sql`
    create index project_api_keys_live on project_api_keys (project_id, created_at desc, api_key_id desc)
    where revoked_at is null`
})
