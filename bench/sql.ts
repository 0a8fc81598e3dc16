/**
 * The SQL client path: one primary-key SELECT through the application's client
 * against the raw driver it wraps, measured in the same run, per statement (wall and CPU µs).
 *
 * - PostgreSQL (`BENCH_BACKEND=postgres`, uses DATABASE_URL): our client (`DatabaseClient`:
 *   PostgresClient.ts over a bounded `pg` pool) against `pg.Pool.query` on a pool with the same
 *   settings, and against the same with a named prepared statement (what our client sends for a
 *   hot statement: the strictest baseline); also `@effect/sql-pg`'s client (its own driver and
 *   pool, configured alike: what the application used before), so before → after is measured in
 *   one run.
 * - PGlite (default): our client (PgliteClient.ts, the database on its own worker thread as the
 *   server runs it: PgliteThread.ts) against `PGlite.query` in this thread, and against PGlite's
 *   protocol driven by hand with a named prepared statement (what our client sends for a hot
 *   statement: the strictest baseline). The ratio includes the thread hop of every statement.
 *
 * Sequential statements on one connection, so the numbers are per-statement latency and CPU (the
 * process's CPU time over the window: the driver, the client and, for PGlite, the database). The
 * clients run with the tracer off, as the server runs them (Http.ts). After
 * a warm-up, rounds alternate raw, ours, raw, ours… (`BENCH_ROUNDS`, default 3 each) of
 * `BENCH_SECONDS` each (default 3). Every answer is checked; any failure exits 1.
 *
 *   npx tsx bench/sql.ts                                        # PGlite
 *   BENCH_BACKEND=postgres BENCH_SECONDS=2 npx tsx bench/sql.ts # PostgreSQL of DATABASE_URL
 */
import { SqlClient } from "effect/sql"
import { parse, PGlite, protocol } from "@electric-sql/pglite"
import { DatabaseClient, DatabaseConfig } from "@switchboard/sql-adapter"
import { pgliteParsers } from "../packages/sql-adapter/src/PgliteClient.js"
import * as PgClient from "@effect/sql-pg/PgClient"
import { Context, Duration, Effect, Exit, Layer, Redacted, References, Scope, String as Str } from "effect"
import Pg from "pg"
import { backendFromEnv, fmt, positiveInt, type ResultRow } from "./lib.js"

const backend = backendFromEnv("sql")
const seconds = positiveInt("sql", "BENCH_SECONDS", 3)
const rounds = positiveInt("sql", "BENCH_ROUNDS", 3)
const TEXT = "select id, name, created_at from bench_sql where id = $1"
const SETUP = [
  "drop table if exists bench_sql",
  "create table bench_sql (id integer primary key, name text not null, created_at timestamptz not null default now())",
  "insert into bench_sql (id, name) select g, 'row ' || g from generate_series(1, 1000) g"
]

type Runner = (id: number) => Promise<ReadonlyArray<{ readonly id: number; readonly name: string }>>
interface Window { statements: number; wallUs: number; cpuUs: number }

/** Runs `run` for `ms`, checking every answer; adds to `into`. */
const window = async (run: Runner, ms: number, into: Window) => {
  const cpu0 = process.cpuUsage()
  const t0 = performance.now()
  let n = 0
  while (performance.now() - t0 < ms) {
    for (let k = 0; k < 50; k++, n++) {
      const id = (n % 1000) + 1
      const rows = await run(id)
      if (rows.length !== 1 || rows[0]!.id !== id || rows[0]!.name !== `row ${id}`) {
        throw new Error(`wrong answer for id ${id}: ${JSON.stringify(rows)}`)
      }
    }
  }
  const wall = performance.now() - t0
  const cpu = process.cpuUsage(cpu0)
  into.statements += n
  into.wallUs += wall * 1000
  into.cpuUs += cpu.user + cpu.system
}

/** Warm-up (1 s each), then alternating rounds; per-statement wall and CPU µs of each runner. */
const compare = async (runners: Record<string, Runner>) => {
  const totals: Record<string, Window> = {}
  for (const [name, run] of Object.entries(runners)) {
    await window(run, 1000, { statements: 0, wallUs: 0, cpuUs: 0 })
    totals[name] = { statements: 0, wallUs: 0, cpuUs: 0 }
  }
  for (let r = 0; r < rounds; r++) {
    for (const [name, run] of Object.entries(runners)) await window(run, seconds * 1000, totals[name]!)
  }
  return Object.fromEntries(Object.entries(totals).map(([name, t]) => [name, {
    statements: t.statements,
    wallUs: t.wallUs / t.statements,
    cpuUs: t.cpuUs / t.statements
  }]))
}

/** Statements run as the server runs them: the tracer off (Http.ts; no exporter is configured). */
const runPromise = Effect.runPromiseWith(Context.make(References.TracerEnabled, false))

/** A client layer (ours: the application's `DatabaseClient`) as a runner of the same statement. */
const clientRunner = async (layer: Layer.Layer<SqlClient.SqlClient, unknown>, setup: boolean) => {
  const scope = Effect.runSync(Scope.make())
  const context = await Effect.runPromise(Layer.buildWithScope(layer, scope))
  const sql = Effect.runSync(Effect.provide(SqlClient.SqlClient, context))
  if (setup) for (const s of SETUP) await Effect.runPromise(sql.unsafe(s))
  const run: Runner = (id) => runPromise(sql<{ id: number; name: string }>`select id, name, created_at from bench_sql where id = ${id}`)
  return { run, close: () => Effect.runPromise(Scope.close(scope, Exit.void)) }
}
const ourClient = (config: DatabaseConfig) => clientRunner(DatabaseClient(config), true)

const CLOSE = 1.5
const row = (name: string, unit: string, value: number, baseline: string, baselineValue: number, goal: boolean): ResultRow => ({
  name,
  value: Math.round(value * 10) / 10,
  unit,
  baseline,
  baselineValue: Math.round(baselineValue * 10) / 10,
  ratio: Math.round((value / baselineValue) * 100) / 100,
  goal: goal ? `close to the raw driver (≤ ${CLOSE}×)` : null,
  met: goal ? value / baselineValue <= CLOSE : null
})

const print = (label: string, measured: Record<string, { statements: number; wallUs: number; cpuUs: number }>, ours: string) => {
  console.log(label)
  for (const [name, m] of Object.entries(measured)) {
    const vs = name === ours ? "" : `   (ours/this: CPU ${fmt(measured[ours]!.cpuUs / m.cpuUs, 2)}, wall ${fmt(measured[ours]!.wallUs / m.wallUs, 2)})`
    console.log(`  ${name.padEnd(34)} ${fmt(m.wallUs, 1).padStart(7)} µs wall  ${fmt(m.cpuUs, 1).padStart(7)} µs CPU  per statement  (${m.statements} statements)${vs}`)
  }
}

const main = async (): Promise<ReadonlyArray<ResultRow>> => {
  if (backend === "pglite") {
    const db = await PGlite.create({ parsers: pgliteParsers })
    for (const s of SETUP) await db.exec(s)
    const ours = await ourClient(DatabaseConfig.Pglite({ dataDir: undefined }))
    const raw: Runner = async (id) => (await db.query<{ id: number; name: string }>(TEXT, [id])).rows
    // PGlite's protocol by hand with a named prepared statement (what our client does for a hot
    // statement): prepared once, then one Bind/Execute/Sync per statement.
    const { serialize } = protocol
    const join = (parts: ReadonlyArray<Uint8Array>) => Buffer.concat(parts)
    const described = await db.execProtocol(join([serialize.parse({ name: "bench_pk", text: TEXT }), serialize.describe({ type: "S", name: "bench_pk" }), serialize.sync()]))
    const rowDescription = described.messages.find((m) => m.name === "rowDescription")!
    const named: Runner = (id) =>
      db.runExclusive(async () => {
        const answer = await db.execProtocol(join([serialize.bind({ statement: "bench_pk", values: [String(id)] }), serialize.execute({}), serialize.sync()]))
        return parse.parseResults([rowDescription, ...answer.messages], db.parsers)[0]!.rows as Array<{ id: number; name: string }>
      })
    const m = await compare({ "raw PGlite.query": raw, "raw PGlite, named prepared statement": named, "Switchboard client": ours.run })
    await ours.close()
    await db.close()
    print("PGlite (in process), one PK SELECT", m, "Switchboard client")
    const o = m["Switchboard client"]!
    const r = m["raw PGlite.query"]!
    const p = m["raw PGlite, named prepared statement"]!
    return [
      row("one PK SELECT, PGlite client vs PGlite.query", "µs CPU/statement", o.cpuUs, "PGlite.query", r.cpuUs, true),
      row("one PK SELECT, PGlite client vs PGlite named statement", "µs CPU/statement", o.cpuUs, "PGlite named prepared statement", p.cpuUs, false),
      row("one PK SELECT wall, PGlite client vs PGlite.query", "µs/statement", o.wallUs, "PGlite.query", r.wallUs, false)
    ]
  }
  const url = process.env.DATABASE_URL!
  // The driver as our pool configures it (Database.ts postgresPool), one connection.
  const makePool = () =>
    new Pg.Pool({
      connectionString: url,
      max: 1,
      connectionTimeoutMillis: 5_000,
      idleTimeoutMillis: 30_000,
      statement_timeout: 10_000,
      query_timeout: 11_000,
      idle_in_transaction_session_timeout: 20_000,
      keepAlive: true,
      application_name: "switchboard-bench"
    })
  const pool = makePool()
  for (const s of SETUP) await pool.query(s)
  const ours = await ourClient(DatabaseConfig.Postgres({ url: Redacted.make(url), maxConnections: 1 }))
  // The stock client (what the application used before): @effect/sql-pg's own driver and
  // pool, configured as the pool above (one connection, the same timeouts).
  const stock = await clientRunner(
    PgClient.layer({
      url: Redacted.make(url),
      maxConnections: 1,
      connectTimeout: Duration.seconds(5),
      idleTimeout: Duration.seconds(30),
      applicationName: "switchboard-bench",
      startupParameters: { statement_timeout: "10000", idle_in_transaction_session_timeout: "20000" },
      transformQueryNames: Str.camelToSnake,
      transformResultNames: Str.snakeToCamel,
      transformJson: false
    }),
    false
  )
  const raw: Runner = async (id) => (await pool.query(TEXT, [id])).rows
  const named: Runner = (id) =>
    new Promise((resolve, reject) =>
      pool.connect((error, client, release) => {
        if (error || !client) return reject(error)
        client.query({ name: "bench_pk", text: TEXT, values: [id] }, (e, result) => {
          release()
          if (e) reject(e)
          else resolve(result.rows)
        })
      }))
  const m = await compare({
    "raw pg pool.query": raw,
    "raw pg, named prepared statement": named,
    "@effect/sql-pg client (before)": stock.run,
    "Switchboard client": ours.run
  })
  await ours.close()
  await stock.close()
  await pool.end()
  print("PostgreSQL (loopback), one PK SELECT", m, "Switchboard client")
  const o = m["Switchboard client"]!
  const r = m["raw pg pool.query"]!
  const p = m["raw pg, named prepared statement"]!
  const b = m["@effect/sql-pg client (before)"]!
  return [
    row("one PK SELECT, @effect/sql-pg client (before) vs raw pg", "µs CPU/statement", b.cpuUs, "pg pool.query", r.cpuUs, true),
    row("one PK SELECT, PostgreSQL client vs raw pg", "µs CPU/statement", o.cpuUs, "pg pool.query", r.cpuUs, true),
    row("one PK SELECT, PostgreSQL client vs raw pg named statement", "µs CPU/statement", o.cpuUs, "pg named prepared statement", p.cpuUs, false),
    row("one PK SELECT wall, PostgreSQL client vs raw pg", "µs/statement", o.wallUs, "pg pool.query", r.wallUs, false)
  ]
}

try {
  const results = await main()
  console.log(JSON.stringify({ bench: "sql", backend, results }))
  process.exit(0)
} catch (error) {
  console.error(`bench:sql failed: ${error instanceof Error ? error.message : String(error)}`)
  process.exit(1)
}
