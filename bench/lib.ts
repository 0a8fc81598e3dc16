/**
 * What every bench shares: its settings from the environment, number formatting, a loopback
 * baseline server, autocannon runs that abort on any failure, warm-up then A B A B rounds, setup
 * calls to the real server's API, and the process's exit code.
 */
import autocannon from "autocannon"
import { readdirSync, readFileSync } from "node:fs"
import type { Server } from "node:http"
import type { AddressInfo } from "node:net"
import type { TestServer } from "../packages/http-adapter/test/support/TestServer.js"

/** One row of a bench's JSON summary (its last stdout line), as `npm run bench` (bench/all.ts) reads it. */
export interface ResultRow {
  readonly name: string
  readonly value: number
  readonly unit: string
  readonly baseline: string | null
  readonly baselineValue: number | null
  readonly ratio: number | null
  readonly goal: string | null
  readonly met: boolean | null
}

/** A failed bench: its message is the whole report (no stack). */
export class BenchFailure extends Error {}

/** `process.env[name]` as a positive integer, `fallback` when unset; exits 2 on anything else. */
export const positiveInt = (bench: string, name: string, fallback: number): number => {
  const raw = process.env[name]
  if (raw === undefined || raw === "") return fallback
  const n = Number(raw)
  if (!Number.isInteger(n) || n < 1) {
    console.error(`bench:${bench}: ${name} must be a positive integer, got ${JSON.stringify(raw)}`)
    process.exit(2)
  }
  return n
}

/** `BENCH_BACKEND`: `postgres` runs Switchboard on the PostgreSQL of DATABASE_URL (a scratch database) instead of PGlite. */
export const backendFromEnv = (bench: string): "pglite" | "postgres" => {
  const backend = process.env.BENCH_BACKEND === "postgres" ? "postgres" : "pglite"
  if (backend === "postgres" && !process.env.DATABASE_URL) {
    console.error(`bench:${bench}: BENCH_BACKEND=postgres needs DATABASE_URL`)
    process.exit(2)
  }
  return backend
}

export const mean = (xs: ReadonlyArray<number>) => xs.reduce((a, b) => a + b, 0) / Math.max(xs.length, 1)
export const fmt = (n: number, digits = 0) => n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits })

// ---------------------------------------------------------------------------------------------
// Baseline servers.

/** Starts `server` on a free loopback port. */
export const listenLocal = (server: Server): Promise<{ origin: string; port: number }> =>
  new Promise((resolve, reject) => {
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo
      resolve({ origin: `http://127.0.0.1:${port}`, port })
    })
  })

/** Closes `server` and every connection it holds. */
export const closeServer = (server: Server): Promise<void> =>
  new Promise((resolve) => {
    server.closeAllConnections()
    server.close(() => resolve())
  })

// ---------------------------------------------------------------------------------------------
// Measuring.

export interface AutocannonRun {
  readonly rps: number
  readonly p50: number
  readonly p99: number
  readonly max: number
  readonly requests: number
}

/**
 * One autocannon run in a worker thread (so the load generator does not share the servers' event
 * loop). Any non-2xx response, connection error, timeout or body mismatch throws a BenchFailure
 * naming `label`.
 */
export const autocannonRun = async (label: string, options: {
  readonly url: string
  readonly method: "GET" | "POST"
  readonly headers: Record<string, string>
  readonly body?: string
  readonly connections: number
  readonly seconds: number
}): Promise<AutocannonRun> => {
  const result = await autocannon({
    url: options.url,
    method: options.method,
    headers: options.headers,
    ...(options.body === undefined ? {} : { body: options.body }),
    connections: options.connections,
    pipelining: 1,
    duration: options.seconds,
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
  if (problems.length > 0) throw new BenchFailure(`${label}: ${problems.join("; ")}`)
  return {
    rps: result.requests.total / result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    max: result.latency.max,
    requests: result.requests.total
  }
}

/**
 * One warm-up run per target (`warmupSeconds`, not counted), then `rounds` rounds over every
 * target in order (A B A B) of `seconds` each; `onRun` sees each measured run as it ends. Returns
 * the measured runs by target name.
 */
export const alternateRounds = async <T extends { readonly name: string }, R>(options: {
  readonly targets: ReadonlyArray<T>
  readonly warmupSeconds: number
  readonly seconds: number
  readonly rounds: number
  readonly run: (target: T, seconds: number, label: string) => Promise<R>
  readonly onRun: (round: number, target: T, result: R) => void
}): Promise<Map<string, Array<R>>> => {
  for (const t of options.targets) await options.run(t, options.warmupSeconds, "warm-up")
  const runs = new Map<string, Array<R>>(options.targets.map((t) => [t.name, []]))
  for (let round = 1; round <= options.rounds; round++) {
    for (const t of options.targets) {
      const r = await options.run(t, options.seconds, `run ${round}`)
      runs.get(t.name)?.push(r)
      options.onRun(round, t, r)
    }
  }
  return runs
}

// ---------------------------------------------------------------------------------------------
// Setup through the real server's API.

/** A JSON request to `server` with its service key (or `key`); anything but 2xx throws a BenchFailure. */
export const apiClient = (server: TestServer) =>
  async (method: string, path: string, body: unknown, key = server.serviceKey): Promise<Record<string, any>> => {
    const res = await fetch(`${server.baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json", "idempotency-key": `bench-${path}-${Date.now()}-${Math.random()}` },
      body: JSON.stringify(body)
    })
    if (res.status >= 300) throw new BenchFailure(`setup ${method} ${path}: ${res.status} ${await res.text()}`)
    return (await res.json()) as Record<string, any>
  }

/** An organization and a project (slug `<slugPrefix>-<time>`) created through the API of `server`. */
export const createProject = async (server: TestServer, slugPrefix = "bench") => {
  const send = apiClient(server)
  const org = await send("POST", "/v1/organizations", { name: "Bench" })
  const project = await send("POST", `/v1/organizations/${org.organizationId}/projects`, { name: "Bench", slug: `${slugPrefix}-${Date.now().toString(36)}` })
  return { send, organizationId: org.organizationId as string, projectId: project.projectId as string }
}

// ---------------------------------------------------------------------------------------------
// Exit.

/** What a failed bench prints after `FAILED:`: a BenchFailure's message, any other error's stack. */
export const failureText = (e: unknown) =>
  e instanceof BenchFailure ? e.message : e instanceof Error ? (e.stack ?? e.message) : String(e)

/**
 * Runs `main` and exits with its code; an error escaping it (`main` reports its own failures and
 * answers 1) is reported as a failure during shutdown, exit code 1.
 */
export const runBench = (bench: string, main: () => Promise<number>) =>
  main().then(
    (code) => process.exit(code),
    (e: unknown) => {
      console.error(`bench:${bench} FAILED during shutdown:`, e)
      process.exit(1)
    }
  )

/**
 * CPU time (µs) used so far by the PostgreSQL server on this machine, read from `/proc`: every
 * `postgres` process's own time plus the postmaster's reaped children (backends that exited).
 * Undefined where `/proc` shows no `postgres` process (PGlite, another machine). It counts every
 * client of that server, so other work on it shows up too: a loaded server's numbers are upper bounds.
 */
export const postgresCpuMicros = (): number | undefined => {
  let ticks = 0
  let found = false
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue
    let stat: string
    try {
      stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    } catch {
      continue
    }
    const close = stat.lastIndexOf(")")
    if (stat.slice(stat.indexOf("(") + 1, close) !== "postgres") continue
    found = true
    // Fields after the command: state is field 3; utime 14, stime 15, cutime 16, cstime 17.
    const f = stat.slice(close + 2).split(" ")
    ticks += Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])
  }
  return found ? (ticks * 1_000_000) / 100 : undefined
}
