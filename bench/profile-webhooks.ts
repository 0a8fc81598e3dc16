/**
 * Profiles the webhook delivery engine (`WebhookDeliveryEngine.run`) delivering a backlog to a
 * local `node:http` receiver, both in this process: publishes `PROFILE_EVENTS` events with the
 * engine stopped, fans them out (timed on its own), then runs the engine for BENCH_SECONDS under
 * the profiler. Prints deliveries/s, CPU µs per delivery and the top functions by self time;
 * writes a `.cpuprofile` (open it in Chrome DevTools). A tool, not a bench (no baseline).
 *
 *   npx tsx bench/profile-webhooks.ts
 *   BENCH_BACKEND=postgres PROFILE_OUT=/tmp/wh.cpuprofile npx tsx bench/profile-webhooks.ts
 */
import { EventPublisher, WebhookDeliveryEngine, WebhookSender } from "@switchboard/core/events"
import { Transactor } from "@switchboard/core/shared"
import { DateTime, Duration, Effect, Fiber } from "effect"
import { writeFileSync } from "node:fs"
import { Session } from "node:inspector/promises"
import { createServer } from "node:http"
import { startTestServer } from "../packages/http-adapter/test/support/TestServer.js"
import { backendFromEnv, closeServer, createProject, listenLocal, positiveInt } from "./lib.js"

const backend = backendFromEnv("profile-webhooks")
const seconds = positiveInt("profile-webhooks", "BENCH_SECONDS", 5)
const events = positiveInt("profile-webhooks", "PROFILE_EVENTS", 20_000)
const concurrency = positiveInt("profile-webhooks", "BENCH_CONCURRENCY", 16)
const out = process.env.PROFILE_OUT ?? "/tmp/switchboard-webhooks.cpuprofile"

let received = 0
const receiver = createServer((req, res) => {
  req.resume()
  req.on("end", () => {
    received++
    res.writeHead(204)
    res.end()
  })
})
receiver.keepAliveTimeout = 60_000
const { port } = await listenLocal(receiver)
const s = await startTestServer(backend, {
  allowPrivateWebhookTargets: true,
  webhookDeliveryEnabled: false,
  webhookConcurrency: concurrency,
  webhookDestinationConcurrency: 8 * concurrency
})
const project = await createProject(s, "profile")
await project.send("POST", `/v1/projects/${project.projectId}/webhooks/destinations`, {
  apiVersion: "2026-07-01", enabledEvents: ["project.updated"], name: "profile", url: `http://127.0.0.1:${port}/in`
})
await s.run(Effect.gen(function*() {
  const tx = yield* Transactor
  const publisher = yield* EventPublisher
  for (let done = 0; done < events; done += 1000) {
    const now = yield* DateTime.now
    yield* tx.withTransaction(publisher.publish(project.projectId, Array.from({ length: Math.min(1000, events - done) }, (_, i) => ({
      type: "project.updated", source: "profile.projects.switchboard", timestamp: now, data: { projectId: project.projectId, seq: done + i }
    }))))
  }
}))
const t0 = Date.now()
const fanned = await s.run(Effect.flatMap(WebhookDeliveryEngine, (e) => e.dispatchAll))
console.log(`fan-out of ${fanned} events: ${Date.now() - t0} ms (${Math.round(fanned / ((Date.now() - t0) / 1000))} events/s)`)

const session = new Session()
session.connect()
await session.post("Profiler.enable")
await session.post("Profiler.setSamplingInterval", { interval: 200 })
await session.post("Profiler.start")
const cpu = process.cpuUsage()
const before = received
const started = Date.now()
const fiber = await s.run(Effect.gen(function*() {
  const engine = yield* WebhookDeliveryEngine
  const sender = yield* WebhookSender
  return yield* Effect.forkDetach(engine.run(Duration.millis(100)).pipe(Effect.provideService(WebhookSender, sender)))
}))
await new Promise((r) => setTimeout(r, seconds * 1000))
await s.run(Fiber.interrupt(fiber))
const elapsed = (Date.now() - started) / 1000
const used = process.cpuUsage(cpu)
const { profile } = await session.post("Profiler.stop")
writeFileSync(out, JSON.stringify(profile))
const n = received - before
console.log(`${backend}: ${Math.round(n / elapsed)} deliveries/s (${n} in ${elapsed.toFixed(1)} s), ${Math.round((used.user + used.system) / Math.max(n, 1))} µs CPU/delivery (whole process, receiver included); profile → ${out}`)

// Top functions by self time.
const self = new Map<string, number>()
const dt = profile.timeDeltas ?? []
const byId = new Map(profile.nodes.map((node) => [node.id, node]))
for (let i = 0; i < (profile.samples ?? []).length; i++) {
  const node = byId.get(profile.samples![i]!)!
  const f = node.callFrame
  const key = `${f.functionName || "(anon)"} ${f.url.split("/node_modules/").pop()?.split("/").slice(-2).join("/")}:${f.lineNumber + 1}`
  self.set(key, (self.get(key) ?? 0) + (dt[i] ?? 0))
}
const total = [...self.values()].reduce((a, b) => a + b, 0)
for (const [k, v] of [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, 30)) {
  console.log(`${(100 * v / total).toFixed(1).padStart(5)}%  ${k}`)
}
await s.close()
await closeServer(receiver)
process.exit(0)
