import { SqlClient } from "effect/sql"
import { Effect } from "effect"

/**
 * Platform provisioning (docs/provisioning.md): the voice feature's `lines` become the table of
 * every resource a project holds — a line is a resource; bots and domains are resources without a
 * number — and `platform_operations` holds the provisioning operations with the worker's lease
 * columns. A line stored by the voice feature leaves the resource columns null; its type and
 * abilities follow from its platform (core `lineResourceDefaults`).
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`alter table lines alter column phone_number drop not null`
  yield* sql`
    alter table lines
      add column resource_type text,
      add column abilities jsonb,
      add column detail jsonb,
      add column subject text,
      add column updated_at timestamptz`
  // One live resource per subject (an email domain) across projects.
  yield* sql`
    create unique index lines_active_subject on lines (resource_type, subject)
    where released_at is null and subject is not null`
  // listResources includes retired numbers.
  yield* sql`create index lines_by_project on lines (project_id, created_at, line_id)`
  yield* sql`
    create table platform_operations (
      operation_id text collate "C" primary key,
      project_id uuid not null references projects (project_id),
      type text not null,
      resource_type text not null,
      resource_id text collate "C",
      subject text,
      state text not null check (state in ('pending', 'running', 'succeeded', 'failed', 'cancelled')),
      committed boolean not null,
      params jsonb not null,
      detail jsonb,
      error jsonb,
      reason text,
      attempts integer not null,
      next_attempt_at timestamptz not null,
      leased_until timestamptz,
      claim_seq integer not null,
      created_at timestamptz not null,
      started_at timestamptz,
      ended_at timestamptz,
      updated_at timestamptz not null
    )`
  yield* sql`create index platform_operations_by_project on platform_operations (project_id, created_at, operation_id)`
  yield* sql`
    create index platform_operations_due on platform_operations (next_attempt_at)
    where state in ('pending', 'running')`
  yield* sql`
    create index platform_operations_unfinished on platform_operations (resource_type, project_id)
    where state in ('pending', 'running')`
  yield* sql`
    create index platform_operations_unfinished_subject on platform_operations (resource_type, subject)
    where state in ('pending', 'running') and subject is not null`
  yield* sql`create index platform_operations_by_resource on platform_operations (resource_id) where resource_id is not null`
})
