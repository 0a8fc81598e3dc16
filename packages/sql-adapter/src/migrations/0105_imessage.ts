import { SqlClient } from "effect/sql"
import { Effect } from "effect"

/**
 * iMessage shared-line assignments (docs/provisioning.md): an end user's handle on a seat of
 * a pooled shared line. One live assignment per (project, platform, handle) — handles compared
 * case-insensitively (`handle_key`); released rows stay with `released_at`. Dedicated lines are
 * resources in `lines` (migration 0070).
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    create table shared_line_assignments (
      assignment_id text collate "C" primary key,
      project_id uuid not null references projects (project_id),
      platform text not null check (platform in ('imessage', 'whatsapp')),
      handle text not null,
      handle_key text not null,
      assigned_phone_number text not null,
      email text,
      first_name text,
      last_name text,
      created_at timestamptz not null,
      updated_at timestamptz not null,
      released_at timestamptz
    )`
  yield* sql`
    create unique index shared_line_assignments_live on shared_line_assignments (project_id, platform, handle_key)
    where released_at is null`
  yield* sql`create index shared_line_assignments_by_project on shared_line_assignments (project_id, platform, created_at, assignment_id)`
})
