import { SqlClient } from "effect/sql"
import { Effect } from "effect"

/**
 * Usage records applied through `POST /v1/projects/{projectId}/billing/usage` (core
 * billing/BillingUsage.ts): one row per record id and project, written in the transaction that
 * adds the record's units to the subscription — the primary key is what makes a repeated id
 * (later, or from another process at the same time) change nothing.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    create table billing_usage_records (
      project_id uuid not null references projects (project_id),
      record_id text collate "C" not null,
      metric_code text not null,
      category text not null,
      quantity bigint not null check (quantity >= 0),
      occurred_at timestamptz not null,
      recorded_at timestamptz not null,
      primary key (project_id, record_id)
    )`
})
