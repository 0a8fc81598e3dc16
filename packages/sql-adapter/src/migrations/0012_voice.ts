import { SqlClient } from "effect/sql"
import { Effect } from "effect"

/**
 * Voice (docs/api-notes/voice.md): lines, voice profiles, calls and their applied signal ids,
 * and the simulated line provider's numbers. Profiles and calls are stored as the JSON of their
 * core schema (`record`), beside the columns their lookups and lists use. `record` is `json`, not
 * `jsonb`: it is only ever read and written whole, and skipping jsonb's conversion halves the cost
 * of a call's read and write on the signal path (measured on PGlite).
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    create table voice_profiles (
      profile_id text collate "C" primary key,
      project_id uuid not null references projects (project_id),
      is_default boolean not null,
      created_at timestamptz not null,
      record json not null
    )`
  // At most one default profile per project: the index decides between concurrent creates.
  yield* sql`create unique index voice_profiles_one_default on voice_profiles (project_id) where is_default`
  // The list (oldest first) and its cursor.
  yield* sql`create index voice_profiles_by_project on voice_profiles (project_id, created_at, profile_id)`

  yield* sql`
    create table lines (
      line_id text collate "C" primary key,
      project_id uuid not null references projects (project_id),
      platform text not null
        check (platform in ('imessage', 'whatsapp_business', 'slack', 'sms', 'voice', 'telegram', 'email')),
      phone_number text not null,
      voice_capable boolean not null,
      created_at timestamptz not null,
      released_at timestamptz,
      voice_profile_id text collate "C" references voice_profiles (profile_id),
      assignment_version integer not null check (assignment_version >= 1),
      assignment_updated_at timestamptz not null,
      check (released_at is null or voice_profile_id is null)
    )`
  // A number serves one active line at a time.
  yield* sql`create unique index lines_active_number on lines (phone_number) where released_at is null`
  yield* sql`create index lines_active_by_project on lines (project_id, created_at, line_id) where released_at is null`
  // Line counts per profile, and clearing a deleted profile's overrides.
  yield* sql`create index lines_by_profile on lines (voice_profile_id) where voice_profile_id is not null`

  yield* sql`
    create table calls (
      call_id text collate "C" primary key,
      project_id uuid not null references projects (project_id),
      status text not null,
      direction text not null,
      created_at timestamptz not null,
      record json not null
    )`
  // The list, newest first, with and without the status filter.
  yield* sql`create index calls_by_project on calls (project_id, created_at desc, call_id desc)`
  yield* sql`create index calls_by_project_status on calls (project_id, status, created_at desc, call_id desc)`

  // The ids of the signals applied to each call (duplicates are ignored, docs/api-notes/voice.md).
  yield* sql`
    create table call_signals (
      call_id text collate "C" not null references calls (call_id),
      signal_id text collate "C" not null,
      applied_at timestamptz not null,
      primary key (call_id, signal_id)
    )`

  // The simulated line provider of the standalone server: numbers handed out, in use or free.
  yield* sql`
    create table simulated_line_numbers (
      n integer primary key,
      phone_number text not null unique,
      in_use boolean not null
    )`
  yield* sql`create index simulated_line_numbers_free on simulated_line_numbers (n) where not in_use`
  yield* sql`create sequence simulated_line_number_seq minvalue 0 start 0`
})
