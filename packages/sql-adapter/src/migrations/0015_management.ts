import { SqlClient } from "effect/sql"
import { Effect } from "effect"

// Management (docs/api-notes/management-api.md): platform switches (a row per platform ever
// toggled; the primary key is the only lookup) and a project's end users.
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    create table project_platforms (
      project_id uuid not null references projects (project_id),
      platform text collate "C" not null
        check (platform in ('imessage', 'whatsapp_business', 'slack', 'sms', 'voice', 'telegram', 'email')),
      enabled boolean not null,
      updated_at timestamptz not null,
      primary key (project_id, platform)
    )`
  yield* sql`
    create table project_users (
      user_id text collate "C" primary key,
      project_id uuid not null references projects (project_id),
      first_name text,
      last_name text,
      email text,
      phone_number text collate "C" not null,
      assigned_phone_number text collate "C",
      created_at timestamptz not null,
      updated_at timestamptz not null
    )`
  // A user's key in its project: one shared user (no assigned number) per phone number, one
  // dedicated user per phone number and assigned line. Also the upsert's lookup.
  yield* sql`
    create unique index project_users_key
    on project_users (project_id, phone_number, (coalesce(assigned_phone_number, '')))`
  // The list (oldest first) and the per-project count.
  yield* sql`create index project_users_by_project on project_users (project_id, created_at, user_id)`
})
