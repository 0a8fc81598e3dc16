/**
 * The channel's WebSocket upgrades as requests (docs/event-channel.md, "Connecting"): each gets a
 * request id on its 101 or its refusal, counts against the client's /v1 rate limit (the limiter and
 * key its HTTP requests use; over it, 429 in the problem format before the upgrade); and the
 * session rows of a process that died without closing them are removed by housekeeping.
 * A real server, real `ws` clients; the access line of an upgrade is in AccessLog.test.ts.
 */
import { EventChannelStore } from "@switchboard/core/events"
import { testBackends } from "@switchboard/sql-adapter"
import { DateTime, Effect } from "effect"
import type { IncomingMessage } from "node:http"
import { connect as netConnect } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import WebSocket from "ws"
import { sweepOnce } from "../../src/server/Housekeeping.js"
import { channelUrl, connect, mintToken, newChannelProject } from "../support/ChannelClient.js"
import { startTestServer, type TestServer } from "../support/TestServer.js"

const FUSOR = "fusor.v1.json"
const QUOTA = 4

interface Answer {
  readonly status: number
  readonly headers: IncomingMessage["headers"]
  readonly body: string
  readonly ws: WebSocket
}

/** Opens a WebSocket on `url` and gives the handshake's answer: the 101 (open) or the refusal and its body. */
const handshake = (url: string, protocol = FUSOR, headers: Record<string, string> = {}): Promise<Answer> =>
  new Promise((resolve, reject) => {
    const ws = new WebSocket(url, protocol, { headers })
    ws.on("upgrade", (res) => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: "", ws }))
    ws.on("unexpected-response", (_req, res) => {
      const chunks: Array<Buffer> = []
      res.on("data", (d: Buffer) => chunks.push(d))
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString(), ws }))
    })
    ws.on("error", (e) => reject(e))
  })

for (const backend of testBackends()) {
  let s: TestServer
  let limited: TestServer
  beforeAll(async () => {
    s = await startTestServer(backend, { webhookDeliveryEnabled: false }, undefined, undefined, { tls: true })
    // A small per-client quota over a long window: the test's own requests decide when it is spent.
    limited = await startTestServer(backend, { rateLimitQuota: QUOTA, rateLimitWindowSeconds: 3600, webhookDeliveryEnabled: false })
  })
  afterAll(async () => {
    await s?.close()
    await limited?.close()
  })

  describe(`channel upgrades and sessions (${backend})`, () => {
    it("an upgrade gets a request id on its 101; upgrades and /v1 requests of a client share its rate limit: 429 in the problem format before the upgrade", async () => {
      // A client known by its credential (any bearer value: the limit is counted before it is checked).
      const auth = { authorization: `Bearer client-${crypto.randomUUID()}` }
      const url = channelUrl(limited)
      const opened = await handshake(url, FUSOR, auth)
      expect(opened.status).toBe(101)
      expect(opened.headers["x-request-id"]).toMatch(/^sb_req_[0-9a-z]{26}$/)
      expect(opened.headers["x-trace-id"]).toMatch(/^[0-9a-f]{32}$/)
      expect(opened.headers["ratelimit-policy"]).toBe(`"default";q=${QUOTA};w=3600`)
      opened.ws.close()
      // Two /v1 requests of the same client, then one more upgrade: the quota of 4 is spent.
      for (let i = 0; i < 2; i++) {
        const r = await fetch(`${limited.baseUrl}/v1/account`, { headers: auth })
        await r.arrayBuffer()
        expect(r.status).toBe(401)
      }
      const last = await handshake(url, FUSOR, auth)
      expect(last.status).toBe(101)
      last.ws.close()
      const refused = await handshake(url, FUSOR, auth)
      expect(refused.status, refused.body).toBe(429)
      expect(refused.headers["content-type"]).toBe("application/problem+json")
      expect(refused.headers["connection"]).toBe("close")
      expect(Number(refused.headers["retry-after"])).toBeGreaterThan(0)
      expect(refused.headers["x-request-id"]).toMatch(/^sb_req_/)
      expect(JSON.parse(refused.body)).toMatchObject({ code: "RATE_LIMITED", status: 429, requestId: refused.headers["x-request-id"] })
      // And the client's /v1 requests are refused as well: one bucket.
      const after = await fetch(`${limited.baseUrl}/v1/account`, { headers: auth })
      await after.arrayBuffer()
      expect(after.status).toBe(429)
    })

    it("a refused upgrade (no subprotocol) has a request id too", async () => {
      const refused = await handshake(channelUrl(s), "other.v1")
      expect(refused.status).toBe(400)
      expect(refused.headers["x-request-id"]).toMatch(/^sb_req_/)
      expect(JSON.parse(refused.body)).toMatchObject({ code: "SUBPROTOCOL_REQUIRED" })
    })

    it("a handshake that is not a valid WebSocket upgrade is answered in the problem format, with a request id", async () => {
      const url = new URL(s.baseUrl)
      const answer = await new Promise<string>((resolve) => {
        const socket = netConnect(Number(url.port), url.hostname, () =>
          // No Sec-WebSocket-Key: not a WebSocket handshake.
          socket.write("GET /v1/subscribe HTTP/1.1\r\nHost: h\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: fusor.v1.json\r\n\r\n"))
        const chunks: Array<Buffer> = []
        socket.on("data", (d) => chunks.push(d))
        socket.on("error", () => undefined)
        socket.on("close", () => resolve(Buffer.concat(chunks).toString()))
      })
      const [head, body] = answer.split("\r\n\r\n")
      expect(head).toMatch(/^HTTP\/1\.1 400 /)
      expect(head).toMatch(/\r\nx-request-id: sb_req_/)
      expect(head).toContain("content-type: application/problem+json")
      expect(JSON.parse(body!)).toMatchObject({ code: "HTTP_ERROR", status: 400 })
    })

    it("housekeeping removes the session rows of a crashed process (not refreshed within the presence window), not a live one's", async () => {
      const p = await newChannelProject(s)
      const { token } = await mintToken(s, p.projectId, p.secret)
      const live = connect(channelUrl(s), FUSOR)
      await live.opened
      live.send({ type: "init", startSeq: 0, token })
      await live.next((f) => f.type === "ready")
      const crashed = await newChannelProject(s)
      const longAgo = DateTime.makeUnsafe(Date.now() - 3_600_000) as DateTime.Utc
      await s.run(Effect.gen(function*() {
        const store = yield* EventChannelStore
        // A session of a process that died an hour ago without closing it: never refreshed since.
        yield* store.join({ sessionId: crypto.randomUUID(), projectId: crashed.projectId, protocol: "fusor", processId: crypto.randomUUID(), now: longAgo })
      }))
      const presentSince = (projectId: string, since: DateTime.Utc) =>
        s.run(Effect.gen(function*() {
          return yield* (yield* EventChannelStore).present(projectId, "fusor", since)
        }))
      expect(await presentSince(crashed.projectId, longAgo)).toBe(true)
      const swept = await s.run(sweepOnce)
      expect(swept.sessions).toBeGreaterThanOrEqual(1)
      expect(await presentSince(crashed.projectId, longAgo)).toBe(false)
      // The live session's row stays: its process refreshes it every heartbeat.
      expect(await presentSince(p.projectId, longAgo)).toBe(true)
      live.ws.close()
      await live.closed
    })
  })
}
