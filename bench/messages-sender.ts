/**
 * The load child of `messages.ts` (run with `node --import tsx`): `connections` senders POST
 * batches of fresh message facts for `seconds`, and every fact must come back `applied`. Its own
 * process, so the server's `process.cpuUsage()` is the server's alone. Input: one JSON argument;
 * output: one JSON line.
 */
import { performance } from "node:perf_hooks"
import { BATCH, factBatch } from "./messages-facts.js"

const options = JSON.parse(process.argv[2] ?? "{}") as {
  readonly url: string
  readonly headers: Record<string, string>
  readonly connections: number
  readonly seconds: number
}

const main = async () => {
  const pool: Array<string> = []
  const body = () => pool.pop() ?? JSON.stringify({ facts: factBatch() })
  for (let i = 0; i < options.connections * 4; i++) pool.push(JSON.stringify({ facts: factBatch() }))
  const latencies: Array<number> = []
  let facts = 0
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
        throw new Error(`not every fact applied: ${text.slice(0, 300)}`)
      }
      facts += BATCH
    }
  }
  await Promise.all(Array.from({ length: options.connections }, sender))
  const elapsed = (performance.now() - t0) / 1000
  latencies.sort((a, b) => a - b)
  return { facts, seconds: elapsed, factsPerSecond: facts / elapsed, p50: latencies[Math.floor(latencies.length / 2)] ?? 0 }
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
