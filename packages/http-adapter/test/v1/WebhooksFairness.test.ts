/**
 * Fair delivery: one project's backlog to a destination that never answers must
 * not hold up another project's deliveries to a healthy receiver. The engine runs with 8 attempts
 * at once and at most 2 per destination; the dead destination hangs every attempt for the whole
 * 30 s timeout. The healthy destination's deliveries all arrive while the dead one still has
 * deliveries never attempted.
 */
import { DateTime, Effect } from "effect"
import { EventPublisher } from "@switchboard/core/events"
import { testBackends } from "@switchboard/sql-adapter"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { httpClient } from "../support/HttpClient.js"
import { startTestServer, type TestServer } from "../support/TestServer.js"
import { type Receiver, startReceiver } from "../support/WebhookReceiver.js"

let seq = 0
const idem = () => `fair-${Date.now()}-${++seq}`

for (const backend of testBackends()) {
  describe(`fair webhook delivery (${backend})`, () => {
    let s: TestServer
    let receiver: Receiver
    beforeAll(async () => {
      s = await startTestServer(backend, {
        allowPrivateWebhookTargets: true,
        webhookPollIntervalMs: 20,
        webhookTimeoutSeconds: 30,
        webhookConcurrency: 8,
        webhookDestinationConcurrency: 2
      })
      receiver = await startReceiver()
      receiver.answer = (r) => (r.path.startsWith("/dead") ? "hang" : { status: 204 })
    })
    afterAll(async () => {
      await receiver.close()
      await s.close()
    })
    const call = httpClient(() => s)

    const newProject = async (name: string) => {
      const org = await call("/v1/organizations", { method: "POST", json: { name }, idem: idem() })
      const p = await call(`/v1/organizations/${org.body.organizationId}/projects`, {
        method: "POST", json: { name, slug: `${name}-${backend}-${Date.now().toString(36)}` }, idem: idem()
      })
      expect(p.res.status, p.text).toBe(201)
      return p.body.projectId as string
    }
    const destination = async (projectId: string, path: string) => {
      const r = await call(`/v1/projects/${projectId}/webhooks/destinations`, {
        method: "POST", idem: idem(), json: { apiVersion: "2026-07-01", enabledEvents: ["*"], name: path, url: receiver.url(path) }
      })
      expect(r.res.status, r.text).toBe(201)
      return r.body.destination.destinationId as string
    }
    const publish = (projectId: string, n: number, tag: string) =>
      s.run(Effect.gen(function*() {
        const publisher = yield* EventPublisher
        const now = yield* DateTime.now
        yield* publisher.publish(projectId, Array.from({ length: n }, (_, i) => ({
          type: "project.updated",
          source: "fairness.projects.switchboard",
          timestamp: now,
          data: { tag, i }
        })))
      }))

    it("a healthy destination's deliveries go out while a dead one has a backlog", async () => {
      const slow = await newProject("slow")
      const deadId = await destination(slow, "/dead")
      await publish(slow, 100, "backlog")
      // The engine is busy with the dead destination's backlog…
      await receiver.waitFor((rs) => rs.filter((r) => r.path === "/dead").length >= 2)

      const fine = await newProject("fine")
      await destination(fine, "/healthy")
      await publish(fine, 5, "healthy")
      // …and the healthy destination gets all five anyway.
      await receiver.waitFor((rs) => rs.filter((r) => r.path === "/healthy").length >= 5, 60_000)

      // The dead destination's backlog is still there: never more than 2 of its attempts at once,
      // most of its deliveries not attempted yet.
      expect(receiver.received.filter((r) => r.path === "/dead").length).toBeLessThanOrEqual(2)
      const listed = await call(`/v1/projects/${slow}/webhooks/destinations/${deadId}/deliveries?status=pending&pageSize=100`)
      expect(listed.res.status, listed.text).toBe(200)
      const pending = listed.body.deliveries as Array<{ attemptCount: number }>
      expect(pending.filter((d) => d.attemptCount === 0).length).toBeGreaterThan(50)
    }, 120_000)
  })
}
