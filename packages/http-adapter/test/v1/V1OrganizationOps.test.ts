/**
 * The organization operations of the public contract beside listProjects and the billing ones
 * already served: `countProjects`, `getProjectClosureStatus`,
 * `getOrganizationBillingOverview` and `previewOrganizationChange` — shapes (decoded with the
 * schemas the server renders with), filters, permission denials and not-found answers; the
 * organization's own subscription (bought by the host, priced like a project's fixed charge) and
 * the SSO entitlement it carries.
 */
import { Billing, Projects } from "@switchboard/core"
import { BillingRepo, BillingService } from "@switchboard/core/billing"
import { OperationsRepo } from "@switchboard/core/platforms"
import { ProjectClosures } from "@switchboard/core/projects"
import { type OrganizationId, type ProjectId } from "@switchboard/core/shared"
import { OrganizationSso } from "@switchboard/core/sso"
import { mintAccessToken } from "@switchboard/testkit"
import { testBackends } from "@switchboard/sql-adapter"
import { DateTime, Effect, Result, Option, Schema } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { expectProblem, httpClient } from "../support/HttpClient.js"
import { startTestServer, type TestServer } from "../support/TestServer.js"

let seq = 0
const unique = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${(++seq).toString(36)}x`
const ghostProject = "01900000-0000-7000-8000-000000000000"
const DAY = 86_400_000

/** The monthly anniversary period (inclusive epoch days) anchored at `anchorDay` that holds `day` (computed here, not by core). */
const periodOf = (anchorDay: number, day: number) => {
  const a = new Date(anchorDay * DAY)
  const monthStart = (k: number) => {
    const y = a.getUTCFullYear()
    const m = a.getUTCMonth() + k
    const last = new Date(Date.UTC(y, m + 1, 0)).getUTCDate()
    return Date.UTC(y, m, Math.min(a.getUTCDate(), last)) / DAY
  }
  let k = 0
  while (monthStart(k + 1) <= day) k++
  return { start: monthStart(k), end: monthStart(k + 1) - 1 }
}

const decodes = <A, I>(schema: Schema.Codec<A, I>, value: unknown) =>
  expect(Result.isSuccess(Schema.decodeUnknownResult(schema, { onExcessProperty: "error" })(value)), JSON.stringify(value)).toBe(true)

for (const backend of testBackends()) {
  describe(`/v1 organization operations (${backend})`, () => {
    let s: TestServer
    beforeAll(async () => {
      s = await startTestServer(backend, { billingSchedulerEnabled: false })
    })
    afterAll(() => s.close())

    const call = httpClient(() => s)
    const newOrganization = async (key = s.serviceKey) => {
      const r = await call("/v1/organizations", { method: "POST", json: { name: "Ops org" }, key })
      expect(r.res.status, r.text).toBe(201)
      return r.body.organizationId as string
    }
    const newProject = async (organizationId: string, name = "Project") => {
      const r = await call(`/v1/organizations/${organizationId}/projects`, {
        method: "POST", json: { name, slug: unique("ops") }, idem: unique("idem")
      })
      expect(r.res.status, r.text).toBe(201)
      return r.body as { projectId: string; createdAt: string }
    }
    const denials = async (path: string, init: { method?: string; json?: unknown } = {}) => {
      const p = await newProject(await newOrganization())
      const key = await call(`/v1/projects/${p.projectId}/api-keys`, {
        method: "POST", json: { name: "k", permissions: ["project:read", "project:write"] }, idem: unique("idem")
      })
      expectProblem(await call(path, { ...init, key: key.body.secret }), 403, "FORBIDDEN")
      expectProblem(await call(path, { ...init, key: null }), 401, "NOT_AUTHENTICATED")
      const stranger = await s.newAccount(`stranger-${unique("x")}@example.com`)
      expectProblem(await call(path, { ...init, key: stranger.serviceKey }), 404, "RESOURCE_NOT_FOUND")
    }

    it("countProjects: live projects matching the list's filters; strict query; members only", async () => {
      const org = await newOrganization()
      const a = await newProject(org, "Alpha mail")
      await newProject(org, "Beta")
      const c = await newProject(org, "Gamma mail")
      const doomed = await newProject(org, "Doomed mail")
      expect((await call(`/v1/projects/${doomed.projectId}`, { method: "DELETE", idem: unique("idem") })).res.status).toBe(200)
      const count = (query = "") => call(`/v1/organizations/${org}/projects/count${query}`)
      const all = await count()
      expect(all.res.status, all.text).toBe(200)
      decodes(Projects.ProjectCount, all.body)
      expect(all.body).toEqual({ count: 3 })
      expect((await count("?query=MAIL")).body).toEqual({ count: 2 })
      expect((await count(`?createdAfter=${a.createdAt}`)).body).toEqual({ count: 2 })
      expect((await count(`?createdAfter=${a.createdAt}&createdBefore=${c.createdAt}`)).body).toEqual({ count: 1 })
      // It agrees with listProjects under the same filters.
      const listed = await call(`/v1/organizations/${org}/projects?query=mail&pageSize=100`)
      expect(listed.body.projects).toHaveLength(2)
      for (const bad of ["?createdAfter=2030-01-01T00:00:00%2B01:00", "?createdBefore=yesterday", "?query=", `?query=${"x".repeat(257)}`, "?query=a&query=b"]) {
        const r = await count(bad)
        expectProblem(r, 422, "VALIDATION_FAILED")
        expect(r.body.issues[0].location).toBe("query")
      }
      expect((await call(`/v1/organizations/${await newOrganization()}/projects/count`)).body).toEqual({ count: 0 })
      const reader = await s.run(mintAccessToken({ accountId: s.accountId, scopes: ["projects:read"] }))
      expect((await call(`/v1/organizations/${org}/projects/count`, { key: reader })).body).toEqual({ count: 3 })
      const none = await s.run(mintAccessToken({ accountId: s.accountId, scopes: ["billing:read"] }))
      expectProblem(await call(`/v1/organizations/${org}/projects/count`, { key: none }), 403, "INSUFFICIENT_SCOPE")
      await denials(`/v1/organizations/${org}/projects/count`)
      expectProblem(await call("/v1/organizations/not-an-org/projects/count"), 422, "VALIDATION_FAILED")
    })

    it("getProjectClosureStatus: per-domain blockers from active to deleted; a pending billing or platform operation blocks", async () => {
      const org = await newOrganization()
      const p = await newProject(org)
      const status = (projectId: string = p.projectId, o = org) =>
        call(`/v1/organizations/${o}/projects/closure-status?projectId=${projectId}`)
      const blockers = (body: any) => Object.fromEntries(body.domains.map((d: any) => [d.domain, d.blockers]))
      const active = await status()
      expect(active.res.status, active.text).toBe(200)
      decodes(Projects.ProjectClosureStatusResponse, active.body)
      expect(active.body).toMatchObject({ deletionOperationId: null, organizationId: org, projectId: p.projectId, ready: false })
      expect(blockers(active.body)).toEqual({ projects: ["deletion_not_requested"], billing: [], platforms: [], call_registry: [] })

      // A plan change waiting for its payment, and a provisioning operation still running.
      const now = await s.run(DateTime.now)
      const later = DateTime.makeUnsafe(DateTime.toEpochMillis(now) + 86_400_000)
      const waiting = `sb_bop_${unique("wait").replace(/-/g, "")}`
      await s.run(Effect.gen(function*() {
        const repo = yield* BillingRepo
        yield* repo.insertOperation({
          operationId: waiting, projectId: p.projectId as ProjectId, organizationId: org as any, kind: "change_plan", status: "pending",
          request: { type: "change_plan", category: "messaging", planCode: "messaging_pro_monthly", additions: [] },
          idempotencyScope: `test:${waiting}`, idempotencyKey: "k", fingerprint: "f",
          awaitingPayment: {
            day: 0, subscriptionVersion: 1, amountCents: 100, currency: "usd", deadline: DateTime.makeUnsafe(DateTime.toEpochMillis(now) + 3_600_000),
            actionUrl: "https://example.com/pay", invoice: {}, additions: [], unusedTimeCredit: 0
          },
          result: null, failure: null, submittedAt: now, resolvedAt: null
        })
        yield* (yield* OperationsRepo).insert({
          operationId: `pho_opr_${unique("op").replace(/-/g, "")}`, projectId: p.projectId, type: "resource.provision",
          resourceType: "telegram_bot", resourceId: null, state: "running", committed: false, params: {}, detail: null, error: null,
          // Leased for a day: the server's provisioning worker leaves it running.
          reason: null, attempts: 1, nextAttemptAt: later, leasedUntil: later, claimSeq: 1, createdAt: now, startedAt: now, endedAt: null, updatedAt: now
        })
      }))
      expect((await call(`/v1/projects/${p.projectId}`, { method: "DELETE", idem: unique("idem") })).res.status).toBe(200)
      const closing = await status()
      expect(closing.body.ready).toBe(false)
      expect(blockers(closing.body)).toEqual({
        projects: ["closure_in_progress"], billing: ["billing_operation_pending"], platforms: ["platform_operation_in_progress"], call_registry: []
      })
      expect(closing.body.domains.map((d: any) => [d.domain, d.ready])).toEqual([
        ["projects", false], ["billing", false], ["platforms", false], ["call_registry", true]
      ])

      // A deleted project with nothing pending is ready (still readable here: 200, not 410).
      const q = await newProject(org)
      expect((await call(`/v1/projects/${q.projectId}`, { method: "DELETE", idem: unique("idem") })).res.status).toBe(200)
      await s.run(Effect.flatMap(ProjectClosures, (c) => c.completeClosures(DateTime.makeUnsafe(Date.now() + 3_600_000))))
      const done = await status(q.projectId)
      expect(done.res.status, done.text).toBe(200)
      expect(done.body.ready).toBe(true)
      expect(done.body.domains.every((d: any) => d.ready && d.blockers.length === 0)).toBe(true)

      // Not found: an unknown project, one of another organization; a missing or malformed projectId is 422.
      expectProblem(await status(ghostProject), 404, "PROJECT_NOT_FOUND")
      const elsewhere = await newProject(await newOrganization())
      expectProblem(await status(elsewhere.projectId), 404, "PROJECT_NOT_FOUND")
      expectProblem(await call(`/v1/organizations/${org}/projects/closure-status`), 422, "VALIDATION_FAILED")
      expectProblem(await status("not-a-uuid"), 422, "VALIDATION_FAILED")
      const none = await s.run(mintAccessToken({ accountId: s.accountId, scopes: ["members:read"] }))
      expectProblem(await call(`/v1/organizations/${org}/projects/closure-status?projectId=${p.projectId}`, { key: none }), 403, "INSUFFICIENT_SCOPE")
      await denials(`/v1/organizations/${org}/projects/closure-status?projectId=${p.projectId}`)
    })

    it("getOrganizationBillingOverview: no subscription of the organization's own; billing:read; members only", async () => {
      const org = await newOrganization()
      const r = await call(`/v1/organizations/${org}/billing`)
      expect(r.res.status, r.text).toBe(200)
      decodes(Billing.OrganizationBillingOverview, r.body)
      expect(r.body).toEqual({ entitlementsVersion: 0, subscription: null })
      expect(r.res.headers.get("cache-control")).toBe("no-store")
      const reader = await s.run(mintAccessToken({ accountId: s.accountId, scopes: ["billing:read"] }))
      expect((await call(`/v1/organizations/${org}/billing`, { key: reader })).res.status).toBe(200)
      const none = await s.run(mintAccessToken({ accountId: s.accountId, scopes: ["projects:read"] }))
      expectProblem(await call(`/v1/organizations/${org}/billing`, { key: none }), 403, "INSUFFICIENT_SCOPE")
      await denials(`/v1/organizations/${org}/billing`)
    })

    it("previewOrganizationChange without a subscription: the body is validated, then 409 no_organization_subscription", async () => {
      const org = await newOrganization()
      const path = `/v1/organizations/${org}/billing/preview`
      const body = { fixedCharge: { fixedChargeCode: "sso_seats", quantity: 1 } }
      const r = await call(path, { method: "POST", json: body })
      expectProblem(r, 409, "FAILED_PRECONDITION")
      expect(r.body.reason).toBe("no_organization_subscription")
      for (const bad of [{}, { fixedCharge: { fixedChargeCode: "sso" } }, { fixedCharge: { fixedChargeCode: "sso", quantity: -1 } }, { ...body, extra: 1 }]) {
        expectProblem(await call(path, { method: "POST", json: bad }), 422, "VALIDATION_FAILED")
      }
      const none = await s.run(mintAccessToken({ accountId: s.accountId, scopes: ["projects:read"] }))
      expectProblem(await call(path, { method: "POST", json: body, key: none }), 403, "INSUFFICIENT_SCOPE")
      await denials(path, { method: "POST", json: body })
      expect((await call(`/v1/organizations/${org}/billing`)).body).toEqual({ entitlementsVersion: 0, subscription: null })
    })

    const card = (organizationId: string) =>
      s.run(Effect.gen(function*() {
        const repo = yield* BillingRepo
        const account = yield* repo.lockAccount(organizationId as OrganizationId)
        yield* repo.updateAccount({
          ...account,
          paymentMethod: { brand: "visa", last4: "4242", expiresMonth: 12, expiresYear: 2040, behaviour: "off_session", providerRef: "pm_test" }
        })
      }))
    const plan = "organization_sso_monthly"

    it("an organization's own subscription: bought (a card needed), shown by the overview, previewed and changed at the previewed price", async () => {
      const org = await newOrganization()
      const buy = () => s.run(Effect.result(BillingService.use((billing) => billing.subscribeOrganization(org as OrganizationId, plan))))
      // Money is due at once (one SSO seat, in advance): no card, no subscription.
      const refused = await buy()
      expect(Result.isFailure(refused) && refused.failure._tag === "BillingChangeRejected" && refused.failure.code).toBe("payment_method_required")
      expect((await call(`/v1/organizations/${org}/billing`)).body).toEqual({ entitlementsVersion: 0, subscription: null })
      const unknown = await s.run(Effect.result(BillingService.use((billing) => billing.subscribeOrganization(org as OrganizationId, "messaging_pro_monthly"))))
      expect(Result.isFailure(unknown) && unknown.failure._tag === "BillingChangeRejected" && unknown.failure.detail).toBe("plan_not_found")
      await card(org)
      expect(Result.isSuccess(await buy())).toBe(true)
      expect(Result.isFailure(await buy())).toBe(true)

      const overview = await call(`/v1/organizations/${org}/billing`)
      expect(overview.res.status, overview.text).toBe(200)
      decodes(Billing.OrganizationBillingOverview, overview.body)
      const today = Math.floor(Date.now() / DAY)
      expect(overview.body).toEqual({
        entitlementsVersion: 1,
        subscription: {
          planCode: plan, planName: "Organization SSO", status: "active", baseAmountCents: 0, currency: "USD",
          currentPeriodEnd: new Date(periodOf(today, today).end * DAY + DAY).toISOString(), cancelsAt: null,
          entitlements: [{ featureKey: "organization_sso", value: "true" }],
          fixedCharges: [{ fixedChargeCode: "sso_seats", name: "SSO seats", quantity: 1, unitAmountCents: 400, payInAdvance: true, prorated: true }],
          minimumCommitment: null
        }
      })

      // Bought today: the added seats are billed for the whole first period.
      const path = `/v1/organizations/${org}/billing/preview`
      const preview = await call(path, { method: "POST", json: { fixedCharge: { fixedChargeCode: "sso_seats", quantity: 3 } } })
      expect(preview.res.status, preview.text).toBe(200)
      decodes(Billing.PreviewOrganizationChangeResponse, preview.body)
      expect(preview.body.dueNow).toMatchObject({ creditsCents: 0, taxesCents: 0, discountCents: 0, feesCents: 800, totalCents: 800, currency: "USD" })
      expect(preview.body.dueNow.lines).toEqual([expect.objectContaining({ kind: "fixed_charge", code: "sso_seats", units: "2", amountCents: 800 })])
      expect(preview.body.nextCharge).toEqual({ amountCents: 1200, at: overview.body.subscription.currentPeriodEnd, currency: "USD" })
      // A preview changes nothing.
      expect((await call(`/v1/organizations/${org}/billing`)).body).toEqual(overview.body)

      // Refusals: the failure an operation would end with.
      for (const [change, detail] of [
        [{ fixedChargeCode: "no_such_charge", quantity: 1 }, "feature_not_found"],
        [{ fixedChargeCode: "seats", quantity: 1 }, "feature_not_sold_by_plan"],
        [{ fixedChargeCode: "sso_seats", quantity: 10_001 }, "quantity_out_of_range"]
      ] as const) {
        const r = await call(path, { method: "POST", json: { fixedCharge: change } })
        expectProblem(r, 409, "FAILED_PRECONDITION")
        expect(r.body.failure).toMatchObject({ code: "invalid_target", detail })
      }
      expectProblem(await call(path, { method: "POST", json: { fixedCharge: { fixedChargeCode: "sso_seats", quantity: 3 }, category: "organization" } }), 422, "VALIDATION_FAILED")

      // Applied: charged exactly what the preview said; the entitlements' version moves.
      const applied = await s.run(BillingService.use((billing) => billing.adjustOrganizationFixedCharge(org as OrganizationId, { fixedChargeCode: "sso_seats", quantity: 3 })))
      expect(applied.entitlementsVersion).toBe(2)
      const after = await call(`/v1/organizations/${org}/billing`)
      expect(after.body.entitlementsVersion).toBe(2)
      expect(after.body.subscription.fixedCharges[0].quantity).toBe(3)
      const invoices = (await call(`/v1/organizations/${org}/billing/invoices`)).body.invoices as Array<any>
      expect(invoices.map((i) => [i.kind, i.totalCents, i.subjects])).toEqual([
        ["one_off", preview.body.dueNow.totalCents, [{ type: "organization", organizationId: org }]],
        ["subscription", 400, [{ type: "organization", organizationId: org }]]
      ])
      expect(invoices[0].lines).toEqual(preview.body.dueNow.lines)
      // Fewer seats: nothing due now, nothing credited (as for a project's fixed charge).
      const fewer = await call(path, { method: "POST", json: { fixedCharge: { fixedChargeCode: "sso_seats", quantity: 1 } } })
      expect(fewer.body.dueNow).toMatchObject({ lines: [], totalCents: 0 })
      expect(fewer.body.nextCharge.amountCents).toBe(400)
    })

    it("previewOrganizationChange prices mid-period exactly as previewProjectChange does (same period, same proration)", async () => {
      const org = await newOrganization()
      const p = await newProject(org)
      expect((await call(`/v1/projects/${p.projectId}/billing`)).res.status).toBe(200)
      const today = Math.floor(Date.now() / DAY)
      const anchorDay = today - 10
      const { end } = periodOf(anchorDay, today)
      await s.run(Effect.gen(function*() {
        const repo = yield* BillingRepo
        const now = yield* DateTime.now
        // The organization's subscription and the project's messaging plan, both anchored ten days ago.
        yield* repo.saveOrganizationSubscription({
          organizationId: org as OrganizationId, planCode: plan, anchorDay, paidThroughDay: end, heldFixedCharges: [{ fixedChargeCode: "sso_seats", quantity: 1 }],
          version: 1, createdAt: now, updatedAt: now
        })
        const sub = Option.getOrThrow(yield* repo.lockSubscription(p.projectId as ProjectId, "messaging"))
        yield* repo.updateSubscription({
          ...sub, planCode: "messaging_pro_monthly", source: "purchase", anchorDay, periodStart: anchorDay, periodEnd: end, planStartDay: anchorDay
        })
      }))
      const org4 = await call(`/v1/organizations/${org}/billing/preview`, { method: "POST", json: { fixedCharge: { fixedChargeCode: "sso_seats", quantity: 5 } } })
      const project4 = await call(`/v1/organizations/${org}/billing/projects/${p.projectId}/preview`, {
        method: "POST", json: { category: "messaging", fixedCharge: { fixedChargeCode: "seats", quantity: 4 } }
      })
      expect(org4.res.status, org4.text).toBe(200)
      expect(project4.res.status, project4.text).toBe(200)
      const remaining = end - today + 1
      const days = end - anchorDay + 1
      const rhu = (a: number, b: number) => Math.floor((2 * a + b) / (2 * b))
      const [o] = org4.body.dueNow.lines
      const [q] = project4.body.dueNow.lines
      expect(o.amountCents).toBe(rhu(400 * 4 * remaining, days))
      expect(q.amountCents).toBe(rhu(1500 * 4 * remaining, days))
      expect([o.units, o.periodStart, o.periodEnd]).toEqual([q.units, q.periodStart, q.periodEnd])
      expect(o.periodStart).toBe(new Date(today * DAY).toISOString())
      expect(org4.body.nextCharge).toEqual({ amountCents: 2000, at: project4.body.nextCharge.at, currency: "USD" })
      expect(org4.body.dueNow).toMatchObject({ creditsCents: 0, taxesCents: 0, totalCents: o.amountCents })
    })

    it("the scheduler renews an organization's subscription once its period ended: one invoice per boundary, written once", async () => {
      const org = await newOrganization()
      const today = Math.floor(Date.now() / DAY)
      const anchorDay = today - 40
      const first = periodOf(anchorDay, anchorDay)
      const current = periodOf(anchorDay, today)
      await s.run(Effect.gen(function*() {
        const now = yield* DateTime.now
        yield* (yield* BillingRepo).saveOrganizationSubscription({
          organizationId: org as OrganizationId, planCode: plan, anchorDay, paidThroughDay: first.end,
          heldFixedCharges: [{ fixedChargeCode: "sso_seats", quantity: 3 }], version: 1, createdAt: now, updatedAt: now
        })
      }))
      const tick = await s.run(BillingService.use((billing) => billing.tick()))
      expect(tick.renewed).toBeGreaterThanOrEqual(1)
      const invoices = async () => (await call(`/v1/organizations/${org}/billing/invoices`)).body.invoices as Array<any>
      const renewed = await invoices()
      // Every boundary since the first period, each billing the next period in advance (3 seats × 400).
      const boundaries = current.start === first.end + 1 ? 1 : 2
      expect(renewed).toHaveLength(boundaries)
      expect(renewed[0]).toMatchObject({ kind: "subscription", totalCents: 1200, subjects: [{ type: "organization", organizationId: org }] })
      expect(renewed[0].lines.map((l: any) => [l.code, l.amountCents, l.units, l.periodStart, l.periodEnd])).toEqual([
        [plan, 0, "1", new Date(current.start * DAY).toISOString(), new Date((current.end + 1) * DAY).toISOString()],
        ["sso_seats", 1200, "3", new Date(current.start * DAY).toISOString(), new Date((current.end + 1) * DAY).toISOString()]
      ])
      await s.run(BillingService.use((billing) => billing.tick()))
      expect(await invoices()).toEqual(renewed)
      const overview = await call(`/v1/organizations/${org}/billing`)
      expect(overview.body.subscription.currentPeriodEnd).toBe(new Date((current.end + 1) * DAY).toISOString())
    })

    it("SSO: an organization's own subscription with the organization_sso entitlement lifts SSO_SUBSCRIPTION_REQUIRED", async () => {
      const org = await newOrganization()
      await newProject(org)
      const entitled = () => s.run(Effect.result(Effect.flatMap(OrganizationSso, (o) => o.requireEntitlement(org as OrganizationId))))
      const configure = () =>
        call(`/v1/auth/organizations/${org}/sso`, { method: "PUT", json: { issuer: "https://idp.invalid", clientId: "c", clientSecret: "x", domains: ["acme.invalid"] } })
      const before = await entitled()
      expect(Result.isFailure(before) && before.failure._tag).toBe("SsoSubscriptionRequired")
      expectProblem(await configure(), 412, "SSO_SUBSCRIPTION_REQUIRED")
      await card(org)
      await s.run(BillingService.use((billing) => billing.subscribeOrganization(org as OrganizationId, plan)))
      expect(Result.isSuccess(await entitled())).toBe(true)
      expect((await configure()).res.status).not.toBe(412)
    })
  })
}
