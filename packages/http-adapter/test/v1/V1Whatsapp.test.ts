/**
 * /v1 WhatsApp (docs/provisioning.md) on a real server, the operation worker run by hand: the
 * WhatsApp mode and Embedded Signup configuration, connecting a Meta number (a provision that also
 * connects the WABA), registering the project's own line as a sender, the WABA and its numbers,
 * disconnecting, the ownership code a number receives, shared-line seats, dedicated lines, events,
 * permissions and every problem of each operation.
 */
import { EventOutbox } from "@switchboard/core/events"
import { WhatsappAccountsRepo } from "@switchboard/core/platforms"
import { testBackends } from "@switchboard/sql-adapter"
import { DateTime, Effect, Option } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { expectProblem, httpClient } from "../support/HttpClient.js"
import { runWorker } from "../support/PlatformsHttp.js"
import { startTestServer, type TestServer } from "../support/TestServer.js"
import { idem, newLine, newProject, projectKey } from "../support/VoiceHttp.js"
import { giveCard, inbound, whatsappPools, whatsappSwitches, whatsappTestAdapters } from "../support/WhatsappHttp.js"

for (const backend of testBackends()) {
  describe(`/v1 WhatsApp (${backend})`, () => {
    let s: TestServer
    beforeAll(async () => {
      s = await startTestServer(backend, {}, whatsappTestAdapters())
    })
    afterAll(() => s.close())

    const call = httpClient(() => s)
    const base = (p: string) => `/v1/projects/${p}/platforms`
    const wab = (p: string) => `${base(p)}/whatsapp-business`
    const operation = async (p: string, id: string) => (await call(`${base(p)}/operations/${id}`)).body
    const connect = (p: string, json: unknown, key = idem()) => call(`${wab(p)}/numbers`, { method: "POST", json, idem: key })
    let n = 0
    const pn = () => `pn-${Date.now() % 100000}${++n}`
    /** A project with a card on file and a connected WABA (one Meta sender). */
    const connectedProject = async (wabaId = `waba-${++n}`) => {
      const p = await newProject(s, call)
      await giveCard(s, p)
      const r = await connect(p, { code: "ok", wabaId, phoneNumberId: pn() })
      expect(r.res.status, r.text).toBe(202)
      await runWorker(s)
      const done = await operation(p, r.body.operationId)
      expect(done.operation.state, JSON.stringify(done)).toBe("succeeded")
      return { p, wabaId, sender: done.resource }
    }
    /** An SMS number bought through the API. */
    const smsNumber = async (p: string) => {
      const r = await call(`${base(p)}/sms/numbers`, { method: "POST", json: { countryCode: "US" }, idem: idem() })
      await runWorker(s)
      return (await operation(p, r.body.operationId)).resource
    }

    it("the WhatsApp mode and the Embedded Signup configuration; reads need platforms:read", async () => {
      const p = await newProject(s, call)
      expect((await call(`${base(p)}/whatsapp`)).body).toEqual({ mode: "shared", maxUserAssignments: 100 })
      whatsappSwitches.mode = "dedicated"
      try {
        expect((await call(`${base(p)}/whatsapp`)).body).toEqual({ mode: "dedicated" })
      } finally {
        whatsappSwitches.mode = "shared"
      }
      const config = await call(`${wab(p)}/signup-config`)
      expect(config.body).toEqual({ configId: "switchboard-embedded-signup", graphVersion: "v21.0", scopes: expect.arrayContaining(["whatsapp_business_management"]) })
      const reader = await projectKey(call, p, ["platforms:read"])
      expect((await call(`${wab(p)}/signup-config`, { key: reader })).res.status).toBe(200)
      expectProblem(await call(`${wab(p)}/numbers`, { method: "POST", json: { code: "c", wabaId: "w", phoneNumberId: "x" }, idem: idem(), key: reader }), 403, "FORBIDDEN")
      const other = await projectKey(call, p, ["project:read"])
      expectProblem(await call(`${base(p)}/whatsapp`, { key: other }), 403, "FORBIDDEN")
      expectProblem(await call(`${wab(p)}/account`, { key: null }), 401, "NOT_AUTHENTICATED")
    })

    it("connectWhatsappBusiness: 402 without a card, 202 + Location, the worker connects the WABA and a Meta sender", async () => {
      const p = await newProject(s, call)
      const wabaId = `waba-c-${Date.now()}`
      const body = { code: "ok", wabaId, phoneNumberId: "pn-0042" }
      expectProblem(await connect(p, body), 402, "ENTITLEMENT_REQUIRED")
      await giveCard(s, p)
      expectProblem(await call(`${wab(p)}/numbers`, { method: "POST", json: body }), 400, "IDEMPOTENCY_KEY_REQUIRED")
      for (const bad of [{}, { ...body, code: "" }, { ...body, wabaId: "w".repeat(65) }, { ...body, extra: 1 }]) {
        expectProblem(await connect(p, bad), 422, "VALIDATION_FAILED")
      }
      expectProblem(await call(`${wab(p)}/account`), 404, "WHATSAPP_WABA_NOT_CONNECTED")
      const key = idem()
      const r = await connect(p, body, key)
      expect(r.res.status, r.text).toBe(202)
      expect(r.res.headers.get("location")).toMatch(new RegExp(`/v1/projects/${p}/platforms/operations/${r.body.operationId}$`))
      expect(r.res.headers.get("retry-after")).toBe("2")
      expect(r.body).toMatchObject({ type: "resource.provision", resourceType: "whatsapp_sender", state: "pending", cancellable: true })
      expect((await connect(p, body, key)).body).toEqual(r.body)
      expectProblem(await connect(p, body), 409, "WHATSAPP_SENDER_PROVISIONING")
      await runWorker(s)
      const done = await operation(p, r.body.operationId)
      expect(done.operation.state).toBe("succeeded")
      expect(done.resource).toMatchObject({
        type: "whatsapp_sender",
        abilities: ["whatsapp"],
        state: "active",
        detail: { wabaId, phoneNumberId: "pn-0042", phoneNumber: "+1 650-555-0042", ownership: "meta", whatsappHealth: { overallStatus: "available" } }
      })
      expectProblem(await connect(p, body), 409, "WHATSAPP_SENDER_CONNECTED")
      const account = await call(`${wab(p)}/account`)
      expect(account.body).toMatchObject({ wabaId, businessId: `biz_${wabaId}`, reviewStatus: "APPROVED", outboundCapacity: "1000", senderCount: 1, restriction: null, alerts: [] })
      expect(account.body.subscribedAt).toBeDefined()
      const numbers = await call(`${wab(p)}/account/phone-numbers`)
      expect(numbers.body.phoneNumbers).toEqual([
        { phoneNumberId: "pn-0042", displayPhoneNumber: "+1 650-555-0042", verifiedName: `Business ${wabaId}`, ownership: "meta", resourceId: done.resource.resourceId }
      ])
      // A second number of the same WABA is one more sender; another WABA fails the operation.
      await runWorker(s)
      const second = await connect(p, { ...body, phoneNumberId: "pn-0043" })
      const other = await connect(p, { ...body, wabaId: "another-waba", phoneNumberId: "pn-0044" })
      const refused = await connect(p, { ...body, code: "invalid-code", phoneNumberId: "pn-0045" })
      await runWorker(s)
      expect((await operation(p, second.body.operationId)).operation.state).toBe("succeeded")
      expect((await operation(p, other.body.operationId)).operation).toMatchObject({ state: "failed", error: { code: "waba_mismatch" } })
      expect((await operation(p, refused.body.operationId)).operation).toMatchObject({ state: "failed", error: { code: "provider_failed" } })
      expect((await call(`${wab(p)}/account`)).body.senderCount).toBe(2)
    })

    it("createWhatsappVoipSender: the project's own SMS line as a sender, and each problem", async () => {
      const lonely = await newProject(s, call)
      await giveCard(s, lonely)
      const lonelyNumber = await smsNumber(lonely)
      const sender = (p: string, json: unknown) => call(`${wab(p)}/account/senders`, { method: "POST", json, idem: idem() })
      expectProblem(await sender(lonely, { voipResourceId: lonelyNumber.resourceId }), 404, "WHATSAPP_WABA_NOT_CONNECTED")

      const { p } = await connectedProject()
      const number = await smsNumber(p)
      const voiceLine = await newLine(s, p, "voice")
      expectProblem(await sender(p, { voipResourceId: "sb_lin_unknown" }), 404, "WHATSAPP_VOIP_SOURCE_NOT_ELIGIBLE")
      expectProblem(await sender(p, { voipResourceId: voiceLine.lineId }), 404, "WHATSAPP_VOIP_SOURCE_NOT_ELIGIBLE")
      expectProblem(await sender(p, { voipResourceId: lonelyNumber.resourceId }), 404, "WHATSAPP_VOIP_SOURCE_NOT_ELIGIBLE")
      expectProblem(await sender(p, { voipResourceId: number.resourceId, displayName: "Taken Name" }), 422, "WHATSAPP_DISPLAY_NAME_UNAVAILABLE")
      expectProblem(await sender(p, { voipResourceId: number.resourceId, displayName: "" }), 422, "VALIDATION_FAILED")
      const r = await sender(p, { voipResourceId: number.resourceId, displayName: "Acme Support" })
      expect(r.res.status, r.text).toBe(202)
      expectProblem(await sender(p, { voipResourceId: number.resourceId }), 409, "WHATSAPP_SENDER_PROVISIONING")
      await runWorker(s)
      const done = await operation(p, r.body.operationId)
      expect(done.resource).toMatchObject({
        type: "whatsapp_sender",
        detail: { ownership: "photon", phoneNumber: number.detail.phoneNumber, displayName: "Acme Support", voipResourceId: number.resourceId }
      })
      expectProblem(await sender(p, { voipResourceId: number.resourceId }), 409, "WHATSAPP_SENDER_CONNECTED")
      const listed = (await call(`${wab(p)}/account/phone-numbers`)).body.phoneNumbers
      expect(listed.find((x: any) => x.resourceId === done.resource.resourceId)).toMatchObject({ ownership: "photon", displayPhoneNumber: number.detail.phoneNumber })
      expect((await call(`${wab(p)}/account`)).body.senderCount).toBe(2)
      // A sender is a resource: releasing it deregisters it.
      const released = await call(`${base(p)}/resources/${done.resource.resourceId}`, { method: "DELETE" })
      expect(released.body).toMatchObject({ type: "resource.release", state: "succeeded", resourceType: "whatsapp_sender" })
      expectProblem(await call(`${base(p)}/resources/${done.resource.resourceId}`), 404, "RESOURCE_NOT_FOUND")
      expect((await call(`${wab(p)}/account`)).body.senderCount).toBe(1)
    })

    it("disconnectWhatsappBusinessAccount: every sender goes, the lines stay; each problem", async () => {
      const bare = await newProject(s, call)
      const disconnect = (p: string, key = idem()) => call(`${wab(p)}/account`, { method: "DELETE", idem: key })
      expectProblem(await disconnect(bare), 404, "WHATSAPP_WABA_NOT_CONNECTED")
      const { p, sender } = await connectedProject()
      const number = await smsNumber(p)
      expectProblem(await call(`${wab(p)}/account`, { method: "DELETE" }), 400, "IDEMPOTENCY_KEY_REQUIRED")
      // A sender still being connected blocks the disconnect.
      const pending = await call(`${wab(p)}/account/senders`, { method: "POST", json: { voipResourceId: number.resourceId }, idem: idem() })
      expectProblem(await disconnect(p), 409, "WHATSAPP_ACCOUNT_PROVISIONING")
      await runWorker(s)
      expect((await operation(p, pending.body.operationId)).operation.state).toBe("succeeded")
      // Another disconnect under way.
      const stored = Option.getOrThrow(await s.run(Effect.flatMap(WhatsappAccountsRepo, (r) => r.find(p))))
      await s.run(Effect.flatMap(WhatsappAccountsRepo, (r) => Effect.flatMap(DateTime.now, (now) => r.upsert({ ...stored, state: "disconnecting", updatedAt: now }))))
      expectProblem(await disconnect(p), 409, "WHATSAPP_ACCOUNT_DISCONNECTING")
      expectProblem(await call(`${wab(p)}/account/senders`, { method: "POST", json: { voipResourceId: number.resourceId }, idem: idem() }), 409, "WHATSAPP_ACCOUNT_DISCONNECTING")
      await s.run(Effect.flatMap(WhatsappAccountsRepo, (r) => r.upsert(stored)))

      const key = idem()
      const r = await disconnect(p, key)
      expect(r.res.status, r.text).toBe(200)
      expect(r.body).toMatchObject({ type: "whatsapp.account.disconnect", state: "succeeded", cancellable: false, resourceType: "whatsapp_sender" })
      expect((await disconnect(p, key)).body).toEqual(r.body)
      expectProblem(await call(`${wab(p)}/account`), 404, "WHATSAPP_WABA_NOT_CONNECTED")
      expectProblem(await call(`${wab(p)}/account/phone-numbers`), 404, "WHATSAPP_WABA_NOT_CONNECTED")
      expectProblem(await call(`${base(p)}/resources/${sender.resourceId}`), 404, "RESOURCE_NOT_FOUND")
      expect((await call(`${base(p)}/resources?type=whatsapp_sender`)).body.resources).toEqual([])
      expect((await call(`${base(p)}/resources/${number.resourceId}`)).body.state).toBe("active")
      expect((await call(`${base(p)}/operations?type=whatsapp.account.disconnect`)).body.operations.length).toBe(1)
      const events = await s.run(Effect.flatMap(EventOutbox, (o) => o.list({ projectId: p, after: 0, limit: 200 })))
      const last = events.map((e) => e.event).filter((e) => e.type === "operation.updated" || e.type === "resource.updated").slice(-3)
      expect(last.map((e) => [e.type, (e.data as any).state])).toEqual([
        ["resource.updated", "retired"],
        ["resource.updated", "retired"],
        ["operation.updated", "succeeded"]
      ])
    })

    it("listWhatsappAccountPhoneNumbers: a failed lookup is an error, never an empty list", async () => {
      const { p } = await connectedProject(`broken-${Date.now()}`)
      expectProblem(await call(`${wab(p)}/account/phone-numbers`), 503, "UPSTREAM_UNAVAILABLE")
    })

    it("getWhatsappBusinessVerificationCode: the newest ownership code within 2 minutes; writers only; each problem", async () => {
      const p = await newProject(s, call)
      const number = await smsNumber(p)
      const path = (after: string | null, id = number.resourceId) =>
        `${wab(p)}/numbers/${id}/verification-code${after === null ? "" : `?receivedAfter=${encodeURIComponent(after)}`}`
      const since = new Date(Date.now() - 1000).toISOString()
      expectProblem(await call(path(null)), 422, "VALIDATION_FAILED")
      expectProblem(await call(path("yesterday")), 422, "VALIDATION_FAILED")
      expectProblem(await call(path(new Date(Date.now() - 5 * 60_000).toISOString())), 422, "WHATSAPP_VERIFICATION_WINDOW_EXPIRED")
      expectProblem(await call(path(new Date(Date.now() + 60_000).toISOString())), 422, "WHATSAPP_VERIFICATION_WINDOW_EXPIRED")
      expectProblem(await call(path(since, "sb_lin_unknown")), 404, "RESOURCE_NOT_FOUND")
      const none = await call(path(since))
      expectProblem(none, 404, "WHATSAPP_VERIFICATION_CODE_NOT_FOUND")
      expect(none.res.headers.get("retry-after")).toBe("2")
      await inbound(s, p, number.resourceId, "Your WhatsApp code 123-456. Don't share this code with others")
      await inbound(s, p, number.resourceId, "Your Acme verification code is 998877")
      const got = await call(path(since))
      expect(got.res.status, got.text).toBe(200)
      expect(got.body).toEqual({ code: "123456", receivedAt: expect.any(String) })
      expect(got.res.headers.get("cache-control")).toBe("no-store")
      const reader = await projectKey(call, p, ["platforms:read"])
      expectProblem(await call(path(since), { key: reader }), 403, "FORBIDDEN")
    })

    it("shared-line assignments: seats on pooled lines, the cap, one per handle, release keeps the row; each problem", async () => {
      const p = await newProject(s, call)
      const create = (json: unknown, key = idem()) => call(`${base(p)}/whatsapp/assignments`, { method: "POST", json, idem: key })
      for (const bad of [{}, { handle: "4155550100" }, { handle: "+14155550100", email: "nope" }, { handle: "+14155550100", extra: 1 }]) {
        expectProblem(await create(bad), 422, "VALIDATION_FAILED")
      }
      expectProblem(await call(`${base(p)}/whatsapp/assignments`, { method: "POST", json: { handle: "+14155550100" } }), 400, "IDEMPOTENCY_KEY_REQUIRED")
      const key = idem()
      const a = await create({ handle: "+14155550100", email: "ada@example.com", firstName: "Ada" }, key)
      expect(a.res.status, a.text).toBe(201)
      expect(a.body).toMatchObject({ platform: "whatsapp", handle: "+14155550100", projectId: p, assignedPhoneNumber: "+14155550200", email: "ada@example.com", firstName: "Ada" })
      expect(a.body.assignmentId).toMatch(/^sb_asg_/)
      expect(a.body.releasedAt).toBeUndefined()
      expect((await create({ handle: "+14155550100", email: "ada@example.com", firstName: "Ada" }, key)).body).toEqual(a.body)
      expectProblem(await create({ handle: "+14155550100" }), 409, "ASSIGNMENT_EXISTS")
      whatsappSwitches.maxUserAssignments = 2
      try {
        const b = await create({ handle: "+14155550101" })
        expect(b.body.assignedPhoneNumber).toBe("+14155550201")
        expectProblem(await create({ handle: "+14155550102" }), 409, "SHARED_LINE_CAP_EXCEEDED")
        const released = await call(`${base(p)}/whatsapp/assignments/${b.body.assignmentId}`, { method: "DELETE" })
        expect(released.res.status).toBe(200)
        expect(released.body.releasedAt).toBeDefined()
        expect((await call(`${base(p)}/whatsapp/assignments/${b.body.assignmentId}`, { method: "DELETE" })).body).toEqual(released.body)
        expect((await call(`${base(p)}/whatsapp/assignments/${b.body.assignmentId}`)).body).toEqual(released.body)
        expect((await create({ handle: "+14155550102" })).res.status).toBe(201)
      } finally {
        whatsappSwitches.maxUserAssignments = 100
      }
      const live = await call(`${base(p)}/whatsapp/assignments`)
      expect(live.body.assignments.map((x: any) => x.handle)).toEqual(["+14155550100", "+14155550102"])
      const all = await call(`${base(p)}/whatsapp/assignments?includeReleased=true&pageSize=2`)
      expect(all.body.assignments.map((x: any) => x.handle)).toEqual(["+14155550100", "+14155550101"])
      const rest = await call(`${base(p)}/whatsapp/assignments?includeReleased=true&pageSize=2&pageToken=${encodeURIComponent(all.body.nextPageToken)}`)
      expect(rest.body.assignments.map((x: any) => x.handle)).toEqual(["+14155550102"])
      expect(rest.body.nextPageToken).toBeUndefined()
      for (const bad of ["includeReleased=yes", "pageSize=0", "pageSize=201", "pageToken=x"]) {
        expectProblem(await call(`${base(p)}/whatsapp/assignments?${bad}`), 422, "VALIDATION_FAILED")
      }
      expectProblem(await call(`${base(p)}/whatsapp/assignments/sb_asg_unknown`), 404, "ASSIGNMENT_NOT_FOUND")
      expectProblem(await call(`${base(p)}/whatsapp/assignments/sb_asg_unknown`, { method: "DELETE" }), 404, "ASSIGNMENT_NOT_FOUND")
      expectProblem(await call(`/v1/projects/${await newProject(s, call)}/platforms/whatsapp/assignments/${a.body.assignmentId}`), 404, "ASSIGNMENT_NOT_FOUND")
      whatsappPools.sharedEmpty = true
      try {
        const exhausted = await create({ handle: "+14155550109" })
        expectProblem(exhausted, 503, "SHARED_LINE_POOL_EXHAUSTED")
        expect(exhausted.res.headers.get("retry-after")).toBe("30")
        // An assigned handle is a conflict whatever the pool holds: 409, not a 503 to retry.
        expectProblem(await create({ handle: "+14155550100" }), 409, "ASSIGNMENT_EXISTS")
      } finally {
        whatsappPools.sharedEmpty = false
      }
      whatsappSwitches.mode = "dedicated"
      try {
        expectProblem(await create({ handle: "+14155550110" }), 409, "WHATSAPP_MODE_DEDICATED")
      } finally {
        whatsappSwitches.mode = "shared"
      }
    })

    it("concurrent requests never pass the seat cap, and connect one number once", async () => {
      const p = await newProject(s, call)
      await giveCard(s, p)
      whatsappSwitches.maxUserAssignments = 2
      try {
        const seats = await Promise.all(Array.from({ length: 5 }, (_, i) =>
          call(`${base(p)}/whatsapp/assignments`, { method: "POST", json: { handle: `+1415555070${i}` }, idem: idem() })))
        expect(seats.map((r) => r.res.status).sort()).toEqual([201, 201, 409, 409, 409])
        for (const r of seats.filter((x) => x.res.status === 409)) expect(r.body.code).toBe("SHARED_LINE_CAP_EXCEEDED")
      } finally {
        whatsappSwitches.maxUserAssignments = 100
      }
      const connects = await Promise.all(Array.from({ length: 3 }, () => connect(p, { code: "ok", wabaId: "waba-race", phoneNumberId: "pn-7777" })))
      expect(connects.map((r) => r.res.status).sort()).toEqual([202, 409, 409])
    })

    it("dedicated lines: 402 without the entitlement or a card, a provision that waits for capacity, release; each problem", async () => {
      const p = await newProject(s, call)
      const provision = (key = idem()) => call(`${base(p)}/whatsapp/dedicated`, { method: "POST", idem: key })
      expectProblem(await provision(), 402, "ENTITLEMENT_REQUIRED")
      await giveCard(s, p)
      whatsappSwitches.dedicatedLines = false
      try {
        const refused = await provision()
        expectProblem(refused, 402, "ENTITLEMENT_REQUIRED")
        expect(refused.body.entitlement).toBe("whatsapp_dedicated_lines.can_purchase")
      } finally {
        whatsappSwitches.dedicatedLines = true
      }
      expectProblem(await call(`${base(p)}/whatsapp/dedicated`, { method: "POST" }), 400, "IDEMPOTENCY_KEY_REQUIRED")
      whatsappPools.noCapacity = true
      const key = idem()
      let r
      try {
        r = await provision(key)
        expect(r.res.status, r.text).toBe(202)
        expect(r.body).toMatchObject({ resourceType: "whatsapp_line", state: "pending" })
        await runWorker(s)
        expect((await operation(p, r.body.operationId)).operation).toMatchObject({ state: "running", cancellable: true, detail: { waitingFor: "capacity" } })
      } finally {
        whatsappPools.noCapacity = false
      }
      expect((await provision(key)).body.operationId).toBe(r.body.operationId)
      await new Promise((done) => setTimeout(done, 20))
      await runWorker(s)
      const done = await operation(p, r.body.operationId)
      expect(done.operation.state).toBe("succeeded")
      expect(done.resource).toMatchObject({ type: "whatsapp_line", abilities: ["whatsapp", "pstn_voice"], state: "active" })
      expect(done.resource.detail.phoneNumber).toMatch(/^\+1628555\d{4}$/)
      const number = await smsNumber(p)
      expectProblem(await call(`${base(p)}/whatsapp/dedicated/${number.resourceId}`, { method: "DELETE" }), 404, "RESOURCE_NOT_FOUND")
      const released = await call(`${base(p)}/whatsapp/dedicated/${done.resource.resourceId}`, { method: "DELETE" })
      expect(released.res.status, released.text).toBe(200)
      expect(released.body).toMatchObject({ type: "resource.release", state: "succeeded", resourceId: done.resource.resourceId })
      expectProblem(await call(`${base(p)}/resources/${done.resource.resourceId}`), 404, "RESOURCE_NOT_FOUND")
      expectProblem(await call(`${base(p)}/whatsapp/dedicated/${done.resource.resourceId}`, { method: "DELETE" }), 404, "RESOURCE_NOT_FOUND")
    })

    it("a closing project refuses WhatsApp provisioning and seats (PROJECT_CLOSING) and still answers reads", async () => {
      const p = await newProject(s, call)
      await giveCard(s, p)
      expect((await call(`/v1/projects/${p}`, { method: "DELETE", idem: idem() })).res.status).toBe(200)
      expectProblem(await connect(p, { code: "ok", wabaId: "w", phoneNumberId: "pn-1" }), 409, "PROJECT_CLOSING")
      expectProblem(await call(`${base(p)}/whatsapp/dedicated`, { method: "POST", idem: idem() }), 409, "PROJECT_CLOSING")
      expectProblem(await call(`${base(p)}/whatsapp/assignments`, { method: "POST", json: { handle: "+14155550100" }, idem: idem() }), 409, "PROJECT_CLOSING")
      expect((await call(`${base(p)}/whatsapp`)).res.status).toBe(200)
    })
  })
}
