/**
 * Start-up time and memory of the standalone server: the real CLI
 * (`switchboard serve`, the bin `npm start` runs) in a child process on a fresh DATA_DIR (PGlite) or
 * a scratch database (PostgreSQL), timed from spawn to the first 200 of `GET /v1/account` with the
 * bootstrap service key; then stopped (SIGTERM) and started again on the same data for the later
 * start. RSS of the server process from /proc after the first 200 and after BENCH_SECONDS idle.
 * Baseline in the same run: a `node -e` process with a trivial node:http server, spawn to first 200.
 *
 *   npx tsx bench/startup.ts                                  # PGlite, ~1 minute
 *   BENCH_BACKEND=postgres npx tsx bench/startup.ts           # a scratch database on DATABASE_URL
 *
 * BENCH_SECONDS (default 3): idle seconds before the second RSS reading. BENCH_ROUNDS (default 1):
 * rounds (each on a fresh data directory), medians reported.
 * Each round uses a new compile cache (SWITCHBOARD_CACHE_DIR, a temporary directory). First, as
 * `npm ci` does through the root package's `prepare`, `bin/prepare.js` builds the CLI bundle into it
 * (timed on its own row); the first start is then the first `npm start` after `npm ci`: a fresh data
 * directory, the bundle built. A first start on an empty cache (nothing prepared) and one with the
 * cache fully warm (the embedded database's cluster template too) are reported beside it.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { request } from "node:http"
import { createServer } from "node:net"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import Pg from "pg"
import { backendFromEnv, BenchFailure, fmt, positiveInt } from "./lib.js"

const BENCH = "startup"
const BACKEND = backendFromEnv(BENCH)
const IDLE_SECONDS = positiveInt(BENCH, "BENCH_SECONDS", 3)
const ROUNDS = positiveInt(BENCH, "BENCH_ROUNDS", 1)
const START_TIMEOUT_MS = 180_000

const bin = join(import.meta.dirname, "..", "packages", "http-adapter", "bin", "switchboard.js")

const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const s = createServer()
    s.once("error", reject)
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as AddressInfo).port
      s.close(() => resolve(port))
    })
  })

/** The status of one GET (no keep-alive), or undefined when the connection failed. */
const get = (port: number, path: string, headers: Record<string, string> = {}) =>
  new Promise<number | undefined>((resolve) => {
    const req = request({ host: "127.0.0.1", port, path, headers, agent: false }, (res) => {
      res.resume()
      res.on("end", () => resolve(res.statusCode))
      res.on("error", () => resolve(undefined))
    })
    req.on("error", () => resolve(undefined))
    req.setTimeout(30_000, () => req.destroy())
    req.end()
  })

const procStatus = (pid: number) => {
  const text = readFileSync(`/proc/${pid}/status`, "utf8")
  const kb = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(text)?.[1] ?? NaN)
  return { rssMiB: kb("VmRSS") / 1024, hwmMiB: kb("VmHWM") / 1024 }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

interface Started {
  readonly child: ChildProcess
  readonly output: () => string
  readonly exited: Promise<number | null>
  /** Spawn to the first 200 (ms). */
  readonly firstOkMs: number
  /** Spawn to the "listening" line (ms), if printed. */
  readonly listeningMs: number | undefined
  readonly serviceKey: string
  readonly rssAfterStart: { rssMiB: number; hwmMiB: number }
}

/**
 * Spawns `command` and polls `GET path` (with the bootstrap key once known, or `key`) until a 200.
 * `keyFromOutput`: read the key from the bootstrap line of the output.
 */
const startAndWait = async (options: {
  readonly args: ReadonlyArray<string>
  readonly env: Record<string, string>
  readonly port: number
  readonly path: string
  readonly key?: string
  readonly keyFromOutput?: boolean
}): Promise<Started> => {
  const t0 = performance.now()
  const child = spawn(process.execPath, options.args, { env: options.env, stdio: ["ignore", "pipe", "pipe"] })
  let out = ""
  let listeningMs: number | undefined
  child.stdout!.on("data", (d) => {
    out += d
    if (listeningMs === undefined && out.includes("listening on")) listeningMs = performance.now() - t0
  })
  child.stderr!.on("data", (d) => (out += d))
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)))
  let key = options.key
  for (;;) {
    if (child.exitCode !== null) throw new BenchFailure(`the process exited (${child.exitCode}) before answering 200:\n${out}`)
    if (performance.now() - t0 > START_TIMEOUT_MS) {
      child.kill("SIGKILL")
      throw new BenchFailure(`no 200 within ${START_TIMEOUT_MS / 1000} s:\n${out}`)
    }
    if (key === undefined && options.keyFromOutput) {
      const line = out.split("\n").find((l) => l.startsWith("{\"bootstrap\""))
      if (line !== undefined) key = (JSON.parse(line) as { bootstrap: { serviceKey: string } }).bootstrap.serviceKey
    }
    if (key !== undefined || !options.keyFromOutput) {
      const status = await get(options.port, options.path, key === undefined ? {} : { authorization: `Bearer ${key}` })
      if (status === 200) break
      if (status !== undefined && status !== 503) {
        child.kill("SIGKILL")
        throw new BenchFailure(`GET ${options.path} answered ${status}:\n${out}`)
      }
    }
    await sleep(10)
  }
  const firstOkMs = performance.now() - t0
  return { child, output: () => out, exited, firstOkMs, listeningMs, serviceKey: key ?? "", rssAfterStart: procStatus(child.pid!) }
}

const stop = async (s: Started) => {
  s.child.kill("SIGTERM")
  const code = await s.exited
  if (code !== 0) throw new BenchFailure(`the server exited with ${code} after SIGTERM:\n${s.output()}`)
}

/** The floor: a Node process with a trivial node:http server, spawn to first 200. */
const baseline = async () => {
  const port = await freePort()
  const script = `require("node:http").createServer((q, s) => s.end("{}")).listen(${port}, "127.0.0.1")`
  const s = await startAndWait({ args: ["-e", script], env: { ...process.env as Record<string, string> }, port, path: "/" })
  await sleep(IDLE_SECONDS * 1000)
  const idle = procStatus(s.child.pid!)
  s.child.kill("SIGTERM")
  await s.exited
  return { firstOkMs: s.firstOkMs, rssMiB: idle.rssMiB }
}

const scratchDatabase = async () => {
  const name = `sb_bench_startup_${Date.now().toString(36)}_${Math.floor(Math.random() * 1e6)}`
  const admin = new Pg.Pool({ connectionString: process.env.DATABASE_URL!, max: 1 })
  await admin.query(`CREATE DATABASE ${name}`)
  await admin.end()
  const url = new URL(process.env.DATABASE_URL!)
  url.pathname = `/${name}`
  return {
    url: url.toString(),
    drop: async () => {
      const c = new Pg.Pool({ connectionString: process.env.DATABASE_URL!, max: 1 })
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      await c.end()
    }
  }
}

interface Round {
  readonly prepareMs: number
  readonly unpreparedFirstMs: number
  readonly coldFirstMs: number
  readonly coldListeningMs: number | undefined
  readonly warmFirstMs: number
  readonly laterMs: number
  readonly rssFirst: number
  readonly rssFirstIdle: number
  readonly hwmFirst: number
  readonly rssLater: number
  readonly rssLaterIdle: number
}

const round = async (n: number): Promise<Round> => {
  const cacheDir = mkdtempSync(join(tmpdir(), "switchboard-bench-cache-"))
  const dirs: Array<string> = []
  const drops: Array<() => Promise<void>> = []
  const envFor = async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "switchboard-bench-startup-"))
    dirs.push(dataDir)
    const env: Record<string, string> = {
      ...process.env as Record<string, string>,
      DATA_DIR: dataDir,
      HOST: "127.0.0.1",
      PORT: String(await freePort()),
      TLS_PORT: "0",
      SWITCHBOARD_CACHE_DIR: cacheDir
    }
    delete env.DATABASE_URL
    if (BACKEND === "postgres") {
      const db = await scratchDatabase()
      drops.push(db.drop)
      env.DATABASE_URL = db.url
    }
    return env
  }
  try {
    const serve = (env: Record<string, string>, key?: string) =>
      startAndWait({
        args: [bin, "serve"],
        env,
        port: Number(env.PORT),
        path: "/v1/account",
        ...(key === undefined ? { keyFromOutput: true } : { key })
      })
    // 0. What `npm ci` does: the root package's `prepare` builds the CLI bundle into the cache.
    const prepareStarted = performance.now()
    const prepared = spawnSync(process.execPath, [join(bin, "..", "prepare.js")], {
      env: { ...process.env, SWITCHBOARD_CACHE_DIR: cacheDir },
      encoding: "utf8"
    })
    const prepareMs = performance.now() - prepareStarted
    if (prepared.status !== 0 || !prepared.stdout.includes("CLI bundle ready")) {
      throw new BenchFailure(`prepare.js did not build the bundle: ${prepared.stdout}${prepared.stderr}`)
    }
    console.log(`   round ${n}: npm ci's prepare       ${fmt(prepareMs).padStart(6)} ms (the CLI bundle and the database template)`)
    // 1. The first start after `npm ci`: a fresh data directory, the bundle built.
    const env = await envFor()
    const first = await serve(env)
    await sleep(IDLE_SECONDS * 1000)
    const firstIdle = procStatus(first.child.pid!)
    await stop(first)
    console.log(`   round ${n}: first start          ${fmt(first.firstOkMs).padStart(6)} ms to first 200` +
      ` (listening line at ${first.listeningMs === undefined ? "?" : fmt(first.listeningMs)} ms),` +
      ` RSS ${fmt(first.rssAfterStart.rssMiB)} MiB, after ${IDLE_SECONDS} s idle ${fmt(firstIdle.rssMiB)} MiB, peak ${fmt(firstIdle.hwmMiB)} MiB`)
    // 2. The later start: the same data, the same key.
    const later = await serve(env, first.serviceKey)
    if (later.output().includes("{\"bootstrap\"")) throw new BenchFailure("the later start printed a bootstrap line again")
    await sleep(IDLE_SECONDS * 1000)
    const laterIdle = procStatus(later.child.pid!)
    await stop(later)
    console.log(`   round ${n}: later start          ${fmt(later.firstOkMs).padStart(6)} ms to first 200,` +
      ` RSS ${fmt(later.rssAfterStart.rssMiB)} MiB, after ${IDLE_SECONDS} s idle ${fmt(laterIdle.rssMiB)} MiB, peak ${fmt(laterIdle.hwmMiB)} MiB`)
    // 3. A first start on another fresh data directory, with the compile cache the first one left.
    const warm = await serve(await envFor())
    await stop(warm)
    console.log(`   round ${n}: first start (warm)   ${fmt(warm.firstOkMs).padStart(6)} ms to first 200 (fresh data, compile cache warm)`)
    // 4. A first start with nothing prepared: an empty cache (the CLI bundles its sources itself).
    const emptyCache = mkdtempSync(join(tmpdir(), "switchboard-bench-cache-"))
    dirs.push(emptyCache)
    const unprepared = await serve({ ...(await envFor()), SWITCHBOARD_CACHE_DIR: emptyCache })
    await stop(unprepared)
    console.log(`   round ${n}: first start (no prepare) ${fmt(unprepared.firstOkMs).padStart(6)} ms to first 200 (empty compile cache)`)
    return {
      prepareMs,
      unpreparedFirstMs: unprepared.firstOkMs,
      coldFirstMs: first.firstOkMs,
      coldListeningMs: first.listeningMs,
      warmFirstMs: warm.firstOkMs,
      laterMs: later.firstOkMs,
      rssFirst: first.rssAfterStart.rssMiB,
      rssFirstIdle: firstIdle.rssMiB,
      hwmFirst: firstIdle.hwmMiB,
      rssLater: later.rssAfterStart.rssMiB,
      rssLaterIdle: laterIdle.rssMiB
    }
  } finally {
    for (const d of [...dirs, cacheDir]) rmSync(d, { recursive: true, force: true })
    for (const drop of drops) await drop().catch(() => undefined)
  }
}

const median = (xs: ReadonlyArray<number>) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 === 1 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2
}

const main = async () => {
  console.log(`bench:startup — switchboard serve on ${BACKEND === "pglite" ? "PGlite (fresh DATA_DIR)" : "PostgreSQL (scratch database)"}, ${ROUNDS} round(s)`)
  const base = await baseline()
  console.log(`   baseline: node -e node:http   ${fmt(base.firstOkMs).padStart(6)} ms to first 200, RSS ${fmt(base.rssMiB)} MiB`)
  const rounds: Array<Round> = []
  for (let i = 1; i <= ROUNDS; i++) rounds.push(await round(i))
  const base2 = await baseline()
  console.log(`   baseline: node -e node:http   ${fmt(base2.firstOkMs).padStart(6)} ms to first 200, RSS ${fmt(base2.rssMiB)} MiB`)
  const baseMs = (base.firstOkMs + base2.firstOkMs) / 2
  const baseRss = (base.rssMiB + base2.rssMiB) / 2
  const m = (f: (r: Round) => number) => median(rounds.map(f))
  const rssGoal = BACKEND === "pglite" ? 400 : 200
  const timeRow = (name: string, ms: number, goalMs: number | null) => ({
    name,
    value: Number((ms / 1000).toFixed(2)),
    unit: "s",
    baseline: "node -e node:http server, spawn to first 200",
    baselineValue: Number((baseMs / 1000).toFixed(3)),
    ratio: Number((ms / baseMs).toFixed(1)),
    goal: goalMs === null ? null : `< ${fmt(goalMs / 1000, 1)} s`,
    met: goalMs === null ? null : ms < goalMs
  })
  const rssRow = (name: string, mib: number, goal: boolean) => ({
    name,
    value: Math.round(mib),
    unit: "MiB",
    baseline: "node -e node:http server RSS",
    baselineValue: Math.round(baseRss),
    ratio: Number((mib / baseRss).toFixed(1)),
    goal: goal ? `< ${rssGoal} MB` : null,
    met: goal ? mib * 1.048576 < rssGoal : null
  })
  const results = [
    timeRow("npm ci's prepare (CLI bundle, database template)", m((r) => r.prepareMs), null),
    timeRow("first start to first 200 (after npm ci)", m((r) => r.coldFirstMs), 5000),
    timeRow("first start to first 200, nothing prepared", m((r) => r.unpreparedFirstMs), null),
    timeRow("first start to first 200, compile cache warm", m((r) => r.warmFirstMs), null),
    timeRow("later start", m((r) => r.laterMs), 1500),
    rssRow("RSS after start", Math.max(m((r) => r.rssFirstIdle), m((r) => r.rssLaterIdle)), true),
    rssRow(`RSS after first start, ${IDLE_SECONDS} s idle`, m((r) => r.rssFirstIdle), false),
    rssRow(`RSS after later start, ${IDLE_SECONDS} s idle`, m((r) => r.rssLaterIdle), false),
    rssRow("peak RSS of the first start", m((r) => r.hwmFirst), false)
  ]
  console.log("")
  for (const r of results) {
    console.log(`   ${r.name.padEnd(48)} ${String(r.value).padStart(7)} ${r.unit.padEnd(4)} ratio ${String(r.ratio).padStart(5)}` +
      `${r.goal === null ? "" : `   goal ${r.goal}: ${r.met ? "met" : "NOT met"}`}`)
  }
  console.log("")
  console.log(JSON.stringify({ bench: BENCH, backend: BACKEND, results }))
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e instanceof BenchFailure ? `bench:startup failed: ${e.message}` : e)
    process.exit(1)
  }
)
