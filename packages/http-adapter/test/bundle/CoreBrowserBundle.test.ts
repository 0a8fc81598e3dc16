/**
 * The core runs in a browser: CoreBrowserEntry.ts bundled by esbuild for the web (platform
 * browser, ESM, minified; the packages' sources through the `@switchboard/source` condition),
 * served by a node:http server and loaded in headless Chromium (Debian's `chromium` through
 * playwright-core). The page reports what the call machine and the plan-change preview computed.
 */
import { build } from "esbuild"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { fileURLToPath } from "node:url"
import { type Browser, chromium } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"

/** The browser bundle of the entry (bench/bundle.ts builds the same one to measure it). */
const bundleCoreEntry = async () => {
  const result = await build({
    entryPoints: [fileURLToPath(new URL("./CoreBrowserEntry.ts", import.meta.url))],
    bundle: true, platform: "browser", format: "esm", minify: true, write: false,
    conditions: ["@switchboard/source"], logLevel: "silent"
  })
  return result.outputFiles[0]!.text
}

describe("the core in a browser", () => {
  let server: Server
  let browser: Browser
  let origin: string
  beforeAll(async () => {
    const js = await bundleCoreEntry()
    server = createServer((req, res) => {
      if (req.url === "/core.js") {
        res.writeHead(200, { "content-type": "text/javascript" }).end(js)
      } else {
        res.writeHead(200, { "content-type": "text/html" }).end("<!doctype html><title>core</title><script type=\"module\" src=\"/core.js\"></script>")
      }
    })
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    browser = await chromium.launch({
      executablePath: "/usr/bin/chromium",
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"]
    })
  }, 120_000)
  afterAll(async () => {
    await browser?.close()
    await new Promise((resolve) => server?.close(resolve))
  })

  it("runs the call state machine and a plan-change preview", async () => {
    const page = await browser.newPage()
    const errors: Array<string> = []
    page.on("pageerror", (e) => errors.push(String(e)))
    await page.goto(`${origin}/`)
    await page.waitForFunction(() => (globalThis as { switchboardResults?: unknown }).switchboardResults !== undefined)
    const results = await page.evaluate(() => (globalThis as { switchboardResults?: unknown }).switchboardResults)
    expect(errors).toEqual([])
    expect(results).toStrictEqual({
      outcomes: ["applied", "applied", "applied", "applied", "applied"],
      status: "completed",
      events: ["call.started", "call.ringing", "call.answered", "call.connected", "call.ended"],
      dueNowCents: 3226,
      timing: "immediate"
    })
    await page.close()
  })
})
