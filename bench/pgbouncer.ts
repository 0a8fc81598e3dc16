/**
 * PostgreSQL through a transaction-pooling PgBouncer against direct connections
 * (docs/operations.md, "PostgreSQL in production"), in one run, on the PostgreSQL of DATABASE_URL
 * with Debian's pgbouncer (1.18) started in front of it (test/support/PgBouncer.ts). Three
 * servers in this process, each on its own scratch database:
 *
 * - direct — the default: session mode, hot statements named (prepared once per connection). The
 *   baseline of every ratio.
 * - direct, unnamed — `poolMode: "transaction"` on the same direct connections: every statement
 *   unnamed (parsed and planned each time) and the client's own statement timer. The cost of the
 *   unnamed statements alone.
 * - PgBouncer — `poolMode: "transaction"` through PgBouncer (pool_mode = transaction), LISTEN
 *   direct: the unnamed statements plus PgBouncer's hop.
 *
 * Two loads on each, alternated (A B C A B C): the cached read `GET /v1/account` (autocannon in a
 * child process) and call signals, batches of 100 (bench/calls.ts's sender in a child process).
 *
 *   DATABASE_URL=postgres://… npm run bench:pgbouncer
 *
 * Environment: BENCH_SECONDS (each measured run, default 5), BENCH_CONNECTIONS (HTTP connections
 * and signal senders, default 4). Needs DATABASE_URL and pgbouncer (`apt-get install -y pgbouncer`);
 * exits 2 without them. Any failed request aborts the run (exit 1). The last stdout line is the JSON
 * summary. No thresholds: a report, not a test.
 */
import { DatabaseConfig, scratchPostgres, StoreSql } from "@switchboard/sql-adapter"
import { Effect, Exit, Redacted, Scope } from "effect"
import { pgbouncerBin, type PgBouncer, startPgBouncer } from "../packages/http-adapter/test/support/PgBouncer.js"
import { startTestServer, type TestServer } from "../packages/http-adapter/test/support/TestServer.js"
import { signalLoadInChild, voiceFixture } from "./calls-load.js"
import { BenchFailure, fmt, mean, positiveInt, runBench } from "./lib.js"
import { loadInChild } from "./load.js"

const SECONDS = positiveInt("pgbouncer", "BENCH_SECONDS", 5)
const CONNECTIONS = positiveInt("pgbouncer", "BENCH_CONNECTIONS", 4)
const ROUNDS = 2
const WARMUP_SECONDS = 2

interface Setup {
  readonly name: string
  readonly server: TestServer
  readonly account: { readonly url: string; readonly headers: Record<string, string> }
  readonly signals: Awaited<ReturnType<typeof voiceFixture>>
}

const main = async (): Promise<number> => {
  const url = process.env.DATABASE_URL
  if (!url || pgbouncerBin === undefined) {
    console.error("bench:pgbouncer needs DATABASE_URL and pgbouncer (apt-get install -y pgbouncer)")
    return 2
  }
  const scope = Effect.runSync(Scope.make())
  const setups: Array<Setup> = []
  let bouncer: PgBouncer | undefined
  try {
    // As many server connections behind PgBouncer as each direct pool opens (10): the hop, not a smaller pool, is measured.
    bouncer = await startPgBouncer(url, { poolSize: 10 })
    const through = bouncer.through
    const configs: ReadonlyArray<readonly [string, (db: string) => DatabaseConfig]> = [
      ["direct", (db) => DatabaseConfig.Postgres({ url: Redacted.make(db) })],
      ["direct, unnamed", (db) => DatabaseConfig.Postgres({ url: Redacted.make(db), poolMode: "transaction", listenUrl: Redacted.make(db) })],
      ["PgBouncer", (db) => DatabaseConfig.Postgres({ url: Redacted.make(through(db)), poolMode: "transaction", listenUrl: Redacted.make(db) })]
    ]
    for (const [name, config] of configs) {
      const db = await Effect.runPromise(Scope.provide(scratchPostgres, scope))
      const server = await startTestServer("postgres", { rateLimitQuota: 100_000_000 }, undefined, StoreSql(config(db)))
      setups.push({
        name,
        server,
        account: { url: `${server.baseUrl}/v1/account`, headers: { authorization: `Bearer ${server.serviceKey}` } },
        signals: await voiceFixture(server)
      })
    }
    console.log(`bench:pgbouncer — ${SECONDS} s per measured run, ${ROUNDS} rounds, ${CONNECTIONS} connections; pgbouncer ${bouncer.version}, pool_mode = transaction`)
    const loads = {
      account: async (s: Setup, seconds: number) =>
        (await loadInChild({ url: s.account.url, headers: s.account.headers, connections: CONNECTIONS, seconds, label: `${s.name}: GET /v1/account` })).rps,
      signals: async (s: Setup, seconds: number) =>
        (await signalLoadInChild({ ...s.signals, connections: CONNECTIONS, seconds, label: `${s.name}: signals` })).signalsPerSecond
    }
    const results: Record<string, Record<string, Array<number>>> = { account: {}, signals: {} }
    for (const [load, run] of Object.entries(loads)) {
      for (const s of setups) await run(s, WARMUP_SECONDS)
      for (let round = 1; round <= ROUNDS; round++) {
        for (const s of setups) {
          const value = await run(s, SECONDS)
          ;(results[load]![s.name] ??= []).push(value)
          console.log(`   ${load.padEnd(8)} run ${round} ${s.name.padEnd(16)} ${fmt(value).padStart(8)} ${load === "account" ? "req/s" : "signals/s"}`)
        }
      }
    }
    const avg = (load: string, name: string) => mean(results[load]![name]!)
    const row = (load: string, name: string, what: string, unit: string) => {
      const value = avg(load, name)
      const baselineValue = avg(load, "direct")
      return {
        name: `${what}: ${name} vs direct`,
        value: Number(value.toFixed(0)),
        unit,
        baseline: "direct connections, named statements",
        baselineValue: Number(baselineValue.toFixed(0)),
        ratio: Number((value / baselineValue).toFixed(4)),
        goal: null,
        met: null
      }
    }
    const rows = [
      row("account", "direct, unnamed", "GET /v1/account (cached)", "req/s"),
      row("account", "PgBouncer", "GET /v1/account (cached)", "req/s"),
      row("signals", "direct, unnamed", "call signals, batches of 100", "signals/s"),
      row("signals", "PgBouncer", "call signals, batches of 100", "signals/s")
    ]
    console.log("")
    for (const r of rows) console.log(`   ${r.name.padEnd(52)} ${fmt(r.value).padStart(8)} ${r.unit} (direct ${fmt(r.baselineValue)}): ratio ${r.ratio.toFixed(3)}`)
    console.log(JSON.stringify({ bench: "pgbouncer", backend: "postgres", results: rows }))
    return 0
  } catch (e) {
    console.error(e instanceof BenchFailure ? `bench:pgbouncer failed: ${e.message}` : e)
    return 1
  } finally {
    for (const s of setups) await s.server.close().catch(() => undefined)
    await Effect.runPromise(Scope.close(scope, Exit.void))
    await bouncer?.stop()
  }
}

runBench("pgbouncer", main)
