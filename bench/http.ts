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
 * Sequence: one 2 s warm-up per target (not counted), then A B A B measured runs; requests/second
 * is the mean over the two runs of each target. The load generator runs in an autocannon worker
 * thread so it does not share the servers' event loop. Any non-2xx response, connection error,
 * timeout or body mismatch aborts with exit code 1. There are no speed thresholds: the output is
 * a report, not a test.
 */
import { createServer, type Server } from "node:http"
import { startTestServer, type TestServer } from "../packages/http-adapter/test/TestServer.js"
import {
  alternateRounds,
  type AutocannonRun,
  autocannonRun,
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

const SECONDS = positiveInt("http", "BENCH_SECONDS", 10)
const CONNECTIONS = positiveInt("http", "BENCH_CONNECTIONS", 10)
const WARMUP_SECONDS = 2
const BACKEND = backendFromEnv("http")
const ROUNDS = 2

interface Target {
  readonly name: string
  readonly url: string
  readonly headers: Record<string, string>
}

// ---------------------------------------------------------------------------------------------
// Baseline: the least a server can do for the same request.

/** Same shape and size as the real `GET /v1/account` body (~305 bytes). */
const baselineBody = Buffer.from(JSON.stringify({
  accountId: "sb_acc_01m7zvmfstebk8t92zkmkz70qg",
  createdAt: "2026-01-01T00:00:00.000Z",
  deletedAt: null,
  email: "admin@example.com",
  firstName: null,
  lastName: null,
  phoneNumber: null,
  phoneVerifiedAt: null,
  pictureUrl: "http://127.0.0.1/assets/default-avatar.svg",
  updatedAt: "2026-01-01T00:00:00.000Z"
}))
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

const load = (target: Target, seconds: number, label: string): Promise<AutocannonRun> =>
  autocannonRun(`${target.name} (${label})`, { url: target.url, method: "GET", headers: target.headers, connections: CONNECTIONS, seconds })

// ---------------------------------------------------------------------------------------------

/** Creates an organization, a project and a project API key on `server`; returns the project's URL and the key. */
const projectFixture = async (server: TestServer) => {
  const { projectId, send } = await createProject(server)
  const key = await send("POST", `/v1/projects/${projectId}/api-keys`, { name: "bench", permissions: ["project:read"] })
  return { url: `${server.baseUrl}/v1/projects/${projectId}`, key: key.secret as string }
}

const main = async (): Promise<number> => {
  const t0 = Date.now()
  const servers: Array<TestServer> = []
  let baseline: Server | undefined
  try {
    // Two servers on their own databases: the default one (verified credentials cached for 30 s)
    // and one with the cache off, so "before and after the cache" are measured in the same run.
    const cached = await startTestServer(BACKEND)
    servers.push(cached)
    const uncached = await startTestServer(BACKEND, { credentialCacheSeconds: 0 })
    servers.push(uncached)
    const projectOn = await projectFixture(cached)
    const projectOff = await projectFixture(uncached)
    const keys = [cached.serviceKey, projectOn.key, projectOff.key]
    const base = await startBaseline(keys)
    baseline = base.server
    const bearer = (key: string) => ({ authorization: `Bearer ${key}` })
    const targets: ReadonlyArray<Target> = [
      { name: "account, service key", url: `${cached.baseUrl}/v1/account`, headers: bearer(cached.serviceKey) },
      { name: "project, API key, cache on", url: projectOn.url, headers: bearer(projectOn.key) },
      { name: "project, API key, cache off", url: projectOff.url, headers: bearer(projectOff.key) },
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
      `${WARMUP_SECONDS} s warm-up, ${ROUNDS} rounds over every target`)

    const memBefore = process.memoryUsage()
    const runs = await alternateRounds({
      targets,
      warmupSeconds: WARMUP_SECONDS,
      seconds: SECONDS,
      rounds: ROUNDS,
      run: load,
      onRun: (round, t, r) =>
        console.log(`  run ${round} ${t.name.padEnd(width)} ${fmt(r.rps).padStart(7)} req/s  p50 ${r.p50} ms  p99 ${r.p99} ms  max ${r.max} ms  (${fmt(r.requests)} requests)`)
    })
    const memAfter = process.memoryUsage()

    const summary = targets.map((t) => {
      const rs = runs.get(t.name) ?? []
      return {
        name: t.name,
        rps: mean(rs.map((r) => r.rps)),
        p50: mean(rs.map((r) => r.p50)),
        p99: mean(rs.map((r) => r.p99)),
        max: Math.max(...rs.map((r) => r.max))
      }
    })
    const bl = summary.find((x) => x.name === "baseline")
    if (bl === undefined || bl.rps <= 0) throw new BenchFailure("no measurements")

    console.log("")
    const ratios: Record<string, number> = {}
    for (const x of summary) {
      const ratio = x.rps / bl.rps
      if (x !== bl) ratios[x.name] = Number(ratio.toFixed(4))
      const note = x === bl ? "" : `  ratio ${ratio >= 0.1 ? ratio.toFixed(2) : ratio.toPrecision(2)} (${fmt(1 / ratio, 1)}x slower than raw node:http)`
      console.log(`${x.name.padEnd(width)} ${fmt(x.rps).padStart(7)} req/s  p50 ${fmt(x.p50, 1)} ms  p99 ${fmt(x.p99, 1)} ms  max ${x.max} ms${note}`)
    }
    const on = summary.find((x) => x.name === "project, API key, cache on")
    const off = summary.find((x) => x.name === "project, API key, cache off")
    if (on !== undefined && off !== undefined && off.rps > 0) {
      console.log(`credential cache: project reads ${fmt(on.rps / off.rps, 2)}x the throughput with the cache on`)
    }
    console.log(`memory rss ${fmt(memBefore.rss / 2 ** 20)} → ${fmt(memAfter.rss / 2 ** 20)} MiB, heap ` +
      `${fmt(memBefore.heapUsed / 2 ** 20)} → ${fmt(memAfter.heapUsed / 2 ** 20)} MiB; total ${fmt((Date.now() - t0) / 1000, 1)} s`)
    console.log(JSON.stringify({
      bench: "http",
      backend: BACKEND,
      baselineRps: Math.round(bl.rps),
      rps: Object.fromEntries(summary.map((x) => [x.name, Math.round(x.rps)])),
      ratios
    }))
    return 0
  } catch (e) {
    console.error(`bench:http FAILED: ${failureText(e)}`)
    return 1
  } finally {
    if (baseline !== undefined) await closeServer(baseline)
    for (const server of servers) await server.close()
  }
}

runBench("http", main)
