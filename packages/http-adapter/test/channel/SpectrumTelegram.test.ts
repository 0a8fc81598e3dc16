/**
 * The spectrum-ts SDK's own Telegram provider behind an ingress URL (docs/event-channel.md): a
 * handled update — the provider answers nothing of its own, status 0 — is 200 to Telegram (not a
 * 502 Telegram would retry as a duplicate); an update with the wrong secret token, which the
 * provider refuses with a reason, is 400 with that reason (no retry). The Bot API is a local
 * stand-in that records what the provider calls at start (getWebhookInfo, setWebhook).
 */
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { newChannelProject, type SdkClient, startSdkClient } from "../support/ChannelClient.js"
import { startTestServer, type TestServer } from "../support/TestServer.js"

const script = join(import.meta.dirname, "fixtures", "spectrumTelegram.mjs")

describe("the SDK's Telegram provider through an ingress URL (pglite)", () => {
  let s: TestServer
  let botApi: Server
  let botApiUrl: string
  const calls: Array<{ method: string; body: string }> = []
  let sdk: SdkClient | undefined

  beforeAll(async () => {
    s = await startTestServer("pglite", { channelHeartbeatMs: 1_000, ingressReplyWaitMs: 15_000 }, undefined, undefined, { tls: true })
    // The Bot API stand-in: /bot<token>/<method>, every call answered ok and recorded.
    botApi = createServer((req, res) => {
      let body = ""
      req.on("data", (c: Buffer) => (body += c.toString()))
      req.on("end", () => {
        const method = (req.url ?? "").split("/").pop() ?? ""
        calls.push({ method, body })
        res.writeHead(200, { "content-type": "application/json" })
        res.end(JSON.stringify({ ok: true, result: method === "getWebhookInfo" ? { url: "", has_custom_certificate: false, pending_update_count: 0 } : true }))
      })
    })
    await new Promise<void>((resolve) => botApi.listen(0, "127.0.0.1", resolve))
    botApiUrl = `http://127.0.0.1:${(botApi.address() as AddressInfo).port}`
  })
  afterAll(async () => {
    sdk?.child.kill("SIGKILL")
    await new Promise((resolve) => botApi.close(resolve))
    await s?.close()
  })

  it("a handled update is 200, a refused one 400 with the provider's reason", async () => {
    const p = await newChannelProject(s)
    const endpoint = await p.ingress("telegram", "bot_123456")
    sdk = await startSdkClient(s, p, script, { TELEGRAM_BASE_URL: botApiUrl })
    const out = sdk.output

    const update = { update_id: 1001, message: { message_id: 7, date: 1_767_000_000, chat: { id: 42, type: "private" }, from: { id: 42, is_bot: false, first_name: "Ada" }, text: "hello" } }
    const handled = await fetch(endpoint.url, {
      method: "POST",
      headers: { "content-type": "application/json", "x-telegram-bot-api-secret-token": "right-secret" },
      body: JSON.stringify(update)
    })
    expect(handled.status, out()).toBe(200)

    const refused = await fetch(endpoint.url, {
      method: "POST",
      headers: { "content-type": "application/json", "x-telegram-bot-api-secret-token": "wrong-secret" },
      body: JSON.stringify({ ...update, update_id: 1002 })
    })
    expect(refused.status, out()).toBe(400)
    expect(await refused.text()).toMatch(/secret token/i)

    // At start the provider registered the SDK's own edge (https://<slug>.spctrm.dev/telegram) as the
    // bot's webhook, not this ingress URL — as docs/event-channel.md warns.
    const registered = calls.filter((c) => c.method === "setWebhook").map((c) => JSON.parse(c.body).url as string)
    expect(registered).toHaveLength(1)
    expect(registered[0]).toMatch(/^https:\/\/[^/]+\.spctrm\.dev\/telegram$/)
    sdk.child.kill("SIGTERM")
  }, 120_000)
})
