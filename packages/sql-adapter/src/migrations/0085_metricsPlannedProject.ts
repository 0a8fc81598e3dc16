import { SqlClient } from "effect/sql"
import { Effect } from "effect"

/**
 * The SQL query operation's views give the planner the project as a constant (bench/metrics.ts,
 * docs/sql-query.md § Cost).
 *
 * Before, the views compared `project_id` with an init-plan over `metrics_scope`: the planner
 * could only guess "one project among n" (a big project's rows were underestimated), and the
 * init-plan inside the `security_barrier` subquery kept the plan serial.
 *
 * Now each view compares `project_id` with `metrics_sandbox.planned_project()`, declared
 * IMMUTABLE so that the planner evaluates it once, at plan time, and plans with the project id as
 * a literal (its row estimate and a parallel scan, exactly like a query that names the project).
 * The function reads the scope row (security definer: the query's role cannot read
 * `metrics_scope` itself), which exists only inside the query's own transaction.
 *
 * A plan is only good for the transaction it was planned in, so every view also carries a gate,
 * `metrics_sandbox.scope_is(<the planned id>)` — STABLE, evaluated at execution as a one-time
 * filter (in each parallel worker too) — that raises unless the scope row of the executing
 * transaction is that very project. A plan reused from another transaction (a named prepared
 * statement's generic plan) can therefore never show another project's rows: it fails instead.
 * Without a scope row the planned id is null and the views are empty.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql.unsafe(`
    create function metrics_sandbox.planned_project() returns uuid
      language sql immutable parallel safe security definer
      set search_path = pg_catalog, public
      as $$ select s.project_id from public.metrics_scope s limit 1 $$`)
  yield* sql.unsafe(`
    create function metrics_sandbox.scope_is(planned uuid) returns boolean
      language plpgsql stable parallel safe security definer
      set search_path = pg_catalog, public
      as $$
      begin
        if planned is null or not exists (select 1 from public.metrics_scope s where s.project_id = planned) then
          raise exception 'metrics scope mismatch: this statement was planned for another scope';
        end if;
        return true;
      end
      $$`)
  yield* sql.unsafe(`revoke execute on function metrics_sandbox.planned_project(), metrics_sandbox.scope_is(uuid) from public`)
  yield* sql.unsafe(`
    grant execute on function metrics_sandbox.planned_project(), metrics_sandbox.scope_is(uuid)
    to switchboard_metrics_reader`)
  yield* sql.unsafe(`
    create or replace view metrics_sandbox.message_events with (security_barrier) as
      select e.event_id, e.message_id, e.platform, e.direction, e.event_type, e.status, e.occurred_at, e.recorded_at
      from message_event_log e
      where e.project_id = metrics_sandbox.planned_project()
        and metrics_sandbox.scope_is(metrics_sandbox.planned_project())`)
  yield* sql.unsafe(`
    create or replace view metrics_sandbox.call_events with (security_barrier) as
      select c.call_id, g.signal_id, c.direction, c.status, g.applied_at as occurred_at
      from calls c join call_signals g on g.call_id = c.call_id
      where c.project_id = metrics_sandbox.planned_project()
        and metrics_sandbox.scope_is(metrics_sandbox.planned_project())`)
})
