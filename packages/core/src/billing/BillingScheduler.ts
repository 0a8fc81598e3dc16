/**
 * Billing's period-end scheduler (docs/api-notes/billing.md): one `tick` closes each due period
 * exactly once (the subscription row is locked and re-checked; an invoice's unique key is the
 * period boundary), applies scheduled changes, bills in-arrears fees, usage and commitment
 * true-ups, issues progressive invoices when usage crosses a threshold (docs/api-notes/billing.md),
 * runs operations not started, expires unpaid `on_payment` ones, renews organizations' own
 * subscriptions (OrganizationBilling.ts) and collects pending invoices. The host drives it
 * (`BillingWorkers`); safe to run from several processes at once.
 */
import { DateTime, Effect, Option } from "effect"
import { ProjectsRepo } from "../projects/Ports.js"
import type { ProjectId } from "../shared/Identifiers.js"
import { Transactor } from "../shared/Ports.js"
import { fn } from "../internal/Traced.js"
import type { BillingInvoices } from "./BillingInvoices.js"
import type { BillingOperations } from "./BillingOperations.js"
import type { OrganizationBilling } from "./OrganizationBilling.js"
import { type BillingSubscriptions, TICK_BATCH } from "./BillingSubscriptions.js"
import { BillingRepo } from "./Ports.js"

export const makeBillingScheduler = (args: {
  readonly invoices: BillingInvoices
  readonly subscriptions: BillingSubscriptions
  readonly operations: BillingOperations
  readonly organizations: OrganizationBilling
}) =>
  Effect.gen(function*() {
    const repo = yield* BillingRepo
    const projects = yield* ProjectsRepo
    const tx = yield* Transactor
    const { collectInvoice } = args.invoices
    const { categories, checkThresholds, closeDuePeriods, ensureSubscriptions } = args.subscriptions
    const { expireIfDue, process } = args.operations

    /** One subscription's due work, under its row lock: thresholds, then every period that ended. */
    const attend = (projectId: ProjectId, category: string, now: DateTime.Utc) =>
      tx.withTransaction(Effect.gen(function*() {
        const locked = yield* repo.lockSubscription(projectId, category)
        if (Option.isNone(locked)) return { closed: 0, progressive: 0 }
        const checked = yield* checkThresholds(locked.value, now)
        const { closed, sub } = yield* closeDuePeriods(checked.sub, now)
        if (sub !== locked.value) yield* repo.updateSubscription(sub)
        return { closed, progressive: checked.issued ? 1 : 0 }
      }))

    /**
     * One pass of the period-end scheduler (driven by `Clock`): materialises subscriptions of
     * projects billing has not seen, closes periods that ended, issues progressive invoices, runs
     * operations not started and expires those whose payment window closed. Safe to run from
     * several processes at once.
     */
    const tick = fn("Billing.tick")(function*() {
      const now = yield* DateTime.now
      let materialised = 0
      for (const p of yield* repo.unsubscribedProjects({ categories, limit: TICK_BATCH })) {
        const project = yield* projects.findById(p.projectId)
        if (Option.isSome(project)) {
          yield* ensureSubscriptions(project.value, now)
          materialised += 1
        }
      }
      let closed = 0
      let progressive = 0
      for (const due of yield* repo.dueSubscriptions({ now, limit: TICK_BATCH })) {
        const r = yield* attend(due.projectId, due.category, now)
        closed += r.closed
        progressive += r.progressive
      }
      let processed = 0
      let expired = 0
      for (const operationId of yield* repo.pendingOperations({ deadlineBefore: now, limit: TICK_BATCH })) {
        const op = yield* repo.findOperation(operationId)
        if (Option.isNone(op) || op.value.status !== "pending") continue
        if (op.value.awaitingPayment === null) {
          yield* process(operationId).pipe(Effect.catchTag("BillingOperationNotFound", () => Effect.void))
          processed += 1
        } else {
          if (yield* expireIfDue(operationId, now)) expired += 1
        }
      }
      let renewed = 0
      for (const organizationId of yield* repo.dueOrganizationSubscriptions({ now, limit: TICK_BATCH })) {
        renewed += yield* args.organizations.renewDue(organizationId, now)
      }
      let collected = 0
      for (const invoiceId of yield* repo.collectibleInvoices(TICK_BATCH)) {
        const done = yield* tx.withTransaction(Effect.gen(function*() {
          const locked = yield* repo.lockInvoice(invoiceId)
          if (Option.isNone(locked) || locked.value.paymentAttempts > 0 || locked.value.paymentStatus !== "pending") return false
          yield* collectInvoice(locked.value, now)
          return true
        })).pipe(Effect.catchDefect((defect) => Effect.as(Effect.logWarning("invoice collection failed", defect), false)))
        if (done) collected += 1
      }
      return { materialised, closed, progressive, processed, expired, renewed, collected }
    })

    return { tick } as const
  })
