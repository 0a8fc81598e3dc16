/**
 * Billing's invoices (docs/api-notes/billing.md): issuing one — numbered, once per unique key, with
 * the account's credit balance applied — and collecting a pending one from the payment provider.
 * Used by the other billing use cases (`BillingService.ts` composes them).
 */
import { DateTime, Duration, Effect, Option, Schema } from "effect"
import type { ProjectId } from "../shared/Identifiers.js"
import { IdKinds } from "../shared/Identifiers.js"
import { Ids } from "../shared/Ids.js"
import { feesOf, safeNumber } from "./Invoicing.js"
import { big } from "./Money.js"
import type { PaymentMethodState } from "./PlanChange.js"
import { type BillingAccountRecord, BillingRepo, type ChargeOutcome, type InvoiceRecord, PaymentProvider } from "./Ports.js"
import { type Invoice, PreviewInvoice, PreviewLine } from "./Schema.js"

/** How long an `on_payment` operation waits for its payment at most (Stripe's cap; docs/api-notes/billing.md). */
export const PAYMENT_WINDOW = Duration.hours(23)

export const encodeLines = Schema.encodeSync(Schema.Array(PreviewLine))
export const decodeLines = Schema.decodeUnknownSync(Schema.Array(PreviewLine))
export const encodeInvoice = Schema.encodeSync(PreviewInvoice)
export const decodeInvoice = Schema.decodeUnknownSync(PreviewInvoice)

/** The wire invoice of a stored one. */
export const toInvoice = (inv: InvoiceRecord): Invoice => ({
  invoiceId: inv.invoiceId,
  number: inv.number,
  kind: inv.kind,
  issuedAt: inv.issuedAt,
  paymentStatus: inv.paymentStatus,
  currency: inv.currency,
  feesCents: inv.feesCents,
  creditsCents: inv.creditsCents,
  totalCents: inv.totalCents,
  pdfUrl: null,
  subjects: inv.projectId === null
    ? [{ type: "organization", organizationId: inv.organizationId }]
    : [{ type: "project", projectId: inv.projectId }],
  lines: decodeLines(inv.lines)
})

/** The payment behaviour of the account's payment method (`none` without one). */
export const paymentState = (account: BillingAccountRecord | undefined): PaymentMethodState =>
  account?.paymentMethod?.behaviour ?? "none"

export const makeBillingInvoices = Effect.gen(function*() {
  const repo = yield* BillingRepo
  const provider = yield* PaymentProvider
  const ids = yield* Ids

  /**
   * Collects one pending invoice (tried once): a card usable off-session is charged with the
   * invoice id as reference; a decline marks it failed; a card that needs the customer, or none,
   * leaves it pending.
   */
  const collectInvoice = (invoice: InvoiceRecord, now: DateTime.Utc) =>
    Effect.gen(function*() {
      const account = Option.getOrUndefined(yield* repo.findAccount(invoice.organizationId))
      const method = account?.paymentMethod
      let paymentStatus = invoice.paymentStatus
      if (method !== undefined && method !== null && method.behaviour === "off_session") {
        const outcome: ChargeOutcome = yield* provider.charge({
          organizationId: invoice.organizationId, reference: invoice.invoiceId, amountCents: invoice.totalCents,
          currency: invoice.currency, paymentMethod: method, expiresAt: DateTime.addDuration(now, PAYMENT_WINDOW)
        })
        paymentStatus = outcome._tag === "Succeeded" ? "succeeded" : outcome._tag === "Declined" ? "failed" : "pending"
      }
      yield* repo.updateInvoicePayment({ ...invoice, paymentStatus, paymentAttempts: invoice.paymentAttempts + 1 })
      return paymentStatus
    })

  /**
   * Records an invoice (once per `uniqueKey`) on the locked account: numbered, with the account's
   * credit balance applied when `applyBalance`. Returns the invoice (the existing one on a repeat).
   * A pending invoice is collected later by the scheduler (`collectInvoices`), never inside the
   * change that issued it, so reads that catch a subscription up never call the provider.
   */
  const issueInvoice = (args: {
    readonly account: BillingAccountRecord
    readonly projectId: ProjectId | null
    readonly kind: InvoiceRecord["kind"]
    readonly uniqueKey: string
    readonly issuedAt: DateTime.Utc
    readonly currency: string
    readonly lines: ReadonlyArray<PreviewLine>
    readonly creditsCents: number
    readonly applyBalance: boolean
    readonly paymentStatus?: InvoiceRecord["paymentStatus"]
  }) =>
    Effect.gen(function*() {
      const existing = yield* repo.findInvoiceByKey(args.uniqueKey)
      if (Option.isSome(existing)) return { invoice: existing.value, account: args.account }
      const fees = feesOf(args.lines)
      let credits = big(args.creditsCents)
      let balance = big(args.account.creditBalanceCents)
      if (args.applyBalance && balance > 0n && fees - credits > 0n) {
        const used = balance < fees - credits ? balance : fees - credits
        credits += used
        balance -= used
      }
      const total = fees - credits
      // Only invoices a customer sees take a number, so visible numbers are gapless per
      // organization: a zero-total invoice (an opening period with nothing to bill) is kept for the
      // record, never listed, and numbered `<prefix>-00000`.
      const visible = total !== 0n
      const count = args.account.invoiceCount + (visible ? 1 : 0)
      const invoiceId = yield* ids.typeId(IdKinds.invoice)
      const paymentStatus: InvoiceRecord["paymentStatus"] = args.paymentStatus ?? (total <= 0n ? "succeeded" : "pending")
      const invoice: InvoiceRecord = {
        invoiceId,
        organizationId: args.account.organizationId,
        projectId: args.projectId,
        number: `${args.account.organizationId.slice(7, 15).toUpperCase()}-${String(visible ? count : 0).padStart(5, "0")}`,
        kind: args.kind,
        uniqueKey: args.uniqueKey,
        issuedAt: args.issuedAt,
        paymentStatus,
        paymentAttempts: 0,
        currency: args.currency,
        feesCents: safeNumber(fees, "feesCents"),
        creditsCents: safeNumber(credits, "creditsCents"),
        totalCents: safeNumber(total, "totalCents"),
        lines: encodeLines(args.lines)
      }
      const inserted = yield* repo.insertInvoice(invoice)
      if (!inserted) return { invoice, account: args.account }
      const account = { ...args.account, invoiceCount: count, creditBalanceCents: safeNumber(balance, "creditBalanceCents") }
      yield* repo.updateAccount(account)
      return { invoice, account }
    })

  return { collectInvoice, issueInvoice } as const
})

export type BillingInvoices = Effect.Success<typeof makeBillingInvoices>
