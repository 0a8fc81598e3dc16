/**
 * HTTP throughput benchmark: the real Switchboard server (embedded PGlite, in-process, exactly as
 * the test harness starts it) against a raw `node:http` handler doing the same trivial job (check a
 * bearer key, answer ~300 bytes of JSON). Both answer `GET /v1/account`.
 *
 *   npx tsx bench/http.ts            # or: npm run bench:http
 *   BENCH_SECONDS=5 npx tsx bench/http.ts
 *
 * Environment:
 *   BENCH_SECONDS      length of each measured run in seconds (default 10)
 *   BENCH_CONNECTIONS  concurrent connections (default 10)
 *   BENCH_BACKEND      pglite (default) or postgres (uses DATABASE_URL)
 *
 * Targets: `GET /v1/account` (service key), `GET /v1/projects/{id}` (project API key) with the
 * credential cache on and off, the framework's floor (a bare HttpApi hello world with bearer
 * security, bench/floor.ts) and a raw `node:http` handler. Sequence: one 2 s warm-up per target
 * (not counted), then A B A B measured runs; requests/second is the mean over the two runs of each
 * target. The load generator (autocannon) runs in a child process, so this process's CPU time
 * during a run is the server's cost: it is reported as CPU µs per request, and for Switchboard's
 * targets broken down by stage from a sampling profile of one extra run (bench/stages.ts). Any non-2xx response, connection error,
 * timeout or body mismatch aborts with exit code 1. There are no speed thresholds: the output is
 * a report, not a test.
 */
import { createServer, type Server } from "node:http"
import { startTestServer, type TestServer } from "../packages/http-adapter/test/support/TestServer.js"
import { account, startFloor } from "./floor.js"
import {
  alternateRounds,
  backendFromEnv,
  BenchFailure,
  closeServer,
  createProject,
  failureText,
  fmt,
  listenLocal,
  mean,
  positiveInt,
  runBench
} from "./lib.js"
import { type LoadResult, loadInChild } from "./load.js"
import { type Stage, startStageProfile } from "./stages.js"

const SECONDS = positiveInt("http", "BENCH_SECONDS", 10)
const CONNECTIONS = positiveInt("http", "BENCH_CONNECTIONS", 10)
const WARMUP_SECONDS = 2
const BACKEND = backendFromEnv("http")
const ROUNDS = 2

interface Target {
  readonly name: string
  readonly url: string
  readonly headers: Record<string, string>
  /** Switchboard targets get a CPU profile by stage. */
  readonly stages?: boolean
}

interface Run extends LoadResult {
  /** CPU time of this process (the servers; the load runs in a child process) per request. */
  readonly cpuUs: number
}

// ---------------------------------------------------------------------------------------------
// Baseline: the least a server can do for the same request.

const baselineBody = Buffer.from(JSON.stringify(account))
const unauthorizedBody = Buffer.from(JSON.stringify({ code: "NOT_AUTHENTICATED", status: 401 }))

const startBaseline = async (keys: ReadonlyArray<string>): Promise<{ server: Server; url: string }> => {
  const expected = new Set(keys.map((k) => `Bearer ${k}`))
  const server = createServer((req, res) => {
    const ok = expected.has(req.headers["authorization"] ?? "")
    const body = ok ? baselineBody : unauthorizedBody
    res.writeHead(ok ? 200 : 401, { "content-type": "application/json", "content-length": body.length })
    res.end(body)
  })
  const { origin } = await listenLocal(server)
  return { server, url: `${origin}/v1/account` }
}

// ---------------------------------------------------------------------------------------------
// Load.

const load = async (target: Target, seconds: number, label: string): Promise<Run> => {
  const cpu = process.cpuUsage()
  const r = await loadInChild({ label: `${target.name} (${label})`, url: target.url, headers: target.headers, connections: CONNECTIONS, seconds })
  const used = process.cpuUsage(cpu)
  return { ...r, cpuUs: (used.user + used.system) / Math.max(r.requests, 1) }
}

// ---------------------------------------------------------------------------------------------

/** Creates an organization, a project and a project API key on `server`; returns the project's URL and the key. */
const projectFixture = async (server: TestServer) => {
  const { projectId, send } = await createProject(server)
  const key = await send("POST", `/v1/projects/${projectId}/api-keys`, { name: "bench", permissions: ["project:read"] })
  return { url: `${server.baseUrl}/v1/projects/${projectId}`, key: key.secret as string }
}

const STAGES: ReadonlyArray<Stage> = ["middleware", "auth", "handler", "SQL client", "encode/decode", "Effect runtime", "HTTP (Node + platform)", "GC", "other"]

const main = async (): Promise<number> => {
  const t0 = Date.now()
  const servers: Array<TestServer> = []
  let baseline: Server | undefined
  let floor: { close: () => Promise<void> } | undefined
  try {
    // Two servers on their own databases: the default one (verified credentials cached for 30 s)
    // and one with the cache off, so "before and after the cache" are measured in the same run.
    // A quota no run reaches (a 10 s run at 11 000 req/s would pass the tests' 100 000 per window):
    // the limiter's cost stays in the measurement, its refusals out of it.
    const quota = { rateLimitQuota: 100_000_000 }
    const cached = await startTestServer(BACKEND, quota)
    servers.push(cached)
    const uncached = await startTestServer(BACKEND, { ...quota, credentialCacheSeconds: 0 })
    servers.push(uncached)
    const projectOn = await projectFixture(cached)
    const projectOff = await projectFixture(uncached)
    const keys = [cached.serviceKey, projectOn.key, projectOff.key]
    const base = await startBaseline(keys)
    baseline = base.server
    const hello = await startFloor(keys)
    floor = hello
    const bearer = (key: string) => ({ authorization: `Bearer ${key}` })
    const targets: ReadonlyArray<Target> = [
      { name: "account, service key", url: `${cached.baseUrl}/v1/account`, headers: bearer(cached.serviceKey), stages: true },
      { name: "project, API key, cache on", url: projectOn.url, headers: bearer(projectOn.key), stages: true },
      { name: "project, API key, cache off", url: projectOff.url, headers: bearer(projectOff.key) },
      { name: "HttpApi floor", url: hello.url, headers: bearer(cached.serviceKey) },
      { name: "baseline", url: base.url, headers: bearer(cached.serviceKey) }
    ]
    const width = Math.max(...targets.map((t) => t.name.length)) + 1

    // Sanity: all answer 200 with the key and 401 without, before any load.
    for (const t of targets) {
      const good = await fetch(t.url, { headers: t.headers })
      const bodyBytes = (await good.arrayBuffer()).byteLength
      const bad = await fetch(t.url)
      await bad.arrayBuffer()
      if (good.status !== 200 || bad.status !== 401) {
        throw new BenchFailure(`${t.name}: expected 200 with key / 401 without, got ${good.status} / ${bad.status}`)
      }
      console.log(`${t.name.padEnd(width)} ${t.url}  (200 body ${bodyBytes} B)`)
    }
    console.log(`startup ${fmt((Date.now() - t0) / 1000, 1)} s; backend ${BACKEND}; ${CONNECTIONS} connections, ${SECONDS} s per run, ` +
      `${WARMUP_SECONDS} s warm-up, ${ROUNDS} rounds over every target; load from a child process`)

    const memBefore = process.memoryUsage()
    const runs = await alternateRounds({
      targets,
      warmupSeconds: WARMUP_SECONDS,
      seconds: SECONDS,
      rounds: ROUNDS,
      run: load,
      onRun: (round, t, r) =>
        console.log(`  run ${round} ${t.name.padEnd(width)} ${fmt(r.rps).padStart(7)} req/s  ${fmt(r.cpuUs).padStart(5)} µs CPU/req  p50 ${r.p50} ms  p99 ${r.p99} ms  (${fmt(r.requests)} requests)`)
    })
    const memAfter = process.memoryUsage()

    // One profiled run per Switchboard target: CPU per request by stage.
    const stages = new Map<string, Record<Stage, number>>()
    for (const t of targets.filter((x) => x.stages === true)) {
      const profile = await startStageProfile()
      await load(t, Math.max(2, Math.min(SECONDS, 3)), "profiled")
      stages.set(t.name, await profile.stop())
    }

    const summary = targets.map((t) => {
      const rs = runs.get(t.name) ?? []
      return { name: t.name, stages: t.stages === true, rps: mean(rs.map((r) => r.rps)), cpuUs: mean(rs.map((r) => r.cpuUs)), p50: mean(rs.map((r) => r.p50)), p99: mean(rs.map((r) => r.p99)) }
    })
    const bl = summary.find((x) => x.name === "baseline")
    const fl = summary.find((x) => x.name === "HttpApi floor")
    if (bl === undefined || bl.rps <= 0 || fl === undefined || fl.rps <= 0) throw new BenchFailure("no measurements")

    console.log("")
    for (const x of summary) {
      const ratios = x === bl ? "" : `  ratio ${(x.rps / bl.rps).toFixed(3)} of raw` + (x === fl ? "" : `, ${(x.rps / fl.rps).toFixed(2)} of the floor`)
      console.log(`${x.name.padEnd(width)} ${fmt(x.rps).padStart(7)} req/s  ${fmt(x.cpuUs).padStart(5)} µs CPU/req  p50 ${fmt(x.p50, 1)} ms  p99 ${fmt(x.p99, 1)} ms${ratios}`)
    }
    const on = summary.find((x) => x.name === "project, API key, cache on")
    const off = summary.find((x) => x.name === "project, API key, cache off")
    if (on !== undefined && off !== undefined && off.rps > 0) {
      console.log(`credential cache: project reads ${fmt(on.rps / off.rps, 2)}x the throughput with the cache on`)
    }
    console.log("\nCPU µs per request by stage (sampled during one extra run):")
    console.log(`${"".padEnd(width)} ${STAGES.map((s) => s.padStart(Math.max(8, s.length))).join(" ")}`)
    for (const [name, shares] of stages) {
      const cpu = summary.find((x) => x.name === name)?.cpuUs ?? 0
      console.log(`${name.padEnd(width)} ${STAGES.map((s) => fmt((shares[s] ?? 0) * cpu).padStart(Math.max(8, s.length))).join(" ")}`)
    }
    console.log(`memory rss ${fmt(memBefore.rss / 2 ** 20)} → ${fmt(memAfter.rss / 2 ** 20)} MiB, heap ` +
      `${fmt(memBefore.heapUsed / 2 ** 20)} → ${fmt(memAfter.heapUsed / 2 ** 20)} MiB; total ${fmt((Date.now() - t0) / 1000, 1)} s`)
    const goalRaw = BACKEND === "postgres" ? 0.1 : 0.07
    const results = summary.filter((x) => x !== bl).flatMap((x) => {
      const rows: Array<Record<string, unknown>> = [{
        name: `${x.name}: vs raw node:http`,
        value: Math.round(x.rps),
        unit: "req/s",
        baseline: "raw node:http",
        baselineValue: Math.round(bl.rps),
        ratio: Number((x.rps / bl.rps).toFixed(4)),
        goal: x.stages === true ? `≥ ${goalRaw} of raw` : null,
        met: x.stages === true ? x.rps / bl.rps >= goalRaw : null
      }]
      if (x !== fl) {
        rows.push({
          name: `${x.name}: vs the HttpApi floor`,
          value: Math.round(x.rps),
          unit: "req/s",
          baseline: "HttpApi hello world + bearer",
          baselineValue: Math.round(fl.rps),
          ratio: Number((x.rps / fl.rps).toFixed(4)),
          goal: x.stages === true ? "≥ 0.6 of the floor" : null,
          met: x.stages === true ? x.rps / fl.rps >= 0.6 : null
        })
      }
      rows.push({ name: `${x.name}: CPU per request`, value: Math.round(x.cpuUs), unit: "µs CPU/req", baseline: "raw node:http", baselineValue: Math.round(bl.cpuUs), ratio: Number((x.cpuUs / bl.cpuUs).toFixed(2)), goal: null, met: null })
      return rows
    })
    console.log(JSON.stringify({
      bench: "http",
      backend: BACKEND,
      results,
      stages: Object.fromEntries([...stages].map(([name, shares]) => {
        const cpu = summary.find((x) => x.name === name)?.cpuUs ?? 0
        return [name, Object.fromEntries(STAGES.map((s) => [s, Math.round((shares[s] ?? 0) * cpu)]))]
      }))
    }))
    return 0
  } catch (e) {
    console.error(`bench:http FAILED: ${failureText(e)}`)
    return 1
  } finally {
    if (baseline !== undefined) await closeServer(baseline)
    if (floor !== undefined) await floor.close()
    for (const server of servers) await server.close()
  }
}

runBench("http", main)
