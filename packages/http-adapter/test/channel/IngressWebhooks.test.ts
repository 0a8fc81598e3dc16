/**
 * An ingress request is an ordinary event (docs/event-channel.md): it is delivered to the project's
 * v1 webhook destinations subscribed to `external-webhook.received`, with the raw request in
 * `data.rawRequestBase64` and the source `<sourceId>.external-webhook.switchboard`.
 */
import { testBackends } from "@switchboard/sql-adapter"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { newChannelProject } from "../support/ChannelClient.js"
import { startTestServer, type TestServer } from "../support/TestServer.js"
import { type Receiver, startReceiver } from "../support/WebhookReceiver.js"

for (const backend of testBackends()) {
  let s: TestServer
  let receiver: Receiver
  beforeAll(async () => {
    receiver = await startReceiver()
    s = await startTestServer(backend, { allowPrivateWebhookTargets: true, webhookPollIntervalMs: 20, ingressReplyWaitMs: 0 })
  })
  afterAll(async () => {
    await s?.close()
    await receiver?.close()
  })

  describe(`ingress events on webhooks (${backend})`, () => {
    it("a request to an ingress URL reaches a v1 destination as external-webhook.received", async () => {
      const p = await newChannelProject(s)
      const created = await p.v1(`/v1/projects/${p.projectId}/webhooks/destinations`, {
        method: "POST",
        idem: `ingress-${Date.now()}`,
        json: { apiVersion: "2026-07-01", enabledEvents: ["external-webhook.received"], name: "ingress", url: receiver.url("/ingress-events") }
      })
      expect(created.res.status, created.text).toBe(201)
      const endpoint = await p.ingress("whatsapp", "waba_1")
      const res = await fetch(endpoint.url, { method: "POST", headers: { "x-hub-signature-256": "sha256=00" }, body: "{\"entry\":[]}" })
      expect(res.status).toBe(202)
      const { eventId } = await res.json() as { eventId: string }
      await receiver.waitFor((r) => r.some((x) => x.path === "/ingress-events" && x.body.includes(eventId)))
      const delivered = JSON.parse(receiver.received.find((x) => x.body.includes(eventId))!.body)
      expect(delivered).toMatchObject({ id: eventId, type: "external-webhook.received", source: "waba_1.external-webhook.switchboard" })
      expect(Object.keys(delivered.data)).toEqual(["rawRequestBase64"])
      const raw = Buffer.from(delivered.data.rawRequestBase64, "base64").toString("latin1")
      expect(raw).toMatch(/^POST \/ingress\/\S+ HTTP\/1\.1\r\n/)
      expect(raw).toContain("x-hub-signature-256: sha256=00\r\n")
      expect(raw.endsWith("\r\n\r\n{\"entry\":[]}")).toBe(true)
    })
  })
}
