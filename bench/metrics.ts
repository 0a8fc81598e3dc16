/**
 * The SQL query operation's sandbox cost (docs/sql-query.md): a typical aggregate — message counts
 * per status per hour — over `BENCH_ROWS` (default 1 000 000) `message_events` rows of one project
 * among 10 projects, through the engine (parser, read-only role, project-restricted views, the
 * subquery wrapper, caps) against the same aggregate run directly on the base table by the
 * superuser, in the same run, rounds alternating (`BENCH_ROUNDS`, default 5 queries each). The
 * ratio is the sandbox's cost (goal ≤ 1.2×). Wall time per query: the database does the work.
 *
 * The data is built in chunks with progress lines (the other nine projects get a tenth as many
 * rows each), then analyzed. Message-fact ingestion has no route yet, so its comparison is not
 * here.
 *
 *   BENCH_BACKEND=postgres npx tsx bench/metrics.ts      # PostgreSQL of DATABASE_URL (scratch database)
 *   BENCH_ROWS=100000 npx tsx bench/metrics.ts           # PGlite (slow to build: keep it small)
 */
import { SqlClient } from "effect/sql"
import type { ProjectId } from "@switchboard/core/shared"
import { DatabaseConfig, makeMetricsQueryEngine, scratchPostgres, StoreSql } from "@switchboard/sql-adapter"
import { Effect, Layer, Redacted } from "effect"
import { backendFromEnv, fmt, positiveInt, runBench } from "./lib.js"

const backend = backendFromEnv("metrics")
const rows = positiveInt("metrics", "BENCH_ROWS", 1_000_000)
const rounds = positiveInt("metrics", "BENCH_ROUNDS", 5)
const CHUNK = 200_000
const project = (i: number) => `01890000-0000-7000-8000-${String(i).padStart(12, "0")}` as ProjectId
const TARGET = project(0)
const AGGREGATE = "select status, date_trunc('hour', occurred_at) as hour, count(*) as n from message_events group by 1, 2 order by 2, 1"
const DIRECT =
  "select status, date_trunc('hour', occurred_at) as hour, count(*) as n from message_event_log where project_id = $1 group by 1, 2 order by 2, 1"

const build = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const started = performance.now()
  for (let p = 0; p < 10; p++) {
    const n = p === 0 ? rows : Math.ceil(rows / 10)
    for (let from = 1; from <= n; from += CHUNK) {
      const to = Math.min(n, from + CHUNK - 1)
      yield* sql.withTransaction(Effect.gen(function*() {
        yield* sql.unsafe("set local session_replication_role = replica") // projects' rows are not the subject
        yield* sql.unsafe(
          `insert into message_event_log (project_id, event_id, message_id, platform, direction, event_type, status, occurred_at, recorded_at)
           select $1::uuid, 'e' || i, 'm' || (i / 3), 'sms', 'addressed',
                  (array['dispatched', 'accepted', 'delivered', 'failed'])[1 + i % 4],
                  (array['dispatched', 'accepted', 'delivered', 'failed'])[1 + i % 4],
                  timestamptz '2030-01-01T00:00:00Z' + (i % 10080) * interval '1 minute', now()
           from generate_series($2::int, $3::int) i`,
          [project(p), from, to]
        )
      }))
      console.log(`  project ${p}: ${fmt(to)} / ${fmt(n)} rows (${fmt((performance.now() - started) / 1000, 1)} s)`)
    }
  }
  yield* sql.unsafe("analyze message_event_log")
})

const main = Effect.gen(function*() {
  const config = backend === "postgres"
    ? DatabaseConfig.Postgres({ url: Redacted.make(yield* scratchPostgres) })
    : DatabaseConfig.Pglite({ dataDir: undefined })
  const context = yield* Layer.build(StoreSql(config))
  return yield* Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    console.log(`bench:metrics on ${backend}: building ${fmt(rows)} rows of one project among 10`)
    yield* build
    const engine = yield* makeMetricsQueryEngine({ statementTimeoutMillis: 120_000 })
    const sandboxed = engine.run({ projectId: TARGET, sql: AGGREGATE, parameters: {} })
    const direct = sql.unsafe<Record<string, unknown>>(DIRECT, [TARGET])
    // Warm-up, and the two must agree.
    const a = yield* sandboxed
    const b = yield* direct
    if (a.rows.length !== b.length || a.rows.length === 0) throw new Error(`answers differ: ${a.rows.length} vs ${b.length} groups`)
    const total = a.rows.reduce((s, r) => s + Number(r[2]), 0)
    if (total !== rows) throw new Error(`the sandbox counted ${total} rows, not ${rows}`)
    const times = { direct: [] as Array<number>, sandbox: [] as Array<number> }
    for (let r = 0; r < rounds; r++) {
      for (const [name, run] of [["direct", direct], ["sandbox", sandboxed]] as const) {
        const t0 = performance.now()
        yield* (run as Effect.Effect<unknown, unknown>)
        times[name].push(performance.now() - t0)
      }
    }
    if (process.env.BENCH_EXPLAIN) {
      const plan = (text: string, params: ReadonlyArray<unknown> = [TARGET]) => sql.unsafe<Record<string, string>>(text, [...params]).pipe(Effect.map((r) => r.map((x) => x["QUERY PLAN"]).join("\n")))
      console.log("direct plan:\n" + (yield* plan(`explain analyze ${DIRECT}`)))
      console.log("sandbox plan:\n" + (yield* sql.withTransaction(Effect.gen(function*() {
        yield* sql.unsafe("insert into metrics_scope (project_id) values ($1)", [TARGET])
        yield* sql.unsafe("set transaction read only; set local role switchboard_metrics_reader; set local search_path = metrics_sandbox")
        const text = yield* plan(`explain analyze select * from (\n${AGGREGATE}\n) as metrics_query limit 10001`, [])
        return yield* Effect.fail(text)
      })).pipe(Effect.flip)))
    }
    const median = (xs: Array<number>) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!
    const d = median(times.direct)
    const s = median(times.sandbox)
    console.log(`groups ${a.rows.length}; median of ${rounds} alternating queries each:`)
    console.log(`  direct (superuser, base table): ${fmt(d, 1)} ms`)
    console.log(`  sandbox (engine, all layers):   ${fmt(s, 1)} ms`)
    console.log(`  ratio ${fmt(s / d, 2)}× (goal ≤ 1.2×)`)
    return 0
  }).pipe(Effect.provide(Layer.succeedContext(context)))
})

runBench("metrics", () => Effect.runPromise(Effect.scoped(main)))
