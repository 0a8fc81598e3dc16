/**
 * Invoice numbers as a customer sees them: only visible (non-zero) invoices take a number, so an
 * organization's listed invoices run -00001, -00002, … without gaps, whatever zero-total invoices
 * (an opening period with nothing to bill, a charge covered by credits) were recorded between them.
 */
import { describe, expect, it } from "@effect/vitest"
import { SwitchboardCore } from "@switchboard/core"
import { BillingRepo, type PreviewLine } from "@switchboard/core/billing"
import { formatTypeId, IdKinds, Ids, OrganizationId, uuidv7Bytes } from "@switchboard/core/shared"
import { TestkitLive } from "@switchboard/testkit"
import { DateTime, Effect, Layer } from "effect"
import { makeBillingInvoices } from "../../src/billing/BillingInvoices.js"

const Env = Layer.mergeAll(SwitchboardCore, Ids.layer).pipe(Layer.provideMerge(TestkitLive))

const line = (amountCents: number): PreviewLine => ({
  amountCents, code: "base", kind: "subscription", name: "Base", periodStart: null, periodEnd: null, units: "1"
})

describe("invoice numbers", () => {
  it.effect("zero-total invoices are not numbered: the visible ones are gapless from -00001", () =>
    Effect.gen(function*() {
      const repo = yield* BillingRepo
      const invoices = yield* makeBillingInvoices
      const organizationId = OrganizationId.make(formatTypeId(IdKinds.organization, uuidv7Bytes(Date.now(), crypto.getRandomValues(new Uint8Array(10)))))
      const issuedAt = yield* DateTime.now
      const totals = [0, 2900, 0, 0, 700, 0, 1500]
      const numbers: Array<string> = []
      for (const [i, total] of totals.entries()) {
        const account = yield* repo.lockAccount(organizationId)
        const { invoice } = yield* invoices.issueInvoice({
          account, projectId: null, kind: "subscription", uniqueKey: `test:${organizationId}:${i}`, issuedAt,
          currency: "usd", lines: total === 0 ? [] : [line(total)], creditsCents: 0, applyBalance: false
        })
        numbers.push(invoice.number.split("-")[1]!)
      }
      expect(numbers).toEqual(["00000", "00001", "00000", "00000", "00002", "00000", "00003"])
      const listed = yield* repo.listInvoices(organizationId)
      expect(listed.map((i) => i.number.split("-")[1]).sort()).toEqual(["00001", "00002", "00003"])
    }).pipe(Effect.provide(Env)))
})
