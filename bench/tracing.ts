/**
 * What tracing costs a cached read: `GET /v1/account` (service key) on two real `switchboard serve`
 * processes on embedded databases, one without OpenTelemetry and one exporting traces, metrics and
 * logs over OTLP/HTTP to a local receiver started here (it accepts and counts every export), in the
 * same run — with OTLP's protobuf encoding (its default), with JSON, and with JSON and 10 % of the
 * traces sampled (OTEL_TRACES_SAMPLER=parentbased_traceidratio). Sequence: a 2 s warm-up per server
 * (not counted), then the four alternating
 * (`BENCH_ROUNDS` rounds of `BENCH_SECONDS` each). The load (autocannon) runs in a child process;
 * each server's CPU time is read from `/proc/<pid>/stat` around each run, so the report gives
 * requests/second and CPU µs per request for each, and the ratios to the untraced server (goal: tracing on costs at most
 * 10 % — a ratio of ≤ 1.10 in CPU per request). There are no thresholds: it is a report.
 *
 *   npx tsx bench/tracing.ts            # or: npm run bench:tracing
 *   BENCH_SECONDS=5 BENCH_ROUNDS=3 npx tsx bench/tracing.ts
 *
 * Environment: BENCH_SECONDS (default 10), BENCH_ROUNDS (default 2), BENCH_CONNECTIONS (default 10).
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { createServer } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { bootstrapOf, cliEnv, type Running, startServer, stopServer } from "../packages/http-adapter/test/support/CliProcess.js"
import { alternateRounds, BenchFailure, closeServer, failureText, fmt, listenLocal, mean, positiveInt, runBench } from "./lib.js"
import { type LoadResult, loadInChild } from "./load.js"

const SECONDS = positiveInt("tracing", "BENCH_SECONDS", 10)
const ROUNDS = positiveInt("tracing", "BENCH_ROUNDS", 2)
const CONNECTIONS = positiveInt("tracing", "BENCH_CONNECTIONS", 10)

/** CPU time (µs) of process `pid` so far, from /proc (user + system; clock ticks of 10 ms). */
const cpuMicrosOf = (pid: number): number => {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
  // Fields 14 and 15 of the line (utime, stime) are the 12th and 13th after the command.
  return (Number(fields[11]) + Number(fields[12])) * 10_000
}

interface Target {
  readonly name: "off" | "protobuf" | "json" | "json, 10 % sampled"
  readonly server: Running
  readonly key: string
}

interface Run extends LoadResult {
  readonly cpuUs: number
}

const label = (name: Target["name"]) => (name === "off" ? "tracing off" : `tracing on (${name})`)

const main = async (): Promise<number> => {
  if (process.platform !== "linux") {
    console.error("bench:tracing reads server CPU time from /proc: Linux only")
    return 1
  }
  // The collector: accepts every export (OTLP/HTTP, protobuf), counts bytes and posts.
  let exports = 0
  let exportedBytes = 0
  const collector = createServer((req, res) => {
    req.on("data", (d: Buffer) => (exportedBytes += d.length))
    req.on("end", () => {
      exports++
      res.writeHead(200, { "content-type": "application/x-protobuf" }).end()
    })
  })
  const { origin } = await listenLocal(collector)
  const dirs: Array<string> = []
  const servers: Array<Running> = []
  try {
    const start = async (name: Target["name"], vars: Record<string, string>): Promise<Target> => {
      const dir = mkdtempSync(join(tmpdir(), "sb-bench-tracing-"))
      dirs.push(dir)
      // No access log on either (the comparison is the tracing alone), and no rate limit in the way.
      const server = await startServer(cliEnv(dir, { ACCESS_LOG: "off", RATE_LIMIT_QUOTA: "1000000", RATE_LIMIT_WINDOW_SECONDS: "1", ...vars }), 120_000)
      servers.push(server)
      const key = bootstrapOf(server.output())?.serviceKey
      if (key === undefined) throw new BenchFailure(`${name}: no bootstrap key in the output`)
      return { name, server, key }
    }
    const otel = { OTEL_EXPORTER_OTLP_ENDPOINT: origin, OTEL_BSP_SCHEDULE_DELAY: "1000", OTEL_METRIC_EXPORT_INTERVAL: "5000" }
    const targets = [
      await start("off", {}),
      await start("protobuf", { ...otel, OTEL_EXPORTER_OTLP_PROTOCOL: "http/protobuf" }),
      await start("json", { ...otel, OTEL_EXPORTER_OTLP_PROTOCOL: "http/json" }),
      await start("json, 10 % sampled", {
        ...otel,
        OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
        OTEL_TRACES_SAMPLER: "parentbased_traceidratio",
        OTEL_TRACES_SAMPLER_ARG: "0.1"
      })
    ]
    console.log(`bench:tracing GET /v1/account, ${CONNECTIONS} connections, ${ROUNDS} rounds of ${SECONDS} s per server (OTLP to ${origin})`)
    const runs = await alternateRounds<Target, Run>({
      targets,
      warmupSeconds: 2,
      seconds: SECONDS,
      rounds: ROUNDS,
      run: async (t, seconds, label) => {
        const pid = t.server.child.pid!
        const before = cpuMicrosOf(pid)
        const r = await loadInChild({
          url: `${t.server.baseUrl}/v1/account`,
          headers: { authorization: `Bearer ${t.key}` },
          connections: CONNECTIONS,
          seconds,
          label: `${t.name} ${label}`
        })
        return { ...r, cpuUs: (cpuMicrosOf(pid) - before) / Math.max(r.requests, 1) }
      },
      onRun: (round, t, r) =>
        console.log(`  run ${round} ${label(t.name).padEnd(36)} ${fmt(r.rps).padStart(7)} req/s  ${fmt(r.cpuUs, 1).padStart(6)} CPU µs/req  p99 ${r.p99} ms`)
    })
    const rps = (rs: ReadonlyArray<Run>) => mean(rs.map((r) => r.rps))
    const cpu = (rs: ReadonlyArray<Run>) => mean(rs.map((r) => r.cpuUs))
    const off = runs.get("off")!
    console.log("")
    for (const t of targets) {
      const rs = runs.get(t.name)!
      const ratio = t.name === "off" ? "" : `   CPU ${fmt(cpu(rs) / cpu(off), 2)}×, throughput ${fmt(rps(rs) / rps(off), 2)}× of off`
      console.log(`  ${label(t.name).padEnd(36)} ${fmt(rps(rs)).padStart(7)} req/s  ${fmt(cpu(rs), 1).padStart(6)} CPU µs/req${ratio}`)
    }
    console.log(`  (${exports} exports, ${fmt(exportedBytes / 1024)} KiB in all; goal: CPU per request ≤ 1.10× of off)`)
    if (exports === 0) throw new BenchFailure("the traced server exported nothing")
    return 0
  } catch (e) {
    console.error(`bench:tracing FAILED: ${failureText(e)}`)
    return 1
  } finally {
    for (const s of servers) await stopServer(s)
    await closeServer(collector)
    for (const d of dirs) rmSync(d, { recursive: true, force: true })
  }
}

runBench("tracing", main)
