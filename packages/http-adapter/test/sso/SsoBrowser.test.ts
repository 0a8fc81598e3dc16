/**
 * Organization SSO in a real browser (docs/sso.md): headless Chromium (Debian's `chromium`, driven
 * by playwright-core) starts the sign-in, fills panva's `oidc-provider` login and consent pages and
 * comes back through our callback with a session cookie. The server listens on a port chosen before
 * it starts, so its DASHBOARD_URL (and the callback registered at the provider) is its own.
 */
import { type Browser, chromium } from "playwright-core"
import { BillingCatalogTest, billingTestCatalog, makeDnsTxtResolverMemory } from "@switchboard/testkit"
import { Layer } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { httpClient } from "../support/HttpClient.js"
import { startTestServer, type TestServer } from "../support/TestServer.js"
import { startOidcProvider } from "./IdentityProviders.js"
import { createServer } from "node:net"
import type { AddressInfo } from "node:net"

/** A free loopback port (released at once; the server takes it right after). */
const freePort = async () => {
  const probe = createServer()
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve))
  const port = (probe.address() as AddressInfo).port
  await new Promise((resolve) => probe.close(resolve))
  return port
}

describe("organization SSO in a headless browser (pglite)", { timeout: 120_000 }, () => {
  let s: TestServer
  let idp: Awaited<ReturnType<typeof startOidcProvider>>
  let browser: Browser
  const dns = makeDnsTxtResolverMemory()
  const call = httpClient(() => s)
  const catalog = Object.fromEntries(Object.entries(billingTestCatalog).map(([category, plans]) => [
    category,
    plans.map((p) => ({ ...p, entitlements: [...p.entitlements, { featureKey: "organization_sso", value: "true" }] }))
  ]))

  beforeAll(async () => {
    const port = await freePort()
    const dashboardUrl = `http://127.0.0.1:${port}`
    idp = await startOidcProvider({ clientId: "switchboard", clientSecret: "browser-secret", redirectUri: `${dashboardUrl}/api/auth/sso/callback` })
    s = await startTestServer(
      "pglite",
      { allowPrivateSsoProviders: true, dashboardUrl },
      Layer.mergeAll(dns.layer, BillingCatalogTest(catalog)),
      undefined,
      { port }
    )
    browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox"] })
  })
  afterAll(async () => {
    await browser?.close()
    await s?.close()
    await idp?.close()
  })

  it("signs in through the provider's pages, provisions the account and lands on returnTo with a session", async () => {
    const org = await call("/v1/organizations", { method: "POST", json: { name: "Browser SSO" } })
    const organizationId = org.body.organizationId as string
    const project = await call(`/v1/organizations/${organizationId}/projects`, { method: "POST", json: { name: "P", slug: `b-${Date.now().toString(36)}` }, idem: `k-${Date.now()}` })
    await call(`/v1/projects/${project.body.projectId}/billing`)
    const domain = `browser-${Date.now().toString(36)}.test`
    const configured = await call(`/v1/auth/organizations/${organizationId}/sso`, {
      method: "PUT",
      json: { issuer: idp.issuer, clientId: "switchboard", clientSecret: "browser-secret", domains: [domain], ssoJitEnabled: true }
    })
    expect(configured.res.status, configured.text).toBe(200)
    dns.publish(configured.body.domains[0].verificationRecord.name, configured.body.domains[0].verificationRecord.value)
    expect((await call(`/v1/auth/organizations/${organizationId}/sso/refresh`, { method: "POST" })).body.domains[0].state).toBe("verified")
    idp.addUser("grace", { email: `grace@${domain}`, given_name: "Grace", family_name: "Hopper" })

    const context = await browser.newContext()
    const page = await context.newPage()
    await page.goto(`${s.baseUrl}/api/auth/sso/start?organizationId=${organizationId}&returnTo=${encodeURIComponent("/api/auth/get-session")}`)
    expect(new URL(page.url()).origin).toBe(idp.issuer)
    await page.fill("input[name=login]", "grace")
    await page.fill("input[name=password]", "anything")
    await page.click("button[type=submit]")
    await page.click("button[type=submit]") // the provider's consent page
    await page.waitForURL(`${s.baseUrl}/api/auth/get-session`)
    const session = JSON.parse(await page.locator("body").innerText()) as { data: { user: { email: string } } }
    expect(session.data.user.email).toBe(`grace@${domain}`)
    const cookies = await context.cookies(s.baseUrl)
    expect(cookies.find((c) => c.name === "sb_session")).toMatchObject({ httpOnly: true, sameSite: "Lax" })
    await context.close()
  })
})
