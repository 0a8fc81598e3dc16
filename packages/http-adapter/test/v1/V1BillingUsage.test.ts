/**
 * Usage metering over /v1 (`POST /v1/projects/{projectId}/billing/usage`;
 * docs/api-notes/billing.md): batches of usage records applied once per id — also when the same
 * batch reaches two server processes on one database at once — only for metrics the plan prices,
 * never into a closed period; and the end-to-end path: usage recorded over the API crosses the
 * plan's threshold and the scheduler issues the progressive invoice. Two servers share one
 * database; the scheduler is off (ticks are run by hand).
 */
import { Billing } from "@switchboard/core"
import { BillingService } from "@switchboard/core/billing"
import { mintAccessToken } from "@switchboard/testkit"
import { testBackends } from "@switchboard/sql-adapter"
import { Result, Schema } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { expectProblem, httpClient } from "../support/HttpClient.js"
import { startTestServers, type TestServer } from "../support/TestServer.js"

let seq = 0
const unique = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${(++seq).toString(36)}x`
const ghostProject = "01900000-0000-7000-8000-000000000000"
const now = () => new Date().toISOString()

for (const backend of testBackends()) {
  describe(`/v1 billing usage (${backend})`, () => {
    let pair: Awaited<ReturnType<typeof startTestServers>>
    let s: TestServer
    beforeAll(async () => {
      pair = await startTestServers(backend, 2, { billingSchedulerEnabled: false })
      s = pair.servers[0]!
    })
    afterAll(() => pair.close())

    const call = httpClient(() => s)
    const callOther = httpClient(() => pair.servers[1]!)

    const newProject = async () => {
      const org = await call("/v1/organizations", { method: "POST", json: { name: "Metered org" } })
      expect(org.res.status, org.text).toBe(201)
      const r = await call(`/v1/organizations/${org.body.organizationId}/projects`, {
        method: "POST", json: { name: "Metered", slug: unique("metered") }, idem: unique("idem")
      })
      expect(r.res.status, r.text).toBe(201)
      return { organizationId: org.body.organizationId as string, projectId: r.body.projectId as string }
    }
    const usage = (projectId: string, records: unknown, key?: string) =>
      call(`/v1/projects/${projectId}/billing/usage`, { method: "POST", json: { records }, ...(key === undefined ? {} : { key }) })
    const unitsOf = async (projectId: string, metric: string) => {
      const r = await call(`/v1/projects/${projectId}/billing`)
      expect(r.res.status, r.text).toBe(200)
      return r.body.usage.find((u: any) => u.metricCode === metric).units as number
    }
    const record = (id: string, metric: string, quantity: number, timestamp = now()) => ({ id, metric, quantity, timestamp })

    it("applies each record once: a repeated id is ignored and changes nothing; the answer decodes", async () => {
      const p = await newProject()
      const first = await usage(p.projectId, [record("u-1", "voice_minute", 10), record("u-2", "message", 7)])
      expect(first.res.status, first.text).toBe(200)
      expect(Result.isSuccess(Schema.decodeUnknownResult(Billing.RecordUsageResponse, { onExcessProperty: "error" })(first.body))).toBe(true)
      expect(first.body.results).toEqual([
        { id: "u-1", outcome: "applied", category: "voice" },
        { id: "u-2", outcome: "applied", category: "messaging" }
      ])
      const again = await usage(p.projectId, [record("u-1", "voice_minute", 10), record("u-3", "voice_minute", 5)])
      expect(again.body.results).toEqual([
        { id: "u-1", outcome: "ignored", reason: "already_applied", category: "voice" },
        { id: "u-3", outcome: "applied", category: "voice" }
      ])
      expect(await unitsOf(p.projectId, "voice_minute")).toBe(15)
      expect(await unitsOf(p.projectId, "message")).toBe(7)
      // The same id in another project is another record.
      const other = await newProject()
      expect((await usage(other.projectId, [record("u-1", "voice_minute", 1)])).body.results[0].outcome).toBe("applied")
    })

    it("idempotency holds across processes: the same batch sent to two servers at once is applied once", async () => {
      const p = await newProject()
      const batch = { records: Array.from({ length: 20 }, (_, i) => record(`race-${i}`, "voice_minute", 1)) }
      const send = (client: typeof call) => client(`/v1/projects/${p.projectId}/billing/usage`, { method: "POST", json: batch, key: s.serviceKey })
      const answers = await Promise.all([send(call), send(callOther), send(call), send(callOther)])
      for (const a of answers) expect(a.res.status, a.text).toBe(200)
      for (let i = 0; i < 20; i++) {
        expect(answers.filter((a) => a.body.results[i].outcome === "applied")).toHaveLength(1)
      }
      expect(await unitsOf(p.projectId, "voice_minute")).toBe(20)
    })

    it("only metrics the plans price: 422 naming the metric and the record; the batch changes nothing", async () => {
      const p = await newProject()
      const r = await usage(p.projectId, [record("ok-1", "voice_minute", 3), record("bad-1", "sms_segment", 1)])
      expectProblem(r, 422, "VALIDATION_FAILED")
      expect(r.body.detail).toContain("sms_segment")
      expect(r.body.issues).toEqual([expect.objectContaining({ location: "json", path: "/records/1/metric" })])
      expect(await unitsOf(p.projectId, "voice_minute")).toBe(0)
      // The refused batch wrote no record: the good one applies later.
      expect((await usage(p.projectId, [record("ok-1", "voice_minute", 3)])).body.results[0].outcome).toBe("applied")
    })

    it("a record dated before the open period refuses the batch with 409 billing_period_closed; a repeat of an applied record still answers ignored", async () => {
      const p = await newProject()
      expect((await usage(p.projectId, [record("early-ok", "voice_minute", 2)])).res.status).toBe(200)
      const overview = await call(`/v1/projects/${p.projectId}/billing`)
      const opened = Date.parse(overview.body.subscriptions.find((x: any) => x.category === "voice").currentPeriodStart)
      const before = new Date(opened - 1000).toISOString()
      const r = await usage(p.projectId, [record("fresh-1", "voice_minute", 4), record("late-1", "voice_minute", 9, before)])
      expectProblem(r, 409, "FAILED_PRECONDITION")
      expect(r.body).toMatchObject({ reason: "billing_period_closed", recordId: "late-1", category: "voice", periodStart: new Date(opened).toISOString() })
      expect(r.body.detail).toContain("late-1")
      expect(await unitsOf(p.projectId, "voice_minute")).toBe(2)
      // Nothing of the refused batch was kept: fresh-1 applies now.
      const retry = await usage(p.projectId, [record("fresh-1", "voice_minute", 4), record("early-ok", "voice_minute", 2, before)])
      expect(retry.body.results.map((x: any) => x.outcome)).toEqual(["applied", "ignored"])
      expect(await unitsOf(p.projectId, "voice_minute")).toBe(6)
    })

    it("bounded input: batch size, ids, quantities, timestamps, duplicates and unknown fields are 422 and change nothing", async () => {
      const p = await newProject()
      const bad: Array<[unknown, string]> = [
        [[], "/records"],
        [Array.from({ length: 101 }, (_, i) => record(`n-${i}`, "voice_minute", 1)), "/records"],
        [[record("", "voice_minute", 1)], "/records/0/id"],
        [[record("x".repeat(129), "voice_minute", 1)], "/records/0/id"],
        [[record("has space", "voice_minute", 1)], "/records/0/id"],
        [[record("q-1", "voice_minute", -1)], "/records/0/quantity"],
        [[record("q-2", "voice_minute", 1.5)], "/records/0/quantity"],
        [[record("q-3", "voice_minute", 1_000_000_001)], "/records/0/quantity"],
        [[record("t-1", "voice_minute", 1, "2030-01-01T00:00:00+01:00")], "/records/0/timestamp"],
        [[record("t-2", "voice_minute", 1, new Date(Date.now() + 3_600_000).toISOString())], "/records/0/timestamp"],
        [[record("m-1", "", 1)], "/records/0/metric"],
        [[record("m-2", "x".repeat(65), 1)], "/records/0/metric"],
        [[record("d-1", "voice_minute", 1), record("d-1", "voice_minute", 1)], "/records/1/id"],
        [[{ ...record("e-1", "voice_minute", 1), extra: true }], "/records/0/extra"]
      ]
      for (const [records, path] of bad) {
        const r = await usage(p.projectId, records)
        expectProblem(r, 422, "VALIDATION_FAILED")
        expect(r.body.issues.map((i: any) => i.path), JSON.stringify(r.body)).toContain(path)
      }
      expectProblem(await call(`/v1/projects/${p.projectId}/billing/usage`, { method: "POST", json: { records: [], more: 1 } }), 422, "VALIDATION_FAILED")
      expect(await unitsOf(p.projectId, "voice_minute")).toBe(0)
    })

    it("who may record: accounts and billing:write tokens; not project API keys, billing:read tokens, strangers or unknown projects", async () => {
      const p = await newProject()
      const one = (id: string) => [record(id, "voice_minute", 1)]
      const key = await call(`/v1/projects/${p.projectId}/api-keys`, {
        method: "POST", json: { name: "writer", permissions: ["project:read", "project:write", "events:write"] }, idem: unique("idem")
      })
      expect(key.res.status, key.text).toBe(201)
      expectProblem(await usage(p.projectId, one("k-1"), key.body.secret), 403, "FORBIDDEN")
      const reader = await s.run(mintAccessToken({ accountId: s.accountId, scopes: ["billing:read"] }))
      const denied = await usage(p.projectId, one("k-2"), reader)
      expectProblem(denied, 403, "INSUFFICIENT_SCOPE")
      expect(denied.res.headers.get("www-authenticate")).toContain('scope="billing:write"')
      const writer = await s.run(mintAccessToken({ accountId: s.accountId, scopes: ["billing:write"] }))
      expect((await usage(p.projectId, one("k-3"), writer)).res.status).toBe(200)
      const stranger = await s.newAccount(`stranger-${unique("x")}@example.com`)
      expectProblem(await usage(p.projectId, one("k-4"), stranger.serviceKey), 404, "PROJECT_NOT_FOUND")
      expectProblem(await usage(ghostProject, one("k-5")), 404, "PROJECT_NOT_FOUND")
      expectProblem(await usage("not-a-uuid", one("k-6")), 422, "VALIDATION_FAILED")
      expectProblem(await usage(p.projectId, one("k-7"), null as unknown as string), 401, "NOT_AUTHENTICATED")
      expect(await unitsOf(p.projectId, "voice_minute")).toBe(1)
      // A closing project takes no more usage.
      expect((await call(`/v1/projects/${p.projectId}`, { method: "DELETE", idem: unique("idem") })).res.status).toBe(200)
      expectProblem(await usage(p.projectId, one("k-8")), 409, "PROJECT_CLOSING")
    })

    it("end to end: usage recorded over the API crosses the plan's threshold and the scheduler issues the progressive invoice", async () => {
      const p = await newProject()
      // voice_payg: 1.5 cents a minute, a recurring threshold every $500 (50000 cents).
      const batch = (from: number, minutes: number) =>
        Array.from({ length: 10 }, (_, i) => record(`min-${from + i}`, "voice_minute", minutes))
      const progressive = async () => {
        const r = await call(`/v1/organizations/${p.organizationId}/billing/invoices`)
        expect(r.res.status, r.text).toBe(200)
        return r.body.invoices.filter((i: any) => i.lines.length > 0 && i.lines.every((l: any) => l.kind === "usage"))
      }
      expect((await usage(p.projectId, batch(0, 3000))).res.status).toBe(200) // 30000 minutes = 45000 cents: below
      await s.run(BillingService.use((billing) => billing.tick()))
      expect(await progressive()).toEqual([])
      expect((await usage(p.projectId, batch(10, 400))).res.status).toBe(200) // +4000 = 34000 minutes = 51000 cents: crossed
      // A repeat of the whole batch adds nothing (it would cross nothing new either way).
      expect((await usage(p.projectId, batch(10, 400))).body.results.every((x: any) => x.outcome === "ignored")).toBe(true)
      await pair.servers[1]!.run(BillingService.use((billing) => billing.tick()))
      const invoices = await progressive()
      expect(invoices).toHaveLength(1)
      expect(invoices[0]).toMatchObject({ kind: "subscription", totalCents: 51000 })
      expect(invoices[0].lines).toEqual([expect.objectContaining({ kind: "usage", code: "voice_minutes", amountCents: 51000, units: "34000" })])
      // The next tick finds nothing new to bill.
      await s.run(BillingService.use((billing) => billing.tick()))
      expect(await progressive()).toHaveLength(1)
    })
  })
}
