/**
 * Billing's reads (docs/api-notes/billing.md): a project's overview (subscriptions and metered
 * usage) and its effective terms, the plan catalog, an organization's invoices and one operation.
 * Reading a project's billing materialises its subscriptions first (`BillingSubscriptions.ts`).
 */
import { DateTime, Effect, Option } from "effect"
import { ProjectsRepo } from "../projects/Ports.js"
import type { OrganizationId, ProjectId } from "../shared/Identifiers.js"
import { fn } from "../internal/Traced.js"
import { toInvoice } from "./BillingInvoices.js"
import { toBillingOperation } from "./BillingChanges.js"
import { type BillingSubscriptions, TICK_BATCH } from "./BillingSubscriptions.js"
import { categoryDisplayName } from "./Catalog.js"
import { BillingOperationNotFound } from "./Errors.js"
import { instantOfDay, safeNumber } from "./Invoicing.js"
import { BillingRepo, type OperationRecord, type SubscriptionRecord } from "./Ports.js"
import type {
  BillingOverview, BillingPlan, BillingPlanCatalog, EffectiveTerms, HeldFixedCharge, MeteredUsage, ProjectSubscription,
  ScheduledPlanChange, SubscribedFixedCharge
} from "./Schema.js"
import { usageAmount } from "./Usage.js"

/** The held fixed charges at the plan's prices (a project's or an organization's subscription). */
export const heldView = (plan: BillingPlan, held: ReadonlyArray<HeldFixedCharge>): ReadonlyArray<SubscribedFixedCharge> =>
  held.flatMap((h) => {
    const charge = plan.fixedCharges.find((c) => c.fixedChargeCode === h.fixedChargeCode)
    return charge === undefined ? [] : [{
      fixedChargeCode: h.fixedChargeCode, name: charge.name, quantity: h.quantity, unitAmountCents: charge.unitAmountCents,
      payInAdvance: charge.payInAdvance, prorated: charge.prorated
    }]
  })

const scheduledView = (sub: SubscriptionRecord, waiting: ReadonlyArray<OperationRecord>): ScheduledPlanChange | null => {
  const pay = waiting.find((o) => o.request.category === sub.category && o.request.type === "change_plan")
  if (pay !== undefined && pay.awaitingPayment !== null && pay.request.type === "change_plan") {
    return {
      operationId: pay.operationId as ScheduledPlanChange["operationId"], planCode: pay.request.planCode, timing: "on_payment",
      effectiveAt: null, expiresAt: pay.awaitingPayment.deadline, paymentUrl: pay.awaitingPayment.actionUrl
    }
  }
  const change = sub.scheduledChange
  return change === null ? null : {
    operationId: change.operationId as ScheduledPlanChange["operationId"], planCode: change.planCode, timing: "period_end",
    effectiveAt: instantOfDay(change.effectiveDay), expiresAt: null, paymentUrl: null
  }
}

export const makeBillingOverview = (subscriptions: BillingSubscriptions) =>
  Effect.gen(function*() {
    const repo = yield* BillingRepo
    const projects = yield* ProjectsRepo
    const { catalog, categories, ensureSubscriptions, planOf, subscriptionsOf } = subscriptions

    const pendingPayments = (projectId: ProjectId) => repo.waitingOperations(projectId)

    const overview = fn("Billing.overview")(function*(projectId: ProjectId) {
      const { subs } = yield* subscriptionsOf(projectId)
      const waiting = yield* pendingPayments(projectId)
      const subscriptions: Array<ProjectSubscription> = []
      const usage: Array<MeteredUsage> = []
      let version = 0
      for (const sub of subs) {
        const plan = planOf(sub)
        if (plan === undefined) continue
        version += sub.version
        const display = categoryDisplayName(catalog, sub.category)
        const withDisplay = display === undefined ? {} : { categoryDisplayName: display }
        subscriptions.push({
          category: sub.category,
          ...withDisplay,
          planCode: plan.planCode,
          planName: plan.name,
          status: "active",
          baseAmountCents: plan.baseAmountCents,
          currency: plan.currency,
          interval: plan.interval,
          currentPeriodStart: instantOfDay(sub.periodStart),
          currentPeriodEnd: instantOfDay(sub.periodEnd + 1),
          cancelsAt: null,
          entitlements: plan.entitlements,
          fixedCharges: heldView(plan, sub.heldFixedCharges),
          scheduledChange: scheduledView(sub, waiting)
        })
        for (const charge of plan.usageCharges) {
          const units = sub.usage[charge.metricCode] ?? 0
          usage.push({
            amountCents: safeNumber(usageAmount(charge, units), "usage"),
            category: sub.category,
            ...withDisplay,
            currency: plan.currency,
            displayName: charge.name,
            metricCode: charge.metricCode,
            units
          })
        }
      }
      return { entitlementsVersion: version, subscriptions, usage } satisfies BillingOverview
    })

    const terms = fn("Billing.terms")(function*(projectId: ProjectId) {
      const { project, subs } = yield* subscriptionsOf(projectId)
      const waiting = yield* pendingPayments(projectId)
      const account = yield* repo.findAccount(project.organizationId)
      return {
        organizationId: project.organizationId,
        projectId: project.projectId,
        timeZone: "UTC",
        creditBalanceCents: Option.match(account, { onNone: () => 0, onSome: (a) => a.creditBalanceCents }),
        terms: subs.flatMap((sub) => {
          const plan = planOf(sub)
          if (plan === undefined) return []
          return [{
            category: sub.category,
            planCode: plan.planCode,
            planName: plan.name,
            source: sub.source,
            paymentMode: plan.payInAdvance ? "in_advance" as const : "in_arrears" as const,
            baseAmountCents: plan.baseAmountCents,
            currency: plan.currency,
            interval: plan.interval,
            fixedCharges: heldView(plan, sub.heldFixedCharges),
            usageCharges: plan.usageCharges,
            entitlements: plan.entitlements,
            minimumCommitment: plan.minimumCommitment,
            currentPeriodStart: instantOfDay(sub.periodStart),
            currentPeriodEnd: instantOfDay(sub.periodEnd + 1),
            nextBillingAt: instantOfDay(sub.periodEnd + 1),
            pendingChange: scheduledView(sub, waiting),
            cancelsAt: null
          }]
        })
      } satisfies EffectiveTerms
    })

    // A project's plan list (`listBillingPlans`, the console's plan picker): its own categories only.
    // The `organization` category is sold to organizations themselves and no project can buy from it.
    const projectCategories = new Set(categories)
    const projectPlans: BillingPlanCatalog = Object.fromEntries(Object.entries(catalog).filter(([c]) => projectCategories.has(c)))
    const listPlans = (): BillingPlanCatalog => projectPlans

    const listInvoices = fn("Billing.listInvoices")(function*(organizationId: OrganizationId) {
      // Projects nobody looked at yet are billed as if subscribed at creation: materialise them first.
      const now = yield* DateTime.now
      for (;;) {
        const missing = yield* repo.unsubscribedProjects({ categories, organizationId, limit: TICK_BATCH })
        for (const p of missing) {
          const project = yield* projects.findById(p.projectId)
          if (Option.isSome(project)) yield* ensureSubscriptions(project.value, now)
        }
        if (missing.length < TICK_BATCH) break
      }
      return (yield* repo.listInvoices(organizationId)).map(toInvoice)
    })

    const getOperation = fn("Billing.getOperation")(function*(projectId: ProjectId, operationId: string) {
      const op = yield* repo.findOperation(operationId)
      if (Option.isNone(op) || op.value.projectId !== projectId) return yield* new BillingOperationNotFound({ operationId })
      return toBillingOperation(op.value)
    })

    /** The project's latest operations (plan changes, quantities), newest first. */
    const listOperations = fn("Billing.listOperations")(function*(projectId: ProjectId, limit: number) {
      return (yield* repo.listOperations(projectId, Math.max(1, Math.min(100, Math.trunc(limit))))).map(toBillingOperation)
    })

    return { overview, terms, listPlans, listInvoices, getOperation, listOperations } as const
  })
