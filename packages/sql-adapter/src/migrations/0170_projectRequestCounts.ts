import { SqlClient } from "effect/sql"
import { Effect } from "effect"

/**
 * `project_request_counts`: the API requests answered per project, hour (UTC), surface (`v1`,
 * `management`) and outcome class (2xx/3xx `success`, 4xx `client_error`, 5xx `server_error`).
 * Each server process adds its in-memory counts every few seconds with an additive upsert
 * (`count = count + excluded.count`), so several processes add up; housekeeping deletes the hours
 * older than 8 days. The console's project overview reads the last 24 hours by the primary key.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    create table project_request_counts (
      project_id uuid not null references projects (project_id),
      hour timestamptz not null,
      surface text not null check (surface in ('v1', 'management')),
      outcome text not null check (outcome in ('success', 'client_error', 'server_error')),
      count bigint not null check (count >= 0),
      primary key (project_id, hour, surface, outcome)
    )`
  yield* sql`create index project_request_counts_hour on project_request_counts (hour)`
})
