/**
 * The device flow's approval in a real browser (docs/testing.md): headless Chromium (Debian's
 * `chromium`, driven by playwright-core, as OAuthBrowser.test.ts) opens the verification URI a CLI
 * printed, is sent to sign in and back to `/device`, types the user code (lower case, no dash),
 * sees the consent screen with the code to compare, approves — while openid-client polls
 * `/v1/auth/device/token` and gets the tokens. PGlite only: the browser adds nothing a second
 * database would test (OAuthDevice.test.ts runs the protocol on both).
 */
import * as client from "openid-client"
import { chromium, type Browser } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { newApp, newUser, type OAuthTestServer, startOAuthServer } from "../support/OAuthServer.js"

describe("device flow approved in a headless browser (pglite)", { timeout: 120_000 }, () => {
  let s: OAuthTestServer
  let browser: Browser
  beforeAll(async () => {
    s = await startOAuthServer("pglite", { devicePollIntervalSeconds: 1 })
    browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox"] })
  })
  afterAll(async () => {
    await browser?.close()
    await s?.close()
  })

  it("sign in, type the code, approve: the polling CLI gets its tokens", async () => {
    const user = await newUser(s)
    const cli = await newApp(s, user.accountId, { name: "Acme CLI", redirectUris: ["https://rp.example/unused"], clientType: "public" })
    const config = new client.Configuration(
      {
        issuer: s.issuer,
        device_authorization_endpoint: `${s.baseUrl}/v1/auth/device/code`,
        token_endpoint: `${s.baseUrl}/v1/auth/device/token`,
        id_token_signing_alg_values_supported: ["EdDSA"]
      },
      cli.clientId,
      undefined,
      client.None()
    )
    client.allowInsecureRequests(config)
    const device = await client.initiateDeviceAuthorization(config, { scope: "email offline_access projects:read" })
    const polling = client.pollDeviceAuthorizationGrant(config, device)

    const page = await (await browser.newContext()).newPage()
    await page.goto(device.verification_uri)
    expect(new URL(page.url()).pathname).toBe("/sign-in")
    await page.fill("#email", user.email)
    await page.fill("#password", user.password)
    await Promise.all([page.waitForURL((u) => u.pathname === "/device"), page.click("button[type=submit]")])
    await page.fill("input[name=user_code]", device.user_code.replace("-", "").toLowerCase())
    await Promise.all([page.waitForURL((u) => u.pathname === "/device" && u.searchParams.has("user_code")), page.click("button[type=submit]")])
    expect(await page.textContent("h1")).toContain("Acme CLI wants to access your Switchboard account")
    expect(await page.textContent("body")).toContain(`Check that your device shows the code ${device.user_code}.`)
    await Promise.all([page.waitForLoadState("load"), page.click("button[value=approve]")])
    await page.waitForSelector("text=Device connected")
    expect(await page.textContent("body")).toContain("Acme CLI is now signed in to your account")

    const tokens = await polling
    expect(tokens.scope).toBe("email offline_access projects:read")
    expect(tokens.user).toMatchObject({ id: user.accountId, email: user.email })
    const account = await fetch(`${s.baseUrl}/v1/account`, { headers: { authorization: `Bearer ${tokens.access_token}` } })
    expect(account.status).toBe(200)
  })
})
