/**
 * No event lost when the server dies (docs/api-notes/events-and-webhooks.md): the real
 * `switchboard serve` in a child process on an embedded database, a receiver that accepts
 * deliveries and never answers (so some are in flight and the rest wait), SIGKILL, then a restart
 * on the same DATA_DIR with the receiver answering: every event arrives, each verified by the
 * `standardwebhooks` package.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Webhook } from "standardwebhooks"
import { afterAll, describe, expect, it } from "vitest"
import { bootstrapOf, cliEnv, startServer, stopServer } from "../support/CliProcess.js"
import { type Receiver, startReceiver, waitUntil } from "../support/WebhookReceiver.js"

const dataDir = mkdtempSync(join(tmpdir(), "switchboard-webhooks-"))
afterAll(() => rmSync(dataDir, { recursive: true, force: true }))

const start = () =>
  startServer(
    cliEnv(dataDir, {
      ALLOW_PRIVATE_WEBHOOK_TARGETS: "true",
      WEBHOOK_POLL_INTERVAL_MS: "20",
      WEBHOOK_RETRY_BASE_MS: "10",
      WEBHOOK_RETRY_MAX_MS: "50",
      // Long enough that nothing dead-letters while the receiver hangs; the lease (timeout + 5 s)
      // runs out while the server restarts.
      WEBHOOK_TIMEOUT_SECONDS: "5",
      WEBHOOK_CONCURRENCY: "4"
    }),
    90_000
  )

describe("webhook deliveries survive a killed server", { timeout: 240_000 }, () => {
  let receiver: Receiver | undefined
  afterAll(async () => {
    await receiver?.close()
  })

  it("SIGKILL with deliveries in flight and pending: after a restart every event is delivered", async () => {
    receiver = await startReceiver()
    receiver.answer = () => "hang"
    const first = await start()
    const boot = bootstrapOf(first.output())
    expect(boot).toBeDefined()
    const serviceKey = boot!.serviceKey!
    let n = 0
    const post = async (base: string, path: string, body: unknown, method = "POST") => {
      const res = await fetch(`${base}${path}`, {
        method,
        headers: { authorization: `Bearer ${serviceKey}`, "content-type": "application/json", "idempotency-key": `kill-${++n}` },
        body: JSON.stringify(body)
      })
      const json = await res.json() as Record<string, any>
      expect(res.status, JSON.stringify(json)).toBeLessThan(300)
      return json
    }
    const org = await post(first.baseUrl, "/v1/organizations", { name: "Kill" })
    const project = await post(first.baseUrl, `/v1/organizations/${org.organizationId}/projects`, { name: "Kill", slug: "kill-test" })
    const created = await post(first.baseUrl, `/v1/projects/${project.projectId}/webhooks/destinations`, {
      apiVersion: "2026-07-01",
      enabledEvents: ["project.updated"],
      name: "receiver",
      url: receiver.url("/kill")
    })
    const names = Array.from({ length: 20 }, (_, i) => `Name ${i}`)
    for (const name of names) await post(first.baseUrl, `/v1/projects/${project.projectId}`, { name }, "PATCH")
    // Some deliveries are in flight (the receiver holds them), the rest wait for a free slot.
    await receiver.waitFor((rs) => rs.length >= 1, 60_000)
    await stopServer(first, "SIGKILL")

    receiver.answer = () => ({ status: 204 })
    const second = await start()
    try {
      const verifier = new Webhook(created.signingSecret)
      const delivered = () => {
        const seen = new Map<string, string>()
        for (const r of receiver!.received) {
          if (r.headers["webhook-id"] === undefined) continue
          try {
            const payload = verifier.verify(r.body, r.headers) as { id: string; data: { name: string } }
            seen.set(payload.id, payload.data.name)
          } catch {
            // a request of the killed process cut off mid-body: not a delivery
          }
        }
        return seen
      }
      await waitUntil("every event delivered after the restart", () => new Set(delivered().values()).size === names.length, 120_000)
      const seen = delivered()
      expect([...new Set(seen.values())].sort()).toEqual([...names].sort())
      expect(seen.size).toBe(names.length) // one event id per rename: nothing lost, nothing invented
    } finally {
      expect(await stopServer(second)).toBe(0)
    }
  })
})
