import { SqlClient } from "effect/sql"
import { Effect } from "effect"

// Projects (docs/api-notes/accounts-and-projects.md). Rows are never removed: a deleted project
// keeps its row (state `deleted`), so its slug stays retired under the unique index.
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    create table projects (
      project_id uuid primary key,
      organization_id text collate "C" not null references organizations (organization_id),
      name text not null,
      slug text not null,
      state text not null check (state in ('active', 'closing', 'deleted')),
      agent_first_name text,
      agent_last_name text,
      agent_avatar_url text,
      secret_hash text not null,
      created_by_account_id text collate "C" not null references accounts (account_id),
      created_at timestamptz not null,
      updated_at timestamptz not null,
      deleted_at timestamptz,
      closed_at timestamptz,
      check ((state = 'active') = (deleted_at is null)),
      check ((state = 'deleted') = (closed_at is not null))
    )`
  // Slugs are unique across the service, for ever (deleted projects' slugs stay retired).
  yield* sql`create unique index projects_slug_key on projects (slug)`
  // An organization's live projects, newest first: the list and its cursor.
  yield* sql`
    create index projects_live_by_org on projects (organization_id, created_at desc, project_id desc)
    where deleted_at is null`
  // The closure job: closing projects by the time their deletion was asked for.
  yield* sql`create index projects_closing on projects (deleted_at) where state = 'closing'`
})
