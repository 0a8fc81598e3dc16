/**
 * Several server processes on one database (docs/event-channel.md). On PostgreSQL
 * (`DATABASE_URL`) server A runs in this test and server B is a real `switchboard serve` child
 * process on the same database: two OS processes, each with its own pool, LISTEN connection and
 * channel. On PGlite, which one process owns, A and B are two servers in this process sharing the
 * store. Raw `ws` clients show:
 *   (a) an ingress request posted to A is answered by the reply of a `fusor.v1.json` session on B;
 *   (b) events committed through A (and an ingress event committed through B) reach the sessions
 *       of both, each once, in seq order;
 *   (c) B's shutdown (SIGTERM for the child) closes its sessions with 1001; they resume on A from
 *       their last seq with nothing lost or repeated. This runs last: B is gone afterwards.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { StreamTokens } from "@switchboard/core/events"
import { DatabaseConfig, scratchPostgres, StoreSql, testBackends } from "@switchboard/sql-adapter"
import { Effect, Exit, Redacted, Scope } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { commitEvents, connect, type Frames, newChannelProject } from "../support/ChannelClient.js"
import { cliEnv, type Running, startServer, stopServer } from "../support/CliProcess.js"
import { startTestServer, startTestServers, type TestServer } from "../support/TestServer.js"

const settings = { channelHeartbeatMs: 500, webhookDeliveryEnabled: false, ingressReplyWaitMs: 15_000 }
/** The in-test server's secret key (TestServer's): B must share it to read the signing keys in the database. */
const secretKey = "test-secret-key-test-secret-key-0123456789"

/** `promise`, or a failure naming `what` after `ms`. */
const within = <A>(promise: Promise<A>, ms: number, what: string) =>
  Promise.race([promise, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`timed out: ${what}`)), ms).unref())])

/** The other server: its base URL and how it stops (SIGTERM for a child process). */
interface Peer {
  readonly baseUrl: string
  readonly stop: () => Promise<void>
}

for (const backend of testBackends()) {
  describe(`event channel across processes (${backend})`, () => {
    let a: TestServer
    let b: Peer
    const cleanups: Array<() => Promise<void>> = []

    beforeAll(async () => {
      if (backend === "postgres") {
        const scope = Effect.runSync(Scope.make())
        cleanups.push(() => Effect.runPromise(Scope.close(scope, Exit.void)))
        const url = await Effect.runPromise(Scope.provide(scratchPostgres, scope))
        a = await startTestServer(backend, settings, undefined, StoreSql(DatabaseConfig.Postgres({ url: Redacted.make(url) })))
        cleanups.unshift(() => a.close())
        const dataDir = mkdtempSync(join(tmpdir(), "sb-channel-peer-"))
        cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }))
        const child: Running = await startServer(
          cliEnv(dataDir, {
            DATABASE_URL: url,
            SECRET_KEY: secretKey,
            // The stream tokens' audience is {API_URL}/v1/subscribe: the same on both servers.
            API_URL: "http://127.0.0.1",
            CHANNEL_HEARTBEAT_MS: String(settings.channelHeartbeatMs),
            INGRESS_REPLY_WAIT_MS: String(settings.ingressReplyWaitMs),
            WEBHOOK_DELIVERY_ENABLED: "false"
          }),
          90_000
        )
        // Killed first, before its database is dropped.
        cleanups.unshift(async () => {
          if (child.child.exitCode === null && child.child.signalCode === null) await within(stopServer(child, "SIGKILL"), 10_000, "SIGKILL")
        })
        b = {
          baseUrl: child.baseUrl,
          stop: async () => {
            expect(await within(stopServer(child), 30_000, "B exits after SIGTERM"), child.output()).toBe(0)
          }
        }
      } else {
        const started = await startTestServers(backend, 2, settings)
        cleanups.push(started.close)
        const [x, y] = started.servers as [TestServer, TestServer]
        a = x
        b = { baseUrl: y.baseUrl, stop: () => Effect.runPromise(y.channel.shutdown) }
      }
    })
    afterAll(async () => {
      for (const cleanup of cleanups) await cleanup()
    })

    /** A session on `on` (any server: the token is minted through A's store, valid on every server). */
    const open = async (on: string, projectId: string, protocol: string, startSeq = 0, types?: Array<string>) => {
      const { token } = await a.run(Effect.flatMap(StreamTokens, (t) => t.mint(projectId)))
      const c = connect(`${on.replace(/^http/, "ws")}/v1/subscribe`, protocol)
      await within(c.opened, 10_000, "the upgrade")
      c.send({ type: "init", startSeq, token, ...(types === undefined ? {} : { types }) })
      await c.next((f) => f.type === "ready")
      return c
    }
    const seqsOf = (c: Frames) => c.frames.filter((f) => f.type === "event").map((f) => f.seq as number)

    it("(a) an ingress request posted to A is answered by the reply of a fusor session on B", async () => {
      const p = await newChannelProject(a)
      const session = await open(b.baseUrl, p.projectId, "fusor.v1.json")
      const endpoint = await p.ingress("slack", "team-x")
      expect(endpoint.url.startsWith(a.baseUrl)).toBe(true)
      const posted = fetch(endpoint.url, { method: "POST", body: "{\"challenge\":\"abc\"}", signal: AbortSignal.timeout(30_000) })
      const frame = await session.next((f) => f.type === "event", 20_000)
      expect(frame.replyExpected).toBe(true)
      expect(Buffer.from(frame.event.rawRequest, "base64").toString()).toContain("{\"challenge\":\"abc\"}")
      session.send({ type: "reply", eventId: frame.event.eventId, status: 201, headers: { "x-from": "b" }, body: Buffer.from("abc").toString("base64") })
      const res = await posted
      expect(res.status).toBe(201)
      expect(res.headers.get("x-from")).toBe("b")
      expect(await res.text()).toBe("abc")
      session.ws.close()
    })

    it("(b) events committed through A, and one through B, reach the sessions of both once each, in seq order", async () => {
      const p = await newChannelProject(a)
      const onA = await open(a.baseUrl, p.projectId, "switchboard.events.v1.json")
      const onB = await open(b.baseUrl, p.projectId, "switchboard.events.v1.json")
      const first = await commitEvents(a, p.projectId, 3)
      // An ingress request to B with no fusor session: B commits `external-webhook.received` and answers 202.
      const endpoint = await p.ingress("slack", "team-y")
      const ingress = await fetch(endpoint.url.replace(a.baseUrl, b.baseUrl), { method: "POST", body: "{}", signal: AbortSignal.timeout(30_000) })
      expect(ingress.status).toBe(202)
      const { eventId } = (await ingress.json()) as { eventId: string }
      const last = await commitEvents(a, p.projectId, 2)
      for (const c of [onA, onB]) {
        await c.next((f) => f.type === "event" && f.seq === last.at(-1), 20_000)
        // A heartbeat after the last event: each heartbeat also polls, so a repeat would have come by now.
        await c.next((f) => f.type === "heartbeat")
        const events = c.frames.filter((f) => f.type === "event")
        expect(events[3].event.id).toBe(eventId)
        const seqs = seqsOf(c)
        expect(seqs).toHaveLength(6)
        expect([...seqs.slice(0, 3), ...seqs.slice(4)]).toEqual([...first, ...last])
        expect(seqs[3]).toBeGreaterThan(first.at(-1)!)
        expect(seqs[3]).toBeLessThan(last[0]!)
        expect(events[3].event.type).toBe("external-webhook.received")
      }
      expect(seqsOf(onA)).toEqual(seqsOf(onB))
      onA.ws.close()
      onB.ws.close()
    })

    it("(c) B's shutdown closes its sessions with 1001; they resume on A with nothing lost or repeated", async () => {
      const p = await newChannelProject(a)
      const sessions = [
        await open(b.baseUrl, p.projectId, "switchboard.events.v1.json"),
        await open(b.baseUrl, p.projectId, "switchboard.events.v1.json", 0, ["project.updated"])
      ]
      const before = await commitEvents(a, p.projectId, 4)
      for (const s of sessions) await s.next((f) => f.type === "event" && f.seq === before.at(-1), 20_000)
      await b.stop()
      for (const s of sessions) {
        expect((await within(s.closed, 30_000, "close after B's shutdown")).code).toBe(1001)
        expect(s.frames.find((f) => f.type === "error")).toMatchObject({ code: "going_away", retryable: true })
      }
      const during = await commitEvents(a, p.projectId, 3)
      const resumed = await Promise.all(sessions.map((s, i) => open(a.baseUrl, p.projectId, "switchboard.events.v1.json", seqsOf(s).at(-1)!, i === 1 ? ["project.updated"] : undefined)))
      const afterwards = await commitEvents(a, p.projectId, 2)
      for (const [i, s] of sessions.entries()) {
        const again = resumed[i]!
        await again.next((f) => f.type === "event" && f.seq === afterwards.at(-1), 20_000)
        await again.next((f) => f.type === "heartbeat")
        expect([...seqsOf(s), ...seqsOf(again)]).toEqual([...before, ...during, ...afterwards])
        again.ws.close()
      }
    }, 120_000)
  })
}
