/**
 * Organization SSO end to end (docs/sso.md), on every backend: a real server, panva's
 * `oidc-provider` as the identity provider on a loopback port (its own login and consent pages,
 * driven by a cookie-jar browser), and a scripted provider for ID tokens no honest provider would
 * send.
 *
 * Our callback URL is `{DASHBOARD_URL}/api/auth/sso/callback` with the test default DASHBOARD_URL
 * `http://127.0.0.1` (port 80, registered at the provider as is); the browser delivers the
 * provider's redirect to the test server's port instead.
 */
import { Billing } from "@switchboard/core"
import { OrganizationsRepo } from "@switchboard/core/organizations"
import type { AccountId, OrganizationId } from "@switchboard/core/shared"
import { SsoRepo } from "@switchboard/core/sso"
import { testBackends } from "@switchboard/sql-adapter"
import { BillingCatalogTest, billingTestCatalog, makeDnsTxtResolverMemory } from "@switchboard/testkit"
import { DateTime, Effect, Layer, Option } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { expectProblem, httpClient } from "../support/HttpClient.js"
import { startTestServer, type TestServer } from "../support/TestServer.js"
import { makeBrowser, startOidcProvider, startScriptedProvider, startSilentProvider } from "./IdentityProviders.js"

const CALLBACK = "http://127.0.0.1/api/auth/sso/callback"
const CLIENT = { clientId: "switchboard", clientSecret: "s3cret-_.~with+chars", redirectUri: CALLBACK }
let seq = 0
const unique = (what: string) => `${what}-${Date.now().toString(36)}-${++seq}`
const idem = () => unique("key")

/** The test catalog with SSO in every plan: an organization with a project has SSO, one without has not. */
const ssoCatalog: Billing.BillingPlanCatalog = Object.fromEntries(
  Object.entries(billingTestCatalog).map(([category, plans]) => [
    category,
    plans.map((p) => ({ ...p, entitlements: [...p.entitlements, { featureKey: "organization_sso", value: "true" }] }))
  ])
)

for (const backend of testBackends()) {
  describe(`organization SSO with an OpenID provider (${backend})`, () => {
    let s: TestServer
    let idp: Awaited<ReturnType<typeof startOidcProvider>>
    let scripted: Awaited<ReturnType<typeof startScriptedProvider>>
    let silent: Awaited<ReturnType<typeof startSilentProvider>>
    const dns = makeDnsTxtResolverMemory()
    const call = httpClient(() => s)
    /** Verified domains belong to one organization: each test claims its own. */
    const newDomain = () => `${unique("acme")}.test`

    beforeAll(async () => {
      idp = await startOidcProvider(CLIENT)
      scripted = await startScriptedProvider(CLIENT.clientId)
      silent = await startSilentProvider()
      s = await startTestServer(
        backend,
        { allowPrivateSsoProviders: true, ssoTimeoutMs: 1500 },
        Layer.mergeAll(dns.layer, BillingCatalogTest(ssoCatalog))
      )
    })
    afterAll(async () => {
      await s?.close()
      await Promise.all([idp?.close(), scripted?.close(), silent?.close()])
    })

    const newOrganization = async (withProject = true) => {
      const org = await call("/v1/organizations", { method: "POST", json: { name: "SSO org" } })
      expect(org.res.status, org.text).toBe(201)
      const organizationId = org.body.organizationId as string
      if (withProject) {
        const p = await call(`/v1/organizations/${organizationId}/projects`, { method: "POST", json: { name: "P", slug: unique("p") }, idem: idem() })
        expect(p.res.status, p.text).toBe(201)
        // Reading the billing overview subscribes the project to its categories' default plans.
        expect((await call(`/v1/projects/${p.body.projectId}/billing`)).res.status).toBe(200)
      }
      return organizationId
    }
    const sso = (organizationId: string, suffix = "") => `/v1/auth/organizations/${organizationId}/sso${suffix}`
    /** Configures the organization's SSO with `issuer` and verifies `domain` through DNS. */
    const configure = async (organizationId: string, issuer: string, domain: string, extra: Record<string, unknown> = {}) => {
      const r = await call(sso(organizationId), {
        method: "PUT",
        json: { issuer, clientId: CLIENT.clientId, clientSecret: CLIENT.clientSecret, domains: [domain], ...extra }
      })
      expect(r.res.status, r.text).toBe(200)
      const record = r.body.domains.find((d: { domain: string }) => d.domain === domain)
      if (record.state !== "verified") {
        dns.publish(record.verificationRecord.name, record.verificationRecord.value)
        const refreshed = await call(sso(organizationId, "/refresh"), { method: "POST" })
        expect(refreshed.res.status, refreshed.text).toBe(200)
        return refreshed.body
      }
      return r.body
    }
    /** Delivers the provider's redirect to our callback on the test server. */
    const deliver = (browser: ReturnType<typeof makeBrowser>, callbackUrl: string) =>
      browser.request(callbackUrl.replace("http://127.0.0.1", s.baseUrl))
    const signIn = async (url: string, login: string) => {
      const browser = makeBrowser()
      const callbackUrl = await browser.signInAtProvider(url, login, CALLBACK)
      return { browser, callbackUrl, res: await deliver(browser, callbackUrl) }
    }
    const sessionOf = async (browser: ReturnType<typeof makeBrowser>) => {
      const host = new URL(s.baseUrl).host
      const res = await fetch(`${s.baseUrl}/api/auth/get-session`, { headers: { cookie: `sb_session=${browser.cookie(host, "sb_session")}` } })
      return (await res.json()) as { data: { user: { email: string; id: string } } | null }
    }
    const membersOf = async (organizationId: string) =>
      (await call(`/v1/organizations/${organizationId}/members?pageSize=100`)).body.members as Array<{ email: string; role: string }>

    it("configuring: owners only, the plan must include SSO, the secret is sealed, domains verify through DNS, versions compare-and-set", async () => {
      const domain = newDomain()
      const noPlan = await newOrganization(false)
      expectProblem(
        await call(sso(noPlan), { method: "PUT", json: { issuer: idp.issuer, clientId: "c", clientSecret: "x", domains: [domain] } }),
        412,
        "SSO_SUBSCRIPTION_REQUIRED"
      )
      const organizationId = await newOrganization()
      const empty = await call(sso(organizationId))
      expect(empty.body).toMatchObject({ connectionState: "not_configured", version: "0", ssoEnforced: false })
      const first = await call(sso(organizationId), {
        method: "PUT",
        json: { issuer: idp.issuer, clientId: CLIENT.clientId, clientSecret: CLIENT.clientSecret, domains: [domain.toUpperCase()] }
      })
      expect(first.res.status, first.text).toBe(200)
      expect(first.body).toMatchObject({ connectionState: "ready", version: "1", connectionType: "oidc", issuer: idp.issuer })
      expect(first.body.domains).toEqual([{ domain, state: "pending", verificationRecord: { name: `_switchboard-sso.${domain}`, value: expect.stringMatching(/^sb-sso=/) } }])
      expect(first.text).not.toContain(CLIENT.clientSecret)
      const stored = await s.run(Effect.flatMap(SsoRepo, (r) => r.findConnection(organizationId as OrganizationId)))
      expect(Option.getOrThrow(stored).clientSecretSealed).not.toContain(CLIENT.clientSecret)
      // Required SSO stays desired, not in force, until a domain is verified.
      const required = await call(sso(organizationId), {
        method: "PUT",
        json: { expectedVersion: "1", issuer: idp.issuer, clientId: CLIENT.clientId, domains: [domain], requireSso: true }
      })
      expect(required.body).toMatchObject({ version: "2", desiredSsoEnforced: true, ssoEnforced: false, policySyncStatus: "manual_required" })
      expectProblem(await call(sso(organizationId), { method: "PATCH", json: { expectedVersion: "1", ssoJitEnabled: true } }), 409, "ORGANIZATION_SSO_CONFLICT")
      const member = await s.newAccount(`${unique("m")}@elsewhere.test`)
      await s.run(Effect.flatMap(OrganizationsRepo, (r) =>
        Effect.flatMap(DateTime.now, (now) => r.addMember({ organizationId: organizationId as OrganizationId, accountId: member.accountId as AccountId, role: "member", now }))))
      expectProblem(await call(sso(organizationId), { method: "PATCH", json: { expectedVersion: "2", ssoJitEnabled: true }, key: member.serviceKey }), 403, "FORBIDDEN")
      dns.publish(`_switchboard-sso.${domain}`, "sb-sso=not-the-token")
      const wrongTxt = await call(sso(organizationId, "/refresh"), { method: "POST" })
      expect(wrongTxt.body.domains[0].state).toBe("failed")
      dns.publish(first.body.domains[0].verificationRecord.name, first.body.domains[0].verificationRecord.value)
      const verified = await call(sso(organizationId, "/refresh"), { method: "POST" })
      expect(verified.body).toMatchObject({ ssoEnforced: true, policySyncStatus: "synced", domains: [{ domain, state: "verified" }] })
      // Required SSO: a member's service key is refused with a Link to the SSO sign-in; the owner's still works (break-glass).
      const refused = await call(`/v1/organizations/${organizationId}/members`, { key: member.serviceKey })
      expectProblem(refused, 403, "ORGANIZATION_SSO_REQUIRED")
      expect(refused.res.headers.get("link")).toBe(`</api/auth/sso/start?organizationId=${organizationId}>; rel="sso-sign-in"`)
      expect((await call(`/v1/organizations/${organizationId}/members`)).res.status).toBe(200)
      const status = await call(`/v1/auth/organizations/${organizationId}/connection-status`)
      expect(status.body).toMatchObject({ organizationId, synchronized: true, organization: { status: "ready" } })
      const disabled = await call(sso(organizationId, "/disable"), { method: "POST", json: { expectedVersion: verified.body.version }, idem: idem() })
      expect(disabled.body).toMatchObject({ connectionState: "not_configured" })
      expect((await call(`/v1/organizations/${organizationId}/members`, { key: member.serviceKey })).res.status).toBe(200)
    })

    it("sign-in through the provider: JIT account and membership, a session cookie, returnTo; the callback works once", async () => {
      const domain = newDomain()
      const organizationId = await newOrganization()
      await configure(organizationId, idp.issuer, domain, { ssoJitEnabled: true })
      expectProblem(await call(sso(organizationId, "/authenticate"), { method: "POST", json: { returnTo: "https://evil.example/x" }, key: null }), 400, "INVALID_RETURN_TO")
      const login = unique("alice")
      idp.addUser(login, { email: `${login}@${domain}`, given_name: "Alice", family_name: "Liddell" })
      const begun = await call(sso(organizationId, "/authenticate"), { method: "POST", json: { returnTo: "/welcome" }, key: null })
      expect(begun.res.status, begun.text).toBe(200)
      const url = new URL(begun.body.url)
      expect(url.origin).toBe(idp.issuer)
      expect(Object.fromEntries(url.searchParams)).toMatchObject({ code_challenge_method: "S256", redirect_uri: CALLBACK, response_type: "code" })
      const { browser, callbackUrl, res } = await signIn(begun.body.url, login)
      expect(res.status).toBe(303)
      expect(res.headers.get("location")).toBe("http://127.0.0.1/welcome")
      const session = await sessionOf(browser)
      expect(session.data?.user.email).toBe(`${login}@${domain}`)
      expect((await membersOf(organizationId)).find((m) => m.email === `${login}@${domain}`)?.role).toBe("member")
      // With SSO required, the SSO session's /v1 token (its `sid`) is admitted; a member's service key is not.
      const current = await call(sso(organizationId))
      const required = await call(sso(organizationId), {
        method: "PUT",
        json: { expectedVersion: current.body.version, issuer: idp.issuer, clientId: CLIENT.clientId, domains: [domain], requireSso: true }
      })
      expect(required.body.ssoEnforced).toBe(true)
      const host = new URL(s.baseUrl).host
      const minted = await fetch(`${s.baseUrl}/api/auth/token`, { headers: { cookie: `sb_session=${browser.cookie(host, "sb_session")}` } })
      const sessionToken = ((await minted.json()) as { data: { token: string } }).data.token
      expect((await call(`/v1/organizations/${organizationId}/members`, { key: sessionToken })).res.status).toBe(200)
      const member = await s.newAccount(`${unique("m")}@${domain}`)
      await s.run(Effect.flatMap(OrganizationsRepo, (r) =>
        Effect.flatMap(DateTime.now, (now) => r.addMember({ organizationId: organizationId as OrganizationId, accountId: member.accountId as AccountId, role: "member", now }))))
      expectProblem(await call(`/v1/organizations/${organizationId}/members`, { key: member.serviceKey }), 403, "ORGANIZATION_SSO_REQUIRED")
      const replay = await deliver(makeBrowser(), callbackUrl)
      expect(replay.status).toBe(403)
      expect(((await replay.json()) as { message: string }).message).toMatch(/unknown, was already used, or has expired/)
      // Enterprise login routes the email's domain to this SSO, and an unknown domain to ordinary sign-in.
      const routed = await call("/v1/auth/login/enrollment", { method: "POST", json: { email: `x@${domain}`, returnTo: "/" }, key: null })
      expect(new URL(routed.body.url).origin).toBe(idp.issuer)
      const ordinary = await call("/v1/auth/login/enrollment", { method: "POST", json: { email: "x@nowhere.test", returnTo: "/" }, key: null })
      expect(ordinary.body.url).toBe("http://127.0.0.1/sign-in?returnTo=http%3A%2F%2F127.0.0.1%2F")
    })

    it("without JIT an unknown person is refused; an invitation through SSO creates and admits the invitee", async () => {
      const domain = newDomain()
      const organizationId = await newOrganization()
      await configure(organizationId, idp.issuer, domain)
      const stranger = unique("stranger")
      idp.addUser(stranger, { email: `${stranger}@${domain}` })
      const refused = await signIn((await call(sso(organizationId, "/authenticate"), { method: "POST", json: { returnTo: "/" }, key: null })).body.url, stranger)
      expect(refused.res.status).toBe(403)
      expect(((await refused.res.json()) as { message: string }).message).toMatch(/just-in-time provisioning is off/)
      const invitee = unique("carol")
      idp.addUser(invitee, { email: `${invitee}@${domain}` })
      const invitation = await call(`/v1/organizations/${organizationId}/invitations`, { method: "POST", json: { email: `${invitee}@${domain}`, role: "admin" }, idem: idem() })
      expect(invitation.res.status, invitation.text).toBe(201)
      const begun = await call(sso(organizationId, "/invitation"), { method: "POST", json: { token: invitation.body.token, returnTo: "/" }, key: null })
      expect(begun.res.status, begun.text).toBe(200)
      const { res } = await signIn(begun.body.url, invitee)
      expect(res.status).toBe(303)
      expect((await membersOf(organizationId)).find((m) => m.email === `${invitee}@${domain}`)?.role).toBe("admin")
      expectProblem(
        await call(sso(organizationId, "/invitation"), { method: "POST", json: { token: invitation.body.token, returnTo: "/" }, key: null }),
        412,
        "ORGANIZATION_SSO_PRECONDITION_FAILED"
      )
    })

    it("admission links an existing account; it refuses when the provider signs in someone else", async () => {
      const domain = newDomain()
      const organizationId = await newOrganization()
      await configure(organizationId, idp.issuer, domain)
      const name = unique("dave")
      const dave = await s.newAccount(`${name}@${domain}`)
      idp.addUser(name, { email: `${name}@${domain}` })
      const begun = await call(sso(organizationId, "/admission"), { method: "POST", json: { returnTo: "/" }, key: dave.serviceKey })
      expect(begun.res.status, begun.text).toBe(200)
      const { res } = await signIn(begun.body.url, name)
      expect(res.status).toBe(303)
      expect((await membersOf(organizationId)).find((m) => m.email === `${name}@${domain}`)?.role).toBe("member")
      const other = unique("frank")
      idp.addUser(other, { email: `${other}@${domain}` })
      const erin = await s.newAccount(`${unique("erin")}@${domain}`)
      const mismatch = await signIn((await call(sso(organizationId, "/admission"), { method: "POST", json: { returnTo: "/" }, key: erin.serviceKey })).body.url, other)
      expect(mismatch.res.status).toBe(403)
      // Closure inspection is for owners.
      expectProblem(await call(sso(organizationId, "/closure-authenticate"), { method: "POST", json: { returnTo: "/" }, key: dave.serviceKey }), 403, "FORBIDDEN")
      expect((await call(sso(organizationId, "/closure-authenticate"), { method: "POST", json: { returnTo: "/" } })).res.status).toBe(200)
    })

    it("ID tokens that are forged, expired, for another audience or with another nonce are refused; a good one passes", async () => {
      const domain = newDomain()
      const organizationId = await newOrganization()
      await configure(organizationId, scripted.issuer, domain, { ssoJitEnabled: true })
      const attempt = async (claims: (nonce: string) => Record<string, unknown>, options: { forged?: boolean } = {}) => {
        const begun = await call(sso(organizationId, "/authenticate"), { method: "POST", json: { returnTo: "/" }, key: null })
        expect(begun.res.status, begun.text).toBe(200)
        const url = new URL(begun.body.url)
        scripted.setIdToken(await scripted.sign(claims(url.searchParams.get("nonce")!), options))
        const res = await fetch(`${s.baseUrl}/api/auth/sso/callback?code=c&state=${url.searchParams.get("state")}`, { redirect: "manual" })
        return { status: res.status, body: res.status === 303 ? undefined : ((await res.json()) as { code: string; message: string }) }
      }
      const email = `${unique("eve")}@${domain}`
      const good = (nonce: string) => ({ sub: unique("sub"), email, nonce })
      const now = Math.floor(Date.now() / 1000)
      const forged = await attempt(good, { forged: true })
      expect(forged).toMatchObject({ status: 403, body: { code: "FORBIDDEN", succeed: false, message: expect.stringMatching(/signature/) } })
      const expired = await attempt((nonce) => ({ ...good(nonce), iat: now - 7200, exp: now - 3600 }))
      expect(expired).toMatchObject({ status: 403, body: { message: expect.stringMatching(/exp/) } })
      const audience = await attempt((nonce) => ({ ...good(nonce), aud: "someone-else" }))
      expect(audience).toMatchObject({ status: 403, body: { message: expect.stringMatching(/aud/) } })
      const wrongIssuer = await attempt((nonce) => ({ ...good(nonce), iss: "https://other.example" }))
      expect(wrongIssuer).toMatchObject({ status: 403, body: { message: expect.stringMatching(/iss/) } })
      const nonce = await attempt(() => good("a-different-nonce"))
      expect(nonce).toMatchObject({ status: 403, body: { message: expect.stringMatching(/nonce/) } })
      const outsider = await attempt((n) => ({ ...good(n), email: "eve@unverified.test" }))
      expect(outsider).toMatchObject({ status: 403, body: { message: expect.stringMatching(/verified domain/) } })
      expect((await attempt(good)).status).toBe(303)
    })

    it("an unreachable or silent provider gives a clear problem within the deadline, never a hang", async () => {
      const domain = newDomain()
      const organizationId = await newOrganization()
      const started = Date.now()
      const configured = await call(sso(organizationId), {
        method: "PUT",
        json: { issuer: silent.issuer, clientId: "c", clientSecret: "x", domains: [domain] }
      })
      expect(configured.body).toMatchObject({ connectionState: "error", lastError: expect.stringMatching(/did not answer within 1500 ms/) })
      expectProblem(await call(sso(organizationId, "/authenticate"), { method: "POST", json: { returnTo: "/" }, key: null }), 412, "ORGANIZATION_SSO_PRECONDITION_FAILED")
      // A ready connection whose provider then stops answering, or goes away.
      const other = await newOrganization()
      await configure(other, scripted.issuer, domain)
      await s.run(Effect.flatMap(SsoRepo, (r) =>
        Effect.flatMap(r.findConnection(other as OrganizationId), (c) =>
          r.saveConnection({ ...Option.getOrThrow(c), issuer: silent.issuer, version: Option.getOrThrow(c).version + 1 }, Option.getOrThrow(c).version))))
      expectProblem(await call(sso(other, "/authenticate"), { method: "POST", json: { returnTo: "/" }, key: null }), 504, "UPSTREAM_TIMEOUT")
      await s.run(Effect.flatMap(SsoRepo, (r) =>
        Effect.flatMap(r.findConnection(other as OrganizationId), (c) =>
          r.saveConnection({ ...Option.getOrThrow(c), issuer: "http://127.0.0.1:9", version: Option.getOrThrow(c).version + 1 }, Option.getOrThrow(c).version))))
      expectProblem(await call(sso(other, "/authenticate"), { method: "POST", json: { returnTo: "/" }, key: null }), 503, "UPSTREAM_UNAVAILABLE")
      // Each silent call waited for the 1.5 s deadline, not the request's 30 s.
      expect(Date.now() - started).toBeLessThan(15_000)
    })
  })
}
