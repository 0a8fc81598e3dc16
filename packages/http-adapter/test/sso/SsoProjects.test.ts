/**
 * Required SSO on an organization's projects (sso/SsoGuard.ts through ProjectGate): once an
 * organization requires SSO, its members' non-SSO credentials — service keys, a password session,
 * that session's /v1 token — are refused with 403 `ORGANIZATION_SSO_REQUIRED` (and the `Link` to the
 * SSO sign-in) on `/v1/projects/{id}/…`, on creating a project in it, and on the Dashboard's project
 * routes; a session opened by the organization's SSO (and its /v1 token) is admitted, and owners
 * always are (break-glass). The connection is stored directly (enforced, ready): the sign-in itself
 * is tested against a real identity provider in Sso.test.ts.
 */
import { Sessions } from "@switchboard/core/dashboard"
import { OrganizationsRepo } from "@switchboard/core/organizations"
import { AccountId, OrganizationId } from "@switchboard/core/shared"
import { SsoRepo } from "@switchboard/core/sso"
import { testBackends } from "@switchboard/sql-adapter"
import { DateTime, Effect, Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { expectProblem, httpClient } from "../support/HttpClient.js"
import { startTestServer, type TestServer } from "../support/TestServer.js"

let seq = 0
const unique = (what: string) => `${what}-${Date.now().toString(36)}-${++seq}`

for (const backend of testBackends()) {
  describe(`required SSO on project routes (${backend})`, () => {
    let s: TestServer
    const call = httpClient(() => s)
    beforeAll(async () => {
      s = await startTestServer(backend)
    })
    afterAll(() => s.close())

    /** An organization of the server's admin (owner) with one project and a member with `role`. */
    const setUp = async (role: "admin" | "member") => {
      const org = await call("/v1/organizations", { method: "POST", json: { name: "SSO org" } })
      expect(org.res.status, org.text).toBe(201)
      const organizationId = org.body.organizationId as string
      const p = await call(`/v1/organizations/${organizationId}/projects`, { method: "POST", json: { name: "P", slug: unique("p") }, idem: unique("k") })
      expect(p.res.status, p.text).toBe(201)
      const member = await s.newAccount(`${unique("member")}@example.com`)
      await s.run(Effect.gen(function*() {
        yield* (yield* OrganizationsRepo).addMember({
          organizationId: OrganizationId.make(organizationId),
          accountId: AccountId.make(member.accountId),
          role,
          now: yield* DateTime.now
        })
      }))
      return { organizationId, projectId: p.body.projectId as string, member }
    }

    const requireSso = (organizationId: string) =>
      s.run(Effect.gen(function*() {
        const now = yield* DateTime.now
        const saved = yield* (yield* SsoRepo).saveConnection({
          organizationId: OrganizationId.make(organizationId),
          issuer: "https://idp.example.com",
          clientId: "switchboard",
          clientSecretSealed: "c2VhbGVk",
          domains: [{ domain: `${unique("d")}.example.com`, state: "verified", verificationToken: "sb-sso=x" }],
          jitEnabled: false,
          desiredEnforced: true,
          enforced: true,
          state: "ready",
          lastError: null,
          generation: 1,
          version: 1,
          changedAt: now
        }, null)
        expect(saved).toBe(true)
      }))

    /** A Dashboard session of the account, opened through the organization's SSO when `viaSso`. */
    const session = (accountId: string, viaSso?: string) =>
      s.run(Effect.gen(function*() {
        const created = yield* (yield* Sessions).create(AccountId.make(accountId))
        if (viaSso !== undefined) {
          yield* (yield* SsoRepo).markSession({
            sessionId: created.session.sessionId,
            organizationId: OrganizationId.make(viaSso),
            expiresAt: created.session.expiresAt
          })
        }
        return `sb_session=${Redacted.value(created.token)}`
      }))

    const dashboard = async (path: string, cookie: string) => {
      const res = await fetch(`${s.baseUrl}${path}`, { headers: { cookie } })
      return { res, body: await res.json() as Record<string, any> }
    }
    const sessionToken = async (cookie: string) => {
      const res = await fetch(`${s.baseUrl}/api/auth/token`, { headers: { cookie } })
      expect(res.status).toBe(200)
      const token = (await res.json() as { data: { token: string } }).data.token
      expect(token).toMatch(/^ey/)
      return token
    }

    it("members' service keys and password sessions are refused on the organization's projects; owners are not", async () => {
      const { member, organizationId, projectId } = await setUp("admin")
      expect((await call(`/v1/projects/${projectId}`, { key: member.serviceKey })).res.status).toBe(200)
      await requireSso(organizationId)

      const refused = await call(`/v1/projects/${projectId}`, { key: member.serviceKey })
      expectProblem(refused, 403, "ORGANIZATION_SSO_REQUIRED")
      expect(refused.res.headers.get("link")).toBe(`</api/auth/sso/start?organizationId=${encodeURIComponent(organizationId)}>; rel="sso-sign-in"`)
      expectProblem(await call(`/v1/projects/${projectId}/api-keys`, { key: member.serviceKey }), 403, "ORGANIZATION_SSO_REQUIRED")
      expectProblem(await call(`/v1/projects/${projectId}/agent-profile`, { key: member.serviceKey }), 403, "ORGANIZATION_SSO_REQUIRED")
      expectProblem(
        await call(`/v1/organizations/${organizationId}/projects`, { method: "POST", json: { name: "Q", slug: unique("q") }, idem: unique("k"), key: member.serviceKey }),
        403,
        "ORGANIZATION_SSO_REQUIRED"
      )

      const password = await session(member.accountId)
      const onDashboard = await dashboard(`/api/projects/${projectId}`, password)
      expect(onDashboard.res.status).toBe(403)
      expect(onDashboard.body).toMatchObject({ succeed: false, code: "ORGANIZATION_SSO_REQUIRED" })
      expectProblem(await call(`/v1/projects/${projectId}`, { key: await sessionToken(password) }), 403, "ORGANIZATION_SSO_REQUIRED")
      // The Dashboard's list of every project leaves that organization's out rather than failing.
      const listed = await dashboard("/api/projects", password)
      expect(listed.res.status).toBe(200)
      expect(JSON.stringify(listed.body)).not.toContain(projectId)

      // Break-glass: the owner, with a service key or a password session.
      expect((await call(`/v1/projects/${projectId}`)).res.status).toBe(200)
      expect((await dashboard(`/api/projects/${projectId}`, await session(s.accountId))).res.status).toBe(200)
    })

    it("a session opened by the organization's SSO, and its /v1 token, reach the projects; another organization's SSO does not count", async () => {
      const { member, organizationId, projectId } = await setUp("member")
      await requireSso(organizationId)
      const viaSso = await session(member.accountId, organizationId)
      expect((await dashboard(`/api/projects/${projectId}`, viaSso)).res.status).toBe(200)
      const token = await sessionToken(viaSso)
      expect((await call(`/v1/projects/${projectId}`, { key: token })).res.status).toBe(200)

      const other = await call("/v1/organizations", { method: "POST", json: { name: "Other" } })
      const elsewhere = await session(member.accountId, other.body.organizationId as string)
      expect((await dashboard(`/api/projects/${projectId}`, elsewhere)).body.code).toBe("ORGANIZATION_SSO_REQUIRED")
    })

    it("an organization that does not require SSO is unaffected, and a non-member still gets not found", async () => {
      const { member, projectId } = await setUp("member")
      expect((await call(`/v1/projects/${projectId}`, { key: member.serviceKey })).res.status).toBe(200)
      const stranger = await s.newAccount(`${unique("stranger")}@example.com`)
      expectProblem(await call(`/v1/projects/${projectId}`, { key: stranger.serviceKey }), 404, "PROJECT_NOT_FOUND")
    })
  })
}
