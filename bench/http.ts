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
import autocannon from "autocannon"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { startTestServer, type TestServer } from "../packages/http-adapter/test/TestServer.js"

const positiveInt = (name: string, fallback: number): number => {
  const raw = process.env[name]
  if (raw === undefined || raw === "") return fallback
  const n = Number(raw)
  if (!Number.isInteger(n) || n < 1) {
    console.error(`bench:http: ${name} must be a positive integer, got ${JSON.stringify(raw)}`)
    process.exit(2)
  }
  return n
}

const SECONDS = positiveInt("BENCH_SECONDS", 10)
const CONNECTIONS = positiveInt("BENCH_CONNECTIONS", 10)
const WARMUP_SECONDS = 2
/** `postgres` runs Switchboard on the PostgreSQL of DATABASE_URL (a scratch database) instead of PGlite. */
const BACKEND = process.env.BENCH_BACKEND === "postgres" ? "postgres" : "pglite"
if (BACKEND === "postgres" && !process.env.DATABASE_URL) {
  console.error("bench:http: BENCH_BACKEND=postgres needs DATABASE_URL")
  process.exit(2)
}
const ROUNDS = 2

interface Target {
  readonly name: string
  readonly url: string
  readonly headers: Record<string, string>
}

interface Run {
  readonly rps: number
  readonly p50: number
  readonly p99: number
  readonly max: number
  readonly requests: number
}

class BenchFailure extends Error {}

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

const startBaseline = (keys: ReadonlyArray<string>): Promise<{ server: Server; url: string }> =>
  new Promise((resolve, reject) => {
    const expected = new Set(keys.map((k) => `Bearer ${k}`))
    const server = createServer((req, res) => {
      const ok = expected.has(req.headers["authorization"] ?? "")
      const body = ok ? baselineBody : unauthorizedBody
      res.writeHead(ok ? 200 : 401, { "content-type": "application/json", "content-length": body.length })
      res.end(body)
    })
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo
      resolve({ server, url: `http://127.0.0.1:${port}/v1/account` })
    })
  })

const closeServer = (server: Server): Promise<void> =>
  new Promise((resolve) => {
    server.closeAllConnections()
    server.close(() => resolve())
  })

// ---------------------------------------------------------------------------------------------
// Load.

const load = async (target: Target, seconds: number, label: string): Promise<Run> => {
  const result = await autocannon({
    url: target.url,
    method: "GET",
    headers: target.headers,
    connections: CONNECTIONS,
    pipelining: 1,
    duration: seconds,
    workers: 1,
    timeout: 10
  })
  const problems: Array<string> = []
  if (result.non2xx > 0) {
    const codes = Object.entries(result.statusCodeStats ?? {})
      .filter(([code]) => !code.startsWith("2"))
      .map(([code, s]) => `${code}×${s.count ?? 0}`)
      .join(", ")
    problems.push(`${result.non2xx} non-2xx responses (${codes})`)
  }
  if (result.errors > 0) problems.push(`${result.errors} connection errors (${result.timeouts} timeouts)`)
  if (result.mismatches > 0) problems.push(`${result.mismatches} body mismatches`)
  if (result["2xx"] === 0) problems.push("no successful responses at all")
  if (problems.length > 0) throw new BenchFailure(`${target.name} (${label}): ${problems.join("; ")}`)
  return {
    rps: result.requests.total / result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    max: result.latency.max,
    requests: result.requests.total
  }
}

const mean = (xs: ReadonlyArray<number>) => xs.reduce((a, b) => a + b, 0) / Math.max(xs.length, 1)
const fmt = (n: number, digits = 0) => n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits })

// ---------------------------------------------------------------------------------------------

/** Creates an organization, a project and a project API key on `server`; returns the project's URL and the key. */
const projectFixture = async (server: TestServer) => {
  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${server.baseUrl}${path}`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${server.serviceKey}`,
        "content-type": "application/json",
        "idempotency-key": `bench-${path}-${Date.now()}`
      },
      body: JSON.stringify(body)
    })
    if (res.status >= 300) throw new BenchFailure(`setup ${path}: ${res.status} ${await res.text()}`)
    return (await res.json()) as Record<string, any>
  }
  const org = await post("/v1/organizations", { name: "Bench" })
  const project = await post(`/v1/organizations/${org.organizationId}/projects`, { name: "Bench", slug: `bench-${Date.now().toString(36)}` })
  const key = await post(`/v1/projects/${project.projectId}/api-keys`, { name: "bench", permissions: ["project:read"] })
  return { url: `${server.baseUrl}/v1/projects/${project.projectId}`, key: key.secret as string }
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
    for (const t of targets) await load(t, WARMUP_SECONDS, "warm-up")

    const runs = new Map<string, Array<Run>>(targets.map((t) => [t.name, []]))
    for (let round = 1; round <= ROUNDS; round++) {
      for (const t of targets) {
        const r = await load(t, SECONDS, `run ${round}`)
        runs.get(t.name)?.push(r)
        console.log(`  run ${round} ${t.name.padEnd(width)} ${fmt(r.rps).padStart(7)} req/s  p50 ${r.p50} ms  p99 ${r.p99} ms  max ${r.max} ms  (${fmt(r.requests)} requests)`)
      }
    }
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
    console.error(`bench:http FAILED: ${e instanceof BenchFailure ? e.message : e instanceof Error ? (e.stack ?? e.message) : String(e)}`)
    return 1
  } finally {
    if (baseline !== undefined) await closeServer(baseline)
    for (const server of servers) await server.close()
  }
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    console.error("bench:http FAILED during shutdown:", e)
    process.exit(1)
  }
)
