import { Accounts } from "@switchboard/core/accounts"
import { AuditLog, erasedEmail, PrivacyRequests } from "@switchboard/core/privacy"
import { ProjectsService } from "@switchboard/core/projects"
import { BillingRepo, BillingService } from "@switchboard/core/billing"
import { OrganizationsRepo } from "@switchboard/core/organizations"
import { type AccountId, type OrganizationId, type ProjectId } from "@switchboard/core/shared"
import { testBackends } from "@switchboard/sql-adapter"
import { makeSmsInbox } from "@switchboard/testkit"
import { DateTime, Effect, Option, Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeServerConfig } from "../../src/http/ServerConfig.js"
import { dashboardJobOnce } from "../../src/server/DashboardWorkers.js"
import { type DashboardEndpoint, dashboardEndpoints } from "../../src/dashboard/DashboardApi.js"
import {
  browser,
  type Browser,
  expectData,
  expectEnvelopeError,
  oauthAccessToken,
  signedUp,
  uniqueEmail
} from "../support/DashboardClient.js"
import { startTestServer, type TestServer } from "../support/TestServer.js"

/** Every operation as declared (dashboard/DashboardApi.ts): the rules below hold each to its declaration. */
const ops = dashboardEndpoints
const ALL_SCOPES = [
  "openid", "profile", "email", "projects:read", "projects:write", "members:read", "members:write", "webhooks:read",
  "webhooks:write", "billing:read", "billing:write", "spectrum:read", "spectrum:write", "payments:read", "payments:write"
]

for (const backend of testBackends()) {
  describe(`Dashboard API (${backend})`, () => {
    const sms = makeSmsInbox()
    let s: TestServer
    let owner: Awaited<ReturnType<typeof signedUp>>
    let projectId: string
    let narrowToken: string
    let fullToken: string
    beforeAll(async () => {
      s = await startTestServer(
        backend,
        { privacyJobEnabled: false, webhookDeliveryEnabled: false, allowPrivateWebhookTargets: true },
        sms.layer
      )
      owner = await signedUp(() => s, "owner")
      const created = await owner.browser.fetch("/api/projects/", {
        method: "POST",
        json: { name: "First Project" },
        headers: { "x-csrf-token": owner.csrf }
      })
      projectId = expectData(created).id
      narrowToken = (await oauthAccessToken(s, owner.accountId, ["openid"])).token
      fullToken = (await oauthAccessToken(s, owner.accountId, ALL_SCOPES)).token
    })
    afterAll(() => s.close())
    const server = () => s

    /** A JSON call by the owner's session (with the CSRF header), or with a bearer token. */
    const call = (method: string, path: string, init: { json?: unknown; as?: Browser; csrf?: string; token?: string; headers?: Record<string, string> } = {}) => {
      const b = init.token !== undefined ? browser(server) : init.as ?? owner.browser
      const headers: Record<string, string> = { ...init.headers }
      if (init.token !== undefined) headers.authorization = `Bearer ${init.token}`
      else headers["x-csrf-token"] = init.csrf ?? owner.csrf
      return b.fetch(path, { method, headers, ...(init.json === undefined ? {} : { json: init.json }) })
    }
    const pathOf = (o: DashboardEndpoint) =>
      o.path.replace(":id", projectId).replace(":webhookId", "00000000-0000-4000-8000-000000000000").replace(":serviceKeyId", "sb_ask_x")
        .replace(":clientId", "sb_app_unknown").replace(":organizationId", "sb_org_unknown").replace(":fixedChargeCode", "sso_seats")

    // --- The rules every operation follows -------------------------------------------------------

    it("every operation but health and openapi.json answers 401 without a session or token", async () => {
      for (const o of ops) {
        const r = await browser(server).fetch(pathOf(o), { method: o.method })
        if (o.access._tag === "Public") {
          expect(r.res.status, `${o.method} ${o.path}`).toBe(200)
          continue
        }
        expectEnvelopeError(r, 401, "NOT_AUTHENTICATED")
        expect(r.res.headers.get("www-authenticate"), o.path).toMatch(/^Bearer/)
      }
    })

    it("an unknown, or withdrawn, bearer token is 401 invalid_token", async () => {
      const unknown = await call("GET", "/api/projects/", { token: "sb_oat_unknown" })
      expectEnvelopeError(unknown, 401, "NOT_AUTHENTICATED")
      expect(unknown.res.headers.get("www-authenticate")).toContain(`error="invalid_token"`)
      const { clientId, token } = await oauthAccessToken(s, owner.accountId, ["projects:read"])
      expect(expectData(await call("GET", "/api/projects/", { token }))).toHaveLength(1)
      expectData(await call("DELETE", `/api/oauth-consents/${clientId}`))
      expectEnvelopeError(await call("GET", "/api/projects/", { token }), 401, "NOT_AUTHENTICATED")
    })

    it("a token without an operation's scope is 403 with insufficient_scope: <scope>; session-only operations refuse tokens", async () => {
      for (const o of ops) {
        if (o.access._tag === "Public" || o.access._tag === "Caller") continue
        const r = await call(o.method, pathOf(o), { token: narrowToken })
        if (o.access._tag === "Scope") {
          expectEnvelopeError(r, 403, "INSUFFICIENT_SCOPE")
          expect(r.body.message, o.path).toContain(`insufficient_scope: ${o.access.scope}`)
          expect(r.res.headers.get("www-authenticate")).toContain(`scope="${o.access.scope}"`)
        } else {
          expectEnvelopeError(r, 403, "SESSION_REQUIRED")
        }
      }
    })

    it("a token holding every scope is still refused by each operation declared session only (403 SESSION_REQUIRED)", async () => {
      const sessionOnly = ops.filter((o) => o.access._tag === "Session")
      expect(sessionOnly.length).toBeGreaterThan(20)
      for (const o of sessionOnly) {
        const r = await call(o.method, pathOf(o), { token: fullToken })
        expectEnvelopeError(r, 403, "SESSION_REQUIRED")
      }
    })

    it("every operation with a body refuses an invalid one with a 422 envelope, in each of the three content types", async () => {
      for (const o of ops.filter((x) => x.body !== undefined)) {
        for (const kind of ["json", "form", "multipart"] as const) {
          const body = { notAField: "x" }
          const r = await owner.browser.fetch(pathOf(o), {
            method: o.method,
            headers: { "x-csrf-token": owner.csrf },
            ...(kind === "json" ? { json: body } : kind === "form" ? { form: body } : { multipart: body })
          })
          expectEnvelopeError(r, 422, "VALIDATION_FAILED")
          expect(r.body.message, `${o.path} ${kind}`).toContain("notAField")
        }
      }
      // Malformed JSON and an unsupported media type.
      expectEnvelopeError(await owner.browser.fetch("/api/onboarding/details", {
        method: "POST",
        headers: { "content-type": "application/json", "x-csrf-token": owner.csrf },
        body: "{not json"
      }), 422, "VALIDATION_FAILED")
      expectEnvelopeError(await owner.browser.fetch("/api/onboarding/details", {
        method: "POST",
        headers: { "content-type": "text/plain", "x-csrf-token": owner.csrf },
        body: "companyName=x"
      }), 415, "UNSUPPORTED_MEDIA_TYPE")
      // Over MAX_BODY_BYTES: 413, in any content type.
      const huge = "x".repeat(1024 * 1024 + 10)
      expectEnvelopeError(await call("POST", "/api/onboarding/details", { json: { companyName: huge } }), 413, "PAYLOAD_TOO_LARGE")
      expectEnvelopeError(await owner.browser.fetch("/api/onboarding/details", {
        method: "POST",
        headers: { "x-csrf-token": owner.csrf },
        multipart: { companyName: huge }
      }), 413, "PAYLOAD_TOO_LARGE")
    })

    it("cookie-authenticated writes need X-CSRF-Token, a same-origin Origin or X-Requested-With (JSON), or the _csrf field (forms)", async () => {
      const path = `/api/projects/${projectId}/imessage/auto-scale`
      const bare = await owner.browser.fetch(path, { method: "PATCH", json: { autoScale: true } })
      expectEnvelopeError(bare, 403, "CSRF_CHECK_FAILED")
      expectEnvelopeError(await owner.browser.fetch(path, { method: "PATCH", json: { autoScale: true }, headers: { origin: "https://evil.example" } }), 403)
      expectEnvelopeError(await owner.browser.fetch(path, { method: "PATCH", json: { autoScale: true }, headers: { "x-csrf-token": "forged" } }), 403)
      expect(expectData(await owner.browser.fetch(path, { method: "PATCH", json: { autoScale: true }, headers: { origin: s.baseUrl } }))).toEqual({ autoScale: true })
      expect(expectData(await owner.browser.fetch(path, { method: "PATCH", json: { autoScale: false }, headers: { "x-requested-with": "XMLHttpRequest" } }))).toEqual({ autoScale: false })
      // A form needs the token even from our own origin.
      expectEnvelopeError(await owner.browser.fetch(path, { method: "PATCH", form: { autoScale: "true" }, headers: { origin: s.baseUrl } }), 403)
      expect(expectData(await owner.browser.fetch(path, { method: "PATCH", form: { autoScale: "true", _csrf: owner.csrf } }))).toEqual({ autoScale: true })
      // Bearer callers carry no ambient credential: no CSRF proof needed.
      expect(expectData(await call("PATCH", path, { token: fullToken, json: { autoScale: false } }))).toEqual({ autoScale: false })
    })

    // --- System, profile, analytics -----------------------------------------------------------

    it("GET /api/health and /api/openapi.json (version 0.1.0, every operation, three content types)", async () => {
      const health = expectData(await browser(server).fetch("/api/health"))
      expect(health).toMatchObject({ status: "ok", releaseLine: "stable" })
      expect(health.version).toMatch(/^\d+\.\d+\.\d+/)
      // Public: a stale token does not matter.
      expect((await browser(server).fetch("/api/health", { headers: { authorization: "Bearer stale" } })).res.status).toBe(200)
      // A wrong method is 405 with Allow, in the envelope.
      const wrongMethod = await browser(server).fetch("/api/health", { method: "PUT" })
      expectEnvelopeError(wrongMethod, 405)
      expect(wrongMethod.res.headers.get("allow")).toContain("GET")
      const doc = (await browser(server).fetch("/api/openapi.json")).body
      expect(doc.openapi).toBe("3.1.0")
      expect(doc.info.version).toBe("0.1.0")
      for (const o of ops) {
        const entry = doc.paths[o.path.replace(/:([A-Za-z]+)/g, "{$1}")]?.[o.method.toLowerCase()]
        expect(entry, `${o.method} ${o.path}`).toBeDefined()
        if (o.body !== undefined) {
          expect(Object.keys(entry.requestBody.content).sort()).toEqual(["application/json", "application/x-www-form-urlencoded", "multipart/form-data"])
        }
        if (o.access._tag === "Scope") expect(entry["x-required-scope"]).toBe(o.access.scope)
      }
      const slack = doc.paths["/api/projects/{id}/slack"].put.requestBody.content["application/json"].schema
      expect(JSON.stringify(doc.components.schemas)).toContain("signingSecret")
      expect(slack).toBeDefined()
    })

    it("GET /api/profile: email only with the email scope", async () => {
      const mine = expectData(await call("GET", "/api/profile"))
      expect(mine).toMatchObject({ id: owner.accountId, email: owner.email, name: "Ada Lovelace" })
      const profileOnly = (await oauthAccessToken(s, owner.accountId, ["profile"])).token
      const limited = expectData(await call("GET", "/api/profile", { token: profileOnly }))
      expect(limited.id).toBe(owner.accountId)
      expect(limited).not.toHaveProperty("email")
      expect(expectData(await call("GET", "/api/profile", { token: fullToken })).email).toBe(owner.email)
    })

    it("GET /api/analytics/identity: the identity snapshot", async () => {
      const snap = expectData(await call("GET", "/api/analytics/identity"))
      expect(snap).toMatchObject({ distinctId: owner.accountId, email: owner.email, name: "Ada Lovelace", projectCount: 1 })
      expect(snap.organizationIds).toHaveLength(1)
    })

    it("GET /api/system/diagnostics: an organization owner's session; others 403", async () => {
      const d = expectData(await call("GET", "/api/system/diagnostics"))
      expect(d).toMatchObject({
        releaseLine: "stable",
        database: { ok: true },
        deliveries: { pending: expect.any(Number), deadLettered: expect.any(Number) }
      })
      expect(d.database.migrations).toContain("0011_dashboard")
      expect(d.uptimeSeconds).toBeGreaterThanOrEqual(0)
      const nobody = await signedUp(server, "nobody")
      expectEnvelopeError(await call("GET", "/api/system/diagnostics", { as: nobody.browser, csrf: nobody.csrf }), 403, "FORBIDDEN")
    })

    // --- Projects -----------------------------------------------------------------------------

    it("projects: create (three content types), list, get; others' projects are 404", async () => {
      const viaForm = expectData(await owner.browser.fetch("/api/projects", { method: "POST", form: { name: "Form Project", _csrf: owner.csrf } }))
      const viaMultipart = expectData(await owner.browser.fetch("/api/projects", { method: "POST", multipart: { name: "Multipart Project", _csrf: owner.csrf } }))
      const viaToken = expectData(await call("POST", "/api/projects", { token: fullToken, json: { name: "Token Project" } }))
      expect(viaForm).toMatchObject({ name: "Form Project", slug: "form-project" })
      expect(viaMultipart.organizationId).toBe(viaForm.organizationId)
      const list = expectData(await call("GET", "/api/projects/"))
      expect(list.map((p: any) => p.id)).toEqual(expect.arrayContaining([projectId, viaForm.id, viaMultipart.id, viaToken.id]))
      expect(expectData(await call("GET", `/api/projects/${projectId}`))).toMatchObject({ id: projectId, name: "First Project" })
      const stranger = await signedUp(server, "stranger")
      expectEnvelopeError(await call("GET", `/api/projects/${projectId}`, { as: stranger.browser, csrf: stranger.csrf }), 404)
      expectEnvelopeError(await call("GET", "/api/projects/not-a-uuid"), 404)
      expect(expectData(await call("GET", "/api/projects/", { as: stranger.browser, csrf: stranger.csrf }))).toEqual([])
    })

    it("PATCH …/imessage/auto-scale: {autoScale} in three content types, nothing else allowed", async () => {
      const path = `/api/projects/${projectId}/imessage/auto-scale`
      expect(expectData(await owner.browser.fetch(path, { method: "PATCH", form: { autoScale: "true", _csrf: owner.csrf } }))).toEqual({ autoScale: true })
      expect(expectData(await call("GET", path))).toEqual({ autoScale: true })
      expect(expectData(await owner.browser.fetch(path, { method: "PATCH", multipart: { autoScale: "false", _csrf: owner.csrf } }))).toEqual({ autoScale: false })
      expect(expectData(await call("PATCH", path, { json: { autoScale: true } }))).toEqual({ autoScale: true })
      expectEnvelopeError(await call("PATCH", path, { json: { autoScale: "yes" } }), 422)
      expectEnvelopeError(await call("PATCH", path, { json: { autoScale: true, other: 1 } }), 422)
      expectEnvelopeError(await call("PATCH", path, { json: {} }), 422)
    })

    it("PUT …/slack stores the integration with its secrets sealed and redacted in every answer", async () => {
      const path = `/api/projects/${projectId}/slack`
      expectEnvelopeError(await call("GET", path), 404, "SLACK_NOT_CONFIGURED")
      const body = { enabledFeatures: [], clientId: "123.456", clientSecret: "cs-very-secret", signingSecret: "ss-very-secret", appId: "A0B1" }
      const put = await call("PUT", path, { json: body })
      expect(expectData(put)).toMatchObject({ enabledFeatures: [], clientId: "123.456", clientSecret: "[redacted]", signingSecret: "[redacted]", appId: "A0B1" })
      expect(put.text).not.toContain("very-secret")
      const viaForm = await owner.browser.fetch(path, { method: "PUT", form: { ...body, enabledFeatures: "", clientId: "789", _csrf: owner.csrf } })
      expect(expectData(viaForm)).toMatchObject({ clientId: "789", enabledFeatures: [] })
      const viaMultipart = await owner.browser.fetch(path, { method: "PUT", multipart: { ...body, enabledFeatures: ["a", "b"], _csrf: owner.csrf } })
      expect(expectData(viaMultipart).enabledFeatures).toEqual(["a", "b"])
      const got = await call("GET", path)
      expect(got.text).not.toContain("very-secret")
      expectEnvelopeError(await call("PUT", path, { json: { ...body, clientSecret: "" } }), 422)
    })

    it("platforms: get and toggle", async () => {
      const before = expectData(await call("GET", `/api/projects/${projectId}/platforms`))
      expect(before.sms).toEqual({ enabled: false })
      const after = expectData(await call("POST", `/api/projects/${projectId}/platforms/toggle`, { json: { platformId: "sms", enabled: true } }))
      expect(after.sms).toEqual({ enabled: true })
      expectEnvelopeError(await call("POST", `/api/projects/${projectId}/platforms/toggle`, { json: { platformId: "fax", enabled: true } }), 422)
    })

    it("POST …/regenerate-secret: a new management secret, the old one dead", async () => {
      const first = expectData(await call("POST", `/api/projects/${projectId}/regenerate-secret`)).projectSecret
      const second = expectData(await call("POST", `/api/projects/${projectId}/regenerate-secret`)).projectSecret
      expect(first).not.toBe(second)
      const verify = (secret: string) => s.run(Effect.flatMap(ProjectsService, (p) => p.verifySecret(projectId as ProjectId, Redacted.make(secret))))
      expect(await verify(first)).toBe(false)
      expect(await verify(second)).toBe(true)
    })

    it("project webhooks: create (secret once), list, delete; 409 for the same URL, 404 once deleted", async () => {
      const base = `/api/projects/${projectId}/webhooks`
      const created = expectData(await call("POST", base, { json: { webhookUrl: "https://hooks.example.com/a" } }))
      expect(created.signingSecret).toMatch(/^[0-9a-f]{64}$/)
      expectEnvelopeError(await call("POST", base, { json: { webhookUrl: "https://hooks.example.com/a" } }), 409)
      expectEnvelopeError(await call("POST", base, { json: { webhookUrl: "not a url" } }), 422)
      const list = expectData(await call("GET", base))
      expect(list.map((w: any) => w.id)).toContain(created.id)
      expect(JSON.stringify(list)).not.toContain(created.signingSecret)
      expect(expectData(await call("DELETE", `${base}/${created.id}`))).toEqual({ id: created.id })
      expectEnvelopeError(await call("DELETE", `${base}/${created.id}`), 404)
    })

    it("members and invitations of the project's organization", async () => {
      const members = expectData(await call("GET", `/api/projects/${projectId}/members`))
      expect(members).toEqual([expect.objectContaining({ accountId: owner.accountId, email: owner.email, role: "owner" })])
      const invited = expectData(await call("POST", `/api/projects/${projectId}/members/invitations`, { json: { email: uniqueEmail("invitee"), role: "admin" } }))
      expect(invited.token).toMatch(/^[A-Za-z0-9_-]{43}$/)
      expect(invited.invitation.role).toBe("admin")
      expectEnvelopeError(await call("POST", `/api/projects/${projectId}/members/invitations`, { json: { email: owner.email } }), 409)
    })

    // --- Billing and payments -----------------------------------------------------------------

    it("subscription, checkout and payment setup", async () => {
      const sub = expectData(await call("GET", `/api/projects/${projectId}/subscription`))
      expect(Array.isArray(sub.subscriptions)).toBe(true)
      const checkout = expectData(await call("POST", "/api/billing/checkout", { json: { projectId } }))
      expect(checkout.checkoutUrl).toMatch(/^https?:\/\//)
      expect(expectData(await call("GET", `/api/projects/${projectId}/payments`))).toMatchObject({ cardOnFile: false })
      expect(expectData(await call("POST", `/api/projects/${projectId}/payments`))).toHaveProperty("clientSecret")
    })

    it("the organization's own plan: owners and admins buy it (a card needed) and set its fixed charges; members 403, strangers 404", async () => {
      const organizationId = expectData(await call("GET", `/api/projects/${projectId}`)).organizationId as string
      const base = `/api/organizations/${organizationId}/subscription`
      const plan = "organization_sso_monthly"
      const refused = await call("POST", base, { json: { planCode: "messaging_pro_monthly" } })
      expectEnvelopeError(refused, 409, "FAILED_PRECONDITION")
      expectEnvelopeError(await call("POST", base, { json: { planCode: plan } }), 409, "FAILED_PRECONDITION")
      await s.run(Effect.gen(function*() {
        const repo = yield* BillingRepo
        const account = yield* repo.lockAccount(organizationId as OrganizationId)
        yield* repo.updateAccount({
          ...account,
          paymentMethod: { brand: "visa", last4: "4242", expiresMonth: 12, expiresYear: 2040, behaviour: "off_session", providerRef: "pm_test" }
        })
      }))
      for (const bad of [{ planCode: plan, fixedCharges: [{ fixedChargeCode: "sso_seats", quantity: 1 }, { fixedChargeCode: "sso_seats", quantity: 2 }] }, { planCode: "" }, {}]) {
        expectEnvelopeError(await call("POST", base, { json: bad }), 422, "VALIDATION_FAILED")
      }
      expectEnvelopeError(await call("POST", base, { json: { planCode: plan, fixedCharges: [{ fixedChargeCode: "sso_seats", quantity: 10_001 }] } }), 409, "FAILED_PRECONDITION")
      const bought = expectData(await call("POST", base, { json: { planCode: plan, fixedCharges: [{ fixedChargeCode: "sso_seats", quantity: 2 }] } }))
      expect(bought).toMatchObject({ entitlementsVersion: 1, subscription: { planCode: plan, fixedCharges: [{ fixedChargeCode: "sso_seats", quantity: 2 }] } })
      expectEnvelopeError(await call("POST", base, { json: { planCode: plan } }), 409, "FAILED_PRECONDITION")
      const set = expectData(await call("PUT", `${base}/fixed-charges/sso_seats`, { json: { quantity: 4 } }))
      expect(set).toMatchObject({ entitlementsVersion: 2, subscription: { fixedCharges: [{ fixedChargeCode: "sso_seats", quantity: 4 }] } })
      expectEnvelopeError(await call("PUT", `${base}/fixed-charges/sso_seats`, { json: { quantity: -1 } }), 422, "VALIDATION_FAILED")
      expectEnvelopeError(await call("PUT", `${base}/fixed-charges/seats`, { json: { quantity: 1 } }), 409, "FAILED_PRECONDITION")
      const viaToken = await call("PUT", `${base}/fixed-charges/sso_seats`, { json: { quantity: 5 }, token: fullToken })
      expect(expectData(viaToken).entitlementsVersion).toBe(3)
      // A member may not; a stranger cannot tell the organization exists; a malformed id is not found.
      const member = await signedUp(server, "member")
      await s.run(Effect.flatMap(OrganizationsRepo, (r) =>
        Effect.flatMap(DateTime.now, (now) => r.addMember({ organizationId: organizationId as OrganizationId, accountId: member.accountId as AccountId, role: "member", now }))))
      expectEnvelopeError(await call("PUT", `${base}/fixed-charges/sso_seats`, { json: { quantity: 1 }, as: member.browser, csrf: member.csrf }), 403, "FORBIDDEN")
      const stranger = await signedUp(server, "stranger")
      expectEnvelopeError(await call("POST", base, { json: { planCode: plan }, as: stranger.browser, csrf: stranger.csrf }), 404, "ORGANIZATION_NOT_FOUND")
      expectEnvelopeError(await call("POST", "/api/organizations/not-an-org/subscription", { json: { planCode: plan } }), 404, "ORGANIZATION_NOT_FOUND")
      // The /v1 overview shows what was bought.
      const overview = await s.run(BillingService.use((billing) => billing.organizationOverview(organizationId as OrganizationId)))
      expect(overview.subscription?.fixedCharges.map((c) => c.quantity)).toEqual([5])
    })

    // --- Session-only operations --------------------------------------------------------------

    it("onboarding details: stored and merged; numbers coerced from form fields", async () => {
      expect(expectData(await call("GET", "/api/onboarding/details"))).toEqual({ companyName: null, role: null, useCase: null, teamSize: null, updatedAt: null })
      const saved = expectData(await owner.browser.fetch("/api/onboarding/details", { method: "POST", form: { companyName: "Acme", teamSize: "12", _csrf: owner.csrf } }))
      expect(saved).toMatchObject({ companyName: "Acme", teamSize: 12, role: null })
      const merged = expectData(await call("POST", "/api/onboarding/details", { json: { role: "CTO" } }))
      expect(merged).toMatchObject({ companyName: "Acme", role: "CTO", teamSize: 12 })
      expectEnvelopeError(await call("POST", "/api/onboarding/details", { json: { teamSize: "12" } }), 422)
      expectEnvelopeError(await call("POST", "/api/onboarding/details", { json: { teamSize: 0 } }), 422)
    })

    it("OTP: send a code by SMS, verify it; a wrong code is refused", async () => {
      const phone = "+15550109876"
      const sent = expectData(await call("POST", "/api/otp/send", { json: { phoneNumber: phone } }))
      expect(sent.channel).toBe("sms")
      const code = sms.lastCode(phone)!
      expect(code).toMatch(/^\d{6}$/)
      const wrong = code === "000000" ? "111111" : "000000"
      expect((await call("POST", "/api/otp/verify", { json: { phoneNumber: phone, code: wrong } })).res.status).toBeGreaterThanOrEqual(400)
      const verified = expectData(await owner.browser.fetch("/api/otp/verify", { method: "POST", multipart: { phoneNumber: phone, code, _csrf: owner.csrf } }))
      expect(verified.phoneNumber).toBe(phone)
    })

    it("account service keys: create (secret once), list, revoke (the key stops working)", async () => {
      const created = expectData(await call("POST", "/api/account/service-keys", { json: { name: "ci", expiresAt: null } }))
      expect(created.secret).toMatch(/^sb_ask_/)
      const v1 = await fetch(`${s.baseUrl}/v1/account`, { headers: { authorization: `Bearer ${created.secret}` } })
      expect(v1.status).toBe(200)
      expect(expectData(await call("GET", "/api/account/service-keys")).map((k: any) => k.serviceKeyId)).toContain(created.serviceKey.serviceKeyId)
      const viaForm = expectData(await owner.browser.fetch("/api/account/service-keys", { method: "POST", form: { name: "form key", expiresAt: "", _csrf: owner.csrf } }))
      expect(viaForm.serviceKey.expiresAt).toBeNull()
      expectEnvelopeError(await call("POST", "/api/account/service-keys", { json: { name: "no expiry given" } }), 422)
      const revoked = expectData(await call("DELETE", `/api/account/service-keys/${created.serviceKey.serviceKeyId}`))
      expect(revoked.revokedAt).not.toBeNull()
      const after = await fetch(`${s.baseUrl}/v1/account`, { headers: { authorization: `Bearer ${created.secret}` } })
      expect(after.status).toBe(401)
      expectEnvelopeError(await call("DELETE", "/api/account/service-keys/sb_ask_nope"), 404)
    })

    it("OAuth apps: create, list, get, update, rotate the secret, delete", async () => {
      const created = expectData(await call("POST", "/api/oauth-apps", {
        json: { name: "My App", redirectUris: ["https://my.app/cb"], clientType: "confidential", scopes: ["openid", "projects:read"] }
      }))
      const clientId = created.app.clientId
      expect(created.clientSecret).toMatch(/^sb_cs_/)
      const listed = expectData(await call("GET", "/api/oauth-apps"))
      expect(listed.map((a: any) => a.clientId)).toContain(clientId)
      expect(JSON.stringify(listed)).not.toContain(created.clientSecret)
      expect(expectData(await call("GET", `/api/oauth-apps/${clientId}`)).name).toBe("My App")
      expect(expectData(await call("PATCH", `/api/oauth-apps/${clientId}`, { json: { name: "Renamed" } })).name).toBe("Renamed")
      const rotated = expectData(await call("POST", `/api/oauth-apps/${clientId}/rotate-secret`))
      expect(rotated.clientSecret).not.toBe(created.clientSecret)
      expectEnvelopeError(await call("POST", "/api/oauth-apps", { json: { name: "Bad", redirectUris: ["not a uri"], clientType: "public", scopes: [] } }), 422)
      expect(expectData(await call("DELETE", `/api/oauth-apps/${clientId}`))).toEqual({ clientId, deleted: true })
      expectEnvelopeError(await call("GET", `/api/oauth-apps/${clientId}`), 404)
      const stranger = await signedUp(server, "appstranger")
      expectEnvelopeError(await call("GET", `/api/oauth-apps/${clientId}`, { as: stranger.browser, csrf: stranger.csrf }), 404)
    })

    it("OAuth consents: listed, withdrawn (the token dies), 404 when there is none", async () => {
      const { clientId, token } = await oauthAccessToken(s, owner.accountId, ["openid", "projects:read"])
      const consents = expectData(await call("GET", "/api/oauth-consents"))
      expect(consents.find((c: any) => c.clientId === clientId)).toMatchObject({ scopes: ["openid", "projects:read"] })
      expect(expectData(await call("DELETE", `/api/oauth-consents/${clientId}`))).toEqual({ clientId, withdrawn: true })
      expectEnvelopeError(await call("GET", "/api/projects/", { token }), 401)
      expectEnvelopeError(await call("DELETE", `/api/oauth-consents/${clientId}`), 404)
    })

    // --- Privacy ------------------------------------------------------------------------------

    it("POST /api/privacy-requests/: received by any caller; the job erases the caller's own account with an audit record", async () => {
      const subject = await signedUp(server, "erase")
      const viaToken = (await oauthAccessToken(s, subject.accountId, ["openid"])).token
      const byToken = expectData(await call("POST", "/api/privacy-requests/", { token: viaToken, json: { email: uniqueEmail("someone-else") } }))
      expect(byToken.status).toBe("received")
      const r = expectData(await owner.browser.fetch("/api/privacy-requests/", { method: "POST", form: { email: subject.email, _csrf: owner.csrf } }))
      expect(r).toEqual({ requestId: expect.stringMatching(/^sb_prq_/), status: "received" })
      const mine = expectData(await call("POST", "/api/privacy-requests", { as: subject.browser, csrf: subject.csrf, json: { email: subject.email } }))
      expectEnvelopeError(await call("POST", "/api/privacy-requests", { json: { email: "x".repeat(250) + "@a.io" } }), 422)

      // The server's job, one pass (the periodic job is off in this suite).
      const pass = await s.run(dashboardJobOnce(makeServerConfig()))
      expect(pass.privacyRequests).toBe(3)
      const done = await s.run(Effect.gen(function*() {
        const privacy = yield* PrivacyRequests
        return yield* Effect.forEach([byToken, r, mine], (x) => privacy.find(x.requestId))
      }))
      const outcomes = Object.fromEntries(done.map((d) => [Option.getOrThrow(d).requestId, Option.getOrThrow(d).outcome]))
      expect(outcomes[byToken.requestId]).toBe("no_account")
      expect(outcomes[r.requestId]).toBe("not_verified")
      expect(outcomes[mine.requestId]).toBe("erased")
      const account = await s.run(Effect.flatMap(Accounts, (a) => a.get(subject.accountId as AccountId)))
      expect(account.email).toBe(erasedEmail(subject.accountId))
      expect(account.deletedAt).not.toBeNull()
      expect(expectData(await subject.browser.fetch("/api/auth/get-session"))).toBeNull()
      const audit = await s.run(Effect.flatMap(AuditLog, (l) => l.list({ subjectId: subject.accountId, limit: 5 })))
      expect(audit.map((a) => a.detail.outcome)).toContain("erased")
    })
  })
}
