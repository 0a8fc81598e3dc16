/**
 * The load child of `calls.ts` and `profile-calls.ts` (run with `node --import tsx`): `connections`
 * senders POST batches of fresh whole calls for `seconds` and every signal must come back
 * `applied`. It runs in its own process, so the server's process pays none of the generator's CPU
 * (`process.cpuUsage()` there is the server's alone). Input: one JSON argument; output: one JSON line.
 */
import { performance } from "node:perf_hooks"
import { BATCH, wholeBatch } from "./calls-signals.js"

interface Options {
  readonly url: string
  readonly headers: Record<string, string>
  readonly projectId: string
  readonly profileId: string
  readonly connections: number
  readonly seconds: number
}

const options = JSON.parse(process.argv[2] ?? "{}") as Options

const main = async () => {
  // Bodies built ahead of the clock so the measured window is sending only.
  const pool: Array<string> = []
  const body = () => pool.pop() ?? JSON.stringify({ signals: wholeBatch(options.projectId, options.profileId) })
  for (let i = 0; i < options.connections * 4; i++) pool.push(JSON.stringify({ signals: wholeBatch(options.projectId, options.profileId) }))
  const latencies: Array<number> = []
  let signals = 0
  const t0 = performance.now()
  const deadline = t0 + options.seconds * 1000
  const sender = async () => {
    while (performance.now() < deadline) {
      const started = performance.now()
      const res = await fetch(options.url, { method: "POST", headers: options.headers, body: body() })
      const text = await res.text()
      latencies.push(performance.now() - started)
      if (res.status !== 200) throw new Error(`HTTP ${res.status} ${text.slice(0, 300)}`)
      const parsed = JSON.parse(text) as { results: ReadonlyArray<{ outcome: string }> }
      if (parsed.results.length !== BATCH || parsed.results.some((r) => r.outcome !== "applied")) {
        throw new Error(`not every signal applied: ${text.slice(0, 300)}`)
      }
      signals += BATCH
    }
  }
  await Promise.all(Array.from({ length: options.connections }, sender))
  const elapsed = (performance.now() - t0) / 1000
  latencies.sort((a, b) => a - b)
  return {
    signals,
    seconds: elapsed,
    signalsPerSecond: signals / elapsed,
    batches: latencies.length,
    p50: latencies[Math.floor(latencies.length / 2)] ?? 0,
    p99: latencies[Math.floor(latencies.length * 0.99)] ?? 0
  }
}

main().then(
  (r) => {
    console.log(JSON.stringify(r))
    process.exit(0)
  },
  (e: unknown) => {
    console.log(JSON.stringify({ error: e instanceof Error ? e.message : String(e) }))
    process.exit(1)
  }
)
