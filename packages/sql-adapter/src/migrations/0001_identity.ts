import { SqlClient } from "effect/sql"
import { Effect } from "effect"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    create table accounts (
      account_id text primary key,
      email text not null,
      first_name text,
      last_name text,
      phone_number text,
      phone_verified_at timestamptz,
      picture_url text,
      password_hash text,
      created_at timestamptz not null,
      updated_at timestamptz not null,
      deleted_at timestamptz
    )`
  // Emails are unique without regard to case.
  yield* sql`create unique index accounts_email_key on accounts (lower(email))`
  yield* sql`
    create table account_service_keys (
      service_key_id text primary key,
      account_id text not null references accounts (account_id),
      name text not null,
      secret_hash text not null,
      created_at timestamptz not null,
      expires_at timestamptz,
      revoked_at timestamptz
    )`
  // The list (unrevoked, newest first) and the live-key count both read this index.
  yield* sql`
    create index account_service_keys_live on account_service_keys (account_id, created_at desc, service_key_id desc)
    where revoked_at is null`
  yield* sql`
    create table idempotency_records (
      scope text not null,
      key text not null,
      fingerprint text not null,
      created_at timestamptz not null,
      locked_at timestamptz not null,
      response_status integer,
      response_headers jsonb,
      response_body text,
      primary key (scope, key)
    )`
  yield* sql`create index idempotency_records_created on idempotency_records (created_at)`
})
