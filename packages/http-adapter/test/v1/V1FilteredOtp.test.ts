/**
 * /v1 filtered verification codes (docs/provisioning.md) on a real server: inbound messages
 * that carry a one-time code are recorded (never the code), counted and listed per project and per
 * held resource, newest first, over the contract's window (default 30 days, at most 366); a resource
 * the project no longer holds answers 404; every query problem.
 */
import { classifyInbound } from "@switchboard/core/platforms"
import { testBackends } from "@switchboard/sql-adapter"
import { Option } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { expectProblem, httpClient } from "../support/HttpClient.js"
import { runWorker } from "../support/PlatformsHttp.js"
import { startTestServer, type TestServer } from "../support/TestServer.js"
import { idem, newProject, projectKey } from "../support/VoiceHttp.js"
import { inbound, whatsappTestAdapters } from "../support/WhatsappHttp.js"

describe("classifyInbound", () => {
  it.each([
    ["Your verification code is 482913", true, null],
    ["Your WhatsApp code 123-456. Don't share this code", true, "123456"],
    ["WhatsApp: your code is 654321", true, "654321"],
    ["Use 1234 as your one-time passcode", true, null],
    ["Meet me at 5pm, door code later", false, null],
    ["Call 4155550100 about the verification", false, null],
    ["lunch?", false, null]
  ])("%s", (body, otp, whatsappCode) => {
    expect(classifyInbound(body)).toEqual({ otp, whatsappCode })
  })
})

for (const backend of testBackends()) {
  describe(`/v1 filtered verification codes (${backend})`, () => {
    let s: TestServer
    beforeAll(async () => {
      s = await startTestServer(backend, {}, whatsappTestAdapters())
    })
    afterAll(() => s.close())

    const call = httpClient(() => s)
    const base = (p: string) => `/v1/projects/${p}/platforms`
    const smsNumber = async (p: string) => {
      const r = await call(`${base(p)}/sms/numbers`, { method: "POST", json: { countryCode: "US" }, idem: idem() })
      await runWorker(s)
      return (await call(`${base(p)}/operations/${r.body.operationId}`)).body.resource.resourceId as string
    }
    const DAY = 86_400_000

    it("records only OTP-bearing messages; counts and lists newest first, per project and per resource, never the code", async () => {
      const p = await newProject(s, call)
      const a = await smsNumber(p)
      const b = await smsNumber(p)
      const now = Date.now()
      expect(Option.isNone(await inbound(s, p, a, "see you at 6"))).toBe(true)
      await inbound(s, p, a, "Your code is 111111", "sms", now - 3000)
      await inbound(s, p, b, "Your code is 222222", "whatsapp", now - 2000)
      await inbound(s, p, a, "Your code is 333333", "sms", now - 1000)
      await inbound(s, p, a, "Your code is 444444", "sms", now - 40 * DAY)

      const count = await call(`${base(p)}/filtered-otp/count`)
      expect(count.res.status, count.text).toBe(200)
      expect(count.body.count).toBe(3)
      expect(Date.parse(count.body.receivedBefore) - Date.parse(count.body.receivedAfter)).toBe(30 * DAY)
      expect(count.body.platform).toBeUndefined()
      const whatsapp = await call(`${base(p)}/filtered-otp/count?platform=whatsapp`)
      expect(whatsapp.body).toMatchObject({ count: 1, platform: "whatsapp" })
      const wide = `receivedAfter=${encodeURIComponent(new Date(now - 60 * DAY).toISOString())}`
      expect((await call(`${base(p)}/filtered-otp/count?${wide}`)).body.count).toBe(4)

      const list = await call(`${base(p)}/filtered-otp`)
      expect(list.body.codes.map((c: any) => [c.resourceId, c.platform])).toEqual([[a, "sms"], [b, "whatsapp"], [a, "sms"]])
      expect(Object.keys(list.body.codes[0]).sort()).toEqual(["filteredCodeId", "platform", "receivedAt", "resourceId"])
      expect(list.text).not.toMatch(/111111|222222|333333/)
      const page1 = await call(`${base(p)}/filtered-otp?pageSize=2`)
      expect(page1.body.codes.length).toBe(2)
      const page2 = await call(`${base(p)}/filtered-otp?pageSize=2&pageToken=${encodeURIComponent(page1.body.nextPageToken)}`)
      expect(page2.body.codes.map((c: any) => c.filteredCodeId)).toEqual([list.body.codes[2].filteredCodeId])
      expect(page2.body.nextPageToken).toBeUndefined()
      expectProblem(await call(`${base(p)}/filtered-otp?pageSize=2&platform=sms&pageToken=${encodeURIComponent(page1.body.nextPageToken)}`), 422, "VALIDATION_FAILED")

      expect((await call(`${base(p)}/resources/${a}/filtered-otp/count`)).body.count).toBe(2)
      expect((await call(`${base(p)}/resources/${b}/filtered-otp`)).body.codes.map((c: any) => c.platform)).toEqual(["whatsapp"])
      expect((await call(`${base(p)}/resources/${a}/filtered-otp?platform=whatsapp`)).body.codes).toEqual([])
      const reader = await projectKey(call, p, ["platforms:read"])
      expect((await call(`${base(p)}/filtered-otp/count`, { key: reader })).body.count).toBe(3)
      const other = await projectKey(call, p, ["project:read"])
      expectProblem(await call(`${base(p)}/filtered-otp`, { key: other }), 403, "FORBIDDEN")

      // Only resources held now.
      await call(`${base(p)}/resources/${b}`, { method: "DELETE" })
      expectProblem(await call(`${base(p)}/resources/${b}/filtered-otp/count`), 404, "RESOURCE_NOT_FOUND")
      expectProblem(await call(`${base(p)}/resources/${b}/filtered-otp`), 404, "RESOURCE_NOT_FOUND")
      expectProblem(await call(`${base(p)}/resources/sb_lin_unknown/filtered-otp`), 404, "RESOURCE_NOT_FOUND")
      expectProblem(await call(`${base(await newProject(s, call))}/resources/${a}/filtered-otp/count`), 404, "RESOURCE_NOT_FOUND")
    })

    it("the window: explicit bounds are exclusive and echoed; empty, longer than 366 days or malformed is 422", async () => {
      const p = await newProject(s, call)
      const a = await smsNumber(p)
      const t = Date.parse("2031-05-01T00:00:00.000Z")
      await inbound(s, p, a, "code 123456", "sms", t)
      const q = (after: number, before: number) =>
        `receivedAfter=${encodeURIComponent(new Date(after).toISOString())}&receivedBefore=${encodeURIComponent(new Date(before).toISOString())}`
      const r = await call(`${base(p)}/filtered-otp/count?${q(t - 1, t + 1)}`)
      expect(r.body).toEqual({ count: 1, receivedAfter: new Date(t - 1).toISOString(), receivedBefore: new Date(t + 1).toISOString() })
      expect((await call(`${base(p)}/filtered-otp/count?${q(t, t + 1)}`)).body.count).toBe(0)
      expect((await call(`${base(p)}/filtered-otp/count?${q(t - 366 * DAY + 1, t + 1)}`)).body.count).toBe(1)
      for (const bad of [q(t, t), q(t + 1, t), q(t - 367 * DAY, t), "receivedAfter=yesterday", "platform=fax", "pageSize=0", "pageSize=201", "pageToken=x"]) {
        expectProblem(await call(`${base(p)}/filtered-otp?${bad}`), 422, "VALIDATION_FAILED")
      }
      expectProblem(await call(`${base(p)}/filtered-otp/count?${q(t - 400 * DAY, t)}`), 422, "VALIDATION_FAILED")
      expectProblem(await call(`${base(p)}/resources/${a}/filtered-otp/count?${q(t, t - 1)}`), 422, "VALIDATION_FAILED")
    })
  })
}
