import { SqlClient } from "effect/sql"
import { Effect } from "effect"

// App installation (docs/app-installation.md): installation requests from creation to delivery (the
// account that opened one lists its pending ones; an approved one is found by the SHA-256 of its
// code), each app's registered public keys, and the jtis of the client assertions already used (per
// app, until the assertion expires).
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    create table app_installation_requests (
      request_id text collate "C" primary key,
      app_id text collate "C" not null references oauth_apps (client_id),
      app_version text not null,
      redirect_uri text not null,
      state text not null,
      created_at timestamptz not null,
      expires_at timestamptz not null,
      account_id text collate "C" references accounts (account_id) on delete cascade,
      status text not null check (status in ('pending', 'approved', 'denied', 'delivered')),
      project_id uuid,
      permissions jsonb not null check (jsonb_typeof(permissions) = 'array'),
      decided_at timestamptz,
      code_hash text collate "C" unique,
      code_expires_at timestamptz,
      installation_id text collate "C" unique,
      api_key_id text collate "C",
      delivered_at timestamptz
    )`
  yield* sql`
    create index app_installation_requests_pending on app_installation_requests (account_id, created_at desc, request_id desc)
    where status = 'pending'`
  yield* sql`
    create table app_installation_keys (
      app_id text collate "C" primary key references oauth_apps (client_id),
      keys jsonb not null check (jsonb_typeof(keys) = 'array'),
      updated_at timestamptz not null
    )`
  yield* sql`
    create table app_installation_jtis (
      app_id text collate "C" not null,
      jti text collate "C" not null,
      expires_at timestamptz not null,
      primary key (app_id, jti)
    )`
  yield* sql`create index app_installation_jtis_expiry on app_installation_jtis (app_id, expires_at)`
})
