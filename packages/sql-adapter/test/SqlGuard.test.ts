/**
 * The SQL query operation's parser check alone (SqlGuard.ts, SqlWalk.ts, SqlWords.ts; no database):
 * what docs/sql-query.md lists is accepted; each refusal names the construct in SQL words at its
 * 1-based character position; over a corpus of refused statements (and the hostile-SQL suite's) no
 * message or construct shows a parse-tree name (camelCase, a node or field of the statement's own
 * tree, an enum value) or "undefined"; names missing from the word tables still read as words; and
 * a bounded property: statements composed of allowed pieces pass, any refused piece is named.
 */
import { it as effectIt } from "@effect/vitest"
import type { MetricsQueryInvalid } from "@switchboard/core/metrics"
import { Effect, Result } from "effect"
import * as fc from "fast-check"
import { describe, expect, it } from "vitest"
import { bindParameters, checkQuery, loadParser, type PgParser } from "../src/metrics/SqlGuard.js"
import { checkStatement, Refused } from "../src/metrics/SqlWalk.js"
import * as Words from "../src/metrics/SqlWords.js"
import { attempts } from "./MetricsHostile.attempts.js"

const guard = (parser: PgParser, sql: string, parameters: Record<string, string> = {}) =>
  Effect.result(Effect.flatMap(bindParameters(parser, sql, parameters), (bound) => checkQuery(parser, bound)))

const accepted: ReadonlyArray<string> = [
  "select distinct status from message_events",
  "select distinct on (status) status, occurred_at from message_events order by status, occurred_at desc",
  "select row_number() over (partition by status order by occurred_at) from message_events",
  "select lag(occurred_at) over (order by occurred_at), lead(occurred_at, 2, now()) over (order by occurred_at) from message_events",
  "select first_value(status) over (partition by platform order by occurred_at desc nulls last) from message_events",
  "select count(*) over () from message_events",
  "select sum(1) over (order by occurred_at rows between 2 preceding and current row) from message_events",
  "select sum(1) over (order by occurred_at range between interval '1 hour' preceding and current row exclude ties) from message_events",
  "select count(*) over (order by date_trunc('hour', occurred_at) groups between 1 preceding and 1 following exclude group) from message_events",
  "select sum(1) over (order by occurred_at rows between :n preceding and unbounded following) from message_events",
  "select count(*) over w, rank() over (w order by occurred_at), last_value(status) over (w2 rows unbounded preceding) from message_events window w as (partition by status), w2 as (order by occurred_at)",
  "select make_interval(hours => 1, mins => :m::int), make_timestamptz(2030, 1, 1, 0, 0, 0, timezone => 'UTC')",
  "select count(*) filter (where status = 'failed'), sum(1 order by occurred_at) from message_events",
  "select percentile_cont(0.5) within group (order by extract(epoch from occurred_at)), mode() within group (order by platform) from message_events",
  "select count(distinct message_id) filter (where direction = 'received') over () from message_events",
  "select * from message_events m join lateral (select count(*) as c from call_events c where c.occurred_at <= m.occurred_at) s on true",
  "with recent as materialized (select * from message_events where occurred_at > now() - interval '1 day') select status, count(*) from recent group by rollup (status)",
  "select status from message_events union select status from call_events order by 1 fetch first 3 rows with ties",
  "values (1, 'a'), (2, 'b')",
  "select '1.25'::numeric(4, 1), interval '2' hour, cast(:since as timestamptz)",
  "select substring(status from 1 for 2), trim(leading 'x' from status), position('a' in status), status at time zone 'UTC' from message_events",
  "select case when status like 'a%' then 1 else 0 end, coalesce(nullif(status, ''), '-'), greatest(1, 2) from message_events where status not in ('x') and occurred_at between now() - interval '1 day' and now()",
  "select * from message_events natural join call_events",
  "select count(*) from message_events m full join call_events c using (direction) cross join message_events x right join call_events y on true",
  "select count(*) from message_events where status in (select status from call_events) and direction = all (select direction from call_events) and not exists (select 1 from call_events)",
  "select status, platform, count(*) from message_events group by grouping sets ((status), (platform), ()), cube (direction)",
  "table message_events",
  "with c as not materialized (select * from call_events) select count(*) from c",
  "select (status = 'x') is not true, 2 between symmetric 3 and 1, current_time, localtime, localtimestamp(3), current_date from message_events",
  "select sum(1) over (order by occurred_at rows between unbounded preceding and unbounded following exclude no others), trim(both from status) from message_events"
]

interface Expected {
  readonly sql: string
  readonly construct: string
  readonly message: string
  readonly position?: number
}

/** Each refusal, named in SQL words, at its 1-based character position. */
const refusals: ReadonlyArray<Expected> = [
  {
    sql: "select * from message_events m, lateral generate_series(1, 3) g",
    construct: "function in FROM",
    message: "LATERAL functions in FROM are not allowed (generate_series)",
    position: 41
  },
  {
    sql: "select * from message_events for update",
    construct: "FOR UPDATE",
    message: "FOR UPDATE is not allowed: it locks rows; only reading is allowed",
    position: 30
  },
  {
    sql: "select * from message_events where status in (select status from message_events for share skip locked)",
    construct: "FOR SHARE",
    message: "FOR SHARE is not allowed: it locks rows; only reading is allowed",
    position: 81
  },
  { sql: "select :d::timestamptz, pg_sleep(1)", construct: "function", message: "the function pg_sleep is not allowed", position: 25 },
  { sql: "select pg_catalog.now()", construct: "function", message: "the function pg_catalog.now is not allowed (functions are called unqualified)", position: 8 },
  {
    sql: "insert into message_events values (1)",
    construct: "INSERT",
    message: "INSERT statements are not allowed; send one SELECT (or WITH … SELECT)",
    position: 1
  },
  { sql: "  set role postgres", construct: "SET", message: "SET statements are not allowed; send one SELECT (or WITH … SELECT)", position: 3 },
  { sql: "select 1 into t", construct: "SELECT INTO", message: "SELECT INTO is not allowed: it creates a table; only reading is allowed", position: 10 },
  { sql: "with recursive r as (select 1) select * from r", construct: "WITH RECURSIVE", message: "WITH RECURSIVE is not allowed", position: 1 },
  {
    sql: "with x as (select 1), d as (delete from message_events returning 1) select 1",
    construct: "data-modifying CTE",
    message: "DELETE in WITH is not allowed: a CTE must be a SELECT",
    position: 29
  },
  { sql: "with a as (select 1 as x) search depth first by x set y select 1", construct: "SEARCH (in WITH)", message: "SEARCH (in WITH) is not allowed", position: 27 },
  { sql: "select status collate \"C\" from message_events", construct: "COLLATE", message: "COLLATE is not allowed", position: 15 },
  { sql: "select 1 = any(array[1])", construct: "ANY/SOME (array)", message: "ANY/SOME (array) is not allowed", position: 10 },
  { sql: "select 'a' ~ 'b'", construct: "operator", message: "the operator ~ is not allowed", position: 12 },
  { sql: "select 'a' similar to 'b'", construct: "SIMILAR TO", message: "SIMILAR TO is not allowed", position: 12 },
  { sql: "select current_user", construct: "CURRENT_USER", message: "CURRENT_USER is not allowed", position: 8 },
  { sql: "select 'x'::regclass", construct: "cast", message: "a cast to regclass is not allowed", position: 13 },
  { sql: "select '{1}'::int[]", construct: "cast", message: "a cast to an array type (int4[]) is not allowed", position: 15 },
  { sql: "select count(*) from message_events tablesample bernoulli (10)", construct: "TABLESAMPLE", message: "TABLESAMPLE is not allowed", position: 37 },
  { sql: "select * from generate_series(1, 3)", construct: "function in FROM", message: "functions in FROM are not allowed (generate_series)", position: 15 },
  { sql: "select grouping(status) from message_events group by rollup (status)", construct: "GROUPING(…)", message: "GROUPING(…) is not allowed", position: 8 },
  { sql: "select overlay('abc' placing 'x' from 2)", construct: "OVERLAY(…)", message: "OVERLAY(…) is not allowed", position: 8 },
  { sql: "select array(select 1)", construct: "ARRAY(subquery)", message: "ARRAY(subquery) is not allowed", position: 8 },
  { sql: "select concat(variadic array['a'])", construct: "VARIADIC", message: "VARIADIC is not allowed", position: 8 },
  { sql: "select status from message_events order by status using ~<~", construct: "operator", message: "ORDER BY … USING ~<~ is not allowed", position: 57 },
  // Window parts, frame offsets, named-argument values, FILTER and WITHIN GROUP are walked like any expression.
  { sql: "select count(*) over (partition by pg_sleep(1)) from message_events", construct: "function", message: "the function pg_sleep is not allowed", position: 36 },
  {
    sql: "select sum(1) over (order by occurred_at rows between (select count(*) from pg_class) preceding and current row) from message_events",
    construct: "relation",
    message: "relation pg_class is not available; query message_events or call_events",
    position: 77
  },
  { sql: "select make_interval(hours => pg_sleep(1))", construct: "function", message: "the function pg_sleep is not allowed", position: 31 },
  {
    sql: "select 1 from message_events window w as (order by (select relname from pg_class limit 1))",
    construct: "relation",
    message: "relation pg_class is not available; query message_events or call_events",
    position: 73
  },
  {
    sql: "select distinct on ((select 1 from pg_class)) 1 from message_events",
    construct: "relation",
    message: "relation pg_class is not available; query message_events or call_events",
    position: 36
  },
  { sql: "select count(*) filter (where pg_sleep(1) is null) from message_events", construct: "function", message: "the function pg_sleep is not allowed", position: 31 },
  { sql: "select 1; select 2", construct: "multiple statements", message: "more than one statement is not allowed; send exactly one", position: 11 },
  { sql: "", construct: "empty", message: "the SQL holds no statement" },
  { sql: "-- nothing", construct: "empty", message: "the SQL holds no statement" }
]

/** More refused statements, for the readability check: every kind of statement and expression the walk refuses. */
const moreRefused: ReadonlyArray<string> = [
  "select * from message_events for no key update", "select 1 from message_events for key share of message_events nowait",
  "with a as (select 1 as x) cycle x set c using p select 1", "select (array[1])[1]", "select (status).x from message_events",
  "select row(1, 2)", "select (1, 2) = (1, 2)", "select 1 = all(array[1])", "select 1 operator(pg_catalog.+) 1",
  "select session_user", "select current_role", "select user", "select current_catalog", "select current_schema", "select system_user",
  "select '1'::numeric(pg_backend_pid())", "select * from rows from (generate_series(1, 3))", "select normalize('a')",
  "select 'a' is normalized", "select collation for ('a')", "select 'a' like 'b' escape '!'", "select xmlelement(name x)",
  "select xmlserialize(content '<a/>' as text)", "select '{}'::text is json", "select json_object('a': 1)", "select json_array(1)",
  "select json_value('{}', '$.a')", "select json('{}')", "select json_scalar(1)", "select json_serialize('{}')",
  "select json_objectagg('a': 1)", "select json_arrayagg(1)", "select (select 1, 2) = (1, 2)", "select merge_action()",
  "select * from xmltable('/a' passing '<a/>' columns x int)", "select * from json_table('[]', '$' columns (a int path '$.a')) j",
  "select default", "values (default)", "select $1", "select :x", "table pg_class",
  "select lag(status, pg_backend_pid()) over (order by occurred_at) from message_events",
  "select set_config(setting_name => 'role', new_value => 'postgres', is_local => true)",
  "select percentile_cont(0.5) within group (order by pg_backend_pid()) from message_events",
  "explain select 1", "reset all", "begin", "start transaction", "commit", "savepoint a", "show search_path", "vacuum", "analyze",
  "listen x", "notify x", "create table t (a int)", "drop table t", "alter table t add b int", "grant select on message_events to public",
  "revoke select on message_events from public", "call p()", "do $$ begin end $$", "copy message_events to stdout",
  "merge into message_events using call_events on true when matched then delete", "create extension dblink", "checkpoint",
  "lock message_events", "truncate message_events", "declare c cursor for select 1", "fetch c", "close c", "prepare p as select 1",
  "execute p", "deallocate p", "create function f() returns int as $$ select 1 $$ language sql", "create role x",
  "alter system set work_mem = 1", "create temp table t as select 1", "create view v as select 1", "create index on t (a)",
  "refresh materialized view v", "discard all", "load 'x'", "set transaction read write", "create schema s", "comment on table t is 'x'",
  "select count(*) from message_events a, message_events b, message_events c, message_events d, message_events e, message_events f, message_events g, message_events h, message_events i"
]

/** Names of the parse tree itself: its node and field names, and enum values (`AEXPR_OP`, `LCS_FORUPDATE`). */
const internalNames = (tree: unknown, into = new Set<string>()): Set<string> => {
  if (Array.isArray(tree)) {
    for (const item of tree) internalNames(item, into)
  } else if (tree !== null && typeof tree === "object") {
    for (const [key, value] of Object.entries(tree)) {
      if (/[A-Z_]/.test(key) || key.length > 4) into.add(key)
      internalNames(value, into)
    }
  } else if (typeof tree === "string" && /^[A-Z][A-Za-z0-9]*_[A-Z0-9_]+$|^[A-Z][a-z]+[A-Z]/.test(tree)) {
    into.add(tree)
  }
  return into
}
/** English words that are also parse-tree field names (a message may say "relation", "query", "lateral"). */
const plainWords = new Set([
  "relation", "relations", "query", "subquery", "function", "functions", "operator", "statement", "parameter", "lateral",
  "alias", "items", "fields", "content", "result", "recursive", "location", "number", "names", "strength"
])

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

const expectReadable = (parser: PgParser, sql: string, error: MetricsQueryInvalid, parameters: Record<string, string> = {}) => {
  let tree: unknown = {}
  try {
    const bound = Effect.runSync(bindParameters(parser, sql, parameters))
    tree = parser.parseSync(bound.text).stmts.map((s) => s.stmt)
  } catch {
    // refused before parsing, or a syntax error: no tree
  }
  const names = internalNames(tree)
  for (const text of [error.message, error.construct ?? ""]) {
    expect(text, sql).not.toMatch(/[a-z][A-Z]|\bundefined\b|\bNaN\b|\[object |\bnull\b/)
    expect(text, sql).not.toMatch(/\b(AEXPR|SVFOP|LCS|SETOP|COERCE|SORTBY|TRANS_STMT|OBJECT|VAR)_|_SUBLINK\b|Stmt\b|Expr\b/)
    for (const name of names) {
      if (plainWords.has(name)) continue
      expect(text, `${sql}: "${text}" shows ${name}`).not.toMatch(new RegExp(`(^|[^A-Za-z0-9_])${escape(name)}([^A-Za-z0-9_]|$)`))
    }
  }
  if (error.position !== undefined) {
    expect(error.position, sql).toBeGreaterThanOrEqual(1)
    expect(error.position, sql).toBeLessThanOrEqual([...sql].length + 1)
  }
}

describe("metrics SQL guard", () => {
  effectIt.effect("accepts the constructs docs/sql-query.md lists", () =>
    Effect.gen(function*() {
      const parser = yield* loadParser
      for (const sql of accepted) {
        const result = yield* guard(parser, sql, { n: "1", m: "30", since: "2030-01-01T00:00:00Z" })
        expect(Result.isSuccess(result) ? "accepted" : result.failure.message, sql).toBe("accepted")
      }
    }))

  effectIt.effect("names each refused construct in SQL words at its 1-based character position", () =>
    Effect.gen(function*() {
      const parser = yield* loadParser
      for (const expected of refusals) {
        const result = yield* guard(parser, expected.sql, { d: "2030-01-01" })
        expect(Result.isFailure(result), expected.sql).toBe(true)
        const error = Result.getFailure(result).pipe((o) => (o._tag === "Some" ? o.value : undefined))!
        expect({ construct: error.construct, message: error.message, position: error.position }, expected.sql)
          .toEqual({ construct: expected.construct, message: expected.message, position: expected.position })
      }
    }))

  effectIt.effect("no refusal shows a parse-tree name or undefined (a corpus of refused statements and the hostile-SQL suite)", () =>
    Effect.gen(function*() {
      const parser = yield* loadParser
      const corpus = [...refusals.map((r) => r.sql), ...moreRefused, ...attempts.filter((a) => a.refused).map((a) => a.sql)]
      let refused = 0
      for (const sql of corpus) {
        const result = yield* guard(parser, sql)
        if (Result.isSuccess(result)) continue // the hostile suite's bombs pass the parser; the sandbox bounds them
        refused++
        expectReadable(parser, sql, result.failure)
      }
      expect(refused).toBeGreaterThanOrEqual(corpus.length - 2)
      for (const sql of moreRefused) expect(Result.isFailure(yield* guard(parser, sql)), sql).toBe(true)
    }))

  it("names missing from the word tables still read as words", () => {
    expect(Words.readable("CreateTableSpaceStmt")).toBe("create table space stmt")
    expect(Words.readable("A_SomeFutureExpr")).toBe("some future expr")
    expect(Words.readable("some_future_clause")).toBe("some future clause")
    expect(Words.readable("CTESearchClause")).toBe("cte search clause")
    expect(Words.readable(undefined)).toBe("this construct")
    expect(Words.statement("AlterTableStmt", {})).toBe("ALTER TABLE")
    expect(Words.statement("SomeFutureStmt", {})).toBe("SOME FUTURE")
    expect(Words.node("SomeFutureExpr")).toBe("some future expr")
    expect(Words.field("someNewClause")).toBe("some new clause")
    expect(Words.exprKind("AEXPR_SOMETHING_NEW")).toBe("something new")
    expect(Words.subLinkKind("NEW_SUBLINK")).toBe("new subquery")
    expect(Words.valueFunction("SVFOP_CURRENT_SOMETHING")).toBe("CURRENT_SOMETHING")
    // The walk refuses a node or a field it does not know, in those words, at the nearest location.
    const walk = { relations: 0, params: 0, keyword: () => undefined }
    const refusal = (tree: Record<string, unknown>) => {
      try {
        checkStatement(tree, 0, walk)
      } catch (e) {
        if (e instanceof Refused) return { construct: e.construct, message: e.message, location: e.location }
        throw e
      }
      return undefined
    }
    expect(refusal({ SelectStmt: { targetList: [{ ResTarget: { val: { SomeFutureExpr: { location: 7 } }, location: 7 } }] } }))
      .toEqual({ construct: "some future expr", message: "some future expr is not allowed", location: 7 })
    expect(refusal({ SelectStmt: { someNewClause: [{ A_Const: { ival: {} } }] } }))
      .toEqual({ construct: "some new clause", message: "some new clause is not allowed", location: 0 })
    expect(refusal({ SelectStmt: { targetList: [{ ResTarget: { val: { FuncCall: { funcname: [{ String: { sval: "count" } }], future_part: {}, location: 7 } } } }] } }))
      .toEqual({ construct: "future part", message: "future part is not allowed", location: 7 })
    expect(refusal({ SomeFutureStmt: {} })?.message).toBe("SOME FUTURE statements are not allowed; send one SELECT (or WITH … SELECT)")
  })

  // Bounded (numRuns 60, small pieces): the parser runs in-process, a run takes milliseconds.
  effectIt.effect("statements composed of allowed pieces pass; one refused piece is refused, named in words", () =>
    Effect.gen(function*() {
      const parser = yield* loadParser
      const allowedItems = [
        "count(*)", "status", "row_number() over (partition by status order by occurred_at)", "lag(status) over w",
        "count(*) over ()", "sum(1) over (w rows between 1 preceding and current row)", "make_interval(hours => 1)",
        "date_trunc('hour', occurred_at)", "extract(epoch from occurred_at)::int", "coalesce(status, '-')"
      ]
      const refusedItems = [
        "pg_sleep(1)", "status collate \"C\"", "row(1, 2)", "current_user", "'x'::regclass", "array[1]",
        "lag(status) over (partition by pg_backend_pid())", "make_interval(hours => version())", "(select relname from pg_class)"
      ]
      const property = fc.property(
        fc.array(fc.constantFrom(...allowedItems), { minLength: 1, maxLength: 4 }),
        fc.option(fc.constantFrom(...refusedItems), { nil: undefined }),
        fc.boolean(),
        fc.nat(3),
        (items, bad, distinct, at) => {
          const list = [...items]
          if (bad !== undefined) list.splice(at % (list.length + 1), 0, bad)
          const sql = `select ${distinct ? "distinct " : ""}${list.map((e, i) => `${e} as c${i}`).join(", ")} ` +
            "from message_events window w as (order by occurred_at)"
          const result = Effect.runSync(guard(parser, sql))
          if (bad === undefined) {
            expect(Result.isSuccess(result) ? "accepted" : result.failure.message, sql).toBe("accepted")
          } else {
            expect(Result.isFailure(result), sql).toBe(true)
            if (Result.isFailure(result)) expectReadable(parser, sql, result.failure)
          }
        }
      )
      fc.assert(property, { numRuns: 60, seed: 15 })
    }))
})
