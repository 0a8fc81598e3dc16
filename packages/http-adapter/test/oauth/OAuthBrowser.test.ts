/**
 * A real browser through the code flow (docs/testing.md): headless Chromium (Debian's `chromium`,
 * driven by playwright-core; `.ci/run` installs it) opens an app's authorization URL, is sent to the
 * sign-in page, signs in, approves the consent screen and lands on the app's redirect URI with a
 * code — which the app then exchanges. A second request with `prompt=login` signs in again and,
 * consent being remembered, goes back to the app without a consent screen (through a page that
 * continues on its own: the sign-in form's CSP `form-action 'self'` would cut a redirect chain
 * ending at the app's origin, which only a browser shows). PGlite only: the browser adds nothing a
 * second database would test.
 */
import { chromium, type Browser } from "playwright-core"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { newApp, newUser, type OAuthTestServer, startOAuthServer } from "../support/OAuthServer.js"

const VERIFIER = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
const CHALLENGE = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"

describe("OAuth in a headless browser (pglite)", { timeout: 120_000 }, () => {
  let s: OAuthTestServer
  let browser: Browser
  let app: Server
  let callback: string
  beforeAll(async () => {
    s = await startOAuthServer("pglite")
    // The app's redirect URI: a page that says it got the code.
    app = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/html" })
      res.end("<!doctype html><title>RP</title><p>signed in</p>")
    })
    await new Promise<void>((resolve) => app.listen(0, "127.0.0.1", resolve))
    callback = `http://127.0.0.1:${(app.address() as AddressInfo).port}/callback`
    browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox"] })
  })
  afterAll(async () => {
    await browser?.close()
    await new Promise((resolve) => app?.close(resolve))
    await s?.close()
  })

  it("signs in, approves the consent screen and lands on the redirect URI with a code the app can exchange", async () => {
    const user = await newUser(s)
    const rp = await newApp(s, user.accountId, { name: "Browser RP", homepageUri: "https://rp.example", redirectUris: [callback] })
    const authorizeUrl = (extra: Record<string, string> = {}) =>
      `${s.issuer}/oauth2/authorize?${new URLSearchParams({
        response_type: "code",
        client_id: rp.clientId,
        redirect_uri: callback,
        scope: "openid email projects:read",
        state: "browser-state",
        code_challenge: CHALLENGE,
        code_challenge_method: "S256",
        ...extra
      })}`

    const context = await browser.newContext()
    const page = await context.newPage()
    await page.goto(authorizeUrl())
    expect(new URL(page.url()).pathname).toBe("/sign-in")
    await page.fill("#email", user.email)
    await page.fill("#password", user.password)
    await Promise.all([page.waitForURL((u) => u.pathname === "/api/auth/oauth2/authorize"), page.click("button[type=submit]")])
    expect(await page.textContent("h1")).toContain("Browser RP wants to access your Switchboard account")
    expect(await page.textContent("body")).toContain("See your email address")
    await Promise.all([page.waitForURL((u) => u.toString().startsWith(callback)), page.click("button[value=approve]")])
    const landed = new URL(page.url())
    expect(landed.searchParams.get("state")).toBe("browser-state")
    expect(landed.searchParams.get("iss")).toBe(s.issuer)
    const code = landed.searchParams.get("code")!
    expect(code).toMatch(/^sb_oac_/)
    expect(await page.textContent("p")).toBe("signed in")

    const tokens = await fetch(`${s.issuer}/oauth2/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "authorization_code",
        code,
        redirect_uri: callback,
        code_verifier: VERIFIER,
        client_id: rp.clientId,
        client_secret: rp.secret!
      })
    })
    expect(tokens.status).toBe(200)
    expect(await tokens.json()).toMatchObject({ token_type: "Bearer", scope: "openid email projects:read" })

    // prompt=login: the sign-in page again, then (consent remembered) straight back to the app.
    await page.goto(authorizeUrl({ prompt: "login", state: "again" }))
    expect(new URL(page.url()).pathname).toBe("/sign-in")
    await page.fill("#email", user.email)
    await page.fill("#password", user.password)
    await Promise.all([page.waitForURL((u) => u.toString().startsWith(callback)), page.click("button[type=submit]")])
    expect(new URL(page.url()).searchParams.get("state")).toBe("again")
    expect(new URL(page.url()).searchParams.get("code")).toMatch(/^sb_oac_/)
    await context.close()
  })
})
