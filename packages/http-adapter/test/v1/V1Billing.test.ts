/**
 * /v1 billing through the real server (docs/api-notes/billing.md), on the sample catalog (the
 * default PLANS_FILE) with the simulated payment provider and the scheduler switched off —
 * operations and ticks are run by hand, under `TestClock` where time matters.
 */
import { Billing } from "@switchboard/core"
import { BillingRepo, BillingService } from "@switchboard/core/billing"
import { EventOutbox } from "@switchboard/core/events"
import { type ProjectId } from "@switchboard/core/shared"
import { mintAccessToken } from "@switchboard/testkit"
import { testBackends } from "@switchboard/sql-adapter"
import { Effect, Result, Option, Schema } from "effect"
import { TestClock } from "effect/testing"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { SimulatedPayments } from "../../src/server/BillingAdapters.js"
import { expectProblem, httpClient } from "../support/HttpClient.js"
import { startTestServer, type TestServer } from "../support/TestServer.js"

let seq = 0
const idem = () => `billing-${Date.now()}-${++seq}`
const unique = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${(++seq).toString(36)}x`
const ghostProject = "01900000-0000-7000-8000-000000000000"
const ghostOperation = "sb_bop_01jd0000000000000000000000"

const decodes = <A, I>(schema: Schema.Codec<A, I>, value: unknown) =>
  expect(Result.isSuccess(Schema.decodeUnknownResult(schema, { onExcessProperty: "error" })(value)), JSON.stringify(value)).toBe(true)

for (const backend of testBackends()) {
  describe(`/v1 billing (${backend})`, () => {
    let s: TestServer
    beforeAll(async () => {
      s = await startTestServer(backend, { billingSchedulerEnabled: false })
    })
    afterAll(() => s.close())

    const call = httpClient(() => s)
    /** Runs a core effect with the clock at `epochMillis` (TestClock). */
    const at = <A, E>(epochMillis: number, effect: Effect.Effect<A, E, any>) =>
      s.run(Effect.andThen(TestClock.setTime(epochMillis), effect).pipe(Effect.provide(TestClock.layer())))

    const newOrganization = async (key = s.serviceKey) => {
      const r = await call("/v1/organizations", { method: "POST", json: { name: "Billing org" }, key })
      expect(r.res.status, JSON.stringify(r.body)).toBe(201)
      return r.body.organizationId as string
    }
    const newProject = async (organizationId?: string, key = s.serviceKey) => {
      const org = organizationId ?? await newOrganization(key)
      const r = await call(`/v1/organizations/${org}/projects`, { method: "POST", json: { name: "Billed", slug: unique("billed") }, idem: idem(), key })
      expect(r.res.status, JSON.stringify(r.body)).toBe(201)
      return { organizationId: org, projectId: r.body.projectId as string, createdAt: Date.parse(r.body.createdAt) }
    }
    const base = (p: { organizationId: string; projectId: string }) => `/v1/organizations/${p.organizationId}/billing/projects/${p.projectId}`
    const purchase = (p: { organizationId: string; projectId: string }, body: unknown, key = idem(), credential?: string) =>
      call(`${base(p)}/purchase`, { method: "POST", json: body, idem: key, ...(credential === undefined ? {} : { key: credential }) })
    const operation = (projectId: string, operationId: string) => call(`/v1/projects/${projectId}/billing/operations/${operationId}`)
    /** Runs the operation (the scheduler is off) and reads it back over HTTP. */
    const settle = async (projectId: string, operationId: string) => {
      await s.run(BillingService.use((billing) => billing.process(operationId)))
      return operation(projectId, operationId)
    }
    /** Adds a card through the simulated checkout page. */
    const addCard = async (organizationId: string, card: string) => {
      const checkout = await call(`/v1/organizations/${organizationId}/billing/checkout`, { method: "POST" })
      expect(checkout.res.status, checkout.text).toBe(200)
      const url = new URL(checkout.body.checkoutUrl)
      const form = await fetch(`${s.baseUrl}${url.pathname}`)
      const html = await form.text()
      const csrf = /name="csrf" value="([^"]+)"/.exec(html)?.[1]
      expect(csrf).toBeDefined()
      const saved = await fetch(`${s.baseUrl}${url.pathname}`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ csrf: csrf!, card }).toString()
      })
      expect(saved.status).toBe(200)
      return { path: url.pathname, csrf: csrf! }
    }

    it("listBillingPlans: the sample catalog's project categories; it decodes as BillingPlan[]", async () => {
      const { projectId } = await newProject()
      const r = await call(`/v1/projects/${projectId}/billing/plans`)
      expect(r.res.status).toBe(200)
      decodes(Billing.ListBillingPlansResponse, r.body)
      // The organization category (organization_sso_monthly) is sold to organizations themselves: a
      // project can buy nothing in it, so its plan list leaves it out — the categories listed are
      // the ones the project is subscribed in.
      expect(Object.keys(r.body.plans).sort()).toEqual(["messaging", "voice"])
      const overview = await call(`/v1/projects/${projectId}/billing`)
      expect(overview.body.subscriptions.map((s: any) => s.category).sort()).toEqual(Object.keys(r.body.plans).sort())
      expect(r.body.plans.messaging.filter((p: any) => p.isDefault).map((p: any) => p.planCode)).toEqual(["messaging_free"])
    })

    it("getBillingOverview: every category on its default plan from creation; who may read it", async () => {
      const p = await newProject()
      const r = await call(`/v1/projects/${p.projectId}/billing`)
      expect(r.res.status, r.text).toBe(200)
      decodes(Billing.BillingOverview, r.body)
      expect(r.body.subscriptions.map((x: any) => [x.category, x.planCode, x.status])).toEqual([
        ["messaging", "messaging_free", "active"], ["voice", "voice_payg", "active"]
      ])
      const day = new Date(p.createdAt).toISOString().slice(0, 10)
      expect(r.body.subscriptions[0].currentPeriodStart).toBe(`${day}T00:00:00.000Z`)
      expect(r.body.usage.map((u: any) => u.metricCode).sort()).toEqual(["message", "voice_minute"])
      // Project keys: their own project's billing with project:read only.
      const key = await call(`/v1/projects/${p.projectId}/api-keys`, { method: "POST", json: { name: "reader", permissions: ["project:read"] }, idem: idem() })
      const events = await call(`/v1/projects/${p.projectId}/api-keys`, { method: "POST", json: { name: "events", permissions: ["events:read"] }, idem: idem() })
      expect((await call(`/v1/projects/${p.projectId}/billing`, { key: key.body.secret })).res.status).toBe(200)
      expectProblem(await call(`/v1/projects/${p.projectId}/billing`, { key: events.body.secret }), 403, "FORBIDDEN")
      const other = await newProject(p.organizationId)
      expectProblem(await call(`/v1/projects/${other.projectId}/billing`, { key: key.body.secret }), 403, "RESOURCE_MISMATCH")
      expectProblem(await call(`${base(p)}/terms`, { key: key.body.secret }), 403, "FORBIDDEN")
      // Access tokens need billing:read.
      const none = await s.run(mintAccessToken({ accountId: s.accountId, scopes: ["projects:read"] }))
      const reader = await s.run(mintAccessToken({ accountId: s.accountId, scopes: ["billing:read"] }))
      const denied = await call(`/v1/projects/${p.projectId}/billing`, { key: none })
      expectProblem(denied, 403, "INSUFFICIENT_SCOPE")
      expect(denied.res.headers.get("www-authenticate")).toContain('scope="billing:read"')
      expect((await call(`/v1/projects/${p.projectId}/billing`, { key: reader })).res.status).toBe(200)
      expectProblem(await purchase(p, { category: "messaging", planCode: "messaging_pro_monthly" }, idem(), reader), 403, "INSUFFICIENT_SCOPE")
      // Strangers and unknown projects.
      const stranger = await s.newAccount(`stranger-${unique("x")}@example.com`)
      expectProblem(await call(`/v1/projects/${p.projectId}/billing`, { key: stranger.serviceKey }), 404, "PROJECT_NOT_FOUND")
      expectProblem(await call(`${base(p)}/terms`, { key: stranger.serviceKey }), 404, "RESOURCE_NOT_FOUND")
      expectProblem(await call(`/v1/projects/${ghostProject}/billing`), 404, "PROJECT_NOT_FOUND")
      expectProblem(await call(`/v1/projects/not-a-uuid/billing`), 422, "VALIDATION_FAILED")
      expectProblem(await call(`${base({ organizationId: (await newProject()).organizationId, projectId: p.projectId })}/terms`), 404, "PROJECT_NOT_FOUND")
      expectProblem(await call(`/v1/projects/${p.projectId}/billing`, { key: null }), 401, "NOT_AUTHENTICATED")
    })

    it("previewProjectChange: a plan change, a fixed-charge quantity, refusals and bad bodies", async () => {
      const p = await newProject()
      const up = await call(`${base(p)}/preview`, { method: "POST", json: { category: "messaging", planCode: "messaging_pro_monthly" } })
      expect(up.res.status, up.text).toBe(200)
      decodes(Billing.PreviewProjectChangeResponse, up.body)
      expect(up.body.planChange.timing).toBe("on_payment") // nothing on file yet
      expect(up.body.dueNow.totalCents).toBeGreaterThan(0)
      expect(up.body.dueNow.lines[0]).toMatchObject({ kind: "subscription", code: "messaging_pro_monthly" })
      const refused = await call(`${base(p)}/preview`, { method: "POST", json: { category: "messaging", planCode: "nope" } })
      expectProblem(refused, 409, "FAILED_PRECONDITION")
      expect(refused.body.failure).toEqual({ code: "invalid_target", detail: "plan_not_found", retryable: false, unsoldFixedCharges: [] })
      const notSold = await call(`${base(p)}/preview`, { method: "POST", json: { category: "messaging", fixedCharge: { fixedChargeCode: "seats", quantity: 2 } } })
      expect(notSold.body.failure?.detail).toBe("feature_not_sold_by_plan")
      const unknown = await call(`${base(p)}/preview`, { method: "POST", json: { fixedCharge: { fixedChargeCode: "ghost", quantity: 2 } } })
      expect(unknown.body.failure?.detail).toBe("feature_not_found")
      const additions = Array.from({ length: 11 }, (_, i) => ({ fixedChargeCode: `c${i}`, quantity: 1 }))
      for (const body of [
        { category: "messaging", planCode: "messaging_pro_monthly", additions },
        { category: "Messaging", planCode: "x" },
        { category: "messaging", planCode: "" },
        { category: "messaging", planCode: "messaging_pro_monthly", extra: 1 },
        { category: "messaging", planCode: "messaging_pro_monthly", additions: [{ fixedChargeCode: "seats", quantity: 0 }] },
        { category: "messaging", planCode: "messaging_pro_monthly", additions: [{ fixedChargeCode: "seats", quantity: 1 }, { fixedChargeCode: "seats", quantity: 2 }] }
      ]) {
        expectProblem(await call(`${base(p)}/preview`, { method: "POST", json: body }), 422, "VALIDATION_FAILED")
      }
      expectProblem(await call(`${base(p)}/preview`, { method: "POST", json: "{" }), 422, "VALIDATION_FAILED")
      // The project's plan left the catalog (an operator removed it): 503 BILLING_NOT_PROVISIONED.
      await s.run(Effect.gen(function*() {
        const repo = yield* BillingRepo
        const sub = Option.getOrThrow(yield* repo.lockSubscription(p.projectId as ProjectId, "messaging"))
        yield* repo.updateSubscription({ ...sub, planCode: "messaging_retired" })
      }))
      const gone = await call(`${base(p)}/preview`, { method: "POST", json: { category: "messaging", planCode: "messaging_pro_monthly" } })
      expectProblem(gone, 503, "BILLING_NOT_PROVISIONED")
      expect(gone.res.headers.get("retry-after")).toBe("60")
    })

    it("changePlan: Idempotency-Key rules; 202 + Location while pending; 200 once resolved; payment_method_required without a card", async () => {
      const p = await newProject()
      const body = { category: "messaging", planCode: "messaging_pro_monthly" }
      expectProblem(await call(`${base(p)}/purchase`, { method: "POST", json: body }), 400, "IDEMPOTENCY_KEY_REQUIRED")
      expectProblem(await call(`${base(p)}/purchase`, { method: "POST", json: body, idem: "x".repeat(256) }), 400, "IDEMPOTENCY_KEY_INVALID")
      expectProblem(await purchase(p, { category: "messaging" }), 422, "VALIDATION_FAILED")
      const key = idem()
      const first = await purchase(p, body, key)
      expect(first.res.status, first.text).toBe(202)
      decodes(Billing.PendingBillingOperation, first.body)
      expect(first.body).toMatchObject({ kind: "change_plan", status: "pending", failure: null, result: null, resolvedAt: null })
      expect(first.body.operationId).toMatch(/^sb_bop_[0-7][0-9a-hjkmnp-tv-z]{25}$/)
      expect(first.res.headers.get("location")).toBe(`http://127.0.0.1/v1/projects/${p.projectId}/billing/operations/${first.body.operationId}`)
      expect(first.res.headers.get("retry-after")).toBe("1")
      const polled = await operation(p.projectId, first.body.operationId)
      expect(polled.res.status).toBe(200)
      expect(polled.res.headers.get("retry-after")).toBe("1")
      const pendingAgain = await purchase(p, body, key)
      expect(pendingAgain.res.status).toBe(202)
      expect(pendingAgain.res.headers.get("idempotent-replayed")).toBe("true")
      const failed = await settle(p.projectId, first.body.operationId)
      decodes(Billing.FailedBillingOperation, failed.body)
      expect(failed.body.failure).toEqual({ code: "payment_method_required", detail: null, retryable: false, unsoldFixedCharges: [] })
      expect(failed.res.headers.get("retry-after")).toBeNull()
      const replay = await purchase(p, body, key)
      expect(replay.res.status).toBe(200)
      expect(replay.res.headers.get("idempotent-replayed")).toBe("true")
      expect(replay.body).toEqual(failed.body)
      expectProblem(await purchase(p, { category: "messaging", planCode: "messaging_business_monthly" }, key), 422, "IDEMPOTENCY_KEY_REUSED")
      expectProblem(await operation(p.projectId, ghostOperation), 404, "OPERATION_NOT_FOUND")
      const other = await newProject(p.organizationId)
      expectProblem(await operation(other.projectId, first.body.operationId), 404, "OPERATION_NOT_FOUND")
      expectProblem(await operation(p.projectId, "not-an-operation"), 422, "VALIDATION_FAILED")
    })

    it("checkout page: a CSRF-checked form adds the card; getOrganizationPaymentMethod shows it", async () => {
      const { organizationId } = await newProject()
      const none = await call(`/v1/organizations/${organizationId}/billing/payment-method`)
      expect(none.body).toEqual({ cardOnFile: false, paymentMethod: null })
      const checkout = await call(`/v1/organizations/${organizationId}/billing/checkout`, { method: "POST" })
      const path = new URL(checkout.body.checkoutUrl).pathname
      const page = await fetch(`${s.baseUrl}${path}`)
      expect(page.headers.get("content-type")).toContain("text/html")
      expect(page.headers.get("x-frame-options")).toBe("DENY")
      expect(page.headers.get("referrer-policy")).toBe("no-referrer")
      const csrf = /name="csrf" value="([^"]+)"/.exec(await page.text())![1]!
      const post = (body: Record<string, string>, headers: Record<string, string> = {}) =>
        fetch(`${s.baseUrl}${path}`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded", ...headers }, body: new URLSearchParams(body).toString() })
      expect((await post({ csrf: "forged", card: "4242424242424242" })).status).toBe(403)
      expect((await post({ csrf, card: "4242424242424242" }, { origin: "https://evil.example" })).status).toBe(403)
      expect((await post({ csrf, card: "4242424242424242" }, { "sec-fetch-site": "cross-site" })).status).toBe(403)
      expect((await fetch(`${s.baseUrl}/billing/checkout/${path.split("/").pop()}x`)).status).toBe(404)
      expect((await call(`/v1/organizations/${organizationId}/billing/payment-method`)).body.cardOnFile).toBe(false)
      expect((await post({ csrf, card: "4000002760003184" })).status).toBe(200)
      const saved = await call(`/v1/organizations/${organizationId}/billing/payment-method`)
      decodes(Billing.PaymentMethodResponse, saved.body)
      expect(saved.body).toMatchObject({ cardOnFile: true, paymentMethod: { brand: "visa", last4: "3184", expiresMonth: 12 } })
      // setup-intent is *Idem*.
      expectProblem(await call(`/v1/organizations/${organizationId}/billing/setup-intent`, { method: "POST" }), 400, "IDEMPOTENCY_KEY_REQUIRED")
      const intent = await call(`/v1/organizations/${organizationId}/billing/setup-intent`, { method: "POST", idem: idem() })
      expect(intent.body.publishableKey).toMatch(/^pk_/)
      expect(intent.body.clientSecret.length).toBeGreaterThan(0)
      const stranger = await s.newAccount(`stranger-${unique("y")}@example.com`)
      expectProblem(await call(`/v1/organizations/${organizationId}/billing/payment-method`, { key: stranger.serviceKey }), 404, "RESOURCE_NOT_FOUND")
      expectProblem(await call(`/v1/organizations/${organizationId}/billing/invoices`, { key: stranger.serviceKey }), 404, "RESOURCE_NOT_FOUND")
    })

    it("an upgrade with a card that charges applies now: overview, terms, invoice, events", async () => {
      const p = await newProject()
      await addCard(p.organizationId, "4242424242424242")
      const preview = await call(`${base(p)}/preview`, { method: "POST", json: { category: "messaging", planCode: "messaging_pro_monthly" } })
      expect(preview.body.planChange.timing).toBe("immediate")
      const op = await purchase(p, { category: "messaging", planCode: "messaging_pro_monthly", additions: [{ fixedChargeCode: "seats", quantity: 2 }] })
      const done = await settle(p.projectId, op.body.operationId)
      decodes(Billing.SucceededBillingOperation, done.body)
      expect(done.body.result).toEqual({ type: "version", version: "2", effectiveAt: null })
      const overview = await call(`/v1/projects/${p.projectId}/billing`)
      expect(overview.body.subscriptions[0]).toMatchObject({ planCode: "messaging_pro_monthly", planName: "Pro" })
      expect(overview.body.subscriptions[0].fixedCharges).toEqual([
        { fixedChargeCode: "seats", name: "Extra seats", quantity: 2, unitAmountCents: 1500, payInAdvance: true, prorated: true }
      ])
      const terms = await call(`${base(p)}/terms`)
      decodes(Billing.EffectiveTerms, terms.body)
      expect(terms.body.terms.find((t: any) => t.category === "messaging")).toMatchObject({ source: "purchase", paymentMode: "in_advance" })
      const invoices = await call(`/v1/organizations/${p.organizationId}/billing/invoices`)
      decodes(Billing.ListInvoicesResponse, invoices.body)
      const totals = invoices.body.invoices.map((i: any) => i.totalCents)
      expect(totals).toContain(preview.body.dueNow.totalCents)
      expect(invoices.body.invoices.every((i: any) => i.totalCents !== 0)).toBe(true)
      const events = await s.run(Effect.flatMap(EventOutbox, (o) => o.list({ projectId: p.projectId, after: 0, limit: 100 })))
      const billing = events.filter((e) => e.event.type.startsWith("billing."))
      expect(billing.map((e) => e.event.type)).toEqual(["billing.plan.changed", "billing.operation.succeeded"])
      expect(billing[1]!.event.data).toMatchObject({ operationId: op.body.operationId, kind: "change_plan" })
      // A downgrade is scheduled for period end.
      const down = await settle(p.projectId, (await purchase(p, { category: "messaging", planCode: "messaging_free" })).body.operationId)
      expect(down.body.status).toBe("failed")
      expect(down.body.failure).toMatchObject({ detail: "release_required", unsoldFixedCharges: [{ fixedChargeCode: "seats", quantity: 2 }] })
      const release = await call(`${base(p)}/fixed-charges/seats`, { method: "POST", json: { quantity: 0 }, idem: idem() })
      expect(release.res.status).toBe(202)
      expect((await settle(p.projectId, release.body.operationId)).body.status).toBe("succeeded")
      const scheduled = await settle(p.projectId, (await purchase(p, { category: "messaging", planCode: "messaging_free" })).body.operationId)
      expect(scheduled.body.result.effectiveAt).toBe(overview.body.subscriptions[0].currentPeriodEnd)
      expect((await call(`/v1/projects/${p.projectId}/billing`)).body.subscriptions[0].scheduledChange).toMatchObject({
        planCode: "messaging_free", timing: "period_end", effectiveAt: overview.body.subscriptions[0].currentPeriodEnd
      })
    })

    it("failure codes over HTTP: payment_failed (declined card), invalid_target details, not_provisioned, internal", async () => {
      const p = await newProject()
      await addCard(p.organizationId, "4000000000000002")
      const declined = await settle(p.projectId, (await purchase(p, { category: "messaging", planCode: "messaging_pro_monthly" })).body.operationId)
      expect(declined.body.failure).toEqual({ code: "payment_failed", detail: null, retryable: true, unsoldFixedCharges: [] })
      expect((await call(`/v1/projects/${p.projectId}/billing`)).body.subscriptions[0].planCode).toBe("messaging_free")
      await addCard(p.organizationId, "4242424242424242")
      const cases: Array<[unknown, string]> = [
        [{ category: "messaging", planCode: "nope" }, "plan_not_found"],
        [{ category: "messaging", planCode: "messaging_free" }, "target_rejected"],
        [{ category: "messaging", planCode: "messaging_pro_monthly", additions: [{ fixedChargeCode: "ghost", quantity: 1 }] }, "feature_not_found"],
        [{ category: "messaging", planCode: "messaging_pro_yearly", additions: [{ fixedChargeCode: "sso", quantity: 1 }] }, "feature_not_sold_by_plan"],
        [{ category: "messaging", planCode: "messaging_pro_monthly", additions: [{ fixedChargeCode: "sso", quantity: 2 }] }, "quantity_out_of_range"]
      ]
      for (const [body, detail] of cases) {
        const r = await settle(p.projectId, (await purchase(p, body)).body.operationId)
        expect(r.body.failure, detail).toEqual({ code: "invalid_target", detail, retryable: false, unsoldFixedCharges: [] })
      }
      await s.run(Effect.flatMap(SimulatedPayments, (sp) => sp.script({ _tag: "Unknown", reason: "provider timeout" })))
      const unknown = await settle(p.projectId, (await purchase(p, { category: "messaging", planCode: "messaging_pro_monthly" })).body.operationId)
      expect(unknown.body.failure).toEqual({ code: "internal", detail: "reconciliation_required", retryable: false, unsoldFixedCharges: [] })
      const adjust = await call(`${base(p)}/fixed-charges/seats`, { method: "POST", json: { quantity: 3 }, idem: idem() })
      expect((await settle(p.projectId, adjust.body.operationId)).body.failure?.detail).toBe("feature_not_sold_by_plan")
      expectProblem(await call(`${base(p)}/fixed-charges/seats`, { method: "POST", json: { quantity: -1 }, idem: idem() }), 422, "VALIDATION_FAILED")
      // The project closes between the request and its execution: not_provisioned.
      const late = await purchase(p, { category: "messaging", planCode: "messaging_pro_monthly" })
      expect((await call(`/v1/projects/${p.projectId}`, { method: "DELETE", idem: idem() })).res.status).toBe(200)
      expect((await settle(p.projectId, late.body.operationId)).body.failure).toEqual({ code: "not_provisioned", detail: null, retryable: false, unsoldFixedCharges: [] })
      expectProblem(await purchase(p, { category: "messaging", planCode: "messaging_pro_monthly" }), 409, "PROJECT_CLOSING")
    })

    it("on_payment (TestClock): paid on the provider's page it applies; unpaid for 23 h it fails payment_timeout", async () => {
      const p = await newProject()
      await addCard(p.organizationId, "4000002760003184")
      const asked = await purchase(p, { category: "messaging", planCode: "messaging_pro_monthly" })
      const waiting = await settle(p.projectId, asked.body.operationId)
      expect(waiting.body.status).toBe("pending")
      const overview = await call(`/v1/projects/${p.projectId}/billing`)
      const change = overview.body.subscriptions[0].scheduledChange
      expect(change).toMatchObject({ timing: "on_payment", planCode: "messaging_pro_monthly" })
      const payPath = new URL(change.paymentUrl).pathname
      const payPage = await fetch(`${s.baseUrl}${payPath}`)
      const html = await payPage.text()
      expect(html).toContain("messaging_pro_monthly")
      const csrf = /name="csrf" value="([^"]+)"/.exec(html)![1]!
      const pay = await fetch(`${s.baseUrl}${payPath}`, {
        method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ csrf, decision: "approve" }).toString()
      })
      expect(pay.status).toBe(200)
      expect((await operation(p.projectId, asked.body.operationId)).body.status).toBe("succeeded")
      expect((await call(`/v1/projects/${p.projectId}/billing`)).body.subscriptions[0].planCode).toBe("messaging_pro_monthly")

      // Another one left unpaid: the scheduler fails it once 23 h have passed.
      const q = await newProject()
      await addCard(q.organizationId, "4000002760003184")
      const unpaid = await purchase(q, { category: "messaging", planCode: "messaging_business_monthly" })
      const submitted = Date.parse(unpaid.body.submittedAt)
      await at(submitted + 60_000, BillingService.use((billing) => billing.process(unpaid.body.operationId)))
      const deadline = Date.parse((await call(`/v1/projects/${q.projectId}/billing`)).body.subscriptions[0].scheduledChange.expiresAt)
      expect(deadline).toBeLessThanOrEqual(submitted + 60_000 + 23 * 3600_000)
      await at(deadline - 1000, BillingService.use((billing) => billing.tick()))
      expect((await operation(q.projectId, unpaid.body.operationId)).body.status).toBe("pending")
      await at(deadline, BillingService.use((billing) => billing.tick()))
      const timedOut = await operation(q.projectId, unpaid.body.operationId)
      expect(timedOut.body.failure).toEqual({ code: "payment_failed", detail: "payment_timeout", retryable: true, unsoldFixedCharges: [] })
      expect((await call(`/v1/projects/${q.projectId}/billing`)).body.subscriptions[0]).toMatchObject({ planCode: "messaging_free", scheduledChange: null })
    })

    it("period rollover (TestClock): the scheduler renews a paid plan once, applies a scheduled downgrade, bills usage in arrears", async () => {
      const p = await newProject()
      await addCard(p.organizationId, "4242424242424242")
      await settle(p.projectId, (await purchase(p, { category: "messaging", planCode: "messaging_business_monthly" })).body.operationId)
      await settle(p.projectId, (await purchase(p, { category: "messaging", planCode: "messaging_pro_monthly" })).body.operationId)
      await s.run(BillingService.use((billing) => billing.recordUsage({ projectId: p.projectId as any, metricCode: "voice_minute", units: 100 })))
      const before = await call(`/v1/projects/${p.projectId}/billing`)
      const end = Date.parse(before.body.subscriptions[0].currentPeriodEnd)
      await at(end - 1, BillingService.use((billing) => billing.tick()))
      expect((await call(`/v1/projects/${p.projectId}/billing`)).body.subscriptions[0].planCode).toBe("messaging_business_monthly")
      await at(end, BillingService.use((billing) => billing.tick()))
      await at(end + 1000, BillingService.use((billing) => billing.tick()))
      const after = await call(`/v1/projects/${p.projectId}/billing`)
      expect(after.body.subscriptions[0]).toMatchObject({ planCode: "messaging_pro_monthly", scheduledChange: null })
      expect(Date.parse(after.body.subscriptions[0].currentPeriodStart)).toBe(end)
      const invoices = (await call(`/v1/organizations/${p.organizationId}/billing/invoices`)).body.invoices
      const renewal = invoices.filter((i: any) => i.issuedAt === new Date(end).toISOString())
      const lines = renewal.flatMap((i: any) => i.lines.map((l: any) => `${l.code}:${l.amountCents}`))
      expect(lines).toContain("messaging_pro_monthly:7900")
      expect(lines).toContain("voice_minutes:150")
      expect(lines.filter((l: string) => l.startsWith("messaging_pro_monthly"))).toHaveLength(1)
      // The scheduler collects what is due with the card on file.
      await at(end + 2000, BillingService.use((billing) => billing.tick()))
      const collected = (await call(`/v1/organizations/${p.organizationId}/billing/invoices`)).body.invoices
        .filter((i: any) => i.issuedAt === new Date(end).toISOString())
      expect(collected.every((i: any) => i.paymentStatus === "succeeded")).toBe(true)
    })
  })
}
