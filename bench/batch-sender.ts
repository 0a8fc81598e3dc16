/**
 * The sending loop of the ingestion benches' load children (`calls-sender.ts`,
 * `messages-sender.ts`): `connections` senders POST batches for `seconds`; every item of every
 * answer must be `applied`. Bodies are built ahead of the clock so the measured window is sending
 * only. The child prints one JSON line: the result, or `{error}` (exit 1).
 */
import { performance } from "node:perf_hooks"

export interface BatchSenderOptions {
  readonly url: string
  readonly headers: Record<string, string>
  readonly connections: number
  readonly seconds: number
}

export const sendBatches = async (options: BatchSenderOptions, size: number, body: () => string, what: string) => {
  const pool: Array<string> = []
  const next = () => pool.pop() ?? body()
  for (let i = 0; i < options.connections * 4; i++) pool.push(body())
  const latencies: Array<number> = []
  let items = 0
  const t0 = performance.now()
  const deadline = t0 + options.seconds * 1000
  const sender = async () => {
    while (performance.now() < deadline) {
      const started = performance.now()
      const res = await fetch(options.url, { method: "POST", headers: options.headers, body: next() })
      const text = await res.text()
      latencies.push(performance.now() - started)
      if (res.status !== 200) throw new Error(`HTTP ${res.status} ${text.slice(0, 300)}`)
      const parsed = JSON.parse(text) as { results: ReadonlyArray<{ outcome: string }> }
      if (parsed.results.length !== size || parsed.results.some((r) => r.outcome !== "applied")) {
        throw new Error(`not every ${what} applied: ${text.slice(0, 300)}`)
      }
      items += size
    }
  }
  await Promise.all(Array.from({ length: options.connections }, sender))
  const elapsed = (performance.now() - t0) / 1000
  latencies.sort((a, b) => a - b)
  return {
    items,
    seconds: elapsed,
    perSecond: items / elapsed,
    batches: latencies.length,
    p50: latencies[Math.floor(latencies.length / 2)] ?? 0,
    p99: latencies[Math.floor(latencies.length * 0.99)] ?? 0
  }
}

/** Runs the child's `main` and prints its one JSON line. */
export const runSender = (main: () => Promise<unknown>) =>
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
