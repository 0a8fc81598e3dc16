import { SqlClient } from "effect/sql"
import { Effect } from "effect"

// The Dashboard: sign-in sessions and failure windows, privacy requests and the audit log,
// per-project dashboard settings (iMessage auto-scale, Slack) and onboarding answers.
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  // Looked up by the hash of the cookie's token (the primary key); swept by expiry; ended per account.
  yield* sql`
    create table dashboard_sessions (
      token_hash text collate "C" primary key,
      session_id text collate "C" not null unique,
      account_id text collate "C" not null references accounts (account_id),
      created_at timestamptz not null,
      expires_at timestamptz not null,
      authenticated_at timestamptz not null
    )`
  yield* sql`create index dashboard_sessions_account on dashboard_sessions (account_id)`
  yield* sql`create index dashboard_sessions_expiry on dashboard_sessions (expires_at)`
  yield* sql`
    create table dashboard_sign_in_failures (
      subject text collate "C" primary key,
      failures integer not null check (failures > 0),
      window_started_at timestamptz not null
    )`
  yield* sql`create index dashboard_sign_in_failures_window on dashboard_sign_in_failures (window_started_at)`
  yield* sql`
    create table privacy_requests (
      request_id text collate "C" primary key,
      email text check (email is null or length(email) <= 254),
      email_hash text not null,
      requested_by_account_id text collate "C" references accounts (account_id),
      status text not null check (status in ('received', 'completed')),
      outcome text check (outcome in ('erased', 'anonymised', 'no_account', 'not_verified')),
      created_at timestamptz not null,
      processed_at timestamptz,
      check ((status = 'completed') = (processed_at is not null))
    )`
  // The job's queue: received requests, oldest first.
  yield* sql`create index privacy_requests_received on privacy_requests (created_at, request_id) where status = 'received'`
  yield* sql`
    create table audit_records (
      audit_id text collate "C" primary key,
      action text not null,
      actor_account_id text collate "C",
      subject_type text not null,
      subject_id text collate "C",
      detail jsonb not null,
      created_at timestamptz not null
    )`
  yield* sql`create index audit_records_subject on audit_records (subject_id, created_at desc, audit_id desc)`
  yield* sql`create index audit_records_created on audit_records (created_at desc, audit_id desc)`
  yield* sql`
    create table project_imessage_settings (
      project_id uuid primary key references projects (project_id),
      auto_scale boolean not null,
      updated_at timestamptz not null
    )`
  yield* sql`
    create table project_slack_integrations (
      project_id uuid primary key references projects (project_id),
      enabled_features jsonb not null,
      client_id text not null,
      app_id text not null,
      client_secret_sealed bytea not null,
      signing_secret_sealed bytea not null,
      created_at timestamptz not null,
      updated_at timestamptz not null
    )`
  yield* sql`
    create table onboarding_answers (
      account_id text collate "C" primary key references accounts (account_id),
      company_name text,
      role text,
      use_case text,
      team_size integer,
      created_at timestamptz not null,
      updated_at timestamptz not null
    )`
})
