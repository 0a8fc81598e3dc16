/**
 * The console in a real browser: headless Chromium (Debian's `chromium`, driven by playwright-core,
 * as the OAuth browser test does) walks every page's main path as a person would — sign up,
 * organizations and members (a role changed), the organization's SSO page, a project with its slug
 * checked and its overview (the getting-started checklist ticked as keys, a webhook and a first
 * delivery appear; the figures once it has activity), the switcher, settings and the management
 * secret, API keys and their permissions, webhooks with their delivery log (a dead letter retried,
 * a test event), events (a new one arriving live over the event channel), voice (the default
 * profile made from the empty page), billing (the past operations listed), service keys, OAuth apps
 * and authorized apps, TOTP enrolment from the QR code's secret, the profile picture uploaded and
 * reset, installations, the problem pages, sign out. Each page is screenshotted at desktop
 * (1280×800) and phone (390×844) width into `artifacts/screenshots/` (`<page>-desktop.png`,
 * `<page>-phone.png`; git-ignored, CI keeps the folder as an artifact), checked with axe-core at
 * both (no serious or critical violations) and must not be wider than the phone. One server and
 * one browser for the whole file; PGlite only (the pages add nothing a second database tests).
 */
import { Accounts, AccountsRepo, decodeBase32Rfc4648, totp } from "@switchboard/core/accounts"
import { WebhookDeliveryEngine } from "@switchboard/core/events"
import { Organizations, OrganizationsRepo } from "@switchboard/core/organizations"
import { ProjectsService } from "@switchboard/core/projects"
import { IdKinds, type OrganizationId, type ProjectId } from "@switchboard/core/shared"
import { SsoRepo } from "@switchboard/core/sso"
import { Calls, CallSignal, Lines, VoiceProfiles } from "@switchboard/core/voice"
import { DateTime, Effect, Option, Redacted, Schema } from "effect"
import { mkdirSync, readFileSync } from "node:fs"
import { createServer, type Server } from "node:http"
import { createRequire } from "node:module"
import type { AddressInfo } from "node:net"
import { join } from "node:path"
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { principalOf } from "../../src/routes/DashboardAccess.js"
import { RequestCounter } from "../../src/http/pipeline/RequestCounts.js"
import { startTestServer, type TestServer } from "../support/TestServer.js"
import { newId, signalsOf } from "../support/VoiceHttp.js"

const screenshots = join(import.meta.dirname, "..", "..", "..", "..", "artifacts", "screenshots")
const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8")

interface AxeViolation {
  readonly id: string
  readonly impact: string | null
  readonly help: string
  readonly nodes: ReadonlyArray<{ readonly target: ReadonlyArray<string> }>
}

/** The two widths every page is looked at: a laptop's and a phone's. */
const desktop = { width: 1280, height: 800 }
const phone = { width: 390, height: 844 }

const axeCheck = async (page: Page, name: string) => {
  if (!(await page.evaluate(() => "axe" in globalThis))) await page.evaluate(axeSource)
  const violations = await page.evaluate(async () => {
    const result = await (globalThis as any).axe.run((globalThis as any).document, { runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"] } })
    return result.violations as ReadonlyArray<AxeViolation>
  })
  const bad = violations.filter((v) => v.impact === "serious" || v.impact === "critical")
  expect(bad.map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`), name).toEqual([])
}

/**
 * Screenshots the page at desktop and at phone width (`<name>-desktop.png`, `<name>-phone.png`)
 * and fails on serious or critical accessibility violations (WCAG 2 A/AA rules) at either width,
 * or on a page wider than the phone's screen (what does not fit scrolls inside its own box).
 */
const look = async (page: Page, name: string) => {
  const before = page.viewportSize() ?? desktop
  await page.setViewportSize(desktop)
  await page.screenshot({ path: join(screenshots, `${name}-desktop.png`), fullPage: true })
  await axeCheck(page, `${name} (desktop)`)
  await page.setViewportSize(phone)
  await page.screenshot({ path: join(screenshots, `${name}-phone.png`), fullPage: true })
  await axeCheck(page, `${name} (phone)`)
  // What sticks out, named, when something does.
  const wide = await page.evaluate((width) =>
    [...(globalThis as any).document.querySelectorAll("body *")]
      .filter((e: any) => e.getBoundingClientRect().right > width + 1 && e.closest(".tablewrap, nav ul, pre, details:not([open])") === null)
      .slice(0, 5)
      .map((e: any) => `${e.tagName.toLowerCase()}.${e.className} (${Math.round(e.getBoundingClientRect().right)})`), phone.width)
  expect(wide, `${name} fits a phone`).toEqual([])
  expect(await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth), `${name} fits a phone`).toBeLessThanOrEqual(phone.width)
  await page.setViewportSize(before)
}

const submit = (page: Page, button: string) =>
  Promise.all([page.waitForLoadState("load"), page.waitForEvent("framenavigated"), page.click(button)])

describe("the console in a headless browser (pglite)", { timeout: 240_000 }, () => {
  let s: TestServer
  let browser: Browser
  let context: BrowserContext
  let page: Page
  let receiver: Server
  let receiverUrl: string
  let failDeliveries = true
  const received: Array<string> = []
  let projectId = ""
  let voice: { readonly profileId: string; readonly principal: ReturnType<typeof principalOf> } | undefined
  const email = `console.${Date.now()}@example.com`
  /** Everything due is attempted now (the server's own engine is off: no waiting on a timer). */
  const deliver = () => s.run(Effect.flatMap(WebhookDeliveryEngine, (engine) => engine.drain()))

  beforeAll(async () => {
    mkdirSync(screenshots, { recursive: true })
    receiver = createServer((req, res) => {
      let body = ""
      req.on("data", (c) => (body += c))
      req.on("end", () => {
        received.push(body)
        res.writeHead(failDeliveries ? 400 : 200, { "content-type": "text/plain" })
        res.end(failDeliveries ? "not yet" : "ok")
      })
    })
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve))
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`
    s = await startTestServer("pglite", {
      privacyJobEnabled: false,
      signUpEnabled: true,
      allowPrivateWebhookTargets: true,
      webhookDeliveryEnabled: false
    })
    browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox"] })
    context = await browser.newContext({ viewport: desktop })
    page = await context.newPage()
  })
  afterAll(async () => {
    await context?.close()
    await browser?.close()
    await new Promise((resolve) => receiver?.close(resolve))
    await s?.close()
  })

  it("opens / on the sign-in page, signs up and lands on the console home", async () => {
    await page.goto(`${s.baseUrl}/`)
    expect(new URL(page.url()).pathname).toBe("/sign-in")
    await look(page, "01-sign-in")
    await Promise.all([page.waitForURL((u) => u.pathname === "/console/sign-up"), page.click("text=Create an account")])
    await look(page, "02-sign-up")
    await page.fill("#name", "Grace Hopper")
    await page.fill("#email", email)
    await page.fill("#password", "correct horse battery staple")
    await Promise.all([page.waitForURL((u) => u.pathname === "/console"), page.click("button[type=submit]")])
    expect(await page.textContent("h1")).toBe("Your organizations and projects")
    await look(page, "03-home-empty")
  })

  it("creates an organization, invites a member, and creates a project after checking its slug", async () => {
    await page.fill("#org-name", "Analytical Engines")
    await Promise.all([page.waitForURL((u) => u.pathname.startsWith("/console/organizations/")), page.click("text=Create organization")])
    expect(await page.textContent(".notice")).toBe("Created.")
    await page.fill("#invite-email", "ada@example.com")
    await page.selectOption("#invite-role", "admin")
    await submit(page, "button:has-text('Invite')")
    expect(await page.textContent("#secret-value")).toMatch(/\S{20,}/)
    expect(await page.textContent("body")).toContain("ada@example.com")
    await look(page, "04-organization")
    // A second member (joined directly), made an admin from the members table.
    const organizationId = new URL(page.url()).pathname.split("/")[3] as OrganizationId
    await s.run(Effect.gen(function*() {
      const ada = yield* Effect.flatMap(Accounts, (a) => a.create({ email: `ada.${Date.now()}@example.com` }))
      yield* (yield* OrganizationsRepo).addMember({ organizationId, accountId: ada.accountId, role: "member", now: yield* DateTime.now })
    }))
    await page.goto(`${s.baseUrl}/console/organizations/${organizationId}`)
    const adaRow = page.locator("tr:has-text('ada.')")
    await adaRow.locator("select[name=role]").selectOption("admin")
    await submit(page, "tr:has-text('ada.') >> button:has-text('Change role')")
    expect(await page.textContent(".notice")).toBe("Saved.")
    expect(await adaRow.locator("select[name=role]").inputValue()).toBe("admin")
    await look(page, "04b-organization-role")
    // The last owner cannot step down: the page says why and nothing changes.
    const myRow = page.locator(`tr:has-text('${email}')`)
    await myRow.locator("select[name=role]").selectOption("member")
    await submit(page, `tr:has-text('${email}') >> button:has-text('Change role')`)
    expect(await page.textContent(".message")).toContain("last owner")
    const role = await s.run(Effect.gen(function*() {
      const me = Option.getOrThrow(yield* (yield* AccountsRepo).findByEmail(email))
      return yield* (yield* Organizations).roleIn(organizationId, me.accountId)
    }))
    expect(role).toBe("owner")
    // The organization's SSO page, empty and then with a connection whose domain waits for its TXT record.
    await Promise.all([page.waitForURL((u) => u.pathname.endsWith("/sso")), page.click("text=SSO settings")])
    expect(await page.textContent("h1")).toBe("Single sign-on")
    await look(page, "04c-organization-sso-empty")
    await s.run(Effect.gen(function*() {
      yield* (yield* SsoRepo).saveConnection({
        organizationId,
        issuer: "https://idp.example.com",
        clientId: "switchboard",
        clientSecretSealed: "sealed",
        domains: [{ domain: "engines.example", state: "pending", verificationToken: "sb-sso=browser-test-token" }],
        jitEnabled: true,
        desiredEnforced: true,
        enforced: false,
        state: "ready",
        lastError: null,
        generation: 1,
        version: 1,
        changedAt: yield* DateTime.now
      }, null)
    }))
    await page.goto(`${s.baseUrl}/console/organizations/${organizationId}/sso?intent=domain_verification&returnTo=%2Fconsole#domains`)
    expect(await page.textContent("table")).toContain("_switchboard-sso.engines.example")
    expect(await page.inputValue("#sso-client-secret")).toBe("")
    await look(page, "04d-organization-sso-domains")
    await page.click("nav.main >> text=Projects")
    await page.fill("#project-name", "Difference Engine")
    await page.fill("#project-slug", "difference-engine")
    // The script checks the slug as it is typed.
    await page.waitForFunction(() => (globalThis as any).document.getElementById("slug-answer")?.textContent?.includes("is available"))
    await look(page, "05-new-project")
    await Promise.all([page.waitForURL((u) => /^\/console\/projects\/[0-9a-f-]{36}$/.test(u.pathname)), page.click("text=Create project")])
    projectId = new URL(page.url()).pathname.split("/").pop()!
    expect(await page.textContent("body")).toContain("difference-engine")
    // A new project lands on its overview: the getting-started checklist, nothing ticked, charts without data.
    expect(await page.textContent("h1")).toBe("Difference Engine")
    expect(await page.locator("[data-checklist] li[data-done=false]").count()).toBe(3)
    expect(await page.textContent("section:has(h2#deliveries)")).toContain("No data yet")
    // The breadcrumb and the switcher name the organization.
    expect(await page.textContent("nav.crumbs")).toContain("Analytical Engines")
    expect(await page.textContent("details.switcher summary")).toContain("Analytical Engines")
    await look(page, "05b-project-overview-new")
    // The switcher opens without script and lists the project, marked as the current one.
    await page.click("details.switcher summary")
    expect(await page.textContent("details.switcher .menu a[aria-current=page]")).toBe("Difference Engine")
    await look(page, "05c-project-switcher")
    await page.click("details.switcher summary")
  })

  it("rotates the management secret and shows it once with a copy button", async () => {
    await page.click("nav.tabs >> text=Settings")
    await look(page, "05d-project-settings")
    // The project id is selectable text; with the script, its Copy button copies it.
    await context.grantPermissions(["clipboard-read", "clipboard-write"])
    await page.click(".id button[data-copy]")
    await page.waitForSelector(".id button[data-copy]:has-text('Copied')")
    expect(await page.evaluate(() => (globalThis as any).navigator.clipboard.readText())).toBe(projectId)
    await submit(page, "text=Rotate the management secret")
    const secret = (await page.textContent("#secret-value"))!.trim()
    expect(secret.length).toBeGreaterThan(20)
    await page.click("button[data-copy=secret-value]")
    // The label changes once the clipboard write has resolved (a promise in the page): wait for it.
    await page.waitForSelector("button[data-copy=secret-value]:has-text('Copied')")
    expect(await page.textContent("button[data-copy=secret-value]")).toBe("Copied")
    await look(page, "06-project-secret")
    // It is the project's management secret now.
    expect(await s.run(Effect.flatMap(ProjectsService, (p) => p.verifySecret(projectId as ProjectId, Redacted.make(secret))))).toBe(true)
  })

  it("creates an API key with permissions (secret shown once) and revokes it", async () => {
    await page.click("nav.tabs >> text=API keys")
    await page.fill("#key-name", "ci deploys")
    await page.check("#new-events-read")
    await submit(page, "text=Create key")
    expect(await page.textContent("#secret-value")).toMatch(/^\s*sb_/)
    await look(page, "07-api-keys")
    // The permissions open under the key, in a grid with what each allows.
    await page.click("summary:has-text('Change permissions')")
    await look(page, "07b-api-key-permissions")
    // The overview ticks the first step now.
    await page.click("nav.tabs >> text=Overview")
    expect(await page.getAttribute("[data-step=api-key]", "data-done")).toBe("true")
    expect(await page.getAttribute("[data-step=webhook]", "data-done")).toBe("false")
    await page.click("nav.tabs >> text=API keys")
    await submit(page, "text=Revoke ci deploys")
    expect(await page.textContent(".notice")).toBe("Revoked.")
    expect(await page.textContent("body")).toContain("No keys yet.")
    await look(page, "07c-api-keys-empty")
  })

  it("adds a webhook destination, shows a dead letter in the delivery log, retries it and sends a test event", async () => {
    await page.click("nav.tabs >> text=Webhooks")
    expect(await page.textContent("section:has(h2#endpoints)")).toContain("No webhooks yet.")
    await look(page, "07d-webhooks-empty")
    await page.fill("#dest-name", "Receiver")
    await page.fill("#dest-url", receiverUrl)
    await submit(page, "text=Add destination")
    expect(await page.textContent("#secret-value")).toMatch(/^\s*whsec_/)
    await page.click("text=Delivery log")
    expect(await page.textContent("section:has(h2#log)")).toContain("No data yet")
    await look(page, "07e-endpoint-empty")
    await submit(page, "text=Send a test event")
    expect(await page.textContent(".notice")).toBe("A test event is on its way.")
    // The engine, driven by hand: the receiver answers 400, which is not retried: dead-lettered.
    await deliver()
    await page.reload()
    expect(await page.textContent("table")).toContain("dead-lettered")
    expect(await page.textContent("table")).toContain("HTTP 400")
    await look(page, "08-delivery-log-dead-letter")
    // The overview counts the failing webhook and names it.
    await page.click("nav.tabs >> text=Overview")
    expect(await page.textContent("section:has(h2#failing) table")).toContain("Receiver")
    expect(await page.textContent(".stat:has-text('Failing webhooks') .value")).toBe("1")
    await look(page, "08b-project-overview-failing")
    await page.goBack()
    failDeliveries = false
    await submit(page, "button:has-text('Retry webhook.test')")
    expect(await page.textContent(".notice")).toBe("The delivery is queued again.")
    await deliver()
    await page.reload()
    expect(await page.textContent("table")).toContain("HTTP 200")
    expect(received.length).toBeGreaterThanOrEqual(2)
    // The deliveries per hour, drawn by the server: the chart's description gives the totals.
    expect(await page.textContent("#deliveries-per-hour-d")).toMatch(/^Last 24 hours: [1-9]\d* delivered, .*busiest hour [1-9]/)
    await look(page, "09-delivery-log-delivered")
    await page.click("nav.tabs >> text=Webhooks")
    await page.fill("#mgmt-url", receiverUrl.replace("/hooks", "/management"))
    await submit(page, "text=Add management webhook")
    expect(await page.textContent("body")).toContain("Management webhook")
    await look(page, "10-webhooks")
  })

  it("lists recent events with their payloads, and the deliveries", async () => {
    await page.click("nav.tabs >> text=Events")
    expect(await page.textContent("body")).toContain("webhook.test")
    await page.click("summary:has-text('Payload of api_key.revoked')")
    expect(await page.textContent("details[open] pre")).toContain("ci deploys")
    await look(page, "11-events")
  })

  it("shows calls with a status timeline and DTMF, the profiles, and assigns a line's profile", async () => {
    const account = await s.run(Effect.flatMap(AccountsRepo, (a) => a.findByEmail(email)))
    const accountId = Option.getOrThrow(account).accountId
    const principal = principalOf({ _tag: "Session", accountId, session: { sessionId: "browser-test" } as never })
    const pid = projectId as ProjectId
    // No profile yet: the page says what a profile is and makes the default one here.
    await page.click("nav.tabs >> text=Voice")
    expect(await page.textContent("section:has(h2#profiles)")).toContain("No voice profiles yet.")
    expect(await page.textContent("section:has(h2#calls)")).toContain("No data yet")
    await look(page, "17b-voice-empty")
    await submit(page, "text=Create the default profile")
    expect(await page.textContent(".notice")).toBe("Created.")
    await page.fill("#profile-name", "Support desk")
    await submit(page, "text=Add profile")
    expect(await page.textContent("table:has(caption:text('Voice profiles'))")).toContain("Support desk")
    const { callId, profileId } = await s.run(Effect.gen(function*() {
      const profiles = yield* VoiceProfiles
      const profile = (yield* profiles.list(pid, principal, { pageSize: 10 })).profiles.find((p) => p.isDefault)!
      yield* Effect.flatMap(Lines, (l) => l.allocate({ projectId, platform: "voice" }))
      const callId = newId(IdKinds.call)
      const sig = signalsOf(callId, projectId, profile.profileId, Date.now() - 60_000)
      const wire = [sig.started(), sig.at("ringing", 1), sig.at("answered", 3), sig.at("connected", 4), sig.dtmf("4", 0), sig.dtmf("2", 800), sig.ended("completed", 20)]
      yield* (yield* Calls).ingest(pid, principal, wire.map((w) => Schema.decodeUnknownSync(CallSignal)(w)))
      return { callId, profileId: profile.profileId }
    }))
    expect(profileId).toBeDefined()
    voice = { profileId, principal }
    await page.reload()
    expect(await page.textContent("body")).toContain("Support desk")
    await page.selectOption("select[name=profileId]", { label: "Support desk" })
    await submit(page, "button:has-text('Assign')")
    expect(await page.textContent(".notice")).toBe("Saved.")
    expect(await page.textContent("table:has(caption:text('Lines and their profiles'))")).toContain("Support desk")
    await look(page, "18-voice")
    await Promise.all([page.waitForURL((u) => u.pathname.endsWith(callId)), page.click(`a[href$='${callId}']`)])
    expect(await page.textContent("svg.chart desc")).toContain("connected at +4.0 s")
    expect(await page.textContent("body")).toContain("Key presses (DTMF)")
    await look(page, "19-call")
    // The voice page's calls per hour (SVG, drawn by the server) counts the call.
    await page.click("nav.tabs >> text=Voice")
    expect(await page.textContent("#calls-per-hour-d")).toMatch(/^Last 24 hours: .*busiest hour [1-9]/)
    // The call's events reached the management webhook too: its own delivery log.
    await deliver()
    await page.click("nav.tabs >> text=Webhooks")
    await page.click("tr:has-text('Management webhook') >> text=Delivery log")
    expect(await page.textContent("h2#log")).toBe("Delivery log")
    expect(await page.textContent("table:has(caption:text('Deliveries'))")).toMatch(/call\.[\s\S]*HTTP 200/)
    await look(page, "19b-management-delivery-log")
  })

  it("adds a new event to the events page as it happens (the event channel, from the page's script)", async () => {
    await page.click("nav.tabs >> text=Events")
    await page.waitForFunction(() => (globalThis as any).document.querySelector("[data-live-status]")?.textContent?.startsWith("Live:"))
    const before = await page.locator("tbody tr").count()
    const callId = newId(IdKinds.call)
    await s.run(Effect.gen(function*() {
      const sig = signalsOf(callId, projectId, voice!.profileId, Date.now() - 5_000)
      yield* (yield* Calls).ingest(projectId as ProjectId, voice!.principal, [Schema.decodeUnknownSync(CallSignal)(sig.started())])
    }))
    await page.waitForSelector("tr.fresh")
    expect(await page.textContent("tr.fresh")).toContain("call.")
    expect(await page.locator("tbody tr").count()).toBeGreaterThan(before)
    await look(page, "11b-events-live")
  })

  it("previews a plan change before confirming it, then shows the operation", async () => {
    await page.click("nav.tabs >> text=Billing")
    await look(page, "20-billing")
    const options = await page.locator("#plan option").evaluateAll((os) => os.map((o) => (o as unknown as { value: string }).value))
    expect(options.length).toBeGreaterThan(1)
    await page.selectOption("#plan", options[options.length - 1]!)
    await submit(page, "text=Preview the change")
    expect(await page.textContent(".notice")).toBe("Nothing changes until you confirm.")
    expect(await page.textContent("body")).toContain("Due now")
    await look(page, "21-billing-preview")
    await submit(page, "text=Confirm the change")
    expect(new URL(page.url()).searchParams.get("operation")).toMatch(/\S/)
    expect(await page.textContent("[role=status]")).toMatch(/^Plan change \S+: (pending|succeeded|failed)/)
    await look(page, "22-billing-operation")
    const operationId = new URL(page.url()).searchParams.get("operation")!
    expect(await page.textContent("table:has(caption:text('Billing operations'))")).toContain(operationId)
    // The last plan (Voice Growth) is paid in arrears: nothing is due now, so no invoice yet.
    expect(await page.textContent("section:has(h2#invoices)")).toMatch(/Invoices of the organization[\s\S]*No invoices yet\./)
    // A card through the simulated checkout, then back on the billing page.
    const billingUrl = page.url()
    await Promise.all([page.waitForURL((u) => u.pathname.startsWith("/billing/checkout/")), page.click("text=Add a card")])
    await submit(page, "text=Save card")
    expect(await page.textContent("body")).toContain("is now the card on file")
    await page.goto(billingUrl)
    expect(await page.textContent("body")).toMatch(/ending \d{4}/)
    // With the card, an upgrade to a plan paid in advance is charged now and its invoice is listed.
    await page.selectOption("#plan", "messaging:messaging_pro_monthly")
    await submit(page, "text=Preview the change")
    const dueNow = (await page.textContent("dt:text('Due now') + dd"))!.trim()
    await submit(page, "text=Confirm the change")
    for (let i = 0; i < 100 && /: pending\./.test((await page.textContent("[role=status]")) ?? ""); i++) {
      await page.waitForTimeout(50)
      await page.reload()
    }
    expect(await page.textContent("[role=status]")).toMatch(/^Plan change \S+: succeeded\./)
    const row = page.locator("section:has(h2#invoices) tbody tr")
    expect(await row.count()).toBe(1)
    const cells = (await row.locator("td").allTextContents()).map((c) => c.trim())
    expect([cells[2], cells[3], cells[4]]).toEqual(["subscription", dueNow, "succeeded"])
    await look(page, "23-billing-invoice")
  })

  it("shows the project's overview with its activity, and the checklist done once a key exists again", async () => {
    await page.click("nav.tabs >> text=Overview")
    expect(await page.getAttribute("[data-step=webhook]", "data-done")).toBe("true")
    expect(await page.getAttribute("[data-step=test-event]", "data-done")).toBe("true")
    expect(await page.textContent("section:has(h2#plan)")).toMatch(/Messaging Pro|Voice Growth|messaging/i)
    expect(await page.textContent("#deliveries-per-hour-d")).toMatch(/^Last 24 hours: [1-9]\d* delivered/)
    await page.click("[data-step=api-key] a")
    await page.fill("#key-name", "production server")
    await submit(page, "text=Create key")
    // The key's first requests, counted toward the project once the process flushed its counts.
    const key = (await page.textContent("#secret-value"))!.trim()
    for (let i = 0; i < 3; i++) await fetch(`${s.baseUrl}/v1/projects/${projectId}`, { headers: { authorization: `Bearer ${key}` } })
    await s.run(Effect.flatMap(RequestCounter, (c) => c.flush))
    await page.click("nav.tabs >> text=Overview")
    expect(await page.locator("[data-checklist]").count()).toBe(0)
    expect(Number(await page.textContent(".stat:has-text('Requests, last 24 h') .value"))).toBeGreaterThanOrEqual(3)
    expect(await page.textContent("#requests-per-hour-d")).toMatch(/^Last 24 hours: \d+ answered \(2xx, 3xx\), \d+ refused \(4xx\), 0 failed \(5xx\)/)
    expect(Number(await page.textContent(".stat:has-text('Events, last 24 h') .value"))).toBeGreaterThan(0)
    await look(page, "24-project-overview-data")
  })

  it("creates a service key (shown once) on the account's page", async () => {
    await page.click("nav.main >> text=Account")
    expect(await page.getAttribute("nav.tabs a[aria-current=page]", "href")).toBe("/console/account/keys")
    await page.fill("#sk-name", "laptop")
    await page.fill("#sk-days", "30")
    await submit(page, "text=Create service key")
    expect(await page.textContent("#secret-value")).toMatch(/^\s*sb_/)
    await look(page, "12-service-keys")
  })

  it("creates an OAuth app with redirect URIs and scopes (secret shown once) and rotates the secret", async () => {
    await page.click("header >> text=OAuth apps")
    await page.fill("#app-name", "Babbage CLI")
    await page.fill("#app-redirects", "https://babbage.example/callback\nhttp://127.0.0.1:8976/cb")
    await page.check("input[name=scopes][value='projects:read']")
    await submit(page, "text=Create app")
    const first = (await page.textContent("#secret-value"))!.trim()
    expect(await page.textContent("body")).toContain("https://babbage.example/callback")
    await submit(page, "text=Rotate the secret of Babbage CLI")
    const second = (await page.textContent("#secret-value"))!.trim()
    expect(second).not.toBe(first)
    await look(page, "13-oauth-apps")
  })

  it("enrols TOTP from a server-drawn QR code", async () => {
    await page.click("header >> text=Security")
    await submit(page, "text=Set up an authenticator app")
    expect(await page.locator(".qr svg path").count()).toBeGreaterThan(0)
    await look(page, "14-totp-qr")
    const secret = (await page.textContent("#totp-secret"))!.trim()
    const code = await Effect.runPromise(totp(decodeBase32Rfc4648(secret)!, Date.now()))
    await page.fill("#totp-code", code)
    await submit(page, "text=Turn on")
    expect(await page.textContent(".notice")).toBe("Two-factor authentication is on.")
    await look(page, "15-security")
  })

  it("uploads a profile picture and goes back to the default one", async () => {
    // The smallest PNG: one transparent pixel.
    const png = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==", "base64")
    await page.setInputFiles("#picture", { name: "me.png", mimeType: "image/png", buffer: png })
    await submit(page, "text=Upload the picture")
    expect(await page.textContent(".notice")).toBe("Saved.")
    const src = await page.getAttribute("img[alt='Your profile picture']", "src")
    expect(src).toMatch(/\/v1\/files\/\S+\.png$/)
    // The stored file is the picture (served where the versioned API serves files).
    const file = await fetch(`${s.baseUrl}${new URL(src!).pathname}`)
    expect(file.headers.get("content-type")).toBe("image/png")
    expect(Buffer.from(await file.arrayBuffer())).toEqual(png)
    await look(page, "15b-profile-picture")
    // Not an image: refused, the picture stays.
    await page.setInputFiles("#picture", { name: "notes.png", mimeType: "image/png", buffer: Buffer.from("not a picture") })
    await submit(page, "text=Upload the picture")
    expect(await page.textContent(".message")).toMatch(/\S/)
    expect(await page.getAttribute("img[alt='Your profile picture']", "src")).toBe(src)
    await submit(page, "text=Use the default picture")
    expect(await page.getAttribute("img[alt='Your profile picture']", "src")).not.toBe(src)
  })

  it("shows the installations page, an app's installation keys, the problem catalog and a problem page", async () => {
    await page.click("nav.main >> text=Installations")
    expect(await page.textContent("body")).toContain("No pending installation requests.")
    await look(page, "25-installations")
    await page.goto(`${s.baseUrl}/console/account/apps`)
    await page.click("text=Installation keys of Babbage CLI")
    expect(await page.textContent("h1")).toBe("Installation keys")
    await look(page, "26-installation-keys")
    await page.goto(`${s.baseUrl}/console/projects/sb_prj_01jdm8v6q0r5x3k2w9c7t4b1ze`)
    await look(page, "27-not-found")
    await page.goto(`${s.baseUrl}/problems/catalog`)
    expect(await page.textContent("h1")).toBe("Problem types")
    await look(page, "28-problem-catalog")
    await Promise.all([page.waitForURL((u) => u.pathname === "/problems/validation-failed"), page.click("text=VALIDATION_FAILED")])
    expect(await page.textContent("body")).toContain("422")
    await look(page, "29-problem-page")
    await page.goto(`${s.baseUrl}/console`)
    await look(page, "30-home")
  })

  it("signs out back to the sign-in page", async () => {
    await Promise.all([page.waitForURL((u) => u.pathname === "/sign-in"), page.click("text=Sign out")])
    await page.goto(`${s.baseUrl}/console`)
    expect(new URL(page.url()).pathname).toBe("/sign-in")
  })

  it("works on a narrow screen", async () => {
    const phone = await browser.newContext({ viewport: { width: 390, height: 800 } })
    const p = await phone.newPage()
    await p.goto(`${s.baseUrl}/console/sign-up`)
    await look(p, "16-sign-up-narrow")
    await p.fill("#email", `narrow.${Date.now()}@example.com`)
    await p.fill("#password", "correct horse battery staple")
    await Promise.all([p.waitForURL((u) => u.pathname === "/console"), p.click("button[type=submit]")])
    await p.fill("#org-name", "Pocket")
    await Promise.all([p.waitForURL((u) => u.pathname.startsWith("/console/organizations/")), p.click("text=Create organization")])
    await look(p, "17-organization-narrow")
    // Nothing is wider than the screen.
    expect(await p.evaluate(() => (globalThis as any).document.documentElement.scrollWidth)).toBeLessThanOrEqual(390)
    await phone.close()
  })
})
