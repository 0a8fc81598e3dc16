/**
 * The event channel's fan-out (docs/event-channel.md): events committed per second (through the
 * outbox, BENCH_BATCH (20) per transaction, the next batch once the previous one reached every
 * session) and delivered to BENCH_SESSIONS (100) connected `switchboard.events.v1.json` sessions,
 * and the commit-to-frame latency (from just before the committing transaction to the frame's
 * arrival at a client) p50/p99. Baseline in the same run: a raw `ws` server broadcasting frames of
 * the same size to the same number of clients, as fast as it can (no database, no cursor, no
 * filter). Clients and servers share this process, so CPU µs per delivered frame covers both sides.
 *
 *   npx tsx bench/channel.ts                       # PGlite
 *   BENCH_BACKEND=postgres npx tsx bench/channel.ts
 *   BENCH_SECONDS=5 BENCH_SESSIONS=100 …
 *
 * The last stdout line is the JSON summary `npm run bench` (bench/all.ts) reads.
 */
import { EventPublisher, StreamTokens } from "@switchboard/core/events"
import { Transactor } from "@switchboard/core/shared"
import { DateTime, Effect } from "effect"
import { loadavg } from "node:os"
import WebSocket, { WebSocketServer } from "ws"
import { startTestServer } from "../packages/http-adapter/test/support/TestServer.js"
import { backendFromEnv, createProject, fmt, positiveInt, runBench } from "./lib.js"

const backend = backendFromEnv("channel")
const seconds = positiveInt("channel", "BENCH_SECONDS", 4)
const sessions = positiveInt("channel", "BENCH_SESSIONS", 100)
const batch = positiveInt("channel", "BENCH_BATCH", 20)

const percentile = (xs: Array<number>, p: number) => {
  const sorted = [...xs].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0
}

interface Result {
  readonly committed: number
  readonly delivered: number
  readonly elapsedMs: number
  readonly cpuUs: number
  readonly latencies: Array<number>
}

const report = (label: string, r: Result) => {
  console.log(
    `${label.padEnd(26)} ${fmt(r.committed / (r.elapsedMs / 1000)).padStart(8)} events/s committed  ` +
      `${fmt(r.delivered / (r.elapsedMs / 1000)).padStart(10)} frames/s delivered  ` +
      `p50 ${fmt(percentile(r.latencies, 50), 1)} ms  p99 ${fmt(percentile(r.latencies, 99), 1)} ms  ` +
      `${fmt(r.cpuUs / Math.max(1, r.delivered), 2)} µs CPU/frame`
  )
}

/** Clients that count frames and sample latency from the frame's `t` (ms since the epoch). */
const clients = (open: () => WebSocket, onReady: (ws: WebSocket) => void) => {
  let delivered = 0
  const latencies: Array<number> = []
  const all = Array.from({ length: sessions }, (_, i) => {
    const ws = open()
    ws.on("message", (data) => {
      const text = data.toString()
      if (!text.includes("\"event\"")) return
      delivered++
      if (i % 10 === 0) {
        const t = /"t":(\d+(?:\.\d+)?)/.exec(text)
        if (t !== null) latencies.push(performance.timeOrigin + performance.now() - Number(t[1]))
      }
    })
    ws.on("open", () => onReady(ws))
    return ws
  })
  return { all, delivered: () => delivered, latencies }
}

const channelRun = async (): Promise<Result> => {
  const s = await startTestServer(backend, { webhookDeliveryEnabled: false, channelSessionBufferBytes: 64 * 1024 * 1024 })
  try {
    const project = await createProject(s, "bench-channel")
    const { token } = await s.run(Effect.flatMap(StreamTokens, (t) => t.mint(project.projectId)))
    let ready = 0
    const c = clients(
      () => new WebSocket(`${s.baseUrl.replace("http", "ws")}/v1/subscribe`, "switchboard.events.v1.json"),
      (ws) => {
        ws.once("message", () => ready++)
        ws.send(JSON.stringify({ type: "init", startSeq: 0, token }))
      }
    )
    while (ready < sessions) await new Promise((r) => setTimeout(r, 20))
    const publish = (n: number) =>
      s.run(Effect.gen(function*() {
        const tx = yield* Transactor
        const publisher = yield* EventPublisher
        const now = yield* DateTime.now
        const t = performance.timeOrigin + performance.now()
        yield* tx.withTransaction(publisher.publish(
          project.projectId,
          Array.from({ length: n }, (_, i) => ({ type: "project.updated", source: "bench.switchboard", timestamp: now, data: { i, t } }))
        ))
      }))
    const cpu0 = process.cpuUsage()
    const t0 = performance.now()
    let committed = 0
    while (performance.now() - t0 < seconds * 1000) {
      await publish(batch)
      committed += batch
      // Closed loop: the next batch once this one reached every session (latency, not queueing, is measured).
      while (c.delivered() < committed * sessions && performance.now() - t0 < seconds * 1000 * 3) {
        await new Promise((r) => setTimeout(r, 1))
      }
    }
    const deadline = performance.now() + 30_000
    while (c.delivered() < committed * sessions && performance.now() < deadline) await new Promise((r) => setTimeout(r, 5))
    const elapsedMs = performance.now() - t0
    const cpu = process.cpuUsage(cpu0)
    for (const ws of c.all) ws.close()
    return { committed, delivered: c.delivered(), elapsedMs, cpuUs: cpu.user + cpu.system, latencies: c.latencies }
  } finally {
    await s.close()
  }
}

const rawRun = async (): Promise<Result> => {
  const wss = new WebSocketServer({ host: "127.0.0.1", port: 0, perMessageDeflate: false })
  await new Promise((r) => wss.once("listening", r))
  const port = (wss.address() as { port: number }).port
  let ready = 0
  const c = clients(() => new WebSocket(`ws://127.0.0.1:${port}`), () => ready++)
  while (ready < sessions) await new Promise((r) => setTimeout(r, 20))
  const cpu0 = process.cpuUsage()
  const t0 = performance.now()
  let committed = 0
  let seq = 0
  while (performance.now() - t0 < seconds * 1000) {
    const t = performance.timeOrigin + performance.now()
    for (let i = 0; i < batch; i++) {
      const frame = JSON.stringify({
        type: "event",
        seq: ++seq,
        event: { id: "sb_evt_01jz0000000000000000000000", type: "project.updated", apiVersion: "2026-07-01", source: "bench.switchboard", timestamp: new Date().toISOString(), data: { i, t } }
      })
      for (const ws of wss.clients) ws.send(frame)
    }
    committed += batch
    while (c.delivered() < committed * sessions) await new Promise((r) => setTimeout(r, 1))
  }
  const deadline = performance.now() + 30_000
  while (c.delivered() < committed * sessions && performance.now() < deadline) await new Promise((r) => setTimeout(r, 5))
  const elapsedMs = performance.now() - t0
  const cpu = process.cpuUsage(cpu0)
  for (const ws of c.all) ws.close()
  await new Promise((r) => wss.close(r))
  return { committed, delivered: c.delivered(), elapsedMs, cpuUs: cpu.user + cpu.system, latencies: c.latencies }
}

runBench("channel", async () => {
  console.log(`bench:channel — ${backend}, ${sessions} sessions, ${seconds} s per run, load average ${loadavg().map((l) => l.toFixed(2)).join(" ")}`)
  const raw = await rawRun()
  report("raw ws broadcast", raw)
  const channel = await channelRun()
  report(`channel (${backend})`, channel)
  const rate = (r: Result) => r.delivered / (r.elapsedMs / 1000)
  const cpuPerFrame = (r: Result) => r.cpuUs / Math.max(1, r.delivered)
  console.log(`channel / raw: ${fmt(rate(channel) / rate(raw), 2)} of the raw frame rate, ` +
    `${fmt(cpuPerFrame(channel) / cpuPerFrame(raw), 2)}× its CPU per frame`)
  const lost = channel.committed * sessions - channel.delivered
  if (lost !== 0) {
    console.error(`bench:channel FAILED: ${lost} frames missing`)
    return 1
  }
  const p99 = (r: Result) => percentile(r.latencies, 99)
  const goals = sessions === 100
  console.log(JSON.stringify({
    bench: "channel",
    backend,
    results: [
      {
        name: `frames/s delivered (${sessions} sessions, ${batch} events per commit, closed loop)`,
        value: Math.round(rate(channel)),
        unit: "frames/s",
        baseline: `raw ws broadcast to ${sessions} clients`,
        baselineValue: Math.round(rate(raw)),
        ratio: Number((rate(channel) / rate(raw)).toFixed(4)),
        goal: goals ? "≥ 10 000 frames/s across 100 sessions" : null,
        met: goals ? rate(channel) >= 10_000 : null
      },
      {
        name: "commit-to-frame latency p99",
        value: Number(p99(channel).toFixed(1)),
        unit: "ms",
        baseline: "raw ws broadcast, send-to-frame",
        baselineValue: Number(p99(raw).toFixed(1)),
        ratio: p99(channel) === 0 ? null : Number((p99(raw) / p99(channel)).toFixed(4)),
        goal: goals ? "< 50 ms" : null,
        met: goals ? p99(channel) < 50 : null
      },
      {
        name: "CPU µs per delivered frame (server + clients, this process)",
        value: Math.round(cpuPerFrame(channel) * 10) / 10,
        unit: "µs",
        baseline: "raw ws broadcast, server + clients",
        baselineValue: Math.round(cpuPerFrame(raw) * 10) / 10,
        ratio: Number((cpuPerFrame(raw) / cpuPerFrame(channel)).toFixed(4)),
        goal: null,
        met: null
      }
    ]
  }))
  return 0
})
