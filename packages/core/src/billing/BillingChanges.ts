/**
 * Billing operations' writes (docs/api-notes/billing.md): resolving an operation (its record
 * and its `billing.operation.*` event) and applying a change it decided — an upgrade (invoices,
 * credit, the new plan from the day it was asked) or a fixed-charge quantity. `BillingOperations.ts`
 * decides when; this module only writes.
 */
import { DateTime, Effect, Schema } from "effect"
import { EventPublisher } from "../events/EventsFeature.js"
import type { BillingInvoices } from "./BillingInvoices.js"
import { byCode } from "./BillingSubscriptions.js"
import type { BillingSubscriptions } from "./BillingSubscriptions.js"
import { BILLING_EVENT_SOURCE } from "./Events.js"
import { withQuantity } from "./FixedChargeChange.js"
import { safeNumber } from "./Invoicing.js"
import { big, rhu } from "./Money.js"
import type { Failure } from "./OperationDecision.js"
import { BillingRepo, type OperationRecord, type SubscriptionRecord } from "./Ports.js"
import { period, periodDays } from "./Proration.js"
import {
  type BillingOperation, BillingOperationFailure, BillingOperationResult, type BillingPlan, type FixedChargeAddition,
  type PreviewInvoice, type PreviewLine
} from "./Schema.js"
import { usageTotal } from "./Usage.js"

const encodeResult = Schema.encodeSync(BillingOperationResult)
const decodeResult = Schema.decodeUnknownSync(BillingOperationResult)
const encodeFailure = Schema.encodeSync(BillingOperationFailure)
const decodeFailure = Schema.decodeUnknownSync(BillingOperationFailure)

/** The wire operation of a stored one. */
export const toBillingOperation = (op: OperationRecord): BillingOperation => {
  const common = { operationId: op.operationId as BillingOperation["operationId"], kind: op.kind, submittedAt: op.submittedAt }
  if (op.status === "succeeded" && op.result !== null && op.resolvedAt !== null) {
    return { ...common, status: "succeeded", failure: null, result: decodeResult(op.result), resolvedAt: op.resolvedAt }
  }
  if (op.status === "failed" && op.failure !== null && op.resolvedAt !== null) {
    return { ...common, status: "failed", failure: decodeFailure(op.failure), result: null, resolvedAt: op.resolvedAt }
  }
  return { ...common, status: "pending", failure: null, result: null, resolvedAt: null }
}

/** The held charges plus `additions` (quantities added), by code ascending. */
const withAdditions = (held: SubscriptionRecord["heldFixedCharges"], additions: ReadonlyArray<FixedChargeAddition>) => {
  const quantities = new Map(held.map((h) => [h.fixedChargeCode, h.quantity]))
  for (const a of additions) quantities.set(a.fixedChargeCode, (quantities.get(a.fixedChargeCode) ?? 0) + a.quantity)
  return [...quantities].filter(([, q]) => q > 0).map(([fixedChargeCode, quantity]) => ({ fixedChargeCode, quantity })).sort(byCode)
}

export const makeBillingChanges = (args: {
  readonly invoices: BillingInvoices
  readonly subscriptions: BillingSubscriptions
}) =>
  Effect.gen(function*() {
    const repo = yield* BillingRepo
    const events = yield* EventPublisher
    const { issueInvoice } = args.invoices
    const { planChangedEvent, planOf } = args.subscriptions

    const resolve = (op: OperationRecord, outcome: { readonly result: typeof BillingOperationResult.Type } | { readonly failure: Failure }) =>
      Effect.gen(function*() {
        const now = yield* DateTime.now
        const done: OperationRecord = "result" in outcome
          ? { ...op, status: "succeeded", result: encodeResult(outcome.result), failure: null, resolvedAt: now, awaitingPayment: null }
          : { ...op, status: "failed", failure: encodeFailure(outcome.failure), result: null, resolvedAt: now, awaitingPayment: null }
        yield* repo.updateOperation(done)
        const data = {
          operationId: op.operationId, projectId: op.projectId, organizationId: op.organizationId, kind: op.kind,
          ...("result" in outcome ? { result: done.result } : { failure: done.failure })
        }
        yield* events.publish(op.projectId, [{
          type: "result" in outcome ? "billing.operation.succeeded" : "billing.operation.failed",
          source: BILLING_EVENT_SOURCE,
          timestamp: now,
          data
        }])
        return done
      })

    const fail = (op: OperationRecord, f: Failure) => resolve(op, { failure: f })
    /** Applies an upgrade computed on `day` (docs/api-notes/billing.md): invoices, credit, the new plan from `day`. */
    const applyUpgrade = (args: {
      readonly op: OperationRecord
      readonly sub: SubscriptionRecord
      readonly target: BillingPlan
      readonly day: number
      readonly dueNow: PreviewInvoice
      readonly additions: ReadonlyArray<PreviewLine>
      readonly additionsRequested: ReadonlyArray<FixedChargeAddition>
      readonly unusedTimeCredit: number
      readonly paid: boolean
    }) =>
      Effect.gen(function*() {
        const { op, sub, target } = args
        const now = yield* DateTime.now
        let account = yield* repo.lockAccount(sub.organizationId)
        if (args.dueNow.lines.length > 0) {
          ;({ account } = yield* issueInvoice({
            account, projectId: sub.projectId, kind: "subscription", uniqueKey: `op:${op.operationId}`, issuedAt: now,
            currency: args.dueNow.currency, lines: args.dueNow.lines, creditsCents: args.dueNow.creditsCents, applyBalance: false,
            paymentStatus: args.paid || args.dueNow.totalCents <= 0 ? "succeeded" : "pending"
          }))
        }
        if (args.additions.length > 0) {
          ;({ account } = yield* issueInvoice({
            account, projectId: sub.projectId, kind: "one_off", uniqueKey: `op:${op.operationId}:additions`, issuedAt: now,
            currency: target.currency, lines: args.additions, creditsCents: 0, applyBalance: false
          }))
        }
        const leftover = args.unusedTimeCredit - args.dueNow.creditsCents
        if (leftover > 0) {
          account = { ...account, creditBalanceCents: safeNumber(big(account.creditBalanceCents) + big(leftover), "creditBalanceCents") }
          yield* repo.updateAccount(account)
        }
        const plan = planOf(sub)
        const tp = period(target.interval, "anniversary", sub.anchorDay, args.day)
        const rt = big(tp.end - args.day + 1)
        const next: SubscriptionRecord = {
          ...sub,
          planCode: target.planCode,
          source: "purchase",
          periodStart: tp.start,
          periodEnd: tp.end,
          planStartDay: args.day,
          heldFixedCharges: withAdditions(sub.heldFixedCharges.filter((h) => target.fixedCharges.some((c) => c.fixedChargeCode === h.fixedChargeCode)), args.additionsRequested),
          baseFeeBilledCents: target.payInAdvance ? safeNumber(rhu(big(target.baseAmountCents) * rt, big(periodDays(tp))), "baseFee") : 0,
          baseFeeCreditedCents: 0,
          usage: {},
          progressiveBilledCents: 0,
          closedUsageCents: safeNumber(big(sub.closedUsageCents) + (plan === undefined ? 0n : usageTotal(plan.usageCharges, sub.usage)), "closedUsage"),
          scheduledChange: null,
          version: sub.version + 1,
          updatedAt: now
        }
        yield* repo.updateSubscription(next)
        yield* planChangedEvent(next, sub.planCode, now, op.operationId)
        return yield* resolve(op, { result: { type: "version", version: String(next.version), effectiveAt: null } })
      })

    /** Applies a fixed-charge quantity (after its payment, if any). */
    const applyQuantity = (op: OperationRecord, sub: SubscriptionRecord, code: string, quantity: number, dueNow: PreviewInvoice, paid: boolean) =>
      Effect.gen(function*() {
        const now = yield* DateTime.now
        if (dueNow.lines.length > 0) {
          const account = yield* repo.lockAccount(sub.organizationId)
          yield* issueInvoice({
            account, projectId: sub.projectId, kind: "one_off", uniqueKey: `op:${op.operationId}`, issuedAt: now,
            currency: dueNow.currency, lines: dueNow.lines, creditsCents: 0, applyBalance: false,
            paymentStatus: paid || dueNow.totalCents <= 0 ? "succeeded" : "pending"
          })
        }
        const next = { ...sub, heldFixedCharges: withQuantity(sub.heldFixedCharges, code, quantity), version: sub.version + 1, updatedAt: now }
        yield* repo.updateSubscription(next)
        return yield* resolve(op, { result: { type: "version", version: String(next.version), effectiveAt: null } })
      })

    return { resolve, fail, applyUpgrade, applyQuantity } as const
  })

export type BillingChanges = Effect.Success<ReturnType<typeof makeBillingChanges>>
