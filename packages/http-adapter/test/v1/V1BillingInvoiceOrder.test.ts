/**
 * A paid plan change's invoice is listed by the time its operation reads `succeeded`: the
 * operation's success and its invoice commit together, so no poll of the operation can see
 * `succeeded` while the organization's invoice list still lacks the invoice. Each round runs the
 * operation in the background and polls it over HTTP meanwhile; the first read of `succeeded` is
 * followed at once by the invoice list. Two paths: a card that charges off-session (the operation
 * applies as it runs) and a card that needs the customer (the operation waits; the provider's page
 * reports the payment while the operation is polled). On PGlite (one connection) a poll waits for
 * the operation's transaction; on PostgreSQL the polls read it pending while it runs.
 */
import { BillingService } from "@switchboard/core/billing"
import { testBackends } from "@switchboard/sql-adapter"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { httpClient } from "../support/HttpClient.js"
import { startTestServer, type TestServer } from "../support/TestServer.js"

let seq = 0
const idem = () => `invoice-order-${Date.now()}-${++seq}`

/** Rounds per path: enough interleavings to catch a gap, few enough for a busy machine. */
const rounds = 8
/** Polls of the operation per round before giving up on seeing it resolve. */
const maxPolls = 5_000

for (const backend of testBackends()) {
  describe(`a paid plan change's invoice is listed once its operation succeeded (${backend})`, () => {
    let s: TestServer
    beforeAll(async () => {
      s = await startTestServer(backend, { billingSchedulerEnabled: false })
    })
    afterAll(() => s.close())
    const call = httpClient(() => s)

    const newOrganizationWithCard = async (card: string) => {
      const org = await call("/v1/organizations", { method: "POST", json: { name: "Invoice order" } })
      expect(org.res.status, org.text).toBe(201)
      const organizationId = org.body.organizationId as string
      const checkout = await call(`/v1/organizations/${organizationId}/billing/checkout`, { method: "POST" })
      expect(checkout.res.status, checkout.text).toBe(200)
      const path = new URL(checkout.body.checkoutUrl).pathname
      const csrf = /name="csrf" value="([^"]+)"/.exec(await (await fetch(`${s.baseUrl}${path}`)).text())![1]!
      const saved = await fetch(`${s.baseUrl}${path}`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ csrf, card }).toString()
      })
      expect(saved.status).toBe(200)
      return organizationId
    }
    const newProject = async (organizationId: string) => {
      const r = await call(`/v1/organizations/${organizationId}/projects`, {
        method: "POST",
        json: { name: "Billed", slug: `order-${Date.now().toString(36)}-${(++seq).toString(36)}x` },
        idem: idem()
      })
      expect(r.res.status, r.text).toBe(201)
      return r.body.projectId as string
    }
    const purchase = async (organizationId: string, projectId: string) => {
      const r = await call(`/v1/organizations/${organizationId}/billing/projects/${projectId}/purchase`, {
        method: "POST",
        json: { category: "messaging", planCode: "messaging_pro_monthly" },
        idem: idem()
      })
      expect(r.res.status, r.text).toBe(202)
      return r.body.operationId as string
    }
    const projectInvoices = async (organizationId: string, projectId: string) => {
      const r = await call(`/v1/organizations/${organizationId}/billing/invoices`)
      expect(r.res.status, r.text).toBe(200)
      return (r.body.invoices as Array<{ totalCents: number; subjects: Array<{ type: string; projectId?: string }> }>)
        .filter((i) => i.subjects.some((x) => x.type === "project" && x.projectId === projectId))
    }
    /**
     * Polls the operation while `background` runs; at its first `succeeded`, lists the invoices.
     * Returns how many of the project's invoices were listed then (or a note of what went wrong).
     */
    const invoicesAtSuccess = async (organizationId: string, projectId: string, operationId: string, background: Promise<unknown>) => {
      let settled = false
      const done = background.finally(() => {
        settled = true
      })
      let seen: number | string = "the operation never read succeeded"
      for (let i = 0; i < maxPolls; i++) {
        const wasSettled = settled
        const op = await call(`/v1/projects/${projectId}/billing/operations/${operationId}`)
        if (op.body.status === "succeeded") {
          seen = (await projectInvoices(organizationId, projectId)).length
          break
        }
        if (op.body.status === "failed") {
          seen = `the operation failed: ${JSON.stringify(op.body.failure)}`
          break
        }
        // Resolved in the background before this read and still pending: it will not succeed.
        if (wasSettled) break
      }
      await done
      return seen
    }

    it(`off-session charge: ${rounds} rounds, the invoice is listed at the first read of succeeded`, async () => {
      const organizationId = await newOrganizationWithCard("4242424242424242")
      const seen: Array<number | string> = []
      for (let round = 0; round < rounds; round++) {
        const projectId = await newProject(organizationId)
        const operationId = await purchase(organizationId, projectId)
        const running = s.run(BillingService.use((billing) => billing.process(operationId)))
        seen.push(await invoicesAtSuccess(organizationId, projectId, operationId, running))
      }
      expect(seen).toEqual(Array.from({ length: rounds }, () => 1))
    }, 300_000)

    it(`payment on the provider's page: ${rounds} rounds, the invoice is listed at the first read of succeeded`, async () => {
      const organizationId = await newOrganizationWithCard("4000002760003184")
      const seen: Array<number | string> = []
      for (let round = 0; round < rounds; round++) {
        const projectId = await newProject(organizationId)
        const operationId = await purchase(organizationId, projectId)
        const waiting = await s.run(BillingService.use((billing) => billing.process(operationId)))
        expect(waiting.status).toBe("pending")
        const overview = await call(`/v1/projects/${projectId}/billing`)
        const payPath = new URL(overview.body.subscriptions[0].scheduledChange.paymentUrl).pathname
        const csrf = /name="csrf" value="([^"]+)"/.exec(await (await fetch(`${s.baseUrl}${payPath}`)).text())![1]!
        const paying = fetch(`${s.baseUrl}${payPath}`, {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams({ csrf, decision: "approve" }).toString()
        }).then((r) => {
          expect(r.status).toBe(200)
        })
        seen.push(await invoicesAtSuccess(organizationId, projectId, operationId, paying))
      }
      expect(seen).toEqual(Array.from({ length: rounds }, () => 1))
    }, 300_000)
  })
}
