import { SqlClient } from "effect/sql"
import { Effect } from "effect"

// The OAuth provider (core oauth/OAuthProviderPorts.ts): apps, grants (one account's consent to one
// app), authorization codes, token families and tokens. Codes and tokens are stored as the SHA-256
// of their value only; every one of them carries its grant, so withdrawing a grant is a few
// indexed updates.
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    create table oauth_apps (
      client_id text collate "C" primary key,
      owner_account_id text collate "C" not null references accounts (account_id),
      name text not null,
      logo_uri text,
      homepage_uri text,
      redirect_uris jsonb not null check (jsonb_typeof(redirect_uris) = 'array'),
      client_type text not null check (client_type in ('confidential', 'public')),
      scopes jsonb not null check (jsonb_typeof(scopes) = 'array'),
      secret_hash text,
      created_at timestamptz not null,
      updated_at timestamptz not null,
      deleted_at timestamptz,
      check ((client_type = 'confidential') = (secret_hash is not null))
    )`
  // The owner's list (live apps, newest first).
  yield* sql`
    create index oauth_apps_owner on oauth_apps (owner_account_id, created_at desc, client_id desc)
    where deleted_at is null`

  yield* sql`
    create table oauth_grants (
      grant_id text collate "C" primary key,
      account_id text collate "C" not null references accounts (account_id),
      client_id text collate "C" not null references oauth_apps (client_id),
      scopes jsonb not null check (jsonb_typeof(scopes) = 'array'),
      created_at timestamptz not null,
      updated_at timestamptz not null,
      revoked_at timestamptz
    )`
  // At most one live grant per account and app (consent upserts it); the account's list reads it too.
  yield* sql`
    create unique index oauth_grants_live on oauth_grants (account_id, client_id) where revoked_at is null`
  // Removing an app revokes its live grants.
  yield* sql`create index oauth_grants_client on oauth_grants (client_id) where revoked_at is null`

  yield* sql`
    create table oauth_codes (
      code_hash text collate "C" primary key,
      grant_id text collate "C" not null references oauth_grants (grant_id),
      client_id text collate "C" not null,
      account_id text collate "C" not null,
      redirect_uri text not null,
      code_challenge text not null,
      scopes jsonb not null check (jsonb_typeof(scopes) = 'array'),
      nonce text,
      resource text,
      auth_time timestamptz not null,
      created_at timestamptz not null,
      expires_at timestamptz not null,
      consumed_at timestamptz
    )`
  yield* sql`create index oauth_codes_grant on oauth_codes (grant_id) where consumed_at is null`
  yield* sql`create index oauth_codes_expiry on oauth_codes (expires_at)`

  yield* sql`
    create table oauth_families (
      family_id text collate "C" primary key,
      grant_id text collate "C" not null references oauth_grants (grant_id),
      client_id text collate "C" not null,
      account_id text collate "C" not null,
      resource text,
      auth_time timestamptz not null,
      created_at timestamptz not null,
      revoked_at timestamptz
    )`
  yield* sql`create index oauth_families_grant on oauth_families (grant_id) where revoked_at is null`
  yield* sql`create index oauth_families_created on oauth_families (created_at)`

  yield* sql`
    create table oauth_tokens (
      token_hash text collate "C" primary key,
      kind text not null check (kind in ('access', 'refresh')),
      family_id text collate "C" not null references oauth_families (family_id),
      grant_id text collate "C" not null,
      client_id text collate "C" not null,
      account_id text collate "C" not null,
      scopes jsonb not null check (jsonb_typeof(scopes) = 'array'),
      created_at timestamptz not null,
      expires_at timestamptz not null,
      revoked_at timestamptz,
      rotated_at timestamptz
    )`
  yield* sql`create index oauth_tokens_family on oauth_tokens (family_id)`
  yield* sql`create index oauth_tokens_grant on oauth_tokens (grant_id) where revoked_at is null`
  yield* sql`create index oauth_tokens_expiry on oauth_tokens (expires_at)`
})
