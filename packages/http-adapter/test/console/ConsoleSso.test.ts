/**
 * The console's SSO page, on every backend: the page `createOrganizationSsoPortalLink`
 * answers. An owner connects a provider (a scripted OpenID provider on a loopback port) through
 * the form and sees the domain's TXT verification record — the client secret is never rendered —,
 * verifies the domain, toggles JIT with the version, disables with a typed confirmation; a form
 * without the session's CSRF token changes nothing; an admin reads, a member is refused; the
 * portal link from `/v1` opens the page with a "Back" link to the validated `returnTo` only.
 */
import { Billing } from "@switchboard/core"
import { OrganizationsRepo } from "@switchboard/core/organizations"
import type { AccountId, OrganizationId } from "@switchboard/core/shared"
import { testBackends } from "@switchboard/sql-adapter"
import { BillingCatalogTest, billingTestCatalog, makeDnsTxtResolverMemory } from "@switchboard/testkit"
import { DateTime, Effect, Layer } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Browser, expectData, signedUp } from "../support/DashboardClient.js"
import { startTestServer, type TestServer } from "../support/TestServer.js"
import { startScriptedProvider } from "../sso/IdentityProviders.js"

const csrfOf = (page: string) => /name="_csrf" value="([^"]+)"/.exec(page)?.[1] ?? ""
const SECRET = "console-s3cret-never-shown"
let seq = 0
const newDomain = () => `console-${Date.now().toString(36)}-${++seq}.test`

/** The test catalog with SSO in every plan. */
const ssoCatalog: Billing.BillingPlanCatalog = Object.fromEntries(
  Object.entries(billingTestCatalog).map(([category, plans]) => [
    category,
    plans.map((p) => ({ ...p, entitlements: [...p.entitlements, { featureKey: "organization_sso", value: "true" }] }))
  ])
)

for (const backend of testBackends()) {
  describe(`console SSO page (${backend})`, () => {
    let s: TestServer
    let idp: Awaited<ReturnType<typeof startScriptedProvider>>
    const dns = makeDnsTxtResolverMemory()
    const server = () => s
    beforeAll(async () => {
      idp = await startScriptedProvider("switchboard")
      s = await startTestServer(
        backend,
        { allowPrivateSsoProviders: true, ssoTimeoutMs: 1500, privacyJobEnabled: false, webhookDeliveryEnabled: false },
        Layer.mergeAll(dns.layer, BillingCatalogTest(ssoCatalog))
      )
    })
    afterAll(async () => {
      await s?.close()
      await idp?.close()
    })

    /** A session's /v1 token. */
    const tokenOf = async (b: Browser) => (expectData(await b.fetch("/api/auth/token")) as { token: string }).token

    /** An owner with an organization whose project is on a plan that includes SSO. */
    const owner = async (what: string) => {
      const user = await signedUp(server, what)
      const b = user.browser
      const csrf = csrfOf((await b.fetch("/console")).text)
      const org = await b.fetch("/console/organizations", { method: "POST", form: { _csrf: csrf, name: `${what} org` } })
      expect(org.res.status, org.text).toBe(303)
      const organizationId = /\/console\/organizations\/([^?]+)/.exec(org.res.headers.get("location") ?? "")![1]! as OrganizationId
      const project = await b.fetch("/console/projects", { method: "POST", form: { _csrf: csrf, organizationId, name: `${what} project` } })
      expect(project.res.status, project.text).toBe(303)
      const projectId = /\/console\/projects\/([^?]+)/.exec(project.res.headers.get("location") ?? "")![1]!
      // Reading the billing overview subscribes the project to its categories' default plans.
      const billing = await fetch(`${s.baseUrl}/v1/projects/${projectId}/billing`, { headers: { authorization: `Bearer ${await tokenOf(b)}` } })
      expect(billing.status).toBe(200)
      return { ...user, b, csrf, organizationId, page: `/console/organizations/${organizationId}/sso` }
    }
    const addMember = (organizationId: OrganizationId, accountId: string, role: "member" | "admin") =>
      s.run(Effect.flatMap(OrganizationsRepo, (r) =>
        Effect.flatMap(DateTime.now, (now) => r.addMember({ organizationId, accountId: accountId as AccountId, role, now }))))

    it("an owner connects a provider, sees the TXT record (never the secret), verifies, toggles JIT, disables", async () => {
      const o = await owner("ssoowner")
      const orgPage = await o.b.fetch(`/console/organizations/${o.organizationId}`)
      expect(orgPage.text).toContain(`href="${o.page}"`)
      const empty = await o.b.fetch(o.page)
      expect(empty.res.status).toBe(200)
      expect(empty.text).toContain("Connect an OpenID provider")
      expect(empty.text).toContain("not_configured")

      const domain = newDomain()
      const saved = await o.b.fetch(o.page, {
        method: "POST",
        form: { _csrf: o.csrf, issuer: idp.issuer, clientId: "switchboard", clientSecret: SECRET, domains: domain.toUpperCase(), ssoJitEnabled: "true" }
      })
      expect(saved.res.status, saved.text).toBe(303)
      expect(saved.res.headers.get("location")).toBe(`${o.page}?notice=saved`)
      const after = await o.b.fetch(`${o.page}?notice=saved`)
      expect(after.text).toContain("Saved.")
      expect(after.text).toContain(`<code>_switchboard-sso.${domain}</code>`)
      const value = /<code>(sb-sso=[^<]+)<\/code>/.exec(after.text)?.[1]
      expect(value).toBeDefined()
      expect(after.text).toContain("ready")
      expect(after.text).toContain("stored sealed; never shown")
      expect(after.text).not.toContain(SECRET)

      // A bad domain: the page again with the field named, nothing changed.
      const bad = await o.b.fetch(o.page, {
        method: "POST",
        form: { _csrf: o.csrf, expectedVersion: "1", issuer: idp.issuer, clientId: "other", domains: "not a domain!" }
      })
      expect(bad.res.status).toBe(422)
      expect(bad.text).toContain("domains")
      expect(bad.text).not.toContain(SECRET)
      expect((await o.b.fetch(o.page)).text).toContain("<code>switchboard</code>")

      dns.publish(`_switchboard-sso.${domain}`, value!)
      const refreshed = await o.b.fetch(`${o.page}/refresh`, { method: "POST", form: { _csrf: o.csrf } })
      expect(refreshed.res.status, refreshed.text).toBe(303)
      const verified = await o.b.fetch(o.page)
      expect(verified.text).toMatch(/<td>[^<]*<\/td><td><span class="badge ok">verified<\/span>/)

      // JIT off with a stale version: a conflict, nothing changed; with the current one: off.
      const stale = await o.b.fetch(`${o.page}/jit`, { method: "POST", form: { _csrf: o.csrf, expectedVersion: "1", ssoJitEnabled: "false" } })
      expect(stale.res.status).toBe(409)
      expect(stale.text).toContain("Turn JIT provisioning off")
      const jit = await o.b.fetch(`${o.page}/jit`, { method: "POST", form: { _csrf: o.csrf, expectedVersion: "2", ssoJitEnabled: "false" } })
      expect(jit.res.status, jit.text).toBe(303)
      expect((await o.b.fetch(o.page)).text).toContain("Turn JIT provisioning on")

      const unconfirmed = await o.b.fetch(`${o.page}/disable`, { method: "POST", form: { _csrf: o.csrf, expectedVersion: "3", confirm: "yes" } })
      expect(unconfirmed.res.status).toBe(422)
      expect(unconfirmed.text).toContain("confirm: type disable")
      const disabled = await o.b.fetch(`${o.page}/disable`, { method: "POST", form: { _csrf: o.csrf, expectedVersion: "3", confirm: "disable" } })
      expect(disabled.res.status, disabled.text).toBe(303)
      expect((await o.b.fetch(o.page)).text).toContain("Connect an OpenID provider")
    })

    it("refuses forms without the session's CSRF token, and changes nothing", async () => {
      const o = await owner("ssocsrf")
      for (const _csrf of [undefined, "forged-token-forged-token-forged-token"]) {
        const r = await o.b.fetch(o.page, {
          method: "POST",
          form: { issuer: idp.issuer, clientId: "switchboard", clientSecret: SECRET, domains: newDomain(), ...(_csrf === undefined ? {} : { _csrf }) }
        })
        expect(r.res.status).toBe(403)
        expect(r.text).toContain("The form expired or did not come from this console")
      }
      const page = await o.b.fetch(o.page)
      expect(page.text).toContain("not_configured")
      expect(page.text).not.toContain(SECRET)
    })

    it("admins read the settings without forms; members are refused; neither can change them", async () => {
      const o = await owner("ssoroles")
      const domain = newDomain()
      expect((await o.b.fetch(o.page, {
        method: "POST",
        form: { _csrf: o.csrf, issuer: idp.issuer, clientId: "switchboard", clientSecret: SECRET, domains: domain }
      })).res.status).toBe(303)
      const admin = await signedUp(server, "ssoadmin")
      const member = await signedUp(server, "ssomember")
      await addMember(o.organizationId, admin.accountId, "admin")
      await addMember(o.organizationId, member.accountId, "member")

      const adminPage = await admin.browser.fetch(o.page)
      expect(adminPage.res.status).toBe(200)
      expect(adminPage.text).toContain(`_switchboard-sso.${domain}`)
      expect(adminPage.text).toContain("Only owners change SSO settings.")
      expect(adminPage.text).not.toContain(`name="clientSecret"`)
      expect(adminPage.text).not.toContain(SECRET)
      const adminCsrf = csrfOf((await admin.browser.fetch("/console")).text)
      const adminPost = await admin.browser.fetch(`${o.page}/disable`, { method: "POST", form: { _csrf: adminCsrf, expectedVersion: "1", confirm: "disable" } })
      expect(adminPost.res.status).toBe(403)
      expect(adminPost.text).toContain("Only owners can change SSO settings.")

      const memberPage = await member.browser.fetch(o.page)
      expect(memberPage.res.status).toBe(403)
      expect(memberPage.text).toContain("Only owners and admins can see SSO settings.")
      expect(memberPage.text).not.toContain(domain)
      const memberCsrf = csrfOf((await member.browser.fetch("/console")).text)
      const memberPost = await member.browser.fetch(o.page, {
        method: "POST",
        form: { _csrf: memberCsrf, expectedVersion: "1", issuer: idp.issuer, clientId: "taken-over", domains: domain }
      })
      expect(memberPost.res.status).toBe(403)
      const stranger = await signedUp(server, "ssostranger")
      expect((await stranger.browser.fetch(o.page)).res.status).toBe(404)

      const still = await o.b.fetch(o.page)
      expect(still.text).toContain("<code>switchboard</code>")
      expect(still.text).toContain("Disable SSO")
    })

    it("the portal link from /v1 opens the page for the owner, at the domains, with a Back link to the validated returnTo", async () => {
      const o = await owner("ssoportal")
      const token = await tokenOf(o.b)
      const link = await fetch(`${s.baseUrl}/v1/auth/organizations/${o.organizationId}/sso/portal`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ returnTo: "/console/account/keys", intent: "domain_verification" })
      })
      expect(link.status).toBe(200)
      const url = new URL(((await link.json()) as { url: string }).url)
      expect(url.pathname).toBe(o.page)
      expect(url.hash).toBe("#domains")
      const opened = await o.b.fetch(`${url.pathname}${url.search}`)
      expect(opened.res.status).toBe(200)
      const back = `${url.origin}/console/account/keys`
      expect(opened.text).toContain(`<a href="${back}">Back to where you came from</a>`)
      // intent=domain_verification puts the domains first.
      expect(opened.text.indexOf(`id="domains"`)).toBeLessThan(opened.text.indexOf(`id="status"`))
      // The page's forms keep the query; a save comes back to it.
      expect(opened.text).toContain(`action="${o.page}?intent=domain_verification&amp;returnTo=${encodeURIComponent(back)}"`)
      const saved = await o.b.fetch(`${url.pathname}${url.search}`, {
        method: "POST",
        form: { _csrf: o.csrf, issuer: idp.issuer, clientId: "switchboard", clientSecret: SECRET, domains: newDomain() }
      })
      expect(saved.res.status, saved.text).toBe(303)
      const location = saved.res.headers.get("location")!
      expect(location).toBe(`${o.page}?intent=domain_verification&returnTo=${encodeURIComponent(back)}&notice=saved`)
      expect((await o.b.fetch(location)).text).toContain(`<a href="${back}">Back to where you came from</a>`)

      // A returnTo the allow-list refuses is no link at all.
      const forged = await o.b.fetch(`${o.page}?returnTo=${encodeURIComponent("https://evil.example/phish")}`)
      expect(forged.res.status).toBe(200)
      expect(forged.text).not.toContain("evil.example")
      expect(forged.text).not.toContain("Back to where you came from")
    })
  })
}
