/**
 * The documented order of every /v1 list is the order the server answers in. Every GET operation
 * of `/openapi.json` whose description states an order ("newest first", "oldest first", "ordered
 * by …") must have a case in `cases` below — an order-stating operation without one fails the
 * suite, so a new list cannot go unchecked. Each case creates two items over HTTP on a real
 * server (the second after the first), lists them, and compares their order with the one the
 * description states; where the description names filters, one filter is checked to narrow.
 */
import { BillingService } from "@switchboard/core/billing"
import { testBackends } from "@switchboard/sql-adapter"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type CallResult, httpClient } from "../support/HttpClient.js"
import { imessageTestAdapters } from "../support/ImessageHttp.js"
import { messagesPath, factsOf, newMessageId } from "../support/MessagesHttp.js"
import { runWorker } from "../support/PlatformsHttp.js"
import { startTestServer, type TestServer } from "../support/TestServer.js"
import { idem, newId, newProject, signalsOf, unique, voicePath } from "../support/VoiceHttp.js"
import { inbound, whatsappSwitches, whatsappTestAdapters } from "../support/WhatsappHttp.js"

/** Words that state a list's order. */
const STATES_ORDER = /\b(newest|oldest|latest|earliest|most recent)[ -]first\b|\bordered by\b|\bsorted by\b|\b(ascending|descending) order\b/i

type Order = "oldest first" | "newest first"

/** The order a description states for its list (or undefined when it names it differently). */
const statedOrder = (description: string): Order | undefined => {
  if (/\bnewest first\b/i.test(description)) return "newest first"
  if (/\boldest first\b/i.test(description)) return "oldest first"
  return undefined
}

/** Expects `listed` (ids as the list gave them) to hold `first` and `second` (created in that order) in `order`. */
const expectOrder = (what: string, listed: ReadonlyArray<string>, first: string, second: string, order: Order) => {
  const pair = listed.filter((id) => id === first || id === second)
  expect(pair, `${what}: both items listed`).toHaveLength(2)
  expect(pair, `${what} is documented "${order}"`).toEqual(order === "oldest first" ? [first, second] : [second, first])
}

const ok = (r: CallResult, status = 200) => {
  expect(r.res.status, r.text).toBe(status)
  return r.body
}

/** A pause between two creations, so the second is created in a later millisecond than the first. */
const later = () => new Promise((resolve) => setTimeout(resolve, 5))

interface Servers {
  /** A server with the WhatsApp test adapters (the platform's too) and the billing scheduler off. */
  readonly main: TestServer
  /** A server with the iMessage test pool. */
  readonly imessage: TestServer
}

type Case = (servers: Servers, description: string) => Promise<void>

const order = (description: string): Order => {
  const stated = statedOrder(description)
  if (stated === undefined) throw new Error(`the description states no order this case reads: ${description}`)
  return stated
}

/** A fresh project of the main server's admin account (one call helper per server). */
const projectOn = (s: TestServer) => newProject(s, httpClient(() => s))

const cases: Record<string, Case> = {
  "projects.listProjects": async ({ main }, description) => {
    const call = httpClient(() => main)
    const organizationId = ok(await call("/v1/organizations", { method: "POST", json: { name: "Orders" } }), 201).organizationId
    const create = async (name: string) =>
      ok(await call(`/v1/organizations/${organizationId}/projects`, { method: "POST", json: { name, slug: unique("orders") }, idem: idem() }), 201)
        .projectId as string
    const a = await create("Alpha orders")
    await later()
    const b = await create("Beta orders")
    const list = ok(await call(`/v1/organizations/${organizationId}/projects`))
    expectOrder("listProjects", list.projects.map((p: any) => p.projectId), a, b, order(description))
    // `query` narrows by name.
    const found = ok(await call(`/v1/organizations/${organizationId}/projects?query=Beta`))
    expect(found.projects.map((p: any) => p.projectId)).toEqual([b])
  },

  "voice.listVoiceProfiles": async ({ main }, description) => {
    const call = httpClient(() => main)
    const p = await projectOn(main)
    const profiles = `${voicePath(p)}/profiles`
    const a = ok(await call(`${profiles}/default`, { method: "PUT", json: { protocol: "sip" } }), 201).profileId as string
    await later()
    const b = ok(await call(profiles, { method: "POST", json: { name: "Sales", protocol: "sip" } }), 201).profileId as string
    expectOrder("listVoiceProfiles", ok(await call(profiles)).profiles.map((x: any) => x.profileId), a, b, order(description))
    expect(ok(await call(`${profiles}?default=true`)).profiles.map((x: any) => x.profileId)).toEqual([a])
  },

  "voice.listCalls": async ({ main }, description) => {
    const call = httpClient(() => main)
    const p = await projectOn(main)
    const profileId = ok(await call(`${voicePath(p)}/profiles/default`, { method: "PUT", json: { protocol: "sip" } }), 201).profileId
    const start = async (direction: "inbound" | "outbound", base: number) => {
      const callId = newId("call")
      const r = ok(await call(`${voicePath(p)}/calls/signals`, { method: "POST", json: { signals: [signalsOf(callId, p, profileId, base).started(direction)] } }))
      expect(r.results[0].outcome, JSON.stringify(r)).toBe("applied")
      return callId
    }
    const a = await start("inbound", Date.UTC(2031, 0, 1))
    await later()
    const b = await start("outbound", Date.UTC(2031, 0, 2))
    expectOrder("listCalls", ok(await call(`${voicePath(p)}/calls`)).calls.map((c: any) => c.id), a, b, order(description))
    expect(ok(await call(`${voicePath(p)}/calls?direction=outbound`)).calls.map((c: any) => c.id)).toEqual([b])
  },

  "billing.listInvoices": async ({ main }, description) => {
    const call = httpClient(() => main)
    const organizationId = ok(await call("/v1/organizations", { method: "POST", json: { name: "Invoiced" } }), 201).organizationId as string
    // A card through the simulated checkout page.
    const checkout = ok(await call(`/v1/organizations/${organizationId}/billing/checkout`, { method: "POST" }))
    const page = new URL(checkout.checkoutUrl).pathname
    const csrf = /name="csrf" value="([^"]+)"/.exec(await (await fetch(`${main.baseUrl}${page}`)).text())?.[1]
    const saved = await fetch(`${main.baseUrl}${page}`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ csrf: csrf!, card: "4242424242424242" }).toString()
    })
    expect(saved.status).toBe(200)
    /** An upgrade of a new project of the organization, charged now: one invoice. */
    const invoiced = async () => {
      const projectId = ok(await call(`/v1/organizations/${organizationId}/projects`, { method: "POST", json: { name: "Billed", slug: unique("billed") }, idem: idem() }), 201)
        .projectId as string
      const before = new Set(ok(await call(`/v1/organizations/${organizationId}/billing/invoices`)).invoices.map((i: any) => i.invoiceId))
      const op = ok(
        await call(`/v1/organizations/${organizationId}/billing/projects/${projectId}/purchase`, {
          method: "POST",
          json: { category: "messaging", planCode: "messaging_pro_monthly" },
          idem: idem()
        }),
        202
      )
      await main.run(BillingService.use((billing) => billing.process(op.operationId)))
      const fresh = ok(await call(`/v1/organizations/${organizationId}/billing/invoices`)).invoices.filter((i: any) => !before.has(i.invoiceId))
      expect(fresh, "one new invoice per upgrade").toHaveLength(1)
      return fresh[0].invoiceId as string
    }
    const a = await invoiced()
    await later()
    const b = await invoiced()
    expectOrder("listInvoices", ok(await call(`/v1/organizations/${organizationId}/billing/invoices`)).invoices.map((i: any) => i.invoiceId), a, b, order(description))
  },

  "webhooks.listWebhookDeliveries": async ({ main }, description) => {
    const call = httpClient(() => main)
    const p = await projectOn(main)
    const destination = ok(
      await call(`/v1/projects/${p}/webhooks/destinations`, {
        method: "POST",
        json: { name: "orders", url: "https://orders.example.invalid/hook", enabledEvents: ["*"], apiVersion: "2026-07-01" },
        idem: idem()
      }),
      201
    )
    const id = (destination.destination ?? destination).destinationId as string
    const testEvent = async () =>
      ok(await call(`/v1/projects/${p}/webhooks/destinations/${id}/test-events`, { method: "POST" }), 202).deliveryId as string
    const a = await testEvent()
    await later()
    const b = await testEvent()
    const list = ok(await call(`/v1/projects/${p}/webhooks/destinations/${id}/deliveries`))
    expectOrder("listWebhookDeliveries", list.deliveries.map((d: any) => d.deliveryId), a, b, order(description))
  },

  "platforms.listOperations": async ({ main }, description) => {
    const call = httpClient(() => main)
    const p = await projectOn(main)
    const buy = async () => ok(await call(`/v1/projects/${p}/platforms/sms/numbers`, { method: "POST", json: { countryCode: "US" }, idem: idem() }), 202).operationId as string
    const a = await buy()
    await runWorker(main)
    await later()
    const b = await buy()
    const operations = `/v1/projects/${p}/platforms/operations`
    expectOrder("listOperations", ok(await call(operations)).operations.map((o: any) => o.operationId), a, b, order(description))
    const aState = ok(await call(`${operations}/${a}`)).operation.state as string
    expect(ok(await call(`${operations}/${b}`)).operation.state).not.toBe(aState)
    expect(ok(await call(`${operations}?state=${aState}`)).operations.map((o: any) => o.operationId)).toEqual([a])
  },

  "whatsapp.listWhatsappSharedLineAssignments": async ({ main }, description) => {
    const call = httpClient(() => main)
    const p = await projectOn(main)
    const assignments = `/v1/projects/${p}/platforms/whatsapp/assignments`
    const saved = whatsappSwitches.maxUserAssignments
    whatsappSwitches.maxUserAssignments = 2
    try {
      const a = ok(await call(assignments, { method: "POST", json: { handle: "+14155550100" }, idem: idem() }), 201).assignmentId as string
      await later()
      const b = ok(await call(assignments, { method: "POST", json: { handle: "+14155550101" }, idem: idem() }), 201).assignmentId as string
      expectOrder("listWhatsappSharedLineAssignments", ok(await call(assignments)).assignments.map((x: any) => x.assignmentId), a, b, order(description))
      // Released ones only with includeReleased=true.
      ok(await call(`${assignments}/${a}`, { method: "DELETE" }))
      expect(ok(await call(assignments)).assignments.map((x: any) => x.assignmentId)).toEqual([b])
      expectOrder(
        "listWhatsappSharedLineAssignments?includeReleased=true",
        ok(await call(`${assignments}?includeReleased=true`)).assignments.map((x: any) => x.assignmentId),
        a,
        b,
        order(description)
      )
    } finally {
      whatsappSwitches.maxUserAssignments = saved
    }
  },

  "imessage.listSharedLineAssignments": async ({ imessage }, description) => {
    const call = httpClient(() => imessage)
    const p = await projectOn(imessage)
    const assignments = `/v1/projects/${p}/platforms/imessage/assignments`
    const a = ok(await call(assignments, { method: "POST", json: { handle: "+15550100" }, idem: idem() }), 201).assignmentId as string
    await later()
    const b = ok(await call(assignments, { method: "POST", json: { handle: "+15550101" }, idem: idem() }), 201).assignmentId as string
    expectOrder("listSharedLineAssignments", ok(await call(assignments)).assignments.map((x: any) => x.assignmentId), a, b, order(description))
    ok(await call(`${assignments}/${a}`, { method: "DELETE" }))
    expect(ok(await call(assignments)).assignments.map((x: any) => x.assignmentId)).toEqual([b])
    expectOrder(
      "listSharedLineAssignments?includeReleased=true",
      ok(await call(`${assignments}?includeReleased=true`)).assignments.map((x: any) => x.assignmentId),
      a,
      b,
      order(description)
    )
  },

  "verificationCodes.listFilteredVerificationCodes": async ({ main }, description) => {
    const call = httpClient(() => main)
    const p = await projectOn(main)
    const op = ok(await call(`/v1/projects/${p}/platforms/sms/numbers`, { method: "POST", json: { countryCode: "US" }, idem: idem() }), 202)
    await runWorker(main)
    const resourceId = ok(await call(`/v1/projects/${p}/platforms/operations/${op.operationId}`)).resource.resourceId as string
    const now = Date.now()
    await inbound(main, p, resourceId, "Your code is 111111", "sms", now - 2000)
    await inbound(main, p, resourceId, "Your code is 222222", "sms", now - 1000)
    const codes = ok(await call(`/v1/projects/${p}/platforms/filtered-otp`)).codes as ReadonlyArray<any>
    const at = (ms: number) => codes.find((c) => Date.parse(c.receivedAt) === ms)?.filteredCodeId as string
    expectOrder("listFilteredVerificationCodes", codes.map((c) => c.filteredCodeId), at(now - 2000), at(now - 1000), order(description))
    // The window: receivedAfter narrows.
    const after = new Date(now - 1500).toISOString()
    expect(ok(await call(`/v1/projects/${p}/platforms/filtered-otp?receivedAfter=${after}`)).codes.map((c: any) => c.filteredCodeId))
      .toEqual([at(now - 1000)])
  },

  "attachments.listAttachments": async ({ main }, description) => {
    expect(description).toMatch(/ordered by orderBy \(createdAt or updatedAt\) in order \(asc or desc\)/)
    const call = httpClient(() => main)
    const p = await projectOn(main)
    const upload = async () =>
      ok(await call(`/v1/projects/${p}/attachments`, { method: "POST", body: new TextEncoder().encode("a,b\n1,2\n"), headers: { "content-type": "text/csv" }, idem: idem() }), 201)
    const a = await upload()
    await later()
    const b = await upload()
    const ids = async (query: string) => ok(await call(`/v1/projects/${p}/attachments?${query}`)).items.map((x: any) => x.id) as ReadonlyArray<string>
    expectOrder("listAttachments order=asc", await ids("orderBy=createdAt&order=asc"), a.id, b.id, "oldest first")
    expectOrder("listAttachments order=desc", await ids("orderBy=createdAt&order=desc"), a.id, b.id, "newest first")
    // createdSince is inclusive.
    expect(await ids(`orderBy=createdAt&order=asc&createdSince=${encodeURIComponent(b.createdAt)}`)).toEqual([b.id])
  },

  "messages.listMessages": async ({ main }, description) => {
    const call = httpClient(() => main)
    const p = await projectOn(main)
    const send = async (platform: string, base: number) => {
      const m = newMessageId()
      const r = ok(await call(`${messagesPath(p)}/facts`, { method: "POST", json: { facts: [factsOf(m, base).dispatched(0, platform)] } }))
      expect(r.results[0].outcome, JSON.stringify(r)).toBe("applied")
      return m
    }
    const a = await send("sms", Date.UTC(2031, 0, 1))
    await later()
    const b = await send("imessage", Date.UTC(2031, 0, 2))
    expectOrder("listMessages", ok(await call(messagesPath(p))).messages.map((m: any) => m.id), a, b, order(description))
    expect(ok(await call(`${messagesPath(p)}?platform=imessage`)).messages.map((m: any) => m.id)).toEqual([b])
  }
}

for (const backend of testBackends()) {
  describe(`/v1 list orders (${backend})`, () => {
    let servers: Servers
    beforeAll(async () => {
      const main = await startTestServer(backend, { billingSchedulerEnabled: false }, whatsappTestAdapters())
      const imessage = await startTestServer(backend, { billingSchedulerEnabled: false }, imessageTestAdapters().layer)
      servers = { main, imessage }
    })
    afterAll(async () => {
      await servers.main.close()
      await servers.imessage.close()
    })

    /** The order-stating GET operations of /v1, by operationId, with their descriptions. */
    const orderStating = async (): Promise<Record<string, string>> => {
      const doc = ok(await httpClient(() => servers.main)("/openapi.json", { key: null })) as {
        paths: Record<string, Record<string, { operationId?: string; description?: string; summary?: string }>>
      }
      const found: Record<string, string> = {}
      for (const [path, operations] of Object.entries(doc.paths)) {
        const get = operations.get
        if (!path.startsWith("/v1/") || get === undefined) continue
        const description = `${get.summary ?? ""}. ${get.description ?? ""}`
        if (STATES_ORDER.test(description)) found[get.operationId ?? `GET ${path}`] = description
      }
      return found
    }

    it("every order-stating list operation has a case here, and every case an order-stating operation", async () => {
      expect(Object.keys(await orderStating()).sort(), "add a case to `cases` in ListOrders.test.ts for each new order-stating list")
        .toEqual(Object.keys(cases).sort())
    })

    for (const [operationId, check] of Object.entries(cases)) {
      it(`${operationId}: the server answers in the documented order`, async () => {
        const description = (await orderStating())[operationId]
        expect(description, `${operationId} states no order in /openapi.json`).toBeDefined()
        await check(servers, description!)
      })
    }
  })
}
