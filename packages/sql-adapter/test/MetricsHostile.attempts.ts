/**
 * The hostile-SQL suite's attempts (docs/sql-query.md § Defence in depth): escapes from the
 * project, the sandbox or the bounds. `refused`: with every layer on, the engine must answer an
 * error for it; the others may run, but only ever over the caller's own rows (bounded).
 */
export interface Attempt {
  readonly name: string
  readonly sql: string
  readonly parameters?: Record<string, string>
  readonly refused: boolean
}

const OTHER = "01890000-0000-7000-8000-00000000000b"
const many = Array.from({ length: 8 }, (_, i) => `message_events m${i}`).join(", ")

export const attempts: ReadonlyArray<Attempt> = [
  // other project's rows
  { name: "filter for the other project's ids", sql: "select * from message_events where message_id like 'zz-%'", refused: false },
  { name: "error oracle on other rows (security barrier)", sql: "select count(*) from message_events where 1 / (case when message_id like 'zz-%' then 0 else 1 end) = 1", refused: false },
  { name: "base table", sql: "select * from message_event_log", refused: true },
  { name: "base table, schema-qualified", sql: "select * from public.message_event_log", refused: true },
  { name: "the views' schema, qualified", sql: "select * from metrics_sandbox.message_events", refused: true },
  { name: "unicode-escaped base table name", sql: "select * from U&\"\\006dessage_event_log\"", refused: true },
  { name: "quoted base table name", sql: "select * from \"message_event_log\"", refused: true },
  { name: "CTE shadowing with the base table", sql: "with message_events as (select * from message_event_log) select * from message_events", refused: true },
  { name: "CTE scope confusion", sql: "with x as (select * from pg_class), pg_class as (select 1) select * from x", refused: true },
  { name: "UNION with another table", sql: "select message_id from message_events union all select x from hostile_secret", refused: true },
  { name: "scalar subquery on another table", sql: "select (select x from hostile_secret limit 1)", refused: true },
  { name: "lateral join to another table", sql: "select * from message_events m join lateral (select * from hostile_secret) s on true", refused: true },
  { name: "TABLE syntax", sql: "table hostile_secret", refused: true },
  { name: "calls base table", sql: "select * from call_events where call_id in (select call_id from calls)", refused: true },
  { name: "the scope table", sql: "select * from metrics_scope", refused: true },
  // the clauses window functions, DISTINCT ON and named arguments bring: each part is walked like any expression
  { name: "window frame offset from another table", sql: "select count(*) over (order by occurred_at rows between (select count(*) from hostile_secret) preceding and current row) from message_events", refused: true },
  { name: "named window partitioned by another table", sql: "select count(*) over w from message_events window w as (partition by (select x from hostile_secret limit 1))", refused: true },
  { name: "DISTINCT ON another table", sql: "select distinct on ((select x from hostile_secret limit 1)) message_id from message_events", refused: true },
  { name: "FILTER reading another table", sql: "select count(*) filter (where exists (select 1 from hostile_secret)) from message_events", refused: true },
  { name: "named argument from another table", sql: "select make_interval(hours => (select count(*)::int from hostile_secret))", refused: true },
  { name: "set_config by named arguments", sql: "select set_config(setting_name => 'role', new_value => 'postgres', is_local => true), (select count(*) from hostile_secret)", refused: true },
  // system catalogs
  { name: "pg_class", sql: "select relname from pg_class", refused: true },
  { name: "pg_catalog.pg_authid", sql: "select * from pg_catalog.pg_authid", refused: true },
  { name: "quoted catalog", sql: "select * from \"pg_catalog\".\"pg_roles\"", refused: true },
  { name: "information_schema", sql: "select * from information_schema.tables", refused: true },
  { name: "pg_stat_activity", sql: "select query from pg_stat_activity", refused: true },
  { name: "EXISTS on pg_authid", sql: "select exists (select 1 from pg_authid)", refused: true },
  { name: "regclass cast", sql: "select 'message_event_log'::regclass", refused: true },
  { name: "current_user", sql: "select current_user", refused: true },
  { name: "version()", sql: "select version()", refused: true },
  // settings and roles
  { name: "set_config role + query_to_xml", sql: "select set_config('role', 'postgres', true), query_to_xml('select * from hostile_secret', true, true, '')", refused: true },
  { name: "set_config session_authorization", sql: "select set_config('session_authorization', 'postgres', true), query_to_xml('select * from hostile_secret', true, true, '')", refused: true },
  { name: "set_config search_path", sql: "select set_config('search_path', 'public', true), (select count(*) from message_events)", refused: true },
  { name: "set_config a project setting", sql: `select set_config('switchboard.project', '${OTHER}', true), (select count(*) from message_events)`, refused: true },
  { name: "set_config statement_timeout", sql: `select set_config('statement_timeout', '0', true), (select count(*) from ${many})`, refused: true },
  { name: "set_config in a FROM subquery", sql: "select * from message_events m, (select set_config('role', 'postgres', true)) s", refused: true },
  { name: "current_setting game", sql: "select * from message_events where current_setting('search_path') <> ''", refused: true },
  { name: "SET ROLE", sql: "set role postgres", refused: true },
  { name: "RESET ROLE", sql: "reset role", refused: true },
  { name: "SET LOCAL statement_timeout", sql: "set local statement_timeout = 0", refused: true },
  { name: "SET search_path", sql: "set search_path = public", refused: true },
  // writes and side effects
  { name: "writable CTE delete", sql: "with d as (delete from message_event_log returning *) select count(*) from d", refused: true },
  { name: "writable CTE on the scope", sql: `with u as (update metrics_scope set project_id = '${OTHER}' returning 1) select count(*) from message_events`, refused: true },
  { name: "writable CTE insert into the scope", sql: `with i as (insert into metrics_scope values ('${OTHER}') returning 1) select count(*) from message_events`, refused: true },
  { name: "INSERT into the scope", sql: `insert into metrics_scope values ('${OTHER}')`, refused: true },
  { name: "DELETE the scope", sql: "delete from metrics_scope", refused: true },
  { name: "UPDATE events", sql: "update message_event_log set status = 'x'", refused: true },
  { name: "SELECT INTO", sql: "select * into stolen from message_events", refused: true },
  { name: "FOR UPDATE", sql: "select * from message_events for update", refused: true },
  { name: "CREATE TABLE", sql: "create table stolen (a int)", refused: true },
  { name: "COPY to stdout", sql: "copy hostile_secret to stdout", refused: true },
  { name: "COPY to a file", sql: "copy (select 1) to '/tmp/switchboard-hostile'", refused: true },
  { name: "COPY from program", sql: "copy hostile_secret from program 'id'", refused: true },
  { name: "DO block", sql: "do $$ begin perform set_config('role', 'postgres', false); end $$", refused: true },
  { name: "PREPARE", sql: "prepare p as select * from hostile_secret", refused: true },
  { name: "EXPLAIN ANALYZE", sql: "explain analyze select * from message_events", refused: true },
  { name: "COMMIT", sql: "commit", refused: true },
  { name: "ROLLBACK", sql: "rollback", refused: true },
  { name: "nextval", sql: "select nextval('simulated_line_number_seq')", refused: true },
  { name: "advisory lock", sql: "select pg_advisory_lock(1)", refused: true },
  { name: "pg_notify", sql: "select pg_notify('sb_record_changes', 'x')", refused: true },
  { name: "terminate a backend", sql: "select pg_terminate_backend(pg_backend_pid())", refused: true },
  { name: "txid_current", sql: "select txid_current()", refused: true },
  // multiple statements
  { name: "two statements", sql: "select 1; select * from hostile_secret", refused: true },
  { name: "comment hiding a second statement", sql: "select 1 /* ; */; delete from message_event_log", refused: true },
  { name: "line comment then a statement", sql: "select 1 --\n; drop table hostile_secret", refused: true },
  { name: "close the wrapper's parenthesis", sql: "select 1) as q; select * from hostile_secret; select * from (select 1", refused: true },
  // files, large objects, extensions
  { name: "pg_read_file", sql: "select pg_read_file('/etc/passwd')", refused: true },
  { name: "pg_ls_dir", sql: "select pg_ls_dir('.')", refused: true },
  { name: "lo_import", sql: "select lo_import('/etc/passwd')", refused: true },
  { name: "lo_export", sql: "select lo_export(1, '/tmp/switchboard-hostile')", refused: true },
  { name: "lo_creat", sql: "select lo_creat(-1)", refused: true },
  { name: "dblink", sql: "select dblink('dbname=postgres', 'select 1')", refused: true },
  { name: "query_to_xml", sql: "select query_to_xml('select * from message_event_log', true, true, '')", refused: true },
  { name: "table_to_xml", sql: "select table_to_xml('message_event_log', true, true, '')", refused: true },
  { name: "ts_stat dynamic SQL", sql: "select ts_stat('select to_tsvector(x) from hostile_secret')", refused: true },
  // time and size bombs
  { name: "pg_sleep past the timeout", sql: "select pg_sleep(30)", refused: true },
  { name: "pg_sleep_for", sql: "select pg_sleep_for('30 seconds')", refused: true },
  { name: "huge cross join", sql: `select count(*) from ${many}`, refused: true },
  { name: "recursive CTE bomb", sql: "with recursive r(n) as (select 1 union all select n + 1 from r) select count(*) from r", refused: true },
  { name: "generate_series in FROM", sql: "select count(*) from generate_series(1, 100000000000)", refused: true },
  { name: "repeat bomb", sql: "select repeat('x', 20000000)", refused: true },
  { name: "array constructor", sql: "select * from message_events where message_id = any(array['a'])", refused: true },
  // parameters
  { name: "quote in a parameter", sql: "select * from message_events where message_id = :p", parameters: { p: "x' or '1'='1" }, refused: false },
  { name: "statement in a parameter", sql: "select count(*) from message_events where status = :p", parameters: { p: "x'); delete from message_event_log; --" }, refused: false },
  { name: "parameter as a cast target", sql: "select :p::int", parameters: { p: "1; drop table hostile_secret" }, refused: true },
  { name: "positional parameter", sql: "select $1", refused: true },
  { name: "unknown parameter", sql: "select :nope", refused: true },
  { name: "parameter inside a string is text", sql: "select ':p; drop table x' as t", parameters: { p: "1" }, refused: false }
]
