import { SqlClient } from "effect/sql"
import { Effect } from "effect"

/**
 * Billing (docs/api-notes/billing.md): subscriptions (one per project and category), billing
 * operations (one per caller and Idempotency-Key), invoices (one per unique key: a period closes
 * once) and billing accounts (an organization's card on file, credit balance and invoice counter).
 * Records are jsonb, with the columns the lookups and the scheduler need beside them.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    create table billing_subscriptions (
      project_id uuid not null references projects (project_id),
      category text collate "C" not null,
      organization_id text collate "C" not null,
      period_ends_at timestamptz not null,
      usage_dirty boolean not null,
      record jsonb not null,
      primary key (project_id, category)
    )`
  // The scheduler: periods that ended, and subscriptions with usage to check against thresholds.
  yield* sql`create index billing_subscriptions_period_end on billing_subscriptions (period_ends_at)`
  yield* sql`create index billing_subscriptions_usage_dirty on billing_subscriptions (project_id) where usage_dirty`

  yield* sql`
    create table billing_operations (
      operation_id text collate "C" primary key,
      project_id uuid not null references projects (project_id),
      organization_id text collate "C" not null,
      status text not null check (status in ('pending', 'succeeded', 'failed')),
      idempotency_scope text collate "C" not null,
      idempotency_key text collate "C" not null,
      payment_deadline timestamptz,
      submitted_at timestamptz not null,
      record jsonb not null,
      unique (idempotency_scope, idempotency_key)
    )`
  yield* sql`create index billing_operations_pending on billing_operations (submitted_at) where status = 'pending'`
  yield* sql`create index billing_operations_waiting on billing_operations (project_id) where status = 'pending' and payment_deadline is not null`

  yield* sql`
    create table billing_invoices (
      invoice_id text collate "C" primary key,
      organization_id text collate "C" not null,
      project_id uuid,
      number text not null,
      kind text not null,
      unique_key text collate "C" unique,
      issued_at timestamptz not null,
      payment_status text not null check (payment_status in ('pending', 'succeeded', 'failed')),
      payment_attempts integer not null,
      currency text not null,
      fees_cents bigint not null,
      credits_cents bigint not null,
      total_cents bigint not null,
      lines jsonb not null
    )`
  yield* sql`create index billing_invoices_by_org on billing_invoices (organization_id, issued_at desc, invoice_id desc)`
  yield* sql`
    create index billing_invoices_collectible on billing_invoices (issued_at)
    where payment_status = 'pending' and payment_attempts = 0 and total_cents > 0`

  yield* sql`
    create table billing_accounts (
      organization_id text collate "C" primary key,
      payment_method jsonb,
      credit_balance_cents bigint not null default 0,
      invoice_count integer not null default 0
    )`
})
