/**
 * The organization operations of the contract beside listProjects and the billing ones already
 * served (contract.md §1 4, 5): `countProjects`, `getProjectClosureStatus`,
 * `getOrganizationBillingOverview` and `previewOrganizationChange` — shapes (decoded with the
 * schemas the server renders with), filters, permission denials and not-found answers.
 */
import { Billing, Projects } from "@switchboard/core"
import { BillingRepo } from "@switchboard/core/billing"
import { OperationsRepo } from "@switchboard/core/platforms"
import { ProjectClosures } from "@switchboard/core/projects"
import { type ProjectId } from "@switchboard/core/shared"
import { mintAccessToken } from "@switchboard/testkit"
import { testBackends } from "@switchboard/sql-adapter"
import { DateTime, Effect, Either, Schema } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { expectProblem, httpClient } from "../support/HttpClient.js"
import { startTestServer, type TestServer } from "../support/TestServer.js"

let seq = 0
const unique = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${(++seq).toString(36)}x`
const ghostProject = "01900000-0000-7000-8000-000000000000"

const decodes = <A, I>(schema: Schema.Schema<A, I>, value: unknown) =>
  expect(Either.isRight(Schema.decodeUnknownEither(schema, { onExcessProperty: "error" })(value)), JSON.stringify(value)).toBe(true)

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
      const later = DateTime.unsafeMake(now.epochMillis + 86_400_000)
      const waiting = `sb_bop_${unique("wait").replace(/-/g, "")}`
      await s.run(Effect.gen(function*() {
        const repo = yield* BillingRepo
        yield* repo.insertOperation({
          operationId: waiting, projectId: p.projectId as ProjectId, organizationId: org as any, kind: "change_plan", status: "pending",
          request: { type: "change_plan", category: "messaging", planCode: "messaging_pro_monthly", additions: [] },
          idempotencyScope: `test:${waiting}`, idempotencyKey: "k", fingerprint: "f",
          awaitingPayment: {
            day: 0, subscriptionVersion: 1, amountCents: 100, currency: "usd", deadline: DateTime.unsafeMake(now.epochMillis + 3_600_000),
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
      await s.run(Effect.flatMap(ProjectClosures, (c) => c.completeClosures(DateTime.unsafeMake(Date.now() + 3_600_000))))
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

    it("previewOrganizationChange: the body is validated, then 409 no_organization_subscription; nothing changes", async () => {
      const org = await newOrganization()
      const path = `/v1/organizations/${org}/billing/preview`
      const body = { fixedCharge: { fixedChargeCode: "sso", quantity: 1 } }
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
  })
}
