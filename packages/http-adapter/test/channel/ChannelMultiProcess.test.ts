/**
 * Several server processes on one database (issue 14, items 5 and 6): two servers with their own
 * connection pools, LISTEN connections and channels on one PostgreSQL (on PGlite, which one process
 * owns, they share the store). An ingress request on one is answered by the reply of a session on
 * the other; events committed through either reach the sessions of both; a session closed by one
 * server's shutdown (1001) resumes on the other without losing or repeating an event.
 */
import { StreamTokens } from "@switchboard/core/events"
import { testBackends } from "@switchboard/sql-adapter"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { channelUrl, commitEvents, connect, newChannelProject } from "../support/ChannelClient.js"
import { startTestServers, type TestServer } from "../support/TestServer.js"

for (const backend of testBackends()) {
  let a: TestServer
  let b: TestServer
  let close: () => Promise<void>
  beforeAll(async () => {
    const started = await startTestServers(backend, 2, { channelHeartbeatMs: 500, webhookDeliveryEnabled: false, ingressReplyWaitMs: 15_000 })
    ;[a, b] = started.servers as [TestServer, TestServer]
    close = started.close
  })
  afterAll(async () => {
    await close?.()
  })

  const commit = (on: TestServer, projectId: string, n: number) => commitEvents(on, projectId, n)

  const open = async (on: TestServer, projectId: string, protocol: string, startSeq = 0) => {
    const { token } = await on.run(Effect.flatMap(StreamTokens, (t) => t.mint(projectId)))
    const c = connect(channelUrl(on), protocol)
    await c.opened
    c.send({ type: "init", startSeq, token })
    await c.next((f) => f.type === "ready")
    return c
  }

  describe(`event channel across processes (${backend})`, () => {
    it("an ingress request on one server is answered by a session's reply on the other", async () => {
      const p = await newChannelProject(a)
      const session = await open(a, p.projectId, "fusor.v1.json")
      const endpoint = await p.ingress("slack", "team-x")
      const onB = endpoint.url.replace(a.baseUrl, b.baseUrl)
      const posted = fetch(onB, { method: "POST", body: "{\"challenge\":\"abc\"}" })
      const frame = await session.next((f) => f.type === "event")
      expect(frame.replyExpected).toBe(true)
      session.send({ type: "reply", eventId: frame.event.eventId, status: 201, headers: { "x-from": "a" }, body: Buffer.from("abc").toString("base64") })
      const res = await posted
      expect(res.status).toBe(201)
      expect(res.headers.get("x-from")).toBe("a")
      expect(await res.text()).toBe("abc")
      session.ws.close()
    })

    it("events committed through either server reach the sessions of both, in seq order", async () => {
      const p = await newChannelProject(a)
      const onA = await open(a, p.projectId, "switchboard.events.v1.json")
      const onB = await open(b, p.projectId, "switchboard.events.v1.json")
      const seqs = [...await commit(a, p.projectId, 3), ...await commit(b, p.projectId, 3)]
      for (const c of [onA, onB]) {
        await c.next((f) => f.type === "event" && f.seq === seqs.at(-1))
        expect(c.frames.filter((f) => f.type === "event").map((f) => f.seq)).toEqual(seqs)
      }
      onA.ws.close()
      onB.ws.close()
    })

    it("a session closed by a server's shutdown (1001) resumes on the other with nothing lost or repeated", async () => {
      const started = await startTestServers(backend, 2, { channelHeartbeatMs: 500, webhookDeliveryEnabled: false })
      try {
        const [x, y] = started.servers as [TestServer, TestServer]
        const p = await newChannelProject(x)
        const first = await open(x, p.projectId, "switchboard.events.v1.json")
        const before = await commit(y, p.projectId, 4)
        await first.next((f) => f.type === "event" && f.seq === before.at(-1))
        await Effect.runPromise(x.channel.shutdown)
        expect((await first.closed).code).toBe(1001)
        const last = first.frames.filter((f) => f.type === "event").at(-1).seq as number
        const during = await commit(y, p.projectId, 3)
        const second = await open(y, p.projectId, "switchboard.events.v1.json", last)
        const afterwards = await commit(y, p.projectId, 2)
        await second.next((f) => f.type === "event" && f.seq === afterwards.at(-1))
        const all = [...first.frames, ...second.frames].filter((f) => f.type === "event").map((f) => f.seq)
        expect(all).toEqual([...before, ...during, ...afterwards])
        second.ws.close()
      } finally {
        await started.close()
      }
    }, 120_000)
  })
}
