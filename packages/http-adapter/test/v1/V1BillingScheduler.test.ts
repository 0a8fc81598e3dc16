/**
 * Billing across processes and at start (docs/api-notes/billing.md):
 * - two server processes on one database closing the same periods (and materialising the same
 *   subscriptions) at once produce one invoice per period;
 * - with the scheduler on, a billing operation runs by itself after the request;
 * - an invalid PLANS_FILE stops the server's billing adapters with a message that says why.
 */
import { BillingRepo, BillingService } from "@switchboard/core/billing"
import { ServerSecretFromBytes } from "@switchboard/core/shared"
import { billingTestCatalogJson } from "@switchboard/testkit"
import { testBackends } from "@switchboard/sql-adapter"
import { makeServerConfig } from "@switchboard/http-adapter"
import { Cause, DateTime, Effect, Exit, Layer, Option } from "effect"
import { TestClock } from "effect/testing"
import { existsSync, mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { isAbsolute, join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { BillingServerAdapters, loadCatalog, SAMPLE_PLANS_FILE } from "../../src/server/BillingAdapters.js"
import { httpClient } from "../support/HttpClient.js"
import { startTestServer, startTestServers, type TestServer } from "../support/TestServer.js"

const dir = mkdtempSync(join(tmpdir(), "sb-plans-"))
const writePlans = (name: string, content: unknown) => {
  const path = join(dir, name)
  writeFileSync(path, typeof content === "string" ? content : JSON.stringify(content))
  return path
}
// Paid defaults (Starter 2900 in advance, API Basic 3000 in arrears), monthly: few periods to close.
const PAID_PLANS = writePlans("paid.json", { messaging: billingTestCatalogJson.messaging, api: billingTestCatalogJson.api })
let seq = 0
const idem = () => `sched-${Date.now()}-${++seq}`

const failureMessage = async (file: string) => {
  const exit = await Effect.runPromiseExit(Effect.scoped(Layer.build(
    BillingServerAdapters(makeServerConfig({ plansFile: Option.some(file) })).pipe(Layer.provide(ServerSecretFromBytes(new Uint8Array(32).fill(3))))
  )))
  expect(Exit.isFailure(exit)).toBe(true)
  // What the CLI prints: the message of the failure (Cli.ts describeFailure).
  return Exit.isFailure(exit) ? String((Cause.squash(exit.cause) as { message?: unknown }).message) : ""
}

describe("PLANS_FILE", () => {
  it("the sample catalog ships with the server, found wherever the server is started from, and is valid", async () => {
    expect(isAbsolute(SAMPLE_PLANS_FILE)).toBe(true)
    expect(existsSync(SAMPLE_PLANS_FILE)).toBe(true)
    const catalog = await Effect.runPromise(loadCatalog(SAMPLE_PLANS_FILE))
    expect(Object.keys(catalog).sort()).toEqual(["messaging", "organization", "voice"])
  })

  it("an invalid catalog fails the adapters with a readable message naming the file and the reason", async () => {
    const plan = billingTestCatalogJson.messaging[0]!
    const cases: Array<[string, unknown, RegExp]> = [
      ["missing.json", null, /cannot be read/],
      ["broken.json", "{ not json", /is not valid JSON/],
      ["array.json", [], /must be a JSON object/],
      ["two-defaults.json", { messaging: [plan, { ...plan, planCode: "other" }] }, /more than one default plan/],
      ["no-default.json", { messaging: [{ ...plan, isDefault: false }] }, /exactly one default plan/],
      ["bad-slug.json", { Messaging: [plan] }, /category slug/],
      ["duplicate-code.json", { messaging: [plan], other: [plan] }, /plan codes must be unique/],
      ["duplicate-in-category.json", { messaging: [plan, { ...plan, isDefault: false }] }, /repeats a planCode/],
      ["bounds.json", { messaging: [{ ...plan, baseAmountCents: 9007199254740992 }] }, /baseAmountCents/],
      ["negative.json", { messaging: [{ ...plan, baseAmountCents: -1 }] }, /baseAmountCents/],
      ["extra.json", { messaging: [{ ...plan, surprise: true }] }, /surprise/],
      ["interval.json", { messaging: [{ ...plan, interval: "daily" }] }, /interval/]
    ]
    for (const [name, content, reason] of cases) {
      const file = content === null ? join(dir, name) : writePlans(name, content)
      const message = await failureMessage(file)
      expect(message, name).toContain(`PLANS_FILE ${file}`)
      expect(message, name).toMatch(reason)
    }
  })
})

for (const backend of testBackends()) {
  describe(`billing scheduler across processes (${backend})`, () => {
    it("two processes ticking at once materialise one subscription and close each period once", async () => {
      const { close, servers } = await startTestServers(backend, 2, { billingSchedulerEnabled: false, plansFile: Option.some(PAID_PLANS) })
      try {
        const [a, b] = servers as [TestServer, TestServer]
        const call = httpClient(() => a)
        const org = (await call("/v1/organizations", { method: "POST", json: { name: "Two processes" } })).body.organizationId
        const created = await call(`/v1/organizations/${org}/projects`, { method: "POST", json: { name: "P", slug: `two-${Date.now().toString(36)}` }, idem: idem() })
        expect(created.res.status).toBe(201)
        const projectId = created.body.projectId
        const createdAt = Date.parse(created.body.createdAt)
        const tickAt = (s: TestServer, t: number) =>
          s.run(Effect.andThen(TestClock.setTime(t), BillingService.use((billing) => billing.tick())).pipe(Effect.provide(TestClock.layer())))
        // Nothing touched the project's billing yet: both processes find it at once, then close 2 months.
        for (const t of [createdAt + 45 * 86_400_000, createdAt + 70 * 86_400_000]) {
          await Promise.all([tickAt(a, t), tickAt(b, t), tickAt(a, t), tickAt(b, t)])
        }
        const invoices = await a.run(Effect.flatMap(BillingRepo, (r) => r.listInvoices(org)))
        const keys = invoices.map((i) => i.uniqueKey)
        expect(new Set(keys).size).toBe(keys.length)
        const starter = invoices.filter((i) => i.lines.some((l) => l.code === "starter_monthly"))
        // The opening invoice at creation and one per month closed (two boundaries by day 70).
        expect(starter.length).toBe(3)
        expect(new Set(starter.map((i) => DateTime.toEpochMillis(i.issuedAt))).size).toBe(3)
        const arrears = invoices.filter((i) => i.lines.some((l) => l.code === "basic_arrears"))
        expect(arrears.length).toBe(2)
        const subs = await b.run(Effect.flatMap(BillingRepo, (r) => r.listSubscriptions(projectId)))
        expect(subs.map((s) => s.category)).toEqual(["api", "messaging"])
      } finally {
        await close()
      }
    })
  })

  describe(`billing scheduler switched on (${backend})`, () => {
    let s: TestServer
    beforeAll(async () => {
      s = await startTestServer(backend, { billingSchedulerEnabled: true, billingTickSeconds: 1 })
    })
    afterAll(() => s.close())

    it("a billing operation runs by itself after the request (no tick by hand)", async () => {
      const call = httpClient(() => s)
      const org = (await call("/v1/organizations", { method: "POST", json: { name: "Auto" } })).body.organizationId
      const project = await call(`/v1/organizations/${org}/projects`, { method: "POST", json: { name: "P", slug: `auto-${Date.now().toString(36)}` }, idem: idem() })
      const op = await call(`/v1/organizations/${org}/billing/projects/${project.body.projectId}/purchase`, {
        method: "POST", json: { category: "messaging", planCode: "messaging_pro_monthly" }, idem: idem()
      })
      expect(op.res.status).toBe(202)
      let body = op.body
      for (let i = 0; i < 100 && body.status === "pending"; i++) {
        await new Promise((r) => setTimeout(r, 50))
        body = (await call(`/v1/projects/${project.body.projectId}/billing/operations/${op.body.operationId}`)).body
      }
      expect(body.failure).toEqual({ code: "payment_method_required", detail: null, retryable: false, unsoldFixedCharges: [] })
    })
  })
}
