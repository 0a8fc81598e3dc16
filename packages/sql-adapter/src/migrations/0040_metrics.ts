import { SqlClient } from "effect/sql"
import { Effect } from "effect"

/**
 * Messages and the SQL query operation's sandbox (docs/sql-query.md).
 *
 * - `message_event_log`: one row per applied message lifecycle fact (what `message_events` shows).
 * - `metrics_scope`: the project a metrics query may see. The query's transaction inserts its one
 *   row as the owner and always rolls back, so no other session ever sees it; a deferred
 *   constraint trigger makes committing a row impossible. The views read the project from here —
 *   not from a setting the query could change with `set_config`.
 * - schema `metrics_sandbox`: the two `security_barrier` views, restricted to that project, the
 *   only objects the role `switchboard_metrics_reader` may read.
 * - `set_config`, `pg_sleep*` and the session-level advisory locks lose their PUBLIC execute grant
 *   (the app's own role gets `set_config` and the locks back):
 *   a role switched to with SET ROLE can otherwise switch back in the middle of its own statement
 *   (`set_config('role', …)` is checked against the session user), and the embedded database
 *   cannot cancel a sleep, and a session lock would outlive the query's transaction on its pooled
 *   connection. Revoking needs the functions' owner (a superuser); without one the
 *   step is skipped with a notice, and the parser's allow-list is what refuses both.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    create table message_event_log (
      project_id uuid not null references projects (project_id),
      event_id text collate "C" not null,
      message_id text collate "C" not null,
      platform text not null,
      direction text not null check (direction in ('addressed', 'received')),
      event_type text not null check (event_type in ('dispatched', 'accepted', 'delivered', 'failed', 'received')),
      status text not null,
      occurred_at timestamptz not null,
      recorded_at timestamptz not null,
      primary key (project_id, event_id)
    )`
  yield* sql`create index message_event_log_by_time on message_event_log (project_id, occurred_at)`

  yield* sql`create table metrics_scope (project_id uuid not null)`
  yield* sql.unsafe(`
    create function metrics_scope_never_commits() returns trigger language plpgsql as $$
    begin
      raise exception 'metrics_scope rows never commit';
    end
    $$`)
  yield* sql.unsafe(`
    create constraint trigger metrics_scope_uncommitted after insert on metrics_scope
    deferrable initially deferred for each row execute function metrics_scope_never_commits()`)

  // The role is cluster-wide (several databases may share it); creating it may race another
  // database's migration.
  yield* sql.unsafe(`
    do $$
    begin
      if not exists (select 1 from pg_roles where rolname = 'switchboard_metrics_reader') then
        create role switchboard_metrics_reader nologin noinherit;
      end if;
    exception when duplicate_object or unique_violation then null;
    end
    $$`)
  yield* sql.unsafe(`
    do $$
    begin
      if not (select rolsuper from pg_roles where rolname = current_user) then
        execute format('grant switchboard_metrics_reader to %I', current_user);
      end if;
    end
    $$`)

  yield* sql`create schema metrics_sandbox`
  yield* sql.unsafe(`
    create view metrics_sandbox.message_events with (security_barrier) as
      select e.event_id, e.message_id, e.platform, e.direction, e.event_type, e.status, e.occurred_at, e.recorded_at
      from message_event_log e
      where e.project_id = (select s.project_id from metrics_scope s)`)
  yield* sql.unsafe(`
    create view metrics_sandbox.call_events with (security_barrier) as
      select c.call_id, g.signal_id, c.direction, c.status, g.applied_at as occurred_at
      from calls c join call_signals g on g.call_id = c.call_id
      where c.project_id = (select s.project_id from metrics_scope s)`)
  yield* sql.unsafe(`grant usage on schema metrics_sandbox to switchboard_metrics_reader`)
  yield* sql.unsafe(`grant select on metrics_sandbox.message_events, metrics_sandbox.call_events to switchboard_metrics_reader`)

  yield* sql.unsafe(`
    do $$
    begin
      revoke execute on function pg_catalog.set_config(text, text, boolean) from public;
      revoke execute on function pg_catalog.pg_sleep(double precision) from public;
      revoke execute on function pg_catalog.pg_sleep_for(interval) from public;
      revoke execute on function pg_catalog.pg_sleep_until(timestamp with time zone) from public;
      -- Session-level advisory locks outlive the rolled-back transaction on a pooled connection.
      revoke execute on function pg_catalog.pg_advisory_lock(bigint), pg_catalog.pg_advisory_lock(integer, integer),
        pg_catalog.pg_advisory_lock_shared(bigint), pg_catalog.pg_advisory_lock_shared(integer, integer),
        pg_catalog.pg_try_advisory_lock(bigint), pg_catalog.pg_try_advisory_lock(integer, integer),
        pg_catalog.pg_try_advisory_lock_shared(bigint), pg_catalog.pg_try_advisory_lock_shared(integer, integer)
        from public;
      execute format('grant execute on function pg_catalog.pg_advisory_lock(bigint), pg_catalog.pg_advisory_lock(integer, integer), '
        'pg_catalog.pg_advisory_lock_shared(bigint), pg_catalog.pg_advisory_lock_shared(integer, integer), '
        'pg_catalog.pg_try_advisory_lock(bigint), pg_catalog.pg_try_advisory_lock(integer, integer), '
        'pg_catalog.pg_try_advisory_lock_shared(bigint), pg_catalog.pg_try_advisory_lock_shared(integer, integer) to %I', current_user);
      execute format('grant execute on function pg_catalog.set_config(text, text, boolean) to %I', current_user);
    exception when insufficient_privilege then
      raise notice 'metrics sandbox: set_config, pg_sleep and advisory locks keep their PUBLIC grant (needs a superuser)';
    end
    $$`)
})
