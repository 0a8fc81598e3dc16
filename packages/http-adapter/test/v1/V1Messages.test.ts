/**
 * /v1 messages (docs/messages.md) on a real server, each backend: facts from the messaging edge
 * build the records (every status, each in its own strict shape — the accepted one exactly the
 * spec's), repeated fact ids are ignored, impossible moves rejected with their reasons, the
 * `message.*` events in the outbox and delivered to a subscribed webhook destination, the facts
 * visible to the SQL query operation's `message_events`, one message and the filtered, paged list,
 * and who may do what.
 */
import { AcceptedMessage } from "@switchboard/core/messages"
import { testBackends } from "@switchboard/sql-adapter"
import { Result, Schema } from "effect"
import { Webhook } from "standardwebhooks"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { expectProblem, httpClient } from "../support/HttpClient.js"
import { expectMessageShape, factsOf, messageEvents, messagesPath, newMessageId } from "../support/MessagesHttp.js"
import { startTestServer, type TestServer } from "../support/TestServer.js"
import { type Receiver, startReceiver } from "../support/WebhookReceiver.js"
import { newProject, projectKey } from "../support/VoiceHttp.js"

for (const backend of testBackends()) {
  describe(`/v1 messages (${backend})`, () => {
    let s: TestServer
    let receiver: Receiver
    let projectId: string
    const call = httpClient(() => s)
    beforeAll(async () => {
      s = await startTestServer(backend, { allowPrivateWebhookTargets: true, webhookPollIntervalMs: 20 })
      receiver = await startReceiver()
      projectId = await newProject(s, call)
    })
    afterAll(async () => {
      await receiver.close()
      await s.close()
    })

    const ingest = (facts: ReadonlyArray<unknown>, key?: string, project = projectId) =>
      call(`${messagesPath(project)}/facts`, { method: "POST", json: { facts }, ...(key === undefined ? {} : { key }) })
    const outcomes = (r: { body: any }) => r.body.results.map((x: any) => (x.reason === undefined ? x.outcome : `${x.outcome}:${x.reason}`))

    it("a message's life, fact by fact: every status in its own shape; the accepted one is the spec's; events in order", async () => {
      const m = newMessageId()
      const f = factsOf(m)
      const r = await ingest([f.dispatched(0), f.accepted(1), f.delivered(2)])
      expect(r.res.status, r.text).toBe(200)
      expect(outcomes(r)).toEqual(["applied", "applied", "applied"])
      const [dispatched, accepted, delivered] = r.body.results.map((x: any) => x.message)
      for (const message of [dispatched, accepted, delivered]) expectMessageShape(message)
      expect(dispatched).toMatchObject({ id: m, projectId, platform: "sms", status: "dispatched", timestamps: { dispatchedAt: f.ts(0) } })
      expect(dispatched).not.toHaveProperty("acceptance")
      expect(Result.isSuccess(Schema.decodeUnknownResult(AcceptedMessage)(accepted, { onExcessProperty: "error" }))).toBe(true)
      expect(accepted).toMatchObject({
        status: "accepted",
        acceptance: { providerMessageId: "SM1" },
        timestamps: { dispatchedAt: f.ts(0), acceptedAt: f.ts(1) },
        createdAt: f.ts(0),
        updatedAt: f.ts(1)
      })
      for (const absent of ["failure", "timestamp"]) expect(accepted).not.toHaveProperty(absent)
      expect(Object.keys(accepted.timestamps).sort()).toEqual(["acceptedAt", "dispatchedAt"])
      expect(delivered.timestamps).toEqual({ dispatchedAt: f.ts(0), acceptedAt: f.ts(1), deliveredAt: f.ts(2) })
      const got = await call(`${messagesPath(projectId)}/${m}`)
      expect(got.res.status).toBe(200)
      expect(got.body).toEqual(delivered)
      const events = await messageEvents(s, projectId, m)
      expect(events.map((e) => [e.type, e.timestamp])).toEqual([
        ["message.dispatched", f.ts(0)], ["message.accepted", f.ts(1)], ["message.delivered", f.ts(2)]
      ])
      expect(events.map((e) => e.data.message)).toEqual([dispatched, accepted, delivered])
    })

    it("failed (with and without acceptance) and received (inbound) shapes", async () => {
      const a = newMessageId()
      const fa = factsOf(a)
      const b = newMessageId()
      const fb = factsOf(b)
      const c = newMessageId()
      const fc = factsOf(c)
      const r = await ingest([fa.dispatched(0, "whatsapp"), fa.failed(1), fb.dispatched(0, "email", undefined, { type: "email", subject: "Hi", text: "Body" }), fb.accepted(1), fb.failed(3), fc.received(0)])
      expect(outcomes(r)).toEqual(["applied", "applied", "applied", "applied", "applied", "applied"])
      const [failedEarly, failedLate, received] = [r.body.results[1].message, r.body.results[4].message, r.body.results[5].message]
      for (const message of [failedEarly, failedLate, received]) expectMessageShape(message)
      expect(failedEarly).toMatchObject({ status: "failed", failure: { code: "provider_rejected", message: "carrier said no" } })
      expect(failedEarly).not.toHaveProperty("acceptance")
      expect(failedEarly.timestamps).toEqual({ dispatchedAt: fa.ts(0), failedAt: fa.ts(1) })
      expect(failedLate.acceptance).toEqual({ providerMessageId: "SM1" })
      expect(failedLate.timestamps).toEqual({ dispatchedAt: fb.ts(0), acceptedAt: fb.ts(1), failedAt: fb.ts(3) })
      expect(received).toMatchObject({ status: "received", platform: "imessage", timestamps: { receivedAt: fc.ts(0) } })
      expect((await messageEvents(s, projectId, c)).map((e) => e.type)).toEqual(["message.received"])
    })

    it("repeated fact ids are ignored, in the batch and later; impossible moves are rejected with their reasons; nothing else changes", async () => {
      const m = newMessageId()
      const f = factsOf(m)
      const other = newMessageId()
      const r = await ingest([
        f.accepted(1), // before the message exists
        f.dispatched(0),
        f.dispatched(0), // the same fact again
        f.delivered(2), // not accepted yet
        f.received(3, "sms", `${m}:in`), // the other direction
        f.accepted(1),
        f.accepted(0, `${m}:early`), // a second acceptance
        { ...factsOf(other).dispatched(0, "sms", "bad-content", { type: "sticker", stickerId: "s" }) }, // not an SMS content
        f.failed(0, `${m}:fail-before`), // before the latest milestone
        f.delivered(5)
      ])
      expect(r.res.status, r.text).toBe(200)
      expect(outcomes(r)).toEqual([
        "rejected:unknown-message",
        "applied",
        "ignored:duplicate-fact",
        "rejected:accept-skipped",
        "rejected:direction-mismatch",
        "applied",
        "ignored:stale-fact",
        "rejected:invalid-content",
        "rejected:timestamp-regression",
        "applied"
      ])
      expect(r.body.results[0]).not.toHaveProperty("message")
      expect(r.body.results[2].message.status).toBe("dispatched")
      const again = await ingest([f.dispatched(0), f.accepted(1), f.delivered(5), f.failed(9)])
      expect(outcomes(again)).toEqual(["ignored:duplicate-fact", "ignored:duplicate-fact", "ignored:duplicate-fact", "ignored:message-terminal"])
      expect((await messageEvents(s, projectId, m)).map((e) => e.type)).toEqual(["message.dispatched", "message.accepted", "message.delivered"])
      expect((await call(`${messagesPath(projectId)}/${other}`)).res.status).toBe(404)
    })

    it("refuses a bad batch whole with 422 (nothing applied): empty, 101 facts, unknown type, extra property", async () => {
      const m = newMessageId()
      const f = factsOf(m)
      for (const facts of [[], Array.from({ length: 101 }, (_, i) => f.dispatched(0, "sms", `x${i}`)), [{ ...f.dispatched(0), type: "read" }], [{ ...f.dispatched(0), extra: 1 }]]) {
        const r = await ingest(facts)
        expectProblem(r, 422, "VALIDATION_FAILED")
      }
      expect((await call(`${messagesPath(projectId)}/${m}`)).res.status).toBe(404)
      const hundred = await ingest(Array.from({ length: 100 }, (_, i) => factsOf(newMessageId()).dispatched(i % 60, "telegram", `t${m}-${i}`)))
      expect(hundred.res.status).toBe(200)
      expect(new Set(outcomes(hundred))).toEqual(new Set(["applied"]))
    })

    it("a webhook destination subscribed to message.* receives the events, signed, with the record", async () => {
      const project = await newProject(s, call)
      const path = `/messages-${project}`
      const dest = await call(`/v1/projects/${project}/webhooks/destinations`, {
        method: "POST",
        idem: `msg-${project}`,
        json: { apiVersion: "2026-07-01", enabledEvents: ["message.received", "message.failed"], name: "edge", url: receiver.url(path) }
      })
      expect(dest.res.status, dest.text).toBe(201)
      const m = newMessageId()
      const f = factsOf(m)
      const n = newMessageId()
      const g = factsOf(n)
      expect((await ingest([f.received(0), g.dispatched(0), g.failed(1)], undefined, project)).res.status).toBe(200)
      await receiver.waitFor((rs) => rs.filter((r) => r.path === path).length >= 2)
      const got = receiver.received.filter((r) => r.path === path)
        .map((r) => new Webhook(dest.body.signingSecret).verify(r.body, r.headers) as Record<string, any>)
      expect(got.map((e) => e.type).sort()).toEqual(["message.failed", "message.received"])
      const received = got.find((e) => e.type === "message.received")!
      expect(received.source).toBe(`/v1/projects/${project}/platforms/messages/${m}`)
      expect(received.data.message).toMatchObject({ id: m, status: "received", timestamps: { receivedAt: f.ts(0) } })
      expect(got.find((e) => e.type === "message.failed")!.data.message.failure).toEqual({ code: "provider_rejected", message: "carrier said no" })
    })

    it("the SQL query operation sees the applied facts in message_events", async () => {
      const project = await newProject(s, call)
      const m = newMessageId()
      const f = factsOf(m)
      expect((await ingest([f.dispatched(0), f.dispatched(0), f.accepted(1), f.delivered(2)], undefined, project)).res.status).toBe(200)
      const q = await call(`/v1/projects/${project}/metrics/query`, {
        method: "POST",
        json: { sql: "select event_id, message_id, platform, direction, event_type, status from message_events order by occurred_at" }
      })
      expect(q.res.status, q.text).toBe(200)
      expect(q.body.rows).toEqual([
        [`${m}:dispatched`, m, "sms", "addressed", "dispatched", "dispatched"],
        [`${m}:accepted`, m, "sms", "addressed", "accepted", "accepted"],
        [`${m}:delivered`, m, "sms", "addressed", "delivered", "delivered"]
      ])
    })

    it("lists newest first with platform, status and time filters and page tokens; 422 for a bad filter or a foreign token", async () => {
      const project = await newProject(s, call)
      const ids = Array.from({ length: 5 }, () => newMessageId())
      const base = Date.UTC(2032, 0, 1)
      const facts = ids.flatMap((id, i) => {
        const f = factsOf(id, base + i * 60_000)
        return i % 2 === 0 ? [f.dispatched(0, "sms"), f.accepted(1)] : [f.dispatched(0, "telegram")]
      })
      expect((await ingest(facts, undefined, project)).res.status).toBe(200)
      const list = (q: string) => call(`${messagesPath(project)}${q}`)
      const idsOf = (r: { body: any }) => r.body.messages.map((x: any) => x.id)
      expect(idsOf(await list(""))).toEqual([...ids].reverse())
      expect(idsOf(await list("?platform=telegram"))).toEqual([ids[3], ids[1]])
      expect(idsOf(await list("?status=accepted"))).toEqual([ids[4], ids[2], ids[0]])
      const after = new Date(base + 60_000).toISOString()
      const before = new Date(base + 4 * 60_000).toISOString()
      expect(idsOf(await list(`?createdAfter=${after}&createdBefore=${before}`))).toEqual([ids[3], ids[2]])
      const first = await list("?pageSize=2&status=accepted")
      expect(idsOf(first)).toEqual([ids[4], ids[2]])
      const second = await list(`?pageSize=2&status=accepted&pageToken=${encodeURIComponent(first.body.nextPageToken)}`)
      expect(idsOf(second)).toEqual([ids[0]])
      expect(second.body.nextPageToken).toBeUndefined()
      expectProblem(await list(`?pageSize=2&pageToken=${encodeURIComponent(first.body.nextPageToken)}`), 422, "VALIDATION_FAILED")
      expectProblem(await list("?status=read"), 422, "VALIDATION_FAILED")
      expectProblem(await list("?pageSize=0"), 422, "VALIDATION_FAILED")
      expectProblem(await list("?createdAfter=yesterday"), 422, "VALIDATION_FAILED")
    })

    it("404 for an unknown message or one of another project; ingestion needs events:write, reads platforms:read", async () => {
      expectProblem(await call(`${messagesPath(projectId)}/${newMessageId()}`), 404, "RESOURCE_NOT_FOUND")
      const project = await newProject(s, call)
      const m = newMessageId()
      expect((await ingest([factsOf(m).dispatched(0)], undefined, project)).res.status).toBe(200)
      expectProblem(await call(`${messagesPath(projectId)}/${m}`), 404, "RESOURCE_NOT_FOUND")
      const reader = await projectKey(call, projectId, ["platforms:read"])
      const writer = await projectKey(call, projectId, ["events:write"])
      const n = newMessageId()
      expectProblem(await ingest([factsOf(n).dispatched(0)], reader), 403, "FORBIDDEN")
      expect((await ingest([factsOf(n).dispatched(0)], writer)).res.status).toBe(200)
      expectProblem(await call(`${messagesPath(projectId)}/${n}`, { key: writer }), 403, "FORBIDDEN")
      expect((await call(`${messagesPath(projectId)}/${n}`, { key: reader })).res.status).toBe(200)
      expect((await call(messagesPath(projectId), { key: reader })).res.status).toBe(200)
      // A project key reaches only its own project.
      expectProblem(await call(`${messagesPath(project)}/${m}`, { key: reader }), 403, "RESOURCE_MISMATCH")
      expectProblem(await call(messagesPath(projectId), { key: null }), 401, "NOT_AUTHENTICATED")
    })
  })
}
