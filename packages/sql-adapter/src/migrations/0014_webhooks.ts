import { SqlClient } from "effect/sql"
import { Effect } from "effect"

/**
 * Webhooks (docs/api-notes/events-and-webhooks.md): endpoints (v1 destinations and management
 * webhooks) and one delivery per (event, endpoint), fanned out from the events outbox (0009) by the
 * delivery engine.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    create table webhook_endpoints (
      endpoint_id text collate "C" primary key,
      kind text not null check (kind in ('destination', 'management')),
      project_id uuid not null,
      url text not null,
      name text,
      description text,
      status text not null check (status in ('enabled', 'disabled')),
      enabled_events jsonb not null check (jsonb_typeof(enabled_events) = 'array'),
      api_version text not null,
      secret_sealed bytea not null,
      previous_secret_sealed bytea,
      previous_secret_expires_at timestamptz,
      created_at timestamptz not null,
      updated_at timestamptz not null,
      deleted_at timestamptz
    )`
  // Lists (oldest first) and counts of a project's live endpoints; fan-out looks them up by project.
  yield* sql`
    create index webhook_endpoints_live on webhook_endpoints (project_id, kind, created_at, endpoint_id)
    where deleted_at is null`
  // One live management webhook per URL and project (docs/api-notes/management-api.md: 409 on the same active URL).
  yield* sql`
    create unique index webhook_endpoints_management_url on webhook_endpoints (project_id, url)
    where kind = 'management' and deleted_at is null`
  yield* sql`
    create table webhook_deliveries (
      delivery_id text collate "C" primary key,
      endpoint_id text collate "C" not null references webhook_endpoints (endpoint_id),
      project_id uuid not null,
      event_id text not null,
      event_position bigint not null references events (position),
      event_type text not null,
      status text not null check (status in ('pending', 'delivered', 'dead_lettered', 'cancelled')),
      attempt_count integer not null,
      next_attempt_at timestamptz not null,
      leased_until timestamptz,
      claim_seq integer not null,
      last_attempt_at timestamptz,
      last_error text,
      last_response_status integer,
      delivered_at timestamptz,
      created_at timestamptz not null,
      unique (endpoint_id, event_id)
    )`
  // The engine's claim: pending deliveries by due time.
  yield* sql`create index webhook_deliveries_due on webhook_deliveries (next_attempt_at, event_position) where status = 'pending'`
  // An endpoint's deliveries, newest first (optionally of one status), and cancelling its pending ones.
  yield* sql`create index webhook_deliveries_endpoint on webhook_deliveries (endpoint_id, created_at desc, delivery_id desc)`
})
