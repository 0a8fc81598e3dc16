/**
 * The pipelined delivery engine: deliveries claimed many at a time, sent `concurrency`
 * at a time, their outcomes written in batches. Against a real receiver that answers after a few
 * milliseconds and counts the requests of each destination in flight:
 *
 * - one engine never has more than a destination's cap of its requests in flight at once;
 * - two engines on one database (two server processes) deliver every delivery exactly once — none
 *   twice within its lease — and every request verifies (Standard Webhooks).
 */
import { EventPublisher, WebhookDeliveryEngine, WebhookSender, WebhooksRepo } from "@switchboard/core/events"
import { testBackends } from "@switchboard/sql-adapter"
import { DateTime, Duration, Effect, Fiber } from "effect"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { Webhook } from "standardwebhooks"
import { describe, expect, it } from "vitest"
import { httpClient } from "../support/HttpClient.js"
import { startTestServers, type TestServer } from "../support/TestServer.js"
import { waitUntil } from "../support/WebhookReceiver.js"

let seq = 0
const idem = () => `batching-${Date.now()}-${++seq}`
const CAP = 3

interface Got {
  readonly path: string
  readonly headers: Record<string, string>
  readonly body: string
}

/** Answers 204 after 3 ms; records each request and the most requests of one path in flight at once. */
const startSlowReceiver = async () => {
  const received: Array<Got> = []
  const inFlight = new Map<string, number>()
  const maxInFlight = new Map<string, number>()
  const server: Server = createServer((req, res) => {
    const path = req.url ?? "/"
    const now = (inFlight.get(path) ?? 0) + 1
    inFlight.set(path, now)
    maxInFlight.set(path, Math.max(maxInFlight.get(path) ?? 0, now))
    const chunks: Array<Buffer> = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => {
      const headers: Record<string, string> = {}
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers[k] = v
      received.push({ path, headers, body: Buffer.concat(chunks).toString("utf8") })
      setTimeout(() => {
        inFlight.set(path, (inFlight.get(path) ?? 1) - 1)
        res.writeHead(204)
        res.end()
      }, 3)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const port = (server.address() as AddressInfo).port
  return {
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    received,
    maxInFlight,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections()
        server.close(() => done())
      })
  }
}

const startEngine = (s: TestServer) =>
  s.run(Effect.gen(function*() {
    const engine = yield* WebhookDeliveryEngine
    const sender = yield* WebhookSender
    return yield* Effect.forkDetach(engine.run(Duration.millis(20)).pipe(Effect.provideService(WebhookSender, sender)))
  }))

for (const backend of testBackends()) {
  describe(`batched webhook delivery (${backend})`, () => {
    it("one engine keeps each destination within its cap; two engines deliver every delivery exactly once", async () => {
      const { close, servers } = await startTestServers(backend, 2, {
        allowPrivateWebhookTargets: true,
        webhookDeliveryEnabled: false, // the test starts and stops the engines
        webhookTimeoutSeconds: 5,
        webhookConcurrency: 8,
        webhookDestinationConcurrency: CAP
      })
      const receiver = await startSlowReceiver()
      try {
        const [a, b] = servers as [TestServer, TestServer]
        const call = httpClient(() => a)
        const org = await call("/v1/organizations", { method: "POST", json: { name: "Batching" }, idem: idem() })
        const project = await call(`/v1/organizations/${org.body.organizationId}/projects`, {
          method: "POST", json: { name: "Batching", slug: `batching-${backend}-${Date.now().toString(36)}` }, idem: idem()
        })
        expect(project.res.status, project.text).toBe(201)
        const projectId = project.body.projectId as string
        const secrets = new Map<string, string>()
        for (const path of ["/a", "/b", "/c"]) {
          const r = await call(`/v1/projects/${projectId}/webhooks/destinations`, {
            method: "POST", idem: idem(), json: { apiVersion: "2026-07-01", enabledEvents: ["project.updated"], name: path, url: receiver.url(path) }
          })
          expect(r.res.status, r.text).toBe(201)
          secrets.set(path, r.body.signingSecret as string)
        }
        const publish = (n: number, tag: string) =>
          a.run(Effect.gen(function*() {
            const publisher = yield* EventPublisher
            const now = yield* DateTime.now
            yield* publisher.publish(projectId, Array.from({ length: n }, (_, i) => ({
              type: "project.updated",
              source: "batching.projects.switchboard",
              timestamp: now,
              data: { tag, i }
            })))
          }))

        const pending = () => a.run(Effect.map(Effect.flatMap(WebhooksRepo, (repo) => repo.deliveryCounts), (c) => c.pending))

        // One engine: never more than CAP requests of a destination at once.
        await publish(40, "one")
        const one = await startEngine(a)
        // Stopped only once every outcome is recorded: an attempt interrupted before its answer is
        // given back and sent again (at least once), which is not what this test counts.
        await waitUntil("one engine delivers 120", async () => receiver.received.length >= 120 && (await pending()) === 0, 60_000)
        await a.run(Fiber.interrupt(one))
        for (const path of ["/a", "/b", "/c"]) expect(receiver.maxInFlight.get(path), path).toBeLessThanOrEqual(CAP)

        // Two engines on one database.
        await publish(120, "two")
        const engines = [await startEngine(a), await startEngine(b)]
        await waitUntil("two engines deliver 480", async () => receiver.received.length >= 480 && (await pending()) === 0, 120_000)
        // A moment more: a delivery sent twice would arrive now.
        await new Promise((r) => setTimeout(r, 300))
        await a.run(Fiber.interrupt(engines[0]!))
        await b.run(Fiber.interrupt(engines[1]!))

        expect(receiver.received).toHaveLength(480)
        const seen = new Set<string>()
        for (const r of receiver.received) {
          const payload = new Webhook(secrets.get(r.path)!).verify(r.body, r.headers) as { id: string }
          expect(payload.id).toBe(r.headers["webhook-id"])
          seen.add(`${r.path} ${payload.id}`)
        }
        expect(seen.size).toBe(480)
        const counts = await a.run(Effect.flatMap(WebhooksRepo, (repo) => repo.deliveryCounts))
        expect(counts).toEqual({ pending: 0, deadLettered: 0 })
      } finally {
        await receiver.close()
        await close()
      }
    }, 240_000)
  })
}
