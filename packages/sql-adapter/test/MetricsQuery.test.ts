/**
 * The SQL query operation's engine on PGlite and PostgreSQL (docs/sql-query.md): results, the
 * constructs and functions the documentation and the schema document list (each answered with its
 * values), errors, bounds, and the hostile-SQL suite — every attempt refused or bounded with all
 * three defence layers on, and again with each layer disabled in turn.
 */
import { layer } from "@effect/vitest"
import { SqlClient } from "effect/sql"
import type { SqlError } from "effect/sql/SqlError"
import { type MetricsQuery, sqlSchemaDocument } from "@switchboard/core/metrics"
import { metricsQueryContract } from "@switchboard/testkit/vitest"
import { makeMetricsQueryEngine, type MetricsSandboxOptions, testBackends, testStore } from "@switchboard/sql-adapter"
import type { ProjectId } from "@switchboard/core/shared"
import { Cause, Effect, Result, Exit, Layer } from "effect"
import { expect } from "vitest"
import { attempts } from "./MetricsHostile.attempts.js"
import { functionExamples, numbered, operatorExamples } from "./MetricsSurface.examples.js"

const A = "01890000-0000-7000-8000-00000000000a" as ProjectId
const B = "01890000-0000-7000-8000-00000000000b" as ProjectId
const ROWS = 40

const seed = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  // Rows of two projects without their parents: foreign keys are not the subject here.
  yield* sql.withTransaction(Effect.gen(function*() {
    yield* sql.unsafe("set local session_replication_role = replica")
    for (const [project, prefix] of [[A, "a"], [B, "zz"]] as const) {
      yield* sql.unsafe(
        `insert into message_event_log (project_id, event_id, message_id, platform, direction, event_type, status, occurred_at, recorded_at)
         select $1::uuid, $2 || '-e' || i, $2 || '-' || i, 'sms', 'addressed', 'accepted', 'accepted',
                timestamptz '2030-01-01T00:00:00Z' + i * interval '1 minute', timestamptz '2030-01-01T00:00:00Z'
         from generate_series(1, ${ROWS}) i`,
        [project, prefix]
      )
    }
  }))
  yield* sql.unsafe("create table hostile_secret (x text)")
  yield* sql.unsafe("insert into hostile_secret values ('TOPSECRET')")
})

const engine = (options: MetricsSandboxOptions = {}) =>
  makeMetricsQueryEngine({ statementTimeoutMillis: 300, ...options })

const query = (sql: string, parameters: Record<string, string> = {}, projectId: ProjectId = A): MetricsQuery => ({ projectId, sql, parameters })

const run = (options: MetricsSandboxOptions, q: MetricsQuery) =>
  Effect.flatMap(engine(options), (e) => e.run(q))

/** The state no attempt may change. */
const invariants = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const [row] = yield* sql.unsafe<Record<string, unknown>>(`
    select (select count(*)::int from metrics_scope) as scope,
           (select count(*)::int from message_event_log) as events,
           (select count(*)::int from hostile_secret) as secrets,
           (select count(*)::int from pg_class where relname = 'stolen') as stolen,
           current_user as role,
           current_setting('transaction_read_only') as read_only`)
  return row
})

const leaks = (value: unknown) => {
  const text = JSON.stringify(value)
  return text.includes("zz-") || text.includes("TOPSECRET")
}

/**
 * Without the parser these run, and are still bounded — every attempt is also checked to leak
 * nothing and change nothing: the role reads PostgreSQL's catalogs (every role may: metadata,
 * never a project's rows) and a few harmless built-ins; the qualified views and an array compare
 * read only the caller's rows; a notification and a large object die with the rolled-back
 * transaction.
 */
const runsWithoutParser = new Set([
  "pg_class", "quoted catalog", "information_schema", "pg_stat_activity", "current_user", "version()",
  "regclass cast", "current_setting game", "txid_current", "CTE scope confusion",
  "the views' schema, qualified", "array constructor", "pg_notify", "lo_creat"
])

for (const backend of testBackends()) {
  const Store = Layer.provideMerge(Layer.effectDiscard(seed), testStore(backend))

  layer(Store, { excludeTestServices: true, timeout: "300 seconds" })(`metrics query engine (${backend})`, (it) => {
    it.effect("answers the project's own rows, typed; never another project's", () =>
      Effect.gen(function*() {
        const own = yield* run({}, query(
          "select count(*) as n, 9007199254740993::bigint as big, 2.5::numeric as half, max(occurred_at) as last, " +
            "min(message_id) like 'a-%' as mine from message_events where occurred_at >= :since::timestamptz",
          { since: "2030-01-01T00:00:00Z" }
        ))
        expect(own.columns).toEqual([
          { name: "n", type: "bigint" },
          { name: "big", type: "bigint" },
          { name: "half", type: "numeric" },
          { name: "last", type: "timestamptz" },
          { name: "mine", type: "boolean" }
        ])
        expect(own.rows).toEqual([[ROWS, "9007199254740993", 2.5, "2030-01-01T00:40:00.000Z", true]])
        const other = yield* run({}, query("select count(*) as n, min(message_id) as first from message_events", {}, B))
        expect(other.rows).toEqual([[ROWS, "zz-1"]])
      }))

    it.effect("answers DISTINCT, DISTINCT ON, window functions (PARTITION BY, ORDER BY, frames, named windows) and named arguments", () =>
      Effect.gen(function*() {
        const rows = (sql: string, parameters: Record<string, string> = {}) =>
          Effect.map(run({}, query(sql, parameters)), (r) => r.rows)
        // n = 1…40, one row a minute from 2030-01-01T00:01Z (the seed).
        expect(yield* rows(`select distinct n % 3 as r from ${numbered} order by r`)).toEqual([[0], [1], [2]])
        expect(yield* rows("select distinct platform, status from message_events")).toEqual([["sms", "accepted"]])
        expect(yield* rows(`select distinct on (n % 2) n % 2 as parity, n from ${numbered} order by n % 2, n desc`))
          .toEqual([[0, 40], [1, 39]])
        expect(yield* rows(`select n, row_number() over (partition by n % 2 order by n) as k from ${numbered} order by n limit 4`))
          .toEqual([[1, 1], [2, 1], [3, 2], [4, 2]])
        expect(yield* rows(
          `select n, lag(n) over (order by occurred_at) as prev, lead(n, 2, 0) over (order by occurred_at) as next2, ` +
            `first_value(n) over (order by occurred_at) as first from ${numbered} order by n desc limit 2`
        )).toEqual([[40, 39, 0, 1], [39, 38, 0, 1]])
        expect(yield* rows(`select n, count(*) over () as total from ${numbered} order by n limit 1`)).toEqual([[1, 40]])
        // Frames: ROWS (an offset from a parameter), RANGE over an interval, GROUPS, EXCLUDE.
        expect(yield* rows(
          `select * from (select n, sum(n) over (order by n rows between :k preceding and current row) as s3, ` +
            `count(*) over (order by occurred_at range between interval '5 minutes' preceding and current row) as recent, ` +
            `count(*) over (order by n / 10 groups between 1 preceding and 1 following) as near, ` +
            `sum(n) over (order by n rows between 1 preceding and 1 following exclude current row) as sides ` +
            `from ${numbered}) x where n in (1, 3, 10, 40) order by n`,
          { k: "2" }
        )).toEqual([[1, 1, 1, 19, 2], [3, 6, 3, 19, 6], [10, 27, 6, 29, 20], [40, 117, 6, 11, 39]])
        // Named windows: OVER w, OVER (w ORDER BY …), OVER (w ROWS …), two windows in one WINDOW clause.
        expect(yield* rows(
          `select n, count(*) over w as in_parity, sum(n) over (w order by n) as running, rank() over w2 as rk, ` +
            `last_value(n) over (w2 rows between unbounded preceding and unbounded following) as last ` +
            `from ${numbered} window w as (partition by n % 2), w2 as (order by n / 10) order by n limit 3 offset 8`
        )).toEqual([[9, 20, 25, 1, 40], [10, 20, 30, 10, 40], [11, 20, 36, 10, 40]])
        // A LATERAL subquery over the relations.
        expect(yield* rows(
          `select n, s.c from ${numbered}, lateral (select count(*) as c from message_events m where m.occurred_at <= t.occurred_at) s where n = 3`
        )).toEqual([[3, 3]])
        // Named arguments (name => value), the value an expression like any argument.
        expect(yield* rows(
          "select extract(epoch from make_interval(hours => 1, mins => :m::int))::int as secs, " +
            "make_timestamptz(year => 2030, month => 1, mday => 2, hour => 3, min => 4, sec => 5, timezone => 'UTC') as at",
          { m: "30" }
        )).toEqual([[5400, "2030-01-02T03:04:05.000Z"]])
        // Aggregates with FILTER, ORDER BY inside, WITHIN GROUP, and a window over an aggregate.
        expect(yield* rows(
          `select count(*) filter (where n % 2 = 0) as even, sum(n order by n) as total, ` +
            `percentile_disc(0.5) within group (order by n) as median from ${numbered}`
        )).toEqual([[20, 820, 20]])
        expect(yield* rows(`select distinct count(*) filter (where n > 30) over () as late from ${numbered}`)).toEqual([[10]])
        expect(yield* rows(`select n / 10 as tens, count(*) as c, rank() over (order by count(*) desc, n / 10) as r from ${numbered} group by n / 10 order by tens`))
          .toEqual([[0, 9, 4], [1, 10, 1], [2, 10, 2], [3, 10, 3], [4, 1, 5]])
      }))

    it.effect("every function the schema document lists runs, with its value", () =>
      Effect.gen(function*() {
        // The examples cover exactly the document's list: a function added to SqlSurface needs one.
        expect(Object.keys(functionExamples).sort()).toEqual([...sqlSchemaDocument.functions].sort())
        for (const kind of ["scalar", "aggregate", "window"] as const) {
          const examples = Object.entries(functionExamples).filter(([, e]) => e.kind === kind)
          const columns = examples.map(([, e], i) => `(${e.sql}) as f${i}`).join(",\n  ")
          const sql = kind === "scalar"
            ? `select ${columns}`
            : kind === "aggregate"
            ? `select ${columns}\nfrom ${numbered}`
            : `select * from (select n, ${columns}\nfrom ${numbered} window w as (order by n)) x where n = 10`
          const result = yield* run({}, query(sql))
          const got = Object.fromEntries(examples.map(([name], i) => [name, result.rows[0]![kind === "window" ? i + 1 : i]]))
          expect(got, sql).toEqual(Object.fromEntries(examples.map(([name]) => [name, true])))
        }
      }))

    it.effect("the schema document's capabilities hold: each claimed one runs, arrays (arrayJoin: false) are refused", () =>
      Effect.gen(function*() {
        const claims: Record<keyof typeof sqlSchemaDocument.capabilities, string> = {
          arrayJoin: "select unnest(array[1, 2]) as x",
          ctes: "with c as (select count(*) as n from message_events) select n from c",
          joins: "select count(*) as n from message_events m join message_events o on o.event_id = m.event_id left join call_events c on false",
          parameters: "select count(*) as n from message_events where occurred_at >= :since::timestamptz",
          selectWithoutFrom: "select 40 as n",
          subqueries: "select (select count(*) from message_events) as n where exists (select 1 from message_events)",
          unions: "select count(*) as n from message_events union select 40 except select 0"
        }
        for (const [capability, sql] of Object.entries(claims)) {
          const claimed = sqlSchemaDocument.capabilities[capability as keyof typeof claims]
          const result = yield* Effect.result(run({}, query(sql, { since: "2030-01-01T00:00:00Z" })))
          expect(Result.isSuccess(result), `${capability}: ${sql}`).toBe(claimed)
          if (Result.isSuccess(result)) expect(result.success.rows, capability).toEqual([[ROWS]])
        }
      }))

    it.effect("every operator, expression form and cast the schema document lists runs, with its value", () =>
      Effect.gen(function*() {
        expect(Object.keys(operatorExamples).sort()).toEqual([...sqlSchemaDocument.operators].sort())
        const examples = Object.entries(operatorExamples)
        const sql = `select ${examples.map(([, e], i) => `(${e}) as o${i}`).join(",\n  ")}`
        const result = yield* run({}, query(sql))
        expect(Object.fromEntries(examples.map(([name], i) => [name, result.rows[0]![i]])), sql)
          .toEqual(Object.fromEntries(examples.map(([name]) => [name, true])))
      }))

    it.effect("refuses bad SQL and refused constructs at the parser's position, named", () =>
      Effect.gen(function*() {
        const syntax = yield* Effect.flip(run({}, query("select * frm message_events")))
        expect(syntax).toMatchObject({ _tag: "MetricsQueryInvalid", construct: "syntax", position: 10 })
        const fn = yield* Effect.flip(run({}, query("select :since::timestamptz, pg_sleep(1)", { since: "2030-01-01T00:00:00Z" })))
        expect(fn).toMatchObject({ _tag: "MetricsQueryInvalid", construct: "function", position: 29 })
        const rel = yield* Effect.flip(run({}, query("select 1 from message_events, public.message_event_log")))
        expect(rel).toMatchObject({ _tag: "MetricsQueryInvalid", construct: "schema-qualified name", position: 31 })
        const two = yield* Effect.flip(run({}, query("select 1; select 2")))
        expect(two).toMatchObject({ _tag: "MetricsQueryInvalid", construct: "multiple statements" })
        const dup = yield* Effect.flip(run({}, query("select count(*), count(*) from message_events")))
        expect(dup).toMatchObject({ _tag: "MetricsQueryInvalid", construct: "duplicate column name" })
        // Named in SQL words (the parser-only suite, SqlGuard.test.ts, has the whole table).
        expect(yield* Effect.flip(run({}, query("select * from message_events for update")))).toMatchObject({
          construct: "FOR UPDATE",
          message: "FOR UPDATE is not allowed: it locks rows; only reading is allowed",
          position: 30
        })
        expect(yield* Effect.flip(run({}, query("insert into message_events values (1)")))).toMatchObject({
          construct: "INSERT",
          message: "INSERT statements are not allowed; send one SELECT (or WITH … SELECT)",
          position: 1
        })
        expect(yield* Effect.flip(run({}, query("select count(*) over (partition by pg_sleep(1)) from message_events"))))
          .toMatchObject({ construct: "function", message: "the function pg_sleep is not allowed", position: 36 })
        const runtime = yield* Effect.flip(run({}, query("select 1 / 0 as x")))
        expect(runtime).toMatchObject({ _tag: "MetricsQueryInvalid", message: "division by zero" })
      }))

    it.effect("caps rows and result bytes; bounds a runaway statement", () =>
      Effect.gen(function*() {
        expect(yield* Effect.flip(run({ maximumRows: 5 }, query("select * from message_events"))))
          .toMatchObject({ _tag: "MetricsQueryResourceLimit", limit: "rows" })
        expect((yield* run({ maximumRows: 5 }, query("select * from message_events limit 5"))).rows).toHaveLength(5)
        expect(yield* Effect.flip(run({ maximumResultBytes: 200 }, query("select * from message_events"))))
          .toMatchObject({ _tag: "MetricsQueryResourceLimit", limit: "resultBytes" })
        const bomb = query(`select count(*) from ${Array.from({ length: 6 }, (_, i) => `message_events m${i}`).join(", ")}`)
        const bounded = yield* Effect.flip(run({ statementTimeoutMillis: 100 }, bomb))
        // PostgreSQL cancels it at the timeout (504); PGlite cannot, so its planner gate refuses it first.
        expect(bounded).toMatchObject(backend === "postgres" ? { _tag: "MetricsQueryTimeout" } : { _tag: "MetricsQueryResourceLimit", limit: "cost" })
      }))

    it.effect("the views plan with the scope's project as a literal; a plan reused under another scope fails, never leaks", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const enter = (project: ProjectId) =>
          Effect.andThen(
            sql`insert into metrics_scope (project_id) values (${project})`,
            sql.unsafe(`set local role switchboard_metrics_reader`)
          )
        let outcome: {
          readonly plan: string
          readonly first: ReadonlyArray<Record<string, unknown>>
          readonly second: Result.Result<unknown, SqlError>
        } | undefined
        // The transaction always rolls back (it fails on purpose), as the engine's do.
        yield* sql.withTransaction(Effect.gen(function*() {
          yield* enter(A)
          const plan = (yield* sql.unsafe<Record<string, string>>("explain select count(*) from metrics_sandbox.message_events"))
            .map((r) => r["QUERY PLAN"]).join("\n")
          // A named prepared statement without parameters keeps one generic plan, planned for A.
          yield* sql.unsafe("prepare reused as select count(*)::int as n, min(message_id) as first from metrics_sandbox.message_events")
          const first = yield* sql.unsafe<Record<string, unknown>>("execute reused")
          yield* sql.unsafe("reset role")
          yield* sql.unsafe("delete from metrics_scope")
          yield* enter(B)
          const second = yield* Effect.result(sql.unsafe<Record<string, unknown>>("execute reused"))
          outcome = { plan, first, second }
          return yield* Effect.fail("rollback")
        })).pipe(Effect.flip)
        expect(outcome?.plan).toContain(`'${A}'::uuid`)
        expect(outcome?.first).toEqual([{ n: ROWS, first: "a-1" }])
        // The gate: the plan's project is not the executing transaction's scope.
        const second = outcome!.second
        expect(Result.isFailure(second) && String((second.failure.reason.cause as { message?: string } | undefined)?.message)).toContain("metrics scope mismatch")
      }))

    const modes: ReadonlyArray<[string, NonNullable<MetricsSandboxOptions["layers"]>]> = [
      ["all layers", {}],
      ["layer (a) parser off", { parser: false }],
      ["layer (b) role, read-only and wrapper off", { role: false }],
      ["layer (c) scope made writable by the query role", { scope: false }]
    ]
    for (const [mode, layers] of modes) {
      it.effect(`hostile SQL, ${mode}: ${attempts.length} attempts refused or bounded`, () =>
        Effect.gen(function*() {
          expect(attempts.length).toBeGreaterThanOrEqual(60)
          const before = yield* invariants
          const e = yield* engine({ layers })
          const outcomes: Array<string> = []
          for (const attempt of attempts) {
            const exit = yield* Effect.exit(e.run(query(attempt.sql, attempt.parameters ?? {})))
            if (Exit.isSuccess(exit)) {
              expect(leaks(exit.value), `${attempt.name} leaked: ${JSON.stringify(exit.value.rows)}`).toBe(false)
              if (attempt.refused && (layers.parser ?? true)) outcomes.push(`${attempt.name}: ran`)
              if (attempt.refused && layers.parser === false && !runsWithoutParser.has(attempt.name)) outcomes.push(`${attempt.name}: ran`)
            } else {
              // A refusal is a domain error, never a defect; its message holds none of the other rows.
              expect(Exit.isFailure(exit) && exit.cause.reasons.length === 1 && Cause.isFailReason(exit.cause.reasons[0]!), `${attempt.name}: ${String(exit.cause)}`).toBe(true)
              expect(leaks(String(exit.cause)), `${attempt.name} leaked in its error`).toBe(false)
            }
          }
          expect(outcomes, outcomes.join("; ")).toEqual([])
          expect(yield* invariants).toEqual(before)
        }))
    }
  })
}

for (const backend of testBackends()) metricsQueryContract(backend, () => testStore(backend))
