/**
 * The SQL client path (issue 12 goal 4): one primary-key SELECT through the application's client
 * against the raw driver it wraps, measured in the same run — PostgreSQL (`@effect/sql-pg` over the
 * bounded `pg` pool vs a raw `pg` pool) when DATABASE_URL is set, and PGlite (our in-process
 * `@effect/sql` client over PGlite's API vs `PGlite.query`). Sequential statements, so the numbers
 * are per-statement latency; CPU µs per statement from the process's CPU time.
 *
 *   npx tsx bench/sql.ts                 # PGlite, and PostgreSQL too when DATABASE_URL is set
 *   BENCH_STATEMENTS=5000 npx tsx bench/sql.ts
 */
import { SqlClient } from "@effect/sql"
import { PGlite } from "@electric-sql/pglite"
import { DatabaseClient, DatabaseConfig } from "@switchboard/sql-adapter"
import { Effect, Layer, Redacted, Scope, Exit } from "effect"
import Pg from "pg"
import { fmt, positiveInt } from "./lib.js"

const N = positiveInt("sql", "BENCH_STATEMENTS", 3000)
const SETUP = [
  "drop table if exists bench_sql",
  "create table bench_sql (id integer primary key, name text not null, created_at timestamptz not null default now())",
  "insert into bench_sql (id, name) select g, 'row ' || g from generate_series(1, 1000) g"
]

interface Measured { readonly wallUs: number; readonly cpuUs: number }

const measure = async (run: (i: number) => Promise<unknown>): Promise<Measured> => {
  for (let i = 0; i < Math.min(500, N); i++) await run(i) // warm-up
  const cpu0 = process.cpuUsage()
  const t0 = performance.now()
  for (let i = 0; i < N; i++) await run(i)
  const wall = performance.now() - t0
  const cpu = process.cpuUsage(cpu0)
  return { wallUs: (wall * 1000) / N, cpuUs: (cpu.user + cpu.system) / N }
}

/** Our client (the application's layer for `config`) as a runner of one statement. */
const appClient = async (config: DatabaseConfig) => {
  const scope = Effect.runSync(Scope.make())
  const context = await Effect.runPromise(Layer.buildWithScope(DatabaseClient(config), scope))
  const sql = Effect.runSync(Effect.provide(SqlClient.SqlClient, context))
  for (const s of SETUP) await Effect.runPromise(sql.unsafe(s))
  return {
    run: (i: number) => Effect.runPromise(sql`select id, name, created_at from bench_sql where id = ${(i % 1000) + 1}`),
    close: () => Effect.runPromise(Scope.close(scope, Exit.void))
  }
}

const report = (label: string, ours: Measured, raw: Measured) => {
  console.log(`${label}`)
  console.log(`  raw driver   ${fmt(raw.wallUs, 1)} µs/statement wall, ${fmt(raw.cpuUs, 1)} µs CPU`)
  console.log(`  Switchboard  ${fmt(ours.wallUs, 1)} µs/statement wall, ${fmt(ours.cpuUs, 1)} µs CPU  (${fmt(ours.cpuUs - raw.cpuUs, 1)} µs CPU above raw; raw/ours ${fmt(raw.cpuUs / ours.cpuUs, 2)})`)
  return { rawWallUs: raw.wallUs, rawCpuUs: raw.cpuUs, wallUs: ours.wallUs, cpuUs: ours.cpuUs, ratio: raw.cpuUs / ours.cpuUs }
}

const results: Record<string, unknown> = {}

// PGlite: PGlite.query vs our in-process client.
{
  const db = await PGlite.create()
  for (const s of SETUP) await db.exec(s)
  const raw = await measure((i) => db.query("select id, name, created_at from bench_sql where id = $1", [(i % 1000) + 1]))
  await db.close()
  const ours = await appClient(DatabaseConfig.Pglite({ dataDir: undefined }))
  const measured = await measure(ours.run)
  await ours.close()
  results.pglite = report("PGlite (in process)", measured, raw)
}

const url = process.env.DATABASE_URL
if (url !== undefined && url !== "") {
  const pool = new Pg.Pool({ connectionString: url, max: 1 })
  for (const s of SETUP) await pool.query(s)
  const raw = await measure((i) => pool.query("select id, name, created_at from bench_sql where id = $1", [(i % 1000) + 1]))
  await pool.end()
  const ours = await appClient(DatabaseConfig.Postgres({ url: Redacted.make(url), maxConnections: 1 }))
  const measured = await measure(ours.run)
  await ours.close()
  results.postgres = report("PostgreSQL (loopback)", measured, raw)
}

console.log(JSON.stringify({ bench: "sql", statements: N, ...results }))
process.exit(0)
