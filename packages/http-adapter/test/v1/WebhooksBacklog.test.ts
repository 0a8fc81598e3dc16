/**
 * A webhook destination receives exactly the events committed after its creation: events committed
 * before it, even those the delivery engine has not fanned out yet (a backlog), go only to the
 * destinations that existed then. On a real server with the engine driven by hand, on both stores.
 */
import { EventOutbox, WebhookDeliveryEngine } from "@switchboard/core/events"
import { testBackends } from "@switchboard/sql-adapter"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { commitEvents } from "../support/ChannelClient.js"
import { httpClient } from "../support/HttpClient.js"
import { startTestServer, type TestServer } from "../support/TestServer.js"
import { idem, newProject } from "../support/VoiceHttp.js"

for (const backend of testBackends()) {
  describe(`webhook destinations and the backlog (${backend})`, () => {
    let s: TestServer
    beforeAll(async () => {
      // The test fans out by hand: a backlog stays until it does.
      s = await startTestServer(backend, { webhookDeliveryEnabled: false })
    })
    afterAll(() => s.close())

    const call = httpClient(() => s)
    const destinations = (p: string) => `/v1/projects/${p}/webhooks/destinations`
    const createDestination = async (p: string, url: string) => {
      const r = await call(destinations(p), {
        method: "POST",
        json: { name: "backlog", url, enabledEvents: ["*"], apiVersion: "2026-07-01" },
        idem: idem()
      })
      expect(r.res.status, r.text).toBe(201)
      return (r.body.destination ?? r.body).destinationId as string
    }
    /** The phases (`data.phase`) of the events delivered to a destination, in outbox order. */
    const phasesOf = async (p: string, destinationId: string) => {
      const r = await call(`${destinations(p)}/${destinationId}/deliveries?pageSize=100`)
      expect(r.res.status, r.text).toBe(200)
      const ids = new Set(r.body.deliveries.map((d: any) => d.eventId))
      const events = await s.run(Effect.flatMap(EventOutbox, (o) => o.list({ projectId: p, after: 0, limit: 1000 })))
      return events.filter((e) => ids.has(e.event.id)).map((e) => (e.event.data as { phase?: string }).phase ?? e.event.type)
    }

    it("a new destination gets the events committed after it, none of the backlog; an older one gets them all", async () => {
      const p = await newProject(s, call)
      const old = await createDestination(p, "https://old.example.invalid/hook")
      // Committed, not fanned out.
      await commitEvents(s, p, 3, "project.updated", { phase: "backlog" })
      const fresh = await createDestination(p, "https://fresh.example.invalid/hook")
      await commitEvents(s, p, 2, "project.updated", { phase: "after" })
      await s.run(Effect.flatMap(WebhookDeliveryEngine, (e) => e.dispatchAll))
      expect(await phasesOf(p, fresh)).toEqual(["after", "after"])
      expect(await phasesOf(p, old)).toEqual(["backlog", "backlog", "backlog", "after", "after"])
      // Created once everything is fanned out: nothing until the next event.
      const latest = await createDestination(p, "https://latest.example.invalid/hook")
      await commitEvents(s, p, 1, "project.updated", { phase: "last" })
      await s.run(Effect.flatMap(WebhookDeliveryEngine, (e) => e.dispatchAll))
      expect(await phasesOf(p, latest)).toEqual(["last"])
      expect(await phasesOf(p, fresh)).toEqual(["after", "after", "last"])
    })
  })
}
