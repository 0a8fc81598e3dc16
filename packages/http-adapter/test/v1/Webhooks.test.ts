/**
 * Webhook delivery through the real server (docs/api-notes/events-and-webhooks.md): a real receiver
 * on loopback, every delivery checked by an independent verifier — the `standardwebhooks` package
 * for v1 destinations, a from-scratch HMAC for the management v0 scheme. The server runs its
 * delivery engine with fast retries (base 10 ms) and private targets allowed (the receiver is on
 * 127.0.0.1).
 */
import { eventCatalog, eventEnvelopeSchema, ManagementWebhooks } from "@switchboard/core/events"
import { testBackends } from "@switchboard/sql-adapter"
import { Effect, Result, Redacted, Schema } from "effect"
import { createHmac, timingSafeEqual } from "node:crypto"
import { Webhook } from "standardwebhooks"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { expectProblem, httpClient } from "../support/HttpClient.js"
import { startTestServer, startTestServers, type TestServer } from "../support/TestServer.js"
import { freePort, type Received, type Receiver, startReceiver, waitUntil } from "../support/WebhookReceiver.js"

let seq = 0
const idem = () => `wh-${Date.now()}-${++seq}`
const unique = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${(++seq).toString(36)}`

/** The envelope of a delivery, verified by the Standard Webhooks reference library. */
const verifyStandard = (secret: string, r: Received) => new Webhook(secret).verify(r.body, r.headers) as Record<string, any>

/** The management v0 scheme, checked from scratch: HMAC-SHA256(secret, "v0:" + ts + ":" + body), hex. */
const verifyV0 = (secret: string, r: Received) => {
  const ts = r.headers["x-spectrum-timestamp"]!
  const expected = `v0=${createHmac("sha256", secret).update(`v0:${ts}:${r.body}`).digest("hex")}`
  const got = r.headers["x-spectrum-signature"] ?? ""
  return got.length === expected.length && timingSafeEqual(Buffer.from(got), Buffer.from(expected)) &&
    Math.abs(Date.now() / 1000 - Number(ts)) < 300
}

const envelopeOf = (r: Received) => JSON.parse(r.body) as { id: string; type: string; apiVersion: string; source: string; timestamp: string; data: any }

for (const backend of testBackends()) {
  describe(`webhook delivery (${backend})`, () => {
    let s: TestServer
    let receiver: Receiver
    beforeAll(async () => {
      s = await startTestServer(backend, {
        allowPrivateWebhookTargets: true,
        webhookPollIntervalMs: 20,
        webhookRetryBaseMs: 10,
        webhookRetryMaxMs: 40,
        webhookTimeoutSeconds: 2,
        // The fast schedule alone: a failing delivery is dead-lettered within the test.
        webhookRetryHorizonHours: 0,
        egressIps: ["34.120.1.2", "52.24.126.164"]
      })
      receiver = await startReceiver()
    })
    afterAll(async () => {
      await receiver.close()
      await s.close()
    })
    const call = httpClient(() => s)

    const newProject = async () => {
      const org = await call("/v1/organizations", { method: "POST", json: { name: "Hooks" }, idem: idem() })
      expect(org.res.status, org.text).toBe(201)
      const p = await call(`/v1/organizations/${org.body.organizationId}/projects`, {
        method: "POST", json: { name: "Hooks", slug: unique("hooks") }, idem: idem()
      })
      expect(p.res.status, p.text).toBe(201)
      return p.body.projectId as string
    }
    const hooks = (projectId: string) => `/v1/projects/${projectId}/webhooks`
    const createDestination = async (projectId: string, body: Record<string, unknown>) => {
      const r = await call(`${hooks(projectId)}/destinations`, {
        method: "POST", idem: idem(), json: { apiVersion: "2026-07-01", enabledEvents: ["*"], name: "receiver", ...body }
      })
      expect(r.res.status, r.text).toBe(201)
      return r.body as { destination: Record<string, any>; signingSecret: string }
    }
    const rename = (projectId: string, name: string) =>
      call(`/v1/projects/${projectId}`, { method: "PATCH", json: { name }, idem: idem() })
    const deliveries = async (projectId: string, destinationId: string, query = "") => {
      const r = await call(`${hooks(projectId)}/destinations/${destinationId}/deliveries${query}`)
      expect(r.res.status, r.text).toBe(200)
      return r.body.deliveries as Array<Record<string, any>>
    }
    const at = (path: string) => (rs: ReadonlyArray<Received>) => rs.filter((r) => r.path === path)
    const named = (name: string) => (r: Received) => envelopeOf(r).data?.name === name

    it("a v1 destination receives the project's events as Standard Webhooks, verified by the standardwebhooks package", async () => {
      const projectId = await newProject()
      const path = `/v1-${unique("a")}`
      const { destination, signingSecret } = await createDestination(projectId, { url: receiver.url(path) })
      expect(signingSecret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/)
      expect(destination).toMatchObject({ projectId, status: "enabled", enabledEvents: ["*"], apiVersion: "2026-07-01", deletedAt: null })
      expect(destination.destinationId).toMatch(/^sb_whd_[0-7][0-9a-hjkmnp-tv-z]{25}$/)
      expect(await rename(projectId, "Renamed once")).toMatchObject({ res: { status: 200 } })
      await receiver.waitFor((rs) => at(path)(rs).some(named("Renamed once")))
      const r = at(path)(receiver.received).find(named("Renamed once"))!
      const payload = verifyStandard(signingSecret, r)
      expect(payload).toEqual(envelopeOf(r))
      expect(payload).toMatchObject({
        type: "project.updated",
        apiVersion: "2026-07-01",
        source: expect.stringMatching(/^hooks-[a-z0-9-]+\.projects\.switchboard$/),
        data: { projectId, name: "Renamed once", state: "active", deletedAt: null }
      })
      expect(r.headers["webhook-id"]).toBe(payload.id)
      expect(payload.id).toMatch(/^sb_evt_[0-7][0-9a-hjkmnp-tv-z]{25}$/)
      expect(r.headers["content-type"]).toBe("application/json")
      expect(r.headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]+=*$/)
      // The envelope decodes with the catalog's schema of its type (what event-types publishes).
      const decoded = Schema.decodeUnknownResult(eventEnvelopeSchema("project.updated", eventCatalog.get("project.updated")!))(payload)
      expect(Result.isSuccess(decoded)).toBe(true)
      // A wrong secret does not verify.
      expect(() => new Webhook(`whsec_${Buffer.alloc(32, 1).toString("base64")}`).verify(r.body, r.headers)).toThrow()
      // The delivery is listed as delivered after one attempt.
      await waitUntil("the delivery record", async () =>
        (await deliveries(projectId, destination.destinationId)).some((d) => d.eventId === payload.id && d.status === "delivered"))
      const d = (await deliveries(projectId, destination.destinationId)).find((x) => x.eventId === payload.id)!
      expect(d).toMatchObject({ eventType: "project.updated", status: "delivered", attemptCount: 1, lastError: null, lastResponseStatus: 204, nextAttemptAt: null, inFlight: false })
    })

    it("send test event: a signed webhook.test delivery to that destination only, listed among its deliveries", async () => {
      const projectId = await newProject()
      const path = `/test-${unique("t")}`
      const otherPath = `/other-${unique("t")}`
      const { destination, signingSecret } = await createDestination(projectId, { url: receiver.url(path) })
      await createDestination(projectId, { url: receiver.url(otherPath) })
      const queued = await call(`${hooks(projectId)}/destinations/${destination.destinationId}/test-events`, { method: "POST" })
      expect(queued.res.status, queued.text).toBe(202)
      expect(queued.body).toMatchObject({ eventType: "webhook.test", eventId: expect.stringMatching(/^sb_evt_/), deliveryId: expect.stringMatching(/^sb_del_|^sb_/) })
      await receiver.waitFor((rs) => at(path)(rs).some((r) => envelopeOf(r).type === "webhook.test"))
      const r = at(path)(receiver.received).find((x) => envelopeOf(x).type === "webhook.test")!
      expect(verifyStandard(signingSecret, r)).toMatchObject({ id: queued.body.eventId, type: "webhook.test", data: { destinationId: destination.destinationId } })
      await waitUntil("the test delivery record", async () =>
        (await deliveries(projectId, destination.destinationId)).some((d) => d.eventId === queued.body.eventId && d.status === "delivered"))
      // Nobody else got it.
      await new Promise((done) => setTimeout(done, 200))
      expect(at(otherPath)(receiver.received).some((x) => envelopeOf(x).type === "webhook.test")).toBe(false)
      const unknown = await call(`${hooks(projectId)}/destinations/sb_whd_0aaaaaaaaaaaaaaaaaaaaaaaaa/test-events`, { method: "POST" })
      expect(unknown.res.status).toBe(404)
      expect(unknown.body.code).toBe("WEBHOOK_DESTINATION_NOT_FOUND")
    })

    it("enabledEvents filters by type; [\"*\"] gets everything, including api_key.created and api_key.revoked", async () => {
      const projectId = await newProject()
      const onlyKeys = `/keys-${unique("k")}`
      const everything = `/all-${unique("e")}`
      const a = await createDestination(projectId, { url: receiver.url(onlyKeys), enabledEvents: ["api_key.created", "api_key.revoked"] })
      const b = await createDestination(projectId, { url: receiver.url(everything) })
      const key = await call(`/v1/projects/${projectId}/api-keys`, { method: "POST", idem: idem(), json: { name: "k", permissions: ["project:read"] } })
      expect(key.res.status).toBe(201)
      await rename(projectId, "Filtered")
      const revoked = await call(`/v1/projects/${projectId}/api-keys/${key.body.apiKey.apiKeyId}`, { method: "DELETE", idem: idem() })
      expect(revoked.res.status).toBe(200)
      await receiver.waitFor((rs) => {
        const types = at(everything)(rs).map((r) => envelopeOf(r).type)
        return types.includes("api_key.created") && types.includes("project.updated") && types.includes("api_key.revoked")
      })
      await receiver.waitFor((rs) => at(onlyKeys)(rs).length >= 2)
      const keyEvents = at(onlyKeys)(receiver.received).map((r) => verifyStandard(a.signingSecret, r))
      expect(keyEvents.map((e) => e.type).sort()).toEqual(["api_key.created", "api_key.revoked"])
      const created = keyEvents.find((e) => e.type === "api_key.created")!
      expect(created.data).toMatchObject({ apiKeyId: key.body.apiKey.apiKeyId, projectId, name: "k", revokedAt: null })
      expect(JSON.stringify(created)).not.toContain(key.body.secret)
      expect(keyEvents.find((e) => e.type === "api_key.revoked")!.data.revokedAt).toEqual(expect.any(String))
      for (const r of at(everything)(receiver.received)) verifyStandard(b.signingSecret, r)
      // Fan-out is one transaction per event: the filtered destination has no delivery of the rename.
      const renameEvent = at(everything)(receiver.received).map(envelopeOf).find((e) => e.type === "project.updated")!
      const listed = await deliveries(projectId, a.destination.destinationId)
      expect(listed.map((d) => d.eventType).sort()).toEqual(["api_key.created", "api_key.revoked"])
      expect(listed.some((d) => d.eventId === renameEvent.id)).toBe(false)
    })

    it("a secret rotation with overlap signs with both secrets; without overlap only the new one verifies", async () => {
      const projectId = await newProject()
      const path = `/rot-${unique("r")}`
      const { destination, signingSecret: first } = await createDestination(projectId, { url: receiver.url(path) })
      const base = `${hooks(projectId)}/destinations/${destination.destinationId}`
      const rotated = await call(`${base}/secret-rotations`, { method: "POST", idem: idem(), json: { overlapSeconds: 3600 } })
      expect(rotated.res.status, rotated.text).toBe(200)
      expect(rotated.res.headers.get("cache-control")).toBe("no-store")
      const second = rotated.body.signingSecret as string
      expect(second).toMatch(/^whsec_/)
      expect(second).not.toBe(first)
      const expires = Date.parse(rotated.body.previousSecretExpiresAt)
      expect(expires - Date.now()).toBeGreaterThan(3500_000)
      await rename(projectId, "During overlap")
      await receiver.waitFor((rs) => at(path)(rs).some(named("During overlap")))
      const during = at(path)(receiver.received).find(named("During overlap"))!
      expect(during.headers["webhook-signature"]!.split(" ")).toHaveLength(2)
      expect(verifyStandard(second, during).data.name).toBe("During overlap")
      expect(verifyStandard(first, during).data.name).toBe("During overlap")

      const third = await call(`${base}/secret-rotations`, { method: "POST", idem: idem(), json: { overlapSeconds: 0 } })
      expect(third.body.previousSecretExpiresAt).toBeNull()
      await rename(projectId, "After overlap")
      await receiver.waitFor((rs) => at(path)(rs).some(named("After overlap")))
      const after = at(path)(receiver.received).find(named("After overlap"))!
      expect(after.headers["webhook-signature"]!.split(" ")).toHaveLength(1)
      expect(verifyStandard(third.body.signingSecret, after).data.name).toBe("After overlap")
      expect(() => verifyStandard(second, after)).toThrow()
      expect(() => verifyStandard(first, after)).toThrow()
    })

    it("a receiver that fails then succeeds gets the event on a later attempt, with the same webhook-id", async () => {
      const projectId = await newProject()
      const path = `/flaky-${unique("f")}`
      const { destination, signingSecret } = await createDestination(projectId, { url: receiver.url(path), enabledEvents: ["project.updated"] })
      let failures = 0
      const previous = receiver.answer
      receiver.answer = (r, i) => {
        if (r.path !== path) return previous(r, i)
        failures += 1
        return failures <= 2 ? { status: failures === 1 ? 503 : 429, body: "try later" } : { status: 200 }
      }
      try {
        await rename(projectId, "Flaky")
        await waitUntil("delivery after failures", async () =>
          (await deliveries(projectId, destination.destinationId)).some((d) => d.status === "delivered"))
      } finally {
        receiver.answer = previous
      }
      const attempts = at(path)(receiver.received)
      expect(attempts).toHaveLength(3)
      expect(new Set(attempts.map((r) => r.headers["webhook-id"])).size).toBe(1)
      for (const r of attempts) expect(verifyStandard(signingSecret, r).data.name).toBe("Flaky")
      const [d] = await deliveries(projectId, destination.destinationId)
      expect(d).toMatchObject({ status: "delivered", attemptCount: 3, lastResponseStatus: 200, lastError: null })
    })

    it("a receiver that is down: dead-lettered after 6 attempts, kept and listed; a fenced retry redelivers it", async () => {
      const projectId = await newProject()
      const port = await freePort()
      const url = `http://127.0.0.1:${port}/down`
      const { destination, signingSecret } = await createDestination(projectId, { url, enabledEvents: ["project.updated"] })
      await rename(projectId, "Nobody home")
      await waitUntil("dead-lettering", async () =>
        (await deliveries(projectId, destination.destinationId)).some((d) => d.status === "dead_lettered"))
      const [dead] = await deliveries(projectId, destination.destinationId, "?status=dead_lettered")
      expect(dead).toMatchObject({ status: "dead_lettered", attemptCount: 6, nextAttemptAt: null, lastResponseStatus: null, eventType: "project.updated" })
      expect(dead!.lastError).toMatch(/network error/)
      expect(await deliveries(projectId, destination.destinationId, "?status=pending")).toEqual([])

      const late = await startReceiver(port)
      try {
        const retries = `${hooks(projectId)}/destinations/${destination.destinationId}/retries`
        const stale = await call(retries, { method: "POST", idem: idem(), json: { eventId: dead!.eventId, eventType: "project.updated", expectedAttemptCount: 5 } })
        expectProblem(stale, 409, "FAILED_PRECONDITION")
        const wrongType = await call(retries, { method: "POST", idem: idem(), json: { eventId: dead!.eventId, eventType: "project.created", expectedAttemptCount: 6 } })
        expectProblem(wrongType, 409, "FAILED_PRECONDITION")
        const unknown = await call(retries, {
          method: "POST", idem: idem(), json: { eventId: "sb_evt_01jd0000000000000000000000", eventType: "project.updated", expectedAttemptCount: 6 }
        })
        expectProblem(unknown, 404, "RESOURCE_NOT_FOUND")
        const ok = await call(retries, { method: "POST", idem: idem(), json: { eventId: dead!.eventId, eventType: "project.updated", expectedAttemptCount: 6 } })
        expect(ok.res.status, ok.text).toBe(202)
        expect(ok.body).toEqual({ status: "accepted" })
        await late.waitFor((rs) => rs.length >= 1)
        expect(verifyStandard(signingSecret, late.received[0]!)).toMatchObject({ id: dead!.eventId, data: { name: "Nobody home" } })
        await waitUntil("delivered after retry", async () =>
          (await deliveries(projectId, destination.destinationId)).some((d) => d.status === "delivered"))
        const [done] = await deliveries(projectId, destination.destinationId)
        expect(done).toMatchObject({ status: "delivered", attemptCount: 7 })
        const again = await call(retries, { method: "POST", idem: idem(), json: { eventId: dead!.eventId, eventType: "project.updated", expectedAttemptCount: 7 } })
        expectProblem(again, 409, "FAILED_PRECONDITION")
      } finally {
        await late.close()
      }
    })

    it("management webhooks: every project event, signed with the X-Spectrum v0 scheme (checked from scratch)", async () => {
      const projectId = await newProject()
      const path = `/mgmt-${unique("m")}`
      const created = await s.run(Effect.flatMap(ManagementWebhooks, (m) => m.create({ projectId, webhookUrl: receiver.url(path) })))
      const secret = Redacted.value(created.signingSecret)
      expect(secret).toMatch(/^[0-9a-f]{64}$/)
      await rename(projectId, "Managed")
      await receiver.waitFor((rs) => at(path)(rs).some(named("Managed")))
      const r = at(path)(receiver.received).find(named("Managed"))!
      expect(verifyV0(secret, r)).toBe(true)
      expect(verifyV0("0".repeat(64), r)).toBe(false)
      expect(r.headers).toMatchObject({
        "content-type": "application/json",
        "x-spectrum-event": "project.updated",
        "x-spectrum-webhook-id": created.webhook.id
      })
      expect(r.headers["x-spectrum-signature"]).toMatch(/^v0=[0-9a-f]{64}$/)
      expect(r.headers["x-spectrum-timestamp"]).toMatch(/^\d+$/)
      expect(envelopeOf(r)).toMatchObject({ type: "project.updated", apiVersion: "2026-07-01", data: { projectId, name: "Managed" } })
      // Deleted: no further deliveries are made to it.
      await s.run(Effect.flatMap(ManagementWebhooks, (m) => m.remove({ projectId, webhookId: created.webhook.id })))
      const count = at(path)(receiver.received).length
      await rename(projectId, "After removal")
      const probe = `/probe-${unique("p")}`
      await createDestination(projectId, { url: receiver.url(probe) })
      await rename(projectId, "Probe")
      await receiver.waitFor((rs) => at(probe)(rs).some(named("Probe")))
      expect(at(path)(receiver.received)).toHaveLength(count)
    })

    it("deleting a destination cancels its pending deliveries and leaves a tombstone", async () => {
      const projectId = await newProject()
      const port = await freePort()
      const { destination } = await createDestination(projectId, { url: `http://127.0.0.1:${port}/never`, enabledEvents: ["project.updated"] })
      const d = `${hooks(projectId)}/destinations/${destination.destinationId}`
      // Disabled: events are not fanned out to it; enabled again, they are.
      const disabled = await call(d, { method: "PATCH", idem: idem(), json: { status: "disabled" } })
      expect(disabled.body.status).toBe("disabled")
      await call(d, { method: "PATCH", idem: idem(), json: { status: "enabled", url: `http://127.0.0.1:${port}/never-again` } })
      await rename(projectId, "Pending")
      await waitUntil("a delivery", async () => (await deliveries(projectId, destination.destinationId)).length === 1)
      const del = await call(d, { method: "DELETE" })
      expect(del.res.status).toBe(200)
      expect(del.body.deletedAt).toEqual(expect.any(String))
      const repeat = await call(d, { method: "DELETE" })
      expect(repeat.body).toEqual(del.body)
      expectProblem(await call(d), 410, "WEBHOOK_DESTINATION_DELETED")
      expectProblem(await call(d, { method: "PATCH", idem: idem(), json: { name: "x" } }), 410, "WEBHOOK_DESTINATION_DELETED")
      const [only] = await deliveries(projectId, destination.destinationId)
      expect(only!.status === "cancelled" || only!.status === "dead_lettered").toBe(true)
      const list = await call(`${hooks(projectId)}/destinations`)
      expect(list.body.destinations.map((x: any) => x.destinationId)).not.toContain(destination.destinationId)
    })

    it("CRUD: list pages, get, update, validation, idempotency, 404", async () => {
      const projectId = await newProject()
      const ids: Array<string> = []
      for (let i = 0; i < 3; i++) ids.push((await createDestination(projectId, { url: receiver.url(`/crud-${i}`), name: `d${i}` })).destination.destinationId)
      const page1 = await call(`${hooks(projectId)}/destinations?pageSize=2`)
      expect(page1.body.destinations.map((x: any) => x.destinationId)).toEqual(ids.slice(0, 2))
      expect(JSON.stringify(page1.body)).not.toContain("whsec_")
      const page2 = await call(`${hooks(projectId)}/destinations?pageSize=2&pageToken=${encodeURIComponent(page1.body.nextPageToken)}`)
      expect(page2.body.destinations.map((x: any) => x.destinationId)).toEqual(ids.slice(2))
      expect(page2.body.nextPageToken).toBeUndefined()
      expectProblem(await call(`${hooks(projectId)}/destinations?pageToken=forged.token`), 422, "VALIDATION_FAILED")

      const d = `${hooks(projectId)}/destinations/${ids[0]}`
      const got = await call(d)
      expect(got.body).toMatchObject({ destinationId: ids[0], name: "d0", description: null })
      const updated = await call(d, { method: "PATCH", idem: idem(), json: { description: "the first", enabledEvents: ["call.ended", "project.created"] } })
      expect(updated.res.status, updated.text).toBe(200)
      expect(updated.body).toMatchObject({ description: "the first", enabledEvents: ["call.ended", "project.created"] })
      expect(Date.parse(updated.body.updatedAt)).toBeGreaterThanOrEqual(Date.parse(got.body.updatedAt))

      const post = (json: unknown) => call(`${hooks(projectId)}/destinations`, { method: "POST", idem: idem(), json })
      const valid = { apiVersion: "2026-07-01", enabledEvents: ["*"], name: "x", url: receiver.url("/v") }
      const bad = async (json: unknown, path: string) => {
        const r = await post(json)
        expectProblem(r, 422, "VALIDATION_FAILED")
        expect(r.body.issues.some((i: any) => i.path === path || i.path.startsWith(`${path}/`)), JSON.stringify(r.body.issues)).toBe(true)
      }
      await bad({ ...valid, enabledEvents: ["no.such-event"] }, "/enabledEvents")
      await bad({ ...valid, enabledEvents: ["*", "project.created"] }, "/enabledEvents")
      await bad({ ...valid, enabledEvents: ["project.created", "project.created"] }, "/enabledEvents")
      await bad({ ...valid, enabledEvents: [] }, "/enabledEvents")
      await bad({ ...valid, apiVersion: "2020-01-01" }, "/apiVersion")
      await bad({ ...valid, apiVersion: "2026-02-30" }, "/apiVersion")
      await bad({ ...valid, url: "https://user:pw@example.com/x" }, "/url")
      await bad({ ...valid, url: "https://example.com/x#frag" }, "/url")
      await bad({ ...valid, url: "ftp://example.com/x" }, "/url")
      await bad({ ...valid, url: `https://example.com/${"a".repeat(2050)}` }, "/url")
      await bad({ ...valid, name: "" }, "/name")
      await bad({ ...valid, extra: 1 }, "/extra")
      const patch422 = await call(d, { method: "PATCH", idem: idem(), json: { apiVersion: "2026-07-01" } })
      expectProblem(patch422, 422, "VALIDATION_FAILED")
      expectProblem(await call(d, { method: "PATCH", idem: idem(), json: {} }), 422, "VALIDATION_FAILED")
      expectProblem(await call(`${hooks(projectId)}/destinations`, { method: "POST", json: valid }), 400, "IDEMPOTENCY_KEY_REQUIRED")
      // Replay: the same key returns the same destination and secret.
      const key = idem()
      const first = await call(`${hooks(projectId)}/destinations`, { method: "POST", idem: key, json: valid })
      const replay = await call(`${hooks(projectId)}/destinations`, { method: "POST", idem: key, json: valid })
      expect(replay.res.headers.get("idempotent-replayed")).toBe("true")
      expect(replay.body).toEqual(first.body)
      expectProblem(await call(`${hooks(projectId)}/destinations/sb_whd_01jd0000000000000000000000`), 404, "WEBHOOK_DESTINATION_NOT_FOUND")
    })

    it("catalogs: API versions, event types with schema URLs, JSON Schemas, egress addresses; conditional GET", async () => {
      const projectId = await newProject()
      const versions = await call(`${hooks(projectId)}/api-versions`)
      expect(versions.body.apiVersions).toEqual([{ version: "2026-07-01", status: "latest", selectable: true, successor: null, retirement: null }])
      const types = await call(`${hooks(projectId)}/event-types?apiVersion=2026-07-01`)
      expect(types.res.status, types.text).toBe(200)
      const names = types.body.events.map((e: any) => e.type)
      expect(names).toEqual(expect.arrayContaining([
        "call.started", "call.ringing", "call.answered", "call.connected", "call.dtmf.received", "call.ended",
        "external-webhook.received", "project.created", "project.updated", "project.deleted", "api_key.created",
        "api_key.revoked", "billing.operation.succeeded", "billing.operation.failed", "billing.plan.changed"
      ]))
      for (const e of types.body.events) {
        expect(e.schemaProfile).toBe("reader")
        expect(e.schemaUrl).toBe(`/v1/projects/${projectId}/webhooks/event-types/${e.type}/schema?apiVersion=2026-07-01`)
        expect(["agent", "infrastructure"]).toContain(e.audience)
      }
      const schema = await call(types.body.events.find((e: any) => e.type === "project.created").schemaUrl)
      expect(schema.res.status).toBe(200)
      expect(schema.res.headers.get("content-type")).toBe("application/schema+json")
      expect(schema.body).toMatchObject({ type: "object", required: expect.arrayContaining(["id", "type", "data"]) })
      expect(schema.body.properties.type).toEqual({ type: "string", enum: ["project.created"] })
      const etag = schema.res.headers.get("etag")!
      const notModified = await call(types.body.events[0].schemaUrl.replace(types.body.events[0].type, "project.created"), { headers: { "if-none-match": etag } })
      expect(notModified.res.status).toBe(304)
      expect(notModified.text).toBe("")
      expectProblem(await call(`${hooks(projectId)}/event-types/no.such/schema?apiVersion=2026-07-01`), 404, "RESOURCE_NOT_FOUND")
      expectProblem(await call(`${hooks(projectId)}/event-types`), 422, "VALIDATION_FAILED")
      expectProblem(await call(`${hooks(projectId)}/event-types?apiVersion=2024-01-01`), 422, "VALIDATION_FAILED")
      const egress = await call(`${hooks(projectId)}/egress-addresses`)
      expect(egress.body).toEqual({ ipAddresses: ["34.120.1.2", "52.24.126.164"] })
      expect((await call(`${hooks(projectId)}/egress-addresses`, { headers: { "if-none-match": egress.res.headers.get("etag")! } })).res.status).toBe(304)
      // The OpenAPI document describes the operations, their Idempotency-Key and problems.
      const spec = (await call("/openapi.json", { key: null })).body
      const create = spec.paths["/v1/projects/{projectId}/webhooks/destinations"].post
      expect(create.operationId).toBe("webhooks.createWebhookDestination")
      expect(create.parameters.some((p: any) => p.name === "Idempotency-Key" && p.required)).toBe(true)
      expect(create.responses["201"]).toBeDefined()
      expect(spec.paths["/v1/projects/{projectId}/webhooks/destinations/{destinationId}/retries"].post.responses["409"].description)
        .toContain("FAILED_PRECONDITION")
      expect(Object.keys(spec.paths["/v1/projects/{projectId}/webhooks/event-types/{eventType}/schema"].get.responses["200"].content))
        .toEqual(["application/schema+json"])
    })

    it("access: events:read reads, events:write writes; another project's key is refused", async () => {
      const projectId = await newProject()
      const other = await newProject()
      const key = async (p: string, permissions: Array<string>) =>
        (await call(`/v1/projects/${p}/api-keys`, { method: "POST", idem: idem(), json: { name: "k", permissions } })).body.secret as string
      const reader = await key(projectId, ["events:read"])
      const writer = await key(projectId, ["events:write"])
      const foreign = await key(other, ["events:read", "events:write"])
      const body = { apiVersion: "2026-07-01", enabledEvents: ["*"], name: "x", url: receiver.url("/acl") }
      expect((await call(`${hooks(projectId)}/destinations`, { key: reader })).res.status).toBe(200)
      expectProblem(await call(`${hooks(projectId)}/destinations`, { method: "POST", idem: idem(), json: body, key: reader }), 403, "FORBIDDEN")
      expect((await call(`${hooks(projectId)}/destinations`, { method: "POST", idem: idem(), json: body, key: writer })).res.status).toBe(201)
      expectProblem(await call(`${hooks(projectId)}/destinations`, { key: foreign }), 403, "RESOURCE_MISMATCH")
      expectProblem(await call(`${hooks(projectId)}/destinations`, { key: null }), 401, "NOT_AUTHENTICATED")
      const stranger = await s.newAccount(`stranger-${unique("s")}@example.com`)
      expectProblem(await call(`${hooks(projectId)}/event-types?apiVersion=2026-07-01`, { key: stranger.serviceKey }), 404, "PROJECT_NOT_FOUND")
    })
  })

  describe(`webhook delivery from several server processes on one database (${backend})`, () => {
    it("two engines share the work: every event fanned out once and delivered exactly once", async () => {
      const { close, servers } = await startTestServers(backend, 2, {
        allowPrivateWebhookTargets: true,
        webhookPollIntervalMs: 20,
        webhookRetryBaseMs: 10,
        webhookTimeoutSeconds: 5,
        webhookConcurrency: 4
      })
      const receiver = await startReceiver()
      try {
        const [a, b] = servers as [TestServer, TestServer]
        const callA = httpClient(() => a)
        const callB = httpClient(() => ({ ...b, serviceKey: a.serviceKey }))
        const org = await callA("/v1/organizations", { method: "POST", json: { name: "Two" }, idem: idem() })
        const project = await callA(`/v1/organizations/${org.body.organizationId}/projects`, {
          method: "POST", json: { name: "Two", slug: unique("two") }, idem: idem()
        })
        const projectId = project.body.projectId as string
        const created = await callA(`/v1/projects/${projectId}/webhooks/destinations`, {
          method: "POST", idem: idem(), json: { apiVersion: "2026-07-01", enabledEvents: ["project.updated"], name: "r", url: receiver.url("/two") }
        })
        expect(created.res.status, created.text).toBe(201)
        const names = Array.from({ length: 30 }, (_, i) => `Two ${i}`)
        // Changes through both servers, events drained by both engines.
        for (const [i, name] of names.entries()) {
          const r = await (i % 2 === 0 ? callA : callB)(`/v1/projects/${projectId}`, { method: "PATCH", json: { name }, idem: idem() })
          expect(r.res.status).toBe(200)
        }
        await receiver.waitFor((rs) => new Set(rs.map((r) => envelopeOf(r).data.name)).size === names.length)
        const ids = receiver.received.map((r) => verifyStandard(created.body.signingSecret, r).id as string)
        expect(ids.length).toBe(names.length)
        expect(new Set(ids).size).toBe(names.length)
      } finally {
        await receiver.close()
        await close()
      }
    })
  })
}
