import { SqlClient } from "effect/sql"
import { Effect } from "effect"

/**
 * WhatsApp and filtered verification codes (docs/provisioning.md): a project's WhatsApp Business
 * Account connection (one per project; its senders are resources in `lines`), the WhatsApp
 * shared-line assignments (one unreleased per handle and project), and the record of OTP-bearing
 * inbound messages held back before delivery (where and when — the code only for WhatsApp ownership
 * codes).
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    create table whatsapp_accounts (
      project_id uuid primary key references projects (project_id),
      waba_id text not null,
      business_id text not null,
      business_name text,
      account_name text,
      review_status text not null,
      outbound_capacity text not null,
      max_phone_numbers integer,
      state text not null check (state in ('connected', 'disconnecting')),
      connected_at timestamptz not null,
      subscribed_at timestamptz,
      updated_at timestamptz not null
    )`
  yield* sql`
    create table whatsapp_assignments (
      assignment_id text collate "C" primary key,
      project_id uuid not null references projects (project_id),
      handle text not null,
      assigned_phone_number text not null,
      email text,
      first_name text,
      last_name text,
      created_at timestamptz not null,
      updated_at timestamptz not null,
      released_at timestamptz
    )`
  yield* sql`create unique index whatsapp_assignments_live_handle on whatsapp_assignments (project_id, handle) where released_at is null`
  yield* sql`create index whatsapp_assignments_by_project on whatsapp_assignments (project_id, created_at, assignment_id)`
  yield* sql`
    create table filtered_verification_codes (
      filtered_code_id text collate "C" primary key,
      project_id uuid not null references projects (project_id),
      resource_id text collate "C" not null,
      platform text not null,
      received_at timestamptz not null,
      whatsapp_code text
    )`
  yield* sql`
    create index filtered_verification_codes_by_project
    on filtered_verification_codes (project_id, received_at desc, filtered_code_id desc)`
  yield* sql`
    create index filtered_verification_codes_by_resource
    on filtered_verification_codes (resource_id, received_at desc, filtered_code_id desc)`
})
