/**
 * /v1 platform provisioning (docs/provisioning.md) on a real server, the operation
 * worker run by hand: the platform list, SMS numbers (coverage, purchase, empty inventory keeping
 * the operation running, transient failures retried), operations (get with Retry-After, list
 * filters and pages, cancel and its 409s), resources (a number is a line: voice profiles reach it;
 * release keeps it readable as retired; the voice feature's lines are resources), Telegram (one
 * unfinished per project, setupUrl only for writers), email domains (DNS records, verification,
 * one per domain), events in the outbox, permissions and a closing project.
 */
import { EventOutbox } from "@switchboard/core/events"
import { testBackends } from "@switchboard/sql-adapter"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { expectProblem, httpClient } from "../support/HttpClient.js"
import { numberSwitches, platformTestAdapters, runWorker } from "../support/PlatformsHttp.js"
import { startTestServer, type TestServer } from "../support/TestServer.js"
import { idem, newLine, newProject, projectKey } from "../support/VoiceHttp.js"

for (const backend of testBackends()) {
  describe(`/v1 platforms (${backend})`, () => {
    let s: TestServer
    beforeAll(async () => {
      s = await startTestServer(backend, {}, platformTestAdapters())
    })
    afterAll(() => s.close())

    const call = httpClient(() => s)
    const base = (p: string) => `/v1/projects/${p}/platforms`
    const purchase = (p: string, json: unknown = { countryCode: "US" }, key = idem()) =>
      call(`${base(p)}/sms/numbers`, { method: "POST", json, idem: key })
    const operation = (p: string, id: string) => call(`${base(p)}/operations/${id}`)

    it("lists the platforms; reads need platforms:read, writes platforms:write", async () => {
      const p = await newProject(s, call)
      const r = await call(base(p))
      expect(r.res.status).toBe(200)
      expect(r.body.platforms.map((x: any) => x.type)).toEqual(["imessage", "whatsapp", "sms", "voice", "telegram", "email"])
      const reader = await projectKey(call, p, ["platforms:read"])
      expect((await call(`${base(p)}/resources`, { key: reader })).res.status).toBe(200)
      expectProblem(await call(`${base(p)}/sms/numbers`, { method: "POST", json: { countryCode: "US" }, idem: idem(), key: reader }), 403, "FORBIDDEN")
      const other = await projectKey(call, p, ["project:read"])
      expectProblem(await call(base(p), { key: other }), 403, "FORBIDDEN")
      expectProblem(await call(base(p), { key: null }), 401, "NOT_AUTHENTICATED")
    })

    it("SMS coverage: countries and area codes", async () => {
      const p = await newProject(s, call)
      expect((await call(`${base(p)}/sms/numbers/countries`)).body).toEqual({
        countries: [{ countryCode: "US", callingCode: "+1", displayName: "United States" }]
      })
      const codes = await call(`${base(p)}/sms/numbers/area-codes?countryCode=US`)
      expect(codes.body.countryCode).toBe("US")
      expect(codes.body.areaCodes).toEqual([...codes.body.areaCodes].sort())
      expect(codes.body.areaCodes).toContain("617")
      expectProblem(await call(`${base(p)}/sms/numbers/area-codes`), 422, "VALIDATION_FAILED")
      expectProblem(await call(`${base(p)}/sms/numbers/area-codes?countryCode=CA`), 422, "VALIDATION_FAILED")
    })

    it("purchaseSmsNumber: 202 + Location + Retry-After, a pending operation the worker completes into an active number", async () => {
      const p = await newProject(s, call)
      expectProblem(await call(`${base(p)}/sms/numbers`, { method: "POST", json: { countryCode: "US" } }), 400, "IDEMPOTENCY_KEY_REQUIRED")
      for (const bad of [{ countryCode: "CA" }, { countryCode: "US", areaCode: "123" }, { countryCode: "US", extra: 1 }, {}]) {
        expectProblem(await purchase(p, bad), 422, "VALIDATION_FAILED")
      }
      const uncovered = await purchase(p, { countryCode: "US", areaCode: "999" })
      expectProblem(uncovered, 422, "VALIDATION_FAILED")
      expect(uncovered.body.issues[0].path).toBe("/areaCode")
      const key = idem()
      const r = await purchase(p, { countryCode: "US", areaCode: "617" }, key)
      expect(r.res.status).toBe(202)
      expect(r.res.headers.get("location")).toMatch(new RegExp(`/v1/projects/${p}/platforms/operations/${r.body.operationId}$`))
      expect(r.res.headers.get("retry-after")).toBe("2")
      expect(r.body).toEqual({
        operationId: r.body.operationId,
        projectId: p,
        type: "resource.provision",
        resourceType: "sms_number",
        state: "pending",
        cancellable: true,
        createdAt: r.body.createdAt,
        updatedAt: r.body.createdAt
      })
      expect(r.body.operationId).toMatch(/^sb_opr_[0-7][0-9a-hjkmnp-tv-z]{25}$/)
      const replay = await purchase(p, { countryCode: "US", areaCode: "617" }, key)
      expect(replay.res.headers.get("idempotent-replayed")).toBe("true")
      expect(replay.body).toEqual(r.body)
      expectProblem(await purchase(p, { countryCode: "US", areaCode: "212" }, key), 422, "IDEMPOTENCY_KEY_REUSED")

      const polled = await operation(p, r.body.operationId)
      expect(polled.res.headers.get("retry-after")).toBe("2")
      expect(polled.res.headers.get("cache-control")).toBe("no-store")
      expect(polled.body).toEqual({ operation: r.body })

      expect(await runWorker(s)).toBeGreaterThanOrEqual(1)
      const done = await operation(p, r.body.operationId)
      expect(done.res.headers.get("retry-after")).toBeNull()
      expect(done.body.operation).toMatchObject({ state: "succeeded", cancellable: false, resourceId: expect.stringMatching(/^sb_lin_/) })
      expect(done.body.operation.startedAt).toBeDefined()
      expect(done.body.operation.endedAt).toBeDefined()
      const resource = done.body.resource
      expect(resource).toMatchObject({
        resourceId: done.body.operation.resourceId,
        projectId: p,
        type: "sms_number",
        abilities: ["sms", "pstn_voice"],
        state: "active",
        detail: { countryCode: "US", areaCode: "617" }
      })
      expect(resource.detail.phoneNumber).toMatch(/^\+161755501\d\d$/)
      expect((await call(`${base(p)}/resources/${resource.resourceId}`)).body).toEqual(resource)
      // A number is a line: the voice feature's line profile assignment reaches it.
      const profile = await call(`${base(p)}/voice/lines/${resource.resourceId}/profile`)
      expect(profile.res.status, profile.text).toBe(200)
      expect(profile.body.resourceId).toBe(resource.resourceId)
      // Nothing is left for the worker.
      expect((await call(`${base(p)}/operations?state=pending,running`)).body.operations).toEqual([])
    })

    it("an empty inventory keeps the operation running; cancel withdraws it (409 after), and a result never lands", async () => {
      const p = await newProject(s, call)
      numberSwitches.empty = true
      try {
        const r = await purchase(p)
        await runWorker(s)
        const waiting = await operation(p, r.body.operationId)
        expect(waiting.body.operation).toMatchObject({ state: "running", cancellable: true, detail: { waitingFor: "inventory" } })
        expect(waiting.res.headers.get("retry-after")).toBe("2")
        const cancelled = await call(`${base(p)}/operations/${r.body.operationId}/cancel`, { method: "POST" })
        expect(cancelled.res.status).toBe(200)
        expect(cancelled.body).toMatchObject({ state: "cancelled", cancellable: false })
        expect(cancelled.body.endedAt).toBeDefined()
        const again = await call(`${base(p)}/operations/${r.body.operationId}/cancel`, { method: "POST" })
        expectProblem(again, 409, "OPERATION_NOT_CANCELLABLE")
        expect(again.body.state).toBe("cancelled")
        numberSwitches.empty = false
        await new Promise((done) => setTimeout(done, 20))
        await runWorker(s)
        expect((await operation(p, r.body.operationId)).body.operation.state).toBe("cancelled")
        expect((await call(`${base(p)}/resources?type=sms_number`)).body.resources).toEqual([])
      } finally {
        numberSwitches.empty = false
      }
    })

    it("a transient provider failure is retried; a committed operation cannot be cancelled; unknown ids are 404", async () => {
      const p = await newProject(s, call)
      numberSwitches.failTransient = true
      const r = await purchase(p)
      await runWorker(s)
      const failedOnce = (await operation(p, r.body.operationId)).body.operation
      expect(failedOnce.state).toBe("running")
      expect(failedOnce.detail.lastError).toContain("failed once")
      await new Promise((done) => setTimeout(done, 30))
      await runWorker(s)
      expect((await operation(p, r.body.operationId)).body.operation.state).toBe("succeeded")
      expectProblem(await call(`${base(p)}/operations/${r.body.operationId}/cancel`, { method: "POST" }), 409, "OPERATION_NOT_CANCELLABLE")
      expectProblem(await call(`${base(p)}/operations/sb_opr_unknown/cancel`, { method: "POST" }), 404, "OPERATION_NOT_FOUND")
      expectProblem(await operation(p, "sb_opr_unknown"), 404, "OPERATION_NOT_FOUND")
      const elsewhere = await newProject(s, call)
      expectProblem(await operation(elsewhere, r.body.operationId), 404, "OPERATION_NOT_FOUND")
      expectProblem(await call(`${base(elsewhere)}/resources/${(await operation(p, r.body.operationId)).body.operation.resourceId}`), 404, "RESOURCE_NOT_FOUND")
    })

    it("release: a number stays readable as retired; operations list a resource's history with filters and pages", async () => {
      const p = await newProject(s, call)
      const bought = await purchase(p)
      await runWorker(s)
      const resourceId = (await operation(p, bought.body.operationId)).body.operation.resourceId
      const released = await call(`${base(p)}/resources/${resourceId}`, { method: "DELETE" })
      expect(released.res.status).toBe(200)
      expect(released.body).toMatchObject({ type: "resource.release", state: "succeeded", resourceId, resourceType: "sms_number", cancellable: false })
      const retired = (await call(`${base(p)}/resources/${resourceId}`)).body
      expect(retired).toMatchObject({ state: "retired", retiredAt: expect.any(String) })
      expectProblem(await call(`${base(p)}/resources/${resourceId}`, { method: "DELETE" }), 404, "RESOURCE_NOT_FOUND")
      expectProblem(await call(`${base(p)}/resources/sb_lin_nothing`, { method: "DELETE" }), 404, "RESOURCE_NOT_FOUND")
      expect((await call(`${base(p)}/resources?state=active`)).body.resources).toEqual([])
      expect((await call(`${base(p)}/resources?state=retired`)).body.resources.map((x: any) => x.resourceId)).toEqual([resourceId])
      const history = await call(`${base(p)}/operations?resourceId=${resourceId}`)
      expect(history.body.operations.map((o: any) => o.type)).toEqual(["resource.provision", "resource.release"])
      expect((await call(`${base(p)}/operations?type=resource.release`)).body.operations.length).toBe(1)
      expect((await call(`${base(p)}/operations?state=succeeded,cancelled`)).body.operations.length).toBe(2)
      const after = encodeURIComponent(new Date(Date.parse(released.body.endedAt) - 1).toISOString())
      expect((await call(`${base(p)}/operations?endedAfter=${after}`)).body.operations.map((o: any) => o.type)).toEqual(["resource.release"])
      for (const bad of ["state=done", "type=resource.nothing", "pageSize=0", "pageSize=201", "endedAfter=2030-01-01T00:00:00%2B01:00", "pageToken=x"]) {
        expectProblem(await call(`${base(p)}/operations?${bad}`), 422, "VALIDATION_FAILED")
      }
      const page1 = await call(`${base(p)}/operations?pageSize=1`)
      expect(page1.body.operations.length).toBe(1)
      const page2 = await call(`${base(p)}/operations?pageSize=1&pageToken=${encodeURIComponent(page1.body.nextPageToken)}`)
      expect(page2.body.operations[0].type).toBe("resource.release")
      expect(page2.body.nextPageToken).toBeUndefined()
      expectProblem(await call(`${base(p)}/operations?pageSize=1&type=resource.provision&pageToken=${encodeURIComponent(page1.body.nextPageToken)}`), 422, "VALIDATION_FAILED")
    })

    it("10DLC: assign with expectedVersion and eligibility, every campaign problem, capacity per campaign, unassign", async () => {
      const p = await newProject(s, call)
      const numbers: Array<string> = []
      for (let i = 0; i < 3; i++) {
        const r = await purchase(p)
        await runWorker(s)
        numbers.push((await operation(p, r.body.operationId)).body.operation.resourceId)
      }
      const campaign = (n: string) => `${base(p)}/sms/lines/${n}/campaign`
      const assign = (n: string, json: unknown, key = idem()) => call(campaign(n), { method: "PUT", json, idem: key })
      const [a, b, c] = numbers as [string, string, string]
      expect((await call(campaign(a))).body).toEqual({ campaign: null, eligibility: "blocked", reasonCode: "no_campaign", resourceId: a, version: 1 })
      expectProblem(await call(campaign(a), { method: "PUT", json: { campaignId: "x", expectedVersion: 1 } }), 400, "IDEMPOTENCY_KEY_REQUIRED")
      for (const bad of [{ campaignId: "x", expectedVersion: 0 }, { expectedVersion: 1 }, { campaignId: "x", expectedVersion: 1, extra: 1 }, { campaignId: "", expectedVersion: 1 }]) {
        expectProblem(await assign(a, bad), 400, "SMS_CAMPAIGN_INVALID_REQUEST")
      }
      const conflict = await assign(a, { campaignId: "camp", expectedVersion: 2 })
      expectProblem(conflict, 409, "SMS_CAMPAIGN_VERSION_CONFLICT")
      expect(conflict.body.currentVersion).toBe(1)
      expectProblem(await assign(a, { campaignId: "missing-1", expectedVersion: 1 }), 404, "SMS_CAMPAIGN_NOT_FOUND")
      expectProblem(await assign(a, { campaignId: "pending-1", expectedVersion: 1 }), 409, "SMS_CAMPAIGN_NOT_READY")
      expectProblem(await assign(a, { campaignId: "foreign-1", expectedVersion: 1 }), 403, "SMS_CAMPAIGN_ORGANIZATION_MISMATCH")
      expectProblem(await assign(a, { campaignId: "full-1", expectedVersion: 1 }), 409, "SMS_CAMPAIGN_CAPACITY_EXCEEDED")
      expectProblem(await assign("sb_lin_unknown", { campaignId: "camp", expectedVersion: 1 }), 404, "SMS_LINE_NOT_FOUND")
      const voiceLine = await newLine(s, p, "voice")
      expectProblem(await call(campaign(voiceLine.lineId)), 409, "SMS_LINE_UNSUPPORTED")

      const name = `camp-${Date.now()}`
      const key = idem()
      const assigned = await assign(a, { campaignId: name, expectedVersion: 1 }, key)
      expect(assigned.res.status, assigned.text).toBe(200)
      expect(assigned.body).toMatchObject({ type: "sms.campaign.assign", state: "succeeded", cancellable: false, resourceId: a, resourceType: "sms_number" })
      expect((await assign(a, { campaignId: name, expectedVersion: 1 }, key)).body).toEqual(assigned.body)
      expectProblem(await call(`${base(p)}/operations/${assigned.body.operationId}/cancel`, { method: "POST" }), 409, "OPERATION_NOT_CANCELLABLE")
      const now = (await call(campaign(a))).body
      expect(now).toMatchObject({ campaign: { id: name }, eligibility: "eligible", reasonCode: null, version: 2 })
      expect(now.campaign.organizationId).toBeDefined()
      // Capacity 2 per simulated campaign.
      expect((await assign(b, { campaignId: name, expectedVersion: 1 })).res.status).toBe(200)
      expectProblem(await assign(c, { campaignId: name, expectedVersion: 1 }), 409, "SMS_CAMPAIGN_CAPACITY_EXCEEDED")

      const unassign = (n: string, q: string) => call(`${campaign(n)}${q}`, { method: "DELETE", idem: idem() })
      expectProblem(await unassign(a, ""), 400, "SMS_CAMPAIGN_INVALID_REQUEST")
      expectProblem(await unassign(a, "?expectedVersion=abc"), 400, "SMS_CAMPAIGN_INVALID_REQUEST")
      expectProblem(await unassign(a, "?expectedVersion=1"), 409, "SMS_CAMPAIGN_VERSION_CONFLICT")
      expectProblem(await call(`${campaign(a)}?expectedVersion=2`, { method: "DELETE" }), 400, "IDEMPOTENCY_KEY_REQUIRED")
      const detached = await unassign(a, "?expectedVersion=2")
      expect(detached.res.status, detached.text).toBe(200)
      expect(detached.body).toMatchObject({ type: "sms.campaign.unassign", state: "succeeded", cancellable: false })
      expect((await call(campaign(a))).body).toEqual({ campaign: null, eligibility: "blocked", reasonCode: "no_campaign", resourceId: a, version: 3 })
      expectProblem(await unassign(a, "?expectedVersion=3"), 404, "SMS_CAMPAIGN_NOT_FOUND")
      // The freed place goes to the third number.
      expect((await assign(c, { campaignId: name, expectedVersion: 1 })).res.status).toBe(200)
      const history = await call(`${base(p)}/operations?resourceId=${a}`)
      expect(history.body.operations.map((o: any) => o.type)).toEqual(["resource.provision", "sms.campaign.assign", "sms.campaign.unassign"])
    })

    it("the voice feature's lines are resources of the same model", async () => {
      const p = await newProject(s, call)
      const line = await newLine(s, p, "voice")
      const listed = await call(`${base(p)}/resources?ability=pstn_voice`)
      expect(listed.body.resources).toEqual([expect.objectContaining({
        resourceId: line.lineId,
        type: "voice_line",
        abilities: ["pstn_voice"],
        state: "active",
        detail: { phoneNumber: line.phoneNumber }
      })])
      expect((await call(`${base(p)}/resources?type=sms_number`)).body.resources).toEqual([])
      const released = await call(`${base(p)}/resources/${line.lineId}`, { method: "DELETE" })
      expect(released.body.state).toBe("succeeded")
      expect((await call(`${base(p)}/resources/${line.lineId}`)).body.state).toBe("retired")
      expectProblem(await call(`${base(p)}/voice/lines/${line.lineId}/profile`), 404, "RESOURCE_NOT_FOUND")
    })

    it("Telegram: one unfinished bot per project (409 names the operation); setupUrl only for writers", async () => {
      const p = await newProject(s, call)
      expectProblem(await call(`${base(p)}/telegram/bots`, { method: "POST", json: { name: "x" }, idem: idem() }), 422, "VALIDATION_FAILED")
      const first = await call(`${base(p)}/telegram/bots`, { method: "POST", json: {}, idem: idem() })
      expect(first.res.status).toBe(202)
      expect(first.body).toMatchObject({ resourceType: "telegram_bot", state: "pending" })
      const busy = await call(`${base(p)}/telegram/bots`, { method: "POST", json: {}, idem: idem() })
      expectProblem(busy, 409, "TELEGRAM_PROVISION_IN_PROGRESS")
      expect(busy.body.operationId).toBe(first.body.operationId)
      expect(busy.body.operationUrl).toBe(`/v1/projects/${p}/platforms/operations/${first.body.operationId}`)
      await runWorker(s)
      const done = await operation(p, first.body.operationId)
      expect(done.body.operation.state).toBe("succeeded")
      expect(done.body.operation.detail.setupUrl).toMatch(/^https:\/\/t\.me\//)
      expect(done.body.resource).toMatchObject({ type: "telegram_bot", abilities: ["telegram"], state: "active" })
      const reader = await projectKey(call, p, ["platforms:read"])
      const asReader = await call(`${base(p)}/operations/${first.body.operationId}`, { key: reader })
      expect(asReader.body.operation.detail).toBeDefined()
      expect(asReader.body.operation.detail.setupUrl).toBeUndefined()
      const listed = await call(`${base(p)}/operations?type=resource.provision`, { key: reader })
      expect(listed.body.operations[0].detail?.setupUrl).toBeUndefined()
      // The bot is a resource, not a line.
      expect((await call(`${base(p)}/voice/lines/${done.body.resource.resourceId}/profile`)).res.status).not.toBe(200)
      expect((await call(`${base(p)}/telegram/bots`, { method: "POST", json: {}, idem: idem() })).res.status).toBe(202)
    })

    it("email: the domain's DNS records, verification, one connection per domain", async () => {
      const p = await newProject(s, call)
      const domain = `mail-${Date.now()}.example.com`
      for (const bad of [{}, { domain: "not a domain" }, { domain: "x".repeat(300) + ".com" }, { domain, extra: true }]) {
        expectProblem(await call(`${base(p)}/email/domains`, { method: "POST", json: bad, idem: idem() }), 422, "VALIDATION_FAILED")
      }
      const r = await call(`${base(p)}/email/domains`, { method: "POST", json: { domain: domain.toUpperCase() }, idem: idem() })
      expect(r.res.status).toBe(202)
      const elsewhere = await newProject(s, call)
      expectProblem(await call(`${base(elsewhere)}/email/domains`, { method: "POST", json: { domain }, idem: idem() }), 409, "EMAIL_DOMAIN_ALREADY_CONNECTED")
      await runWorker(s)
      const waiting = (await operation(p, r.body.operationId)).body.operation
      expect(waiting.state).toBe("running")
      expect(waiting.detail.verified).toBe(false)
      expect(waiting.detail.dnsRecords.map((x: any) => x.type)).toEqual(["TXT", "CNAME", "MX"])
      await new Promise((done) => setTimeout(done, 20))
      await runWorker(s)
      const done = await operation(p, r.body.operationId)
      expect(done.body.operation.state).toBe("succeeded")
      expect(done.body.resource).toMatchObject({ type: "email_domain", abilities: ["email"], detail: { domain } })
      expectProblem(await call(`${base(elsewhere)}/email/domains`, { method: "POST", json: { domain }, idem: idem() }), 409, "EMAIL_DOMAIN_ALREADY_CONNECTED")
    })

    it("every operation and resource change is an event in the outbox", async () => {
      const p = await newProject(s, call)
      const r = await purchase(p)
      await runWorker(s)
      const events = await s.run(Effect.flatMap(EventOutbox, (o) => o.list({ projectId: p, after: 0, limit: 100 })))
      const mine = events.map((e) => e.event).filter((e) => e.type === "operation.updated" || e.type === "resource.updated")
      expect(mine.map((e) => [e.type, (e.data as any).state])).toEqual([
        ["operation.updated", "pending"],
        ["operation.updated", "running"],
        ["resource.updated", "active"],
        ["operation.updated", "succeeded"]
      ])
      expect((mine[0]!.data as any).operationId).toBe(r.body.operationId)
    })

    it("a closing project refuses provisioning (PROJECT_CLOSING) and still answers reads", async () => {
      const p = await newProject(s, call)
      const deleted = await call(`/v1/projects/${p}`, { method: "DELETE", idem: idem() })
      expect(deleted.res.status, deleted.text).toBe(200)
      expectProblem(await purchase(p), 409, "PROJECT_CLOSING")
      expectProblem(await call(`${base(p)}/telegram/bots`, { method: "POST", json: {}, idem: idem() }), 409, "PROJECT_CLOSING")
      expectProblem(await call(`${base(p)}/email/domains`, { method: "POST", json: { domain: "closing.example.com" }, idem: idem() }), 409, "PROJECT_CLOSING")
      expect((await call(`${base(p)}/operations`)).res.status).toBe(200)
    })
  })
}
