/**
 * Webhook delivery throughput: the real delivery engine (outbox → fan-out → signed, leased,
 * recorded attempts) of a Switchboard server on PGlite (or PostgreSQL) delivering a backlog of
 * events to a local receiver, against a baseline measured in the same run: raw `node:http` POSTs of
 * the same body to the same receiver, with the same concurrency and keep-alive — the ceiling of
 * any sender on this machine.
 *
 *   npx tsx bench/webhooks.ts            # or: npm run bench:webhooks
 *   BENCH_SECONDS=5 npx tsx bench/webhooks.ts
 *
 * Environment:
 *   BENCH_SECONDS       length of each measured run in seconds (default 10)
 *   BENCH_CONCURRENCY   deliveries in flight at once, both sides (default 16, the server default)
 *   BENCH_DESTINATION_CONCURRENCY  the destination's in-flight cap (default 8 × BENCH_CONCURRENCY,
 *                       what the engine holds; the server's default cap is 4)
 *   BENCH_BACKEND       pglite (default) or postgres (uses DATABASE_URL)
 *
 * Sequence: a warm-up of each side (not counted), then baseline, engine, baseline, engine;
 * deliveries/second is the mean of the two runs of each. For the engine, a backlog sized to last
 * about BENCH_SECONDS at the rate seen so far is published (one transaction per 1000 events)
 * while its engine is stopped; then the engine runs until the receiver has every delivery (at most
 * 4 × BENCH_SECONDS), so the rate counts the fan-out, claims, signing, sending and recording of
 * exactly the deliveries made. A sample is verified with the `standardwebhooks` package. Any
 * non-2xx, failed verification or dead-lettered delivery aborts with exit code 1. No speed
 * thresholds: a report, not a test.
 */
import { EventPublisher, WebhookDeliveryEngine, WebhookSender } from "@switchboard/core/events"
import { Transactor } from "@switchboard/core/shared"
import { DateTime, Duration, Effect, Fiber } from "effect"
import { Agent, createServer, request, type Server } from "node:http"
import { Webhook } from "standardwebhooks"
import { startTestServer, type TestServer } from "../packages/http-adapter/test/support/TestServer.js"
import {
  backendFromEnv, BenchFailure, closeServer, createProject, failureText, fmt, listenLocal, mean, positiveInt, postgresCpuMicros, runBench
} from "./lib.js"

const SECONDS = positiveInt("webhooks", "BENCH_SECONDS", 10)
const CONCURRENCY = positiveInt("webhooks", "BENCH_CONCURRENCY", 16)
const DESTINATION_CONCURRENCY = positiveInt("webhooks", "BENCH_DESTINATION_CONCURRENCY", 8 * CONCURRENCY)
const BACKEND = backendFromEnv("webhooks")
const ROUNDS = 2
const WARMUP_SECONDS = 1

// ---------------------------------------------------------------------------------------------
// The receiver: answers 204, keeps a sample for verification, counts per path.

interface ReceiverState {
  readonly counts: Map<string, number>
  readonly sample: Array<{ headers: Record<string, string>; body: string }>
  non2xx: number
}

const startReceiver = async (): Promise<{ server: Server; port: number; state: ReceiverState }> => {
  const state: ReceiverState = { counts: new Map(), sample: [], non2xx: 0 }
  const server = createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => {
      const path = req.url ?? "/"
      state.counts.set(path, (state.counts.get(path) ?? 0) + 1)
      if (path === "/engine" && state.sample.length < 50) {
        const headers: Record<string, string> = {}
        for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers[k] = v
        state.sample.push({ headers, body: Buffer.concat(chunks).toString("utf8") })
      }
      res.writeHead(204)
      res.end()
    })
  })
  server.keepAliveTimeout = 60_000
  const { port } = await listenLocal(server)
  return { server, port, state }
}

// ---------------------------------------------------------------------------------------------
// Baseline: `CONCURRENCY` loops POSTing the same body over keep-alive connections.

const baselineRun = async (port: number, body: string, seconds: number): Promise<{ rate: number; cpuMicros: number }> => {
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY })
  const payload = Buffer.from(body)
  const deadline = Date.now() + seconds * 1000
  let done = 0
  const post = () =>
    new Promise<void>((resolve, reject) => {
      const req = request({
        host: "127.0.0.1",
        port,
        path: "/baseline",
        method: "POST",
        agent,
        headers: { "content-type": "application/json", "content-length": payload.length }
      }, (res) => {
        res.resume()
        res.on("end", () => (res.statusCode === 204 ? resolve() : reject(new BenchFailure(`baseline got ${res.statusCode}`))))
      })
      req.on("error", reject)
      req.end(payload)
    })
  const started = Date.now()
  const cpu = process.cpuUsage()
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (Date.now() < deadline) {
      await post()
      done++
    }
  }))
  const used = process.cpuUsage(cpu)
  agent.destroy()
  return { rate: done / ((Date.now() - started) / 1000), cpuMicros: (used.user + used.system) / Math.max(done, 1) }
}

// ---------------------------------------------------------------------------------------------
// Engine: publish a backlog with the engine stopped, then run it for `seconds`.

const publishBacklog = (server: TestServer, projectId: string, events: number) =>
  server.run(Effect.gen(function*() {
    const tx = yield* Transactor
    const publisher = yield* EventPublisher
    for (let done = 0; done < events; done += 1000) {
      const now = yield* DateTime.now
      yield* tx.withTransaction(publisher.publish(projectId, Array.from({ length: Math.min(1000, events - done) }, (_, i) => ({
        type: "project.updated",
        source: "bench.projects.switchboard",
        timestamp: now,
        data: { projectId, name: `Bench ${done + i}`, seq: done + i }
      }))))
    }
  }))

/**
 * Starts the engine on a backlog of `events` fresh events (published while it was stopped) and
 * stops it once the receiver has them all (or after `maxSeconds`): the rate counts fan-out, claims,
 * signing, sending and recording of exactly the deliveries made.
 */
const engineRun = async (
  server: TestServer,
  state: ReceiverState,
  events: number,
  maxSeconds: number
): Promise<{ rate: number; delivered: number; cpuMicros: number; pgCpuMicros: number | undefined }> => {
  const before = state.counts.get("/engine") ?? 0
  const pg0 = postgresCpuMicros()
  const delivered = () => (state.counts.get("/engine") ?? 0) - before
  const started = Date.now()
  const cpu = process.cpuUsage()
  const fiber = await server.run(Effect.gen(function*() {
    const engine = yield* WebhookDeliveryEngine
    const sender = yield* WebhookSender
    return yield* Effect.forkDetach(engine.run(Duration.millis(100)).pipe(Effect.provideService(WebhookSender, sender)))
  }))
  const deadline = started + maxSeconds * 1000
  while (delivered() < events && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5))
  const elapsed = (Date.now() - started) / 1000
  const used = process.cpuUsage(cpu)
  const pg1 = postgresCpuMicros()
  const n = delivered()
  await server.run(Fiber.interrupt(fiber))
  return {
    rate: n / elapsed,
    delivered: n,
    cpuMicros: (used.user + used.system) / Math.max(n, 1),
    pgCpuMicros: BACKEND === "postgres" && pg0 !== undefined && pg1 !== undefined ? (pg1 - pg0) / Math.max(n, 1) : undefined
  }
}

const main = async (): Promise<number> => {
  const t0 = Date.now()
  let receiver: Server | undefined
  let server: TestServer | undefined
  try {
    const rec = await startReceiver()
    receiver = rec.server
    server = await startTestServer(BACKEND, {
      allowPrivateWebhookTargets: true,
      webhookDeliveryEnabled: false, // the bench starts and stops the engine itself
      webhookConcurrency: CONCURRENCY,
      // One destination whose in-flight cap lets the engine use all its places (it holds up to
      // 8 × concurrency claimed deliveries, `concurrency` of them being sent): the default cap, 4
      // per destination, would compare 4 requests at once with the baseline's 16.
      webhookDestinationConcurrency: DESTINATION_CONCURRENCY
    })
    const project = await createProject(server)
    const destination = await project.send("POST", `/v1/projects/${project.projectId}/webhooks/destinations`, {
      apiVersion: "2026-07-01",
      enabledEvents: ["project.updated"],
      name: "bench",
      url: `http://127.0.0.1:${rec.port}/engine`
    })
    const secret = destination.signingSecret as string

    // A body like the engine's, for the baseline.
    const body = JSON.stringify({
      id: "sb_evt_01m7zvmfstebk8t92zkmkz70qg",
      type: "project.updated",
      apiVersion: "2026-07-01",
      source: "bench.projects.switchboard",
      timestamp: new Date().toISOString(),
      data: { projectId: project.projectId, name: "Bench 0", seq: 0 }
    })

    // Each engine run drains a backlog published while the engine is stopped, sized to last about
    // BENCH_SECONDS at the rate seen so far.
    let backlog = 0
    const publish = async (events: number) => {
      const p0 = Date.now()
      await publishBacklog(server!, project.projectId, events)
      backlog += events
      console.log(`  published ${fmt(events)} events in ${fmt((Date.now() - p0) / 1000, 1)} s`)
    }
    const drain = async (events: number) => {
      if (events > backlog) await publish(events - backlog)
      const run = await engineRun(server!, rec.state, events, SECONDS * 4)
      backlog -= run.delivered
      if (run.delivered < events) console.log(`  (stopped after ${SECONDS * 4} s with ${fmt(events - run.delivered)} not delivered)`)
      return run
    }
    console.log(`startup ${fmt((Date.now() - t0) / 1000, 1)} s; backend ${BACKEND}; concurrency ${CONCURRENCY}; ~${SECONDS} s per run, ${ROUNDS} rounds`)

    const warm = await drain(Math.max(200, Math.round(300 * WARMUP_SECONDS)))
    await baselineRun(rec.port, body, WARMUP_SECONDS)

    const baseline: Array<number> = []
    const engine: Array<number> = []
    const baselineCpu: Array<number> = []
    const engineCpu: Array<number> = []
    const pgCpu: Array<number> = []
    for (let round = 1; round <= ROUNDS; round++) {
      const b = await baselineRun(rec.port, body, SECONDS)
      baseline.push(b.rate)
      baselineCpu.push(b.cpuMicros)
      console.log(`  run ${round} baseline ${fmt(b.rate).padStart(8)} req/s, ${fmt(b.cpuMicros)} µs CPU/request`)
      const e = await drain(Math.max(500, Math.round(Math.max(...engine, warm.rate) * SECONDS)))
      engine.push(e.rate)
      engineCpu.push(e.cpuMicros)
      if (e.pgCpuMicros !== undefined) pgCpu.push(e.pgCpuMicros)
      const pgText = e.pgCpuMicros === undefined ? "" : ` + ${fmt(e.pgCpuMicros)} µs PostgreSQL CPU`
      console.log(`  run ${round} engine   ${fmt(e.rate).padStart(8)} deliveries/s (${fmt(e.delivered)} delivered), ${fmt(e.cpuMicros)} µs CPU/delivery${pgText}`)
    }

    // Every sampled delivery verifies; nothing was dead-lettered.
    const verifier = new Webhook(secret)
    for (const s of rec.state.sample) verifier.verify(s.body, s.headers)
    const dead = await fetch(`${server.baseUrl}/v1/projects/${project.projectId}/webhooks/destinations/${destination.destination.destinationId}/deliveries?status=dead_lettered&pageSize=1`, {
      headers: { authorization: `Bearer ${server.serviceKey}` }
    })
    const deadBody = (await dead.json()) as { deliveries: Array<unknown> }
    if (deadBody.deliveries.length > 0) throw new BenchFailure("some deliveries were dead-lettered")

    const bl = mean(baseline)
    const en = mean(engine)
    const ratio = en / bl
    const blCpu = mean(baselineCpu)
    const enCpu = mean(engineCpu)
    console.log("")
    console.log(`baseline (raw node:http POST)   ${fmt(bl).padStart(8)} req/s          ${fmt(blCpu).padStart(6)} µs CPU/request (client + receiver)`)
    console.log(`delivery engine (${BACKEND.padEnd(8)})    ${fmt(en).padStart(8)} deliveries/s  ${fmt(enCpu).padStart(6)} µs CPU/delivery (engine + receiver)`)
    if (pgCpu.length > 0) console.log(`PostgreSQL server CPU per delivery ${fmt(mean(pgCpu))} µs (all its processes, from /proc)`)
    console.log(`ratio ${ratio.toFixed(3)} (${fmt(1 / ratio, 1)}x slower than raw POSTs); CPU ratio ${(blCpu / enCpu).toFixed(3)}`)
    console.log(`verified ${rec.state.sample.length} sampled deliveries with standardwebhooks; total ${fmt((Date.now() - t0) / 1000, 1)} s`)
    const goalMet = BACKEND === "postgres" ? en >= 4000 && ratio >= 0.25 : null
    console.log(JSON.stringify({
      bench: "webhooks",
      backend: BACKEND,
      results: [
        {
          name: `webhook deliveries/s (1 destination, ${CONCURRENCY} in flight)`,
          value: Math.round(en),
          unit: "deliveries/s",
          baseline: `raw node:http POSTs (${CONCURRENCY} keep-alive connections)`,
          baselineValue: Math.round(bl),
          ratio: Number(ratio.toFixed(4)),
          goal: BACKEND === "postgres" ? "≥ 4 000 deliveries/s, ratio ≥ 0.25" : null,
          met: goalMet
        },
        {
          name: "CPU µs per delivery (engine + receiver, this process)",
          value: Math.round(enCpu),
          unit: "µs",
          baseline: "raw POST, client + receiver",
          baselineValue: Math.round(blCpu),
          ratio: Number((blCpu / enCpu).toFixed(4)),
          goal: null,
          met: null
        }
      ]
    }))
    return 0
  } catch (e) {
    console.error(`bench:webhooks FAILED: ${failureText(e)}`)
    return 1
  } finally {
    if (server !== undefined) await server.close()
    if (receiver !== undefined) await closeServer(receiver)
  }
}

runBench("webhooks", main)
