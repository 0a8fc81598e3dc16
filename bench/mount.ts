/**
 * Mounted against standalone: cached `GET /v1/account` (service key, credential cache on) served
 * by `mountSwitchboard`'s Node listener in a plain `node:http` server under `/switchboard`, and by
 * the standalone server (as the test harness starts it), on the same store kind, in the same run.
 *
 *   npx tsx bench/mount.ts            # or: npm run bench:mount
 *   BENCH_SECONDS=5 npx tsx bench/mount.ts
 *
 * Environment:
 *   BENCH_SECONDS      length of each measured run in seconds (default 10)
 *   BENCH_CONNECTIONS  concurrent connections (default 10)
 *   BENCH_BACKEND      pglite (default) or postgres (uses DATABASE_URL): each server gets its own
 *                      fresh database of that kind
 *
 * Sequence: one 2 s warm-up per target (not counted), then A B A B measured runs, the load
 * (autocannon) in a child process; requests/second is the mean over the runs of each target. The
 * ratio is mounted / standalone (the goal: within 10 %). The load average is printed with it: a
 * busy machine skews both. Any non-2xx response aborts with exit code 1; no speed thresholds.
 */
import { mountSwitchboard, type MountedSwitchboard } from "@switchboard/http-adapter/mount"
import { testStore } from "@switchboard/sql-adapter"
import { createServer, type Server } from "node:http"
import { loadavg } from "node:os"
import { startTestServer, type TestServer } from "../packages/http-adapter/test/support/TestServer.js"
import { alternateRounds, backendFromEnv, BenchFailure, closeServer, failureText, fmt, listenLocal, mean, positiveInt, runBench } from "./lib.js"
import { type LoadResult, loadInChild } from "./load.js"

const SECONDS = positiveInt("mount", "BENCH_SECONDS", 10)
const CONNECTIONS = positiveInt("mount", "BENCH_CONNECTIONS", 10)
const WARMUP_SECONDS = 2
const BACKEND = backendFromEnv("mount")
const ROUNDS = 2

interface Target {
  readonly name: string
  readonly url: string
  readonly headers: Record<string, string>
}

interface Run extends LoadResult {
  readonly cpuUs: number
}

const load = async (target: Target, seconds: number, label: string): Promise<Run> => {
  const cpu = process.cpuUsage()
  const r = await loadInChild({ label: `${target.name} (${label})`, url: target.url, headers: target.headers, connections: CONNECTIONS, seconds })
  const used = process.cpuUsage(cpu)
  return { ...r, cpuUs: (used.user + used.system) / Math.max(r.requests, 1) }
}

const main = async (): Promise<number> => {
  const t0 = Date.now()
  let standalone: TestServer | undefined
  let mounted: MountedSwitchboard | undefined
  let host: Server | undefined
  try {
    // A quota no run reaches: the limiter's cost stays in the measurement, its refusals out of it.
    const quota = { rateLimitQuota: 100_000_000 }
    standalone = await startTestServer(BACKEND, quota)
    // The host: its own route, and Switchboard under /switchboard for everything else.
    host = createServer((req, res) => {
      if (req.url === "/hello") return void res.end("hello")
      mounted!.listener(req, res, () => {
        res.writeHead(404)
        res.end()
      })
    })
    const { origin } = await listenLocal(host)
    mounted = await mountSwitchboard({
      surfaces: ["v1"],
      basePath: "/switchboard",
      store: testStore(BACKEND),
      secretKey: "bench-secret-key-bench-secret-key-0123456789",
      publicUrl: origin,
      bootstrap: { email: "bench@example.com" },
      settings: quota
    })
    const bearer = (key: string) => ({ authorization: `Bearer ${key}` })
    const targets: ReadonlyArray<Target> = [
      { name: "standalone", url: `${standalone.baseUrl}/v1/account`, headers: bearer(standalone.serviceKey) },
      { name: "mounted", url: `${origin}/switchboard/v1/account`, headers: bearer(mounted.bootstrap!.serviceKey) }
    ]
    for (const t of targets) {
      const good = await fetch(t.url, { headers: t.headers })
      const bytes = (await good.arrayBuffer()).byteLength
      const bad = await fetch(t.url)
      await bad.arrayBuffer()
      if (good.status !== 200 || bad.status !== 401) {
        throw new BenchFailure(`${t.name}: expected 200 with key / 401 without, got ${good.status} / ${bad.status}`)
      }
      console.log(`${t.name.padEnd(11)} ${t.url}  (200 body ${bytes} B)`)
    }
    console.log(`startup ${fmt((Date.now() - t0) / 1000, 1)} s; backend ${BACKEND}; ${CONNECTIONS} connections, ${SECONDS} s per run, ` +
      `${WARMUP_SECONDS} s warm-up, ${ROUNDS} rounds; load from a child process; load average before ${loadavg().map((l) => l.toFixed(2)).join(" ")}`)
    const runs = await alternateRounds({
      targets,
      warmupSeconds: WARMUP_SECONDS,
      seconds: SECONDS,
      rounds: ROUNDS,
      run: load,
      onRun: (round, t, r) =>
        console.log(`  run ${round} ${t.name.padEnd(11)} ${fmt(r.rps).padStart(7)} req/s  ${fmt(r.cpuUs).padStart(5)} µs CPU/req  p50 ${r.p50} ms  p99 ${r.p99} ms`)
    })
    const summary = targets.map((t) => {
      const rs = runs.get(t.name) ?? []
      return { name: t.name, rps: mean(rs.map((r) => r.rps)), cpuUs: mean(rs.map((r) => r.cpuUs)) }
    })
    const [base, mine] = summary
    if (base === undefined || mine === undefined || base.rps <= 0) throw new BenchFailure("no measurements")
    const ratio = mine.rps / base.rps
    const load1 = loadavg()
    console.log("")
    for (const x of summary) console.log(`${x.name.padEnd(11)} ${fmt(x.rps).padStart(7)} req/s  ${fmt(x.cpuUs).padStart(5)} µs CPU/req`)
    console.log(`mounted / standalone: ${ratio.toFixed(3)} (goal ≥ 0.9); load average after ${load1.map((l) => l.toFixed(2)).join(" ")}`)
    console.log(JSON.stringify({
      bench: "mount",
      backend: BACKEND,
      loadAverage: load1.map((l) => Number(l.toFixed(2))),
      results: [{
        name: "GET /v1/account mounted (node:http listener, /switchboard): vs standalone",
        value: Math.round(mine.rps),
        unit: "req/s",
        baseline: "standalone server",
        baselineValue: Math.round(base.rps),
        ratio: Number(ratio.toFixed(4)),
        goal: "≥ 0.9 of standalone",
        met: ratio >= 0.9
      }]
    }))
    return 0
  } catch (e) {
    console.error(`bench:mount FAILED: ${failureText(e)}`)
    return 1
  } finally {
    if (host !== undefined) await closeServer(host)
    if (mounted !== undefined) await mounted.dispose()
    if (standalone !== undefined) await standalone.close()
  }
}

runBench("mount", main)
