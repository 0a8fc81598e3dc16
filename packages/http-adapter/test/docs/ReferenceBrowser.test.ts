/**
 * The API reference in headless Chromium (Debian's `chromium` through playwright-core): each page
 * renders its document from the served bundle, asks nothing of another origin (fonts,
 * telemetry, proxies — the server must work offline) and breaks no rule of its CSP; its "try it"
 * sends a request to the running server and shows the answer.
 */
import { type Browser, chromium } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startTestServer, type TestServer } from "../support/TestServer.js"

describe("API reference in a browser", () => {
  let server: TestServer
  let browser: Browser
  beforeAll(async () => {
    server = await startTestServer("pglite")
    browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox"] })
  }, 120_000)
  afterAll(async () => {
    await browser.close()
    await server.close()
  })

  it("renders each API's reference from this origin only", async () => {
    const origin = new URL(server.baseUrl).origin
    for (const [path, title] of [["/docs", "Switchboard versioned API"], ["/docs/dashboard", "Switchboard Dashboard API"], ["/docs/management", "Switchboard management API"]] as const) {
      const page = await browser.newPage()
      const foreign: Array<string> = []
      const violations: Array<string> = []
      page.on("request", (r) => {
        const url = r.url()
        if (!url.startsWith(origin) && !url.startsWith("data:") && !url.startsWith("blob:")) foreign.push(url)
      })
      const errors: Array<string> = []
      page.on("pageerror", (e) => errors.push(String(e)))
      page.on("console", (m) => {
        if (m.type() === "error") errors.push(m.text())
        // The bundle's stylesheet names Scalar's font host in @font-face rules even with
        // withDefaultFonts off; the CSP blocks those (system fonts are used): that is the policy working.
        if (/Content Security Policy/i.test(m.text()) && !/Loading the font 'https:\/\/fonts\.scalar\.com\//.test(m.text())) violations.push(m.text())
      })
      await page.goto(`${server.baseUrl}${path}`)
      await page.waitForFunction(`document.body.innerText.includes(${JSON.stringify(title)})`, undefined, { timeout: 60_000 }).catch((e) => {
        throw new Error(`${String(e)}\n${errors.join("\n")}\n${foreign.join("\n")}`)
      })
      await page.close()
      expect(foreign, path).toEqual([])
      expect(violations, path).toEqual([])
    }
  }, 240_000)

  it("\"try it\" sends the request to the running server and shows its answer", async () => {
    const page = await browser.newPage()
    try {
      await page.goto(`${server.baseUrl}/docs/dashboard#tag/system/GET/api/health`)
      const operation = page.locator("section", { has: page.locator("text=Liveness, version and release line") }).last()
      await operation.waitFor({ timeout: 60_000 })
      const [response] = await Promise.all([
        page.waitForResponse((r) => r.url() === `${server.baseUrl}/api/health`, { timeout: 60_000 }),
        (async () => {
          await operation.locator("button.show-api-client-button").first().click()
          await page.getByRole("button", { name: /Send/ }).first().click()
        })()
      ])
      expect(response.status()).toBe(200)
      expect(await response.json()).toMatchObject({ succeed: true, data: { status: "ok" } })
      // The client shows the server's answer.
      await page.getByText("200 OK").first().waitFor({ timeout: 30_000 })
    } finally {
      await page.close()
    }
  }, 180_000)
})
