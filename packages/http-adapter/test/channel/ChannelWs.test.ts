/**
 * Why this file is long: it is the raw-`ws` walk through every frame, code and resume rule of both
 * channel protocols on one server per backend (docs/event-channel.md), which share the setup.
 *
 * A real server (both listeners), real `ws` clients, events from real ingress requests and from
 * the store. No timing thresholds: waits are for frames, with generous deadlines.
 */
import { SqlClient } from "effect/sql"
import { ChannelPolicy, EventChannelStore, StreamTokens } from "@switchboard/core/events"
import { testBackends } from "@switchboard/sql-adapter"
import { DateTime, Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { channelTlsUrl, channelUrl, commitEvents, connect, mintToken, newChannelProject } from "../support/ChannelClient.js"
import { startTestServer, type TestServer } from "../support/TestServer.js"

const FUSOR = "fusor.v1.json"
const EVENTS = "switchboard.events.v1.json"

const commit = commitEvents

for (const backend of testBackends()) {
  let s: TestServer
  beforeAll(async () => {
    s = await startTestServer(backend, {
      channelHeartbeatMs: 300,
      channelMaxFrameBytes: 4096,
      channelSessionBufferBytes: 64 * 1024,
      channelInitTimeoutMs: 1_000,
      ingressReplyWaitMs: 8_000,
      ingressRateLimitPerMinute: 5,
      ingressMaxBytes: 64 * 1024,
      webhookDeliveryEnabled: false
    }, undefined, undefined, { tls: true })
  })
  afterAll(async () => {
    await s?.close()
  })

  /** A session of `protocol` on the project, initialised (ready received). */
  const session = async (projectId: string, secret: string, protocol = FUSOR, init: Record<string, unknown> = {}) => {
    const { token } = await mintToken(s, projectId, secret)
    const c = connect(channelUrl(s), protocol)
    await c.opened
    c.send({ type: "init", startSeq: 0, token, ...init })
    const ready = await c.next((f) => f.type === "ready")
    return { ...c, ready, token }
  }

  describe(`event channel over raw ws (${backend})`, () => {
    it("the management API mints stream tokens; wrong credentials and plaintext are refused", async () => {
      const p = await newChannelProject(s)
      const minted = await mintToken(s, p.projectId, p.secret)
      expect(minted.expiresIn).toBe(900)
      expect(minted.token.split(".")).toHaveLength(3)
      const header = JSON.parse(Buffer.from(minted.token.split(".")[0]!, "base64url").toString())
      expect(header).toMatchObject({ alg: "EdDSA", typ: "fusor+jwt" })
      const { httpsCall } = await import("../support/ManagementClient.js")
      const wrong = await httpsCall(`${s.tlsBaseUrl}/projects/${p.projectId}/fusor/token`, {
        method: "POST",
        auth: { username: p.projectId, password: "wrong" },
        ca: s.tlsCa
      })
      expect(wrong.status).toBe(401)
      expect(wrong.body).toMatchObject({ succeed: false })
      // A rotated secret mints nothing from then on.
      const fresh = await p.rotate()
      const old = await httpsCall(`${s.tlsBaseUrl}/projects/${p.projectId}/fusor/token`, {
        method: "POST",
        auth: { username: p.projectId, password: p.secret },
        ca: s.tlsCa
      })
      expect(old.status).toBe(401)
      await mintToken(s, p.projectId, fresh)
    })

    it("fusor.v1.json: init → ready, ingress requests arrive as event frames with the raw HTTP/1.1 request, heartbeats", async () => {
      const p = await newChannelProject(s)
      const c = await session(p.projectId, p.secret)
      expect(c.ready).toEqual({ type: "ready", projectId: p.projectId, heartbeatIntervalMs: 300 })
      expect(c.ws.protocol).toBe(FUSOR)
      await c.next((f) => f.type === "heartbeat")
      const endpoint = await p.ingress("slack", "team-7")
      // Not waiting for the reply: the poster is answered after the session replies or the wait ends.
      const posted = fetch(`${endpoint.url}?x=1`, {
        method: "POST",
        headers: { "Content-Type": "application/json", "X-Slack-Signature": "v0=abc" },
        body: JSON.stringify({ type: "url_verification", challenge: "c-123" })
      })
      const frame = await c.next((f) => f.type === "event")
      expect(frame.replyExpected).toBe(true)
      expect(typeof frame.seq).toBe("number")
      expect(frame.event).toMatchObject({ projectId: p.projectId, platform: "slack", sourceId: "team-7", prevSubjectSeq: 0 })
      expect(frame.event.eventId).toMatch(/^sb_evt_/)
      expect(Date.parse(frame.event.receivedAt)).not.toBeNaN()
      const raw = Buffer.from(frame.event.rawRequest, "base64").toString("latin1")
      const [head, body] = raw.split("\r\n\r\n")
      const lines = head!.split("\r\n")
      expect(lines[0]).toMatch(/^POST \/ingress\/[A-Za-z0-9_-]+\?x=1 HTTP\/1\.1$/)
      expect(lines).toContain("X-Slack-Signature: v0=abc")
      expect(lines).toContain("Content-Type: application/json")
      expect(body).toBe(JSON.stringify({ type: "url_verification", challenge: "c-123" }))
      // The reply relay: the session's answer is the poster's response.
      c.send({
        type: "reply",
        eventId: frame.event.eventId,
        status: 200,
        headers: { "content-type": "text/plain", connection: "x" },
        body: Buffer.from("c-123").toString("base64")
      })
      const res = await posted
      expect(res.status).toBe(200)
      expect(res.headers.get("content-type")).toBe("text/plain")
      expect(await res.text()).toBe("c-123")
      // A second reply to the same event, or one to an unknown event: a non-fatal notice.
      c.send({ type: "reply", eventId: frame.event.eventId, status: 500, headers: {} })
      c.send({ type: "reply", eventId: "sb_evt_unknown", status: 200, headers: {} })
      const notice = await c.next((f) => f.type === "error")
      expect(notice).toMatchObject({ code: "reply_unknown_event", fatal: false })
      c.ws.close()
    })

    it("ingress: no session → 202 with the event id; an errorReason → 400; unknown secret 404; oversized 413; revoked 404", async () => {
      const p = await newChannelProject(s)
      const endpoint = await p.ingress("telegram", "bot_1")
      const res = await fetch(endpoint.url, { method: "POST", body: "hello" })
      expect(res.status).toBe(202)
      const accepted = await res.json() as { eventId: string }
      expect(accepted.eventId).toMatch(/^sb_evt_/)
      // Replayable: a session resuming from 1 gets it (startSeq 1 is before the project's first seq).
      const { token } = await mintToken(s, p.projectId, p.secret)
      const c = connect(channelUrl(s), FUSOR)
      await c.opened
      c.send({ type: "init", startSeq: 0, token })
      await c.next((f) => f.type === "ready")
      const failing = fetch(endpoint.url, { method: "PUT", body: "x" })
      const frame = await c.next((f) => f.type === "event")
      c.send({ type: "reply", eventId: frame.event.eventId, status: 0, headers: {}, errorReason: "no handler for platform telegram" })
      const failed = await failing
      // As the SDK's own webhook server answers a refusal: 400 with the reason, never retried.
      expect(failed.status).toBe(400)
      expect(failed.headers.get("content-type")).toContain("text/plain")
      expect(await failed.text()).toBe("no handler for platform telegram")
      // Handled without an answer of its own (status 0, no reason): 200, so the sender does not retry.
      const handled = fetch(endpoint.url, { method: "POST", body: "update" })
      const second = await c.next((f) => f.type === "event" && f.event.eventId !== frame.event.eventId)
      c.send({ type: "reply", eventId: second.event.eventId, status: 0, headers: {} })
      const ok = await handled
      expect(ok.status).toBe(200)
      expect(await ok.text()).toBe("")
      c.ws.close()
      expect((await fetch(`${s.baseUrl}/ingress/${"a".repeat(43)}`, { method: "POST" })).status).toBe(404)
      const big = await fetch(endpoint.url, { method: "POST", body: "x".repeat(70 * 1024) })
      expect(big.status).toBe(413)
      const list = await p.v1(`/v1/projects/${p.projectId}/ingress-endpoints`)
      expect(list.body.ingressEndpoints.map((e: any) => e.id)).toEqual([endpoint.id])
      expect(JSON.stringify(list.body)).not.toContain(endpoint.url.split("/").pop())
      const revoked = await p.v1(`/v1/projects/${p.projectId}/ingress-endpoints/${endpoint.id}`, { method: "DELETE" })
      expect(revoked.res.status, revoked.text).toBe(200)
      expect(revoked.body.ingressEndpoint.revokedAt).not.toBeNull()
      expect((await fetch(endpoint.url, { method: "POST", body: "x" })).status).toBe(404)
      const bad = await p.v1(`/v1/projects/${p.projectId}/ingress-endpoints`, { method: "POST", json: { platform: "slack", sourceId: "Bad Id!" } })
      expect(bad.res.status).toBe(422)
    })

    it("ingress: the rate limit per endpoint answers 429 with Retry-After", async () => {
      const p = await newChannelProject(s)
      const endpoint = await p.ingress()
      for (let i = 0; i < 5; i++) expect((await fetch(endpoint.url, { method: "POST", body: String(i) })).status).toBe(202)
      const over = await fetch(endpoint.url, { method: "POST", body: "6" })
      expect(over.status).toBe(429)
      expect(Number(over.headers.get("retry-after"))).toBeGreaterThan(0)
      const other = await p.ingress("slack", "team-2")
      expect((await fetch(other.url, { method: "POST", body: "1" })).status).toBe(202)
    })

    it("resume: startSeq n gives every event after n, then live, none twice; startSeq 0 is the live tail", async () => {
      const p = await newChannelProject(s)
      const first = await commit(s, p.projectId, 5)
      const c = await session(p.projectId, p.secret, EVENTS, { startSeq: first[1] })
      const got: Array<number> = []
      for (let i = 0; i < 3; i++) got.push((await c.next((f) => f.type === "event")).seq)
      expect(got).toEqual(first.slice(2))
      const live = await commit(s, p.projectId, 3)
      for (let i = 0; i < 3; i++) got.push((await c.next((f) => f.type === "event")).seq)
      expect(got).toEqual([...first.slice(2), ...live])
      const tail = await session(p.projectId, p.secret, EVENTS)
      const after = await commit(s, p.projectId, 1)
      expect((await tail.next((f) => f.type === "event")).seq).toBe(after[0])
      c.ws.close()
      tail.ws.close()
    })

    it("switchboard.events.v1.json: envelopes, the type filter, ack rules, ping", async () => {
      const p = await newChannelProject(s)
      const c = await session(p.projectId, p.secret, EVENTS, { types: ["call.dtmf.received"] })
      await commit(s, p.projectId, 1, "project.updated")
      const [wanted] = await commit(s, p.projectId, 1, "call.dtmf.received", { digit: "5" })
      const frame = await c.next((f) => f.type === "event")
      expect(frame.seq).toBe(wanted)
      expect(frame.event).toMatchObject({ type: "call.dtmf.received", apiVersion: "2026-07-01", source: "test", data: { digit: "5" } })
      expect(frame.event.id).toMatch(/^sb_evt_/)
      expect(Date.parse(frame.event.timestamp)).not.toBeNaN()
      c.send({ type: "ack", seq: wanted })
      c.send({ type: "ack", seq: wanted! + 1_000_000 })
      expect(await c.next((f) => f.type === "error")).toMatchObject({ code: "ack_invalid", fatal: false })
      c.send({ type: "ping" })
      await c.next((f) => f.type === "pong")
      c.send({ type: "reply", eventId: "x", status: 200, headers: {} })
      expect(await c.next((f) => f.type === "error")).toMatchObject({ code: "frame_invalid", fatal: false })
      c.ws.close()
    })

    it("bad input: frames before init, malformed frames, oversized frames, wrong subprotocol, no init", async () => {
      const p = await newChannelProject(s)
      const before = connect(channelUrl(s), FUSOR)
      await before.opened
      before.send({ type: "reply", eventId: "x", status: 200, headers: {} })
      expect(await before.next((f) => f.type === "error")).toMatchObject({ code: "frame_invalid", fatal: true })
      expect((await before.closed).code).toBe(4400)

      const c = await session(p.projectId, p.secret)
      c.send("{not json")
      expect(await c.next((f) => f.type === "error")).toMatchObject({ code: "frame_invalid", fatal: false })
      c.send({ type: "init", startSeq: 0, token: c.token })
      expect(await c.next((f) => f.type === "error")).toMatchObject({ code: "frame_invalid", fatal: false })
      c.send({ type: "reply", eventId: 5 })
      expect(await c.next((f) => f.type === "error")).toMatchObject({ code: "frame_invalid", fatal: false })
      c.send({ type: "ping" })
      await c.next((f) => f.type === "pong")
      c.send({ type: "ping", pad: "x".repeat(5000) })
      expect((await c.closed).code).toBe(1009)

      await expect(connect(channelUrl(s), "other.v1.json").opened).rejects.toMatchObject({ status: 400 })
      await expect(connect(channelUrl(s), []).opened).rejects.toMatchObject({ status: 400 })

      const silent = connect(channelUrl(s), EVENTS)
      await silent.opened
      expect(await silent.next((f) => f.type === "error")).toMatchObject({ code: "init_timeout", fatal: true })
      expect((await silent.closed).code).toBe(4408)

      const badInit = connect(channelUrl(s), EVENTS)
      await badInit.opened
      badInit.send({ type: "init", startSeq: -1, token: "t" })
      expect((await badInit.closed).code).toBe(4400)
    })

    it("tokens: forged, malformed and expired tokens close with 4401 unauthenticated; a token only reads its own project", async () => {
      const p = await newChannelProject(s)
      const other = await newChannelProject(s)
      const { token } = await mintToken(s, p.projectId, p.secret)
      const [h, b, sig] = token.split(".")
      const claims = JSON.parse(Buffer.from(b!, "base64url").toString())
      const forgedBody = Buffer.from(JSON.stringify({ ...claims, sub: other.projectId })).toString("base64url")
      for (const bad of [`${h}.${forgedBody}.${sig}`, "not-a-jwt", `${h}.${b}.${"A".repeat(sig!.length)}`]) {
        const c = connect(channelUrl(s), FUSOR)
        await c.opened
        c.send({ type: "init", startSeq: 0, token: bad })
        expect(await c.next((f) => f.type === "error")).toMatchObject({ code: "unauthenticated", fatal: true })
        expect((await c.closed).code).toBe(4401)
      }
      // A session of the other project never sees this project's events.
      const theirs = await session(other.projectId, other.secret, EVENTS)
      const mine = await session(p.projectId, p.secret, EVENTS)
      const [seq] = await commit(s, p.projectId, 1)
      expect((await mine.next((f) => f.type === "event")).seq).toBe(seq)
      const [otherSeq] = await commit(s, other.projectId, 1)
      expect((await theirs.next((f) => f.type === "event")).seq).toBe(otherSeq)
      expect(theirs.frames.filter((f) => f.type === "event")).toHaveLength(1)
      mine.ws.close()
      theirs.ws.close()

      // A token minted with a 3 s lifetime: the session is closed when it expires, and it opens no new
      // one. (Expiry is in whole seconds: a 1 s token could expire before a loaded machine sent init.)
      const shortToken = await s.run(Effect.flatMap(StreamTokens, (t) => t.mint(p.projectId)).pipe(
        Effect.provideService(ChannelPolicy, { tokenTtlSeconds: 3, replyWaitMs: 0, presenceMs: 1_000 })
      ))
      const c = connect(channelTlsUrl(s), FUSOR, s.tlsCa)
      await c.opened
      c.send({ type: "init", startSeq: 0, token: shortToken.token })
      await c.next((f) => f.type === "ready")
      expect(await c.next((f) => f.type === "error", 15_000)).toMatchObject({ code: "unauthenticated", reason: "jwt:expired", fatal: true })
      expect((await c.closed).code).toBe(4401)
      const late = connect(channelTlsUrl(s), FUSOR, s.tlsCa)
      await late.opened
      late.send({ type: "init", startSeq: 0, token: shortToken.token })
      expect(await late.next((f) => f.type === "error")).toMatchObject({ code: "unauthenticated", reason: "jwt:expired" })
      expect((await late.closed).code).toBe(4401)
    })

    it("retention: a cursor older than what retention dropped is refused with 4410 cursor_expired", async () => {
      const p = await newChannelProject(s)
      const seqs = await commit(s, p.projectId, 3)
      await s.run(Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        yield* sql`update events set dispatched_at = now() where project_id = ${p.projectId}`
        const store = yield* EventChannelStore
        yield* store.prune(DateTime.makeUnsafe(Date.now() + 60_000) as DateTime.Utc, 1_000)
      }))
      const { token } = await mintToken(s, p.projectId, p.secret)
      const c = connect(channelUrl(s), EVENTS)
      await c.opened
      c.send({ type: "init", startSeq: seqs[0], token })
      expect(await c.next((f) => f.type === "error")).toMatchObject({ code: "cursor_expired", fatal: true, retryable: false })
      expect((await c.closed).code).toBe(4410)
      // From the floor on, a resume works, and live events follow.
      const ok = await session(p.projectId, p.secret, EVENTS, { startSeq: seqs[2] })
      const [next] = await commit(s, p.projectId, 1)
      expect((await ok.next((f) => f.type === "event")).seq).toBe(next)
      ok.ws.close()
    })

    it("back-pressure: a session that does not read is closed with 1013 slow_consumer, retryable", async () => {
      const p = await newChannelProject(s)
      const c = await session(p.projectId, p.secret, EVENTS)
      // Stop reading: the socket's buffers fill, then the server's send buffer passes the cap.
      ;(c.ws as any)._socket.pause()
      await commit(s, p.projectId, 400, "project.updated", { pad: "p".repeat(16 * 1024) })
      const deadline = Date.now() + 30_000
      while (s.channel.sessionCount(p.projectId) > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50))
      expect(s.channel.sessionCount(p.projectId)).toBe(0)
      ;(c.ws as any)._socket.resume()
      const closed = await c.closed
      expect(closed.code).toBe(1013)
      expect(c.frames.find((f) => f.type === "error")).toMatchObject({ code: "slow_consumer", fatal: true, retryable: true })
    })

    it("graceful shutdown closes every session with 1001 going away and refuses new ones", async () => {
      const own = await startTestServer(backend, {})
      const p = await newChannelProject(own)
      const { token } = await own.run(Effect.flatMap(StreamTokens, (t) => t.mint(p.projectId)))
      const c = connect(channelUrl(own), FUSOR)
      await c.opened
      c.send({ type: "init", startSeq: 0, token })
      await c.next((f) => f.type === "ready")
      await Effect.runPromise(own.channel.shutdown)
      expect(await c.next((f) => f.type === "error")).toMatchObject({ code: "going_away", retryable: true })
      expect((await c.closed).code).toBe(1001)
      await expect(connect(channelUrl(own), FUSOR).opened).rejects.toMatchObject({ status: 503 })
      await own.close()
    }, 120_000)
  })
}
