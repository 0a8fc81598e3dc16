import { SqlClient } from "effect/sql"
import { Effect } from "effect"

/**
 * The event channel (docs/event-channel.md, core events/ChannelPorts.ts).
 *
 * - `events.seq`: the per-project cursor. A trigger takes it from `event_seqs` under that row's lock,
 *   held until the inserting transaction ends, so a project's seqs commit in increasing order (a
 *   reader that has seen seq n has seen every lower seq of the project), whichever process writes.
 *   The same trigger announces the project on `sb_events` (delivered on commit).
 * - `events.reply_until`: an ingress event whose poster waits for a session's reply until then;
 *   `events.ingress_platform`: the platform of the ingress endpoint it came through.
 * - `event_seqs.pruned_through`: the highest seq retention dropped (older cursors cannot resume).
 * - `channel_sessions`: connected sessions (presence for the reply relay), refreshed by heartbeat.
 * - `channel_replies`: the first reply to an ingress event; `sb_channel_replies` announces it.
 * - `ingress_endpoints`: where third parties post; the secret only as a hash.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`alter table events add column seq bigint, add column reply_until timestamptz, add column ingress_platform text`
  yield* sql`create unique index events_project_seq on events (project_id, seq) where seq is not null`
  yield* sql`
    create table event_seqs (
      project_id uuid primary key,
      last_seq bigint not null,
      pruned_through bigint not null default 0
    )`
  yield* sql.unsafe(`
    create function sb_event_seq() returns trigger language plpgsql as $$
    begin
      if new.project_id is not null then
        insert into event_seqs as s (project_id, last_seq) values (new.project_id, 1)
          on conflict (project_id) do update set last_seq = s.last_seq + 1
          returning last_seq into new.seq;
        perform pg_notify('sb_events', new.project_id::text);
      end if;
      return new;
    end
    $$`)
  yield* sql.unsafe(`create trigger events_seq before insert on events for each row execute function sb_event_seq()`)
  yield* sql`
    create table channel_sessions (
      session_id uuid primary key,
      project_id uuid not null,
      protocol text not null,
      process_id text not null,
      seen_at timestamptz not null
    )`
  yield* sql`create index channel_sessions_project on channel_sessions (project_id, protocol, seen_at)`
  yield* sql`
    create table channel_replies (
      event_id text primary key,
      status integer not null,
      headers jsonb not null,
      body text not null,
      error_reason text not null,
      created_at timestamptz not null default now()
    )`
  yield* sql`
    create table ingress_endpoints (
      endpoint_id text primary key,
      project_id uuid not null,
      platform text not null,
      source_id text not null,
      secret_hash text not null unique,
      created_at timestamptz not null,
      revoked_at timestamptz
    )`
  yield* sql`create index ingress_endpoints_project on ingress_endpoints (project_id, created_at)`
})
