/**
 * Billing's subscriptions (docs/api-notes/billing.md): every project is on its
 * category's default plan from its creation. The subscription is materialised on first use (or by
 * the scheduler), idempotently, anchored at the project's `createdAt` (anniversary billing), with
 * the opening invoice dated then and every period since closed in order — so it is the same as if
 * it had been written at creation. Closing a period (one invoice each, scheduled changes applied)
 * and progressive invoices on usage thresholds (docs/api-notes/billing.md) live here too.
 */
import { DateTime, Effect, Option } from "effect"
import { EventPublisher } from "../events/EventsFeature.js"
import { ProjectNotFound } from "../projects/Errors.js"
import { type ProjectRecord, ProjectsRepo } from "../projects/Ports.js"
import type { ProjectId } from "../shared/Identifiers.js"
import { Transactor } from "../shared/Ports.js"
import type { BillingInvoices } from "./BillingInvoices.js"
import { categoriesOf, defaultPlan, findPlan } from "./Catalog.js"
import { BILLING_EVENT_SOURCE } from "./Events.js"
import { chargeFor, closePeriod, instantOfDay, safeNumber } from "./Invoicing.js"
import { big } from "./Money.js"
import { BillingCatalog, BillingRepo, type SubscriptionRecord } from "./Ports.js"
import { epochDayOfMillis, period, periodDays } from "./Proration.js"
import type { BillingPlan, HeldFixedCharge, PreviewLine } from "./Schema.js"
import { thresholdsCrossed, usageAmount, usageTotal } from "./Usage.js"

/** Rows a scheduler tick (or a catch-up of an organization's projects) takes per step. */
export const TICK_BATCH = 100

export const dayOf = (t: DateTime.Utc) => epochDayOfMillis(DateTime.toEpochMillis(t))
export const byCode = <A extends { readonly fixedChargeCode: string }>(a: A, b: A) =>
  a.fixedChargeCode < b.fixedChargeCode ? -1 : a.fixedChargeCode > b.fixedChargeCode ? 1 : 0

/**
 * The lines of a whole period `p` (inclusive epoch days) of a subscription to `plan` holding
 * `held`: the base fee and each fixed charge held that are paid in advance (`inAdvance`: what the
 * period's opening invoice bills) or in arrears (what its closing invoice bills).
 */
export const periodLines = (
  plan: BillingPlan,
  held: ReadonlyArray<HeldFixedCharge>,
  p: { readonly start: number; readonly end: number },
  inAdvance: boolean
): ReadonlyArray<PreviewLine> => {
  const lines: Array<PreviewLine> = []
  const P = big(periodDays(p))
  const span = { periodStart: instantOfDay(p.start), periodEnd: instantOfDay(p.end + 1) }
  if (plan.payInAdvance === inAdvance) {
    lines.push({ amountCents: plan.baseAmountCents, code: plan.planCode, kind: "subscription", name: plan.name, ...span, units: "1" })
  }
  for (const charge of plan.fixedCharges) {
    const quantity = held.find((h) => h.fixedChargeCode === charge.fixedChargeCode)?.quantity ?? 0
    if (charge.payInAdvance !== inAdvance || quantity === 0) continue
    lines.push({
      amountCents: safeNumber(chargeFor(charge, big(quantity), P, P), "fixed charge"),
      code: charge.fixedChargeCode, kind: "fixed_charge", name: charge.name, ...span, units: String(quantity)
    })
  }
  return lines
}

/** The opening invoice's lines of a period: its in-advance base fee and fixed charges. */
export const openingLines = (
  plan: BillingPlan,
  held: ReadonlyArray<HeldFixedCharge>,
  p: { readonly start: number; readonly end: number }
): ReadonlyArray<PreviewLine> => periodLines(plan, held, p, true)

/** The default subscription of a category, from the project's creation. */
const defaultSubscription = (project: ProjectRecord, category: string, plan: BillingPlan, now: DateTime.Utc): SubscriptionRecord => {
  const anchorDay = dayOf(project.createdAt)
  const p = period(plan.interval, "anniversary", anchorDay, anchorDay)
  return {
    projectId: project.projectId,
    organizationId: project.organizationId,
    category,
    planCode: plan.planCode,
    source: "default",
    anchorDay,
    periodStart: p.start,
    periodEnd: p.end,
    planStartDay: anchorDay,
    heldFixedCharges: plan.fixedCharges.filter((c) => c.defaultUnits > 0)
      .map((c) => ({ fixedChargeCode: c.fixedChargeCode, quantity: c.defaultUnits })).sort(byCode),
    baseFeeBilledCents: plan.payInAdvance ? plan.baseAmountCents : 0,
    baseFeeCreditedCents: 0,
    usage: {},
    progressiveBilledCents: 0,
    closedUsageCents: 0,
    thresholdCheckedCents: 0,
    usageDirty: false,
    scheduledChange: null,
    version: 1,
    createdAt: now,
    updatedAt: now
  }
}

export const makeBillingSubscriptions = (invoices: BillingInvoices) =>
  Effect.gen(function*() {
    const repo = yield* BillingRepo
    const { catalog } = yield* BillingCatalog
    const projects = yield* ProjectsRepo
    const tx = yield* Transactor
    const events = yield* EventPublisher
    const categories = categoriesOf(catalog)
    const { issueInvoice } = invoices

    const planOf = (sub: SubscriptionRecord) => findPlan(catalog, sub.category, sub.planCode)

    const planChangedEvent = (sub: SubscriptionRecord, previous: string, effectiveAt: DateTime.Utc, operationId: string | null) =>
      events.publish(sub.projectId, [{
        type: "billing.plan.changed",
        source: BILLING_EVENT_SOURCE,
        timestamp: effectiveAt,
        data: {
          projectId: sub.projectId,
          organizationId: sub.organizationId,
          category: sub.category,
          previousPlanCode: previous,
          planCode: sub.planCode,
          version: String(sub.version),
          effectiveAt: DateTime.formatIso(effectiveAt),
          operationId
        }
      }])

    /**
     * Closes every period of the locked `sub` that ended by `now` (several when catching up), one
     * invoice each, and returns the subscription as it is after.
     */
    const closeDuePeriods = (sub0: SubscriptionRecord, now: DateTime.Utc) =>
      Effect.gen(function*() {
        let sub = sub0
        const today = dayOf(now)
        let closed = 0
        while (sub.periodEnd + 1 <= today) {
          const plan = planOf(sub)
          if (plan === undefined) break
          const change = sub.scheduledChange
          const target = change === null ? undefined : findPlan(catalog, sub.category, change.planCode)
          const result = closePeriod(sub, plan, target, now)
          const boundaryAt = instantOfDay(result.boundary)
          const account = yield* repo.lockAccount(sub.organizationId)
          yield* issueInvoice({
            account,
            projectId: sub.projectId,
            kind: "subscription",
            uniqueKey: `${sub.projectId}:${sub.category}:close:${result.boundary}`,
            issuedAt: boundaryAt,
            currency: result.plan.currency,
            lines: result.lines,
            creditsCents: result.progressiveCreditCents,
            applyBalance: true
          })
          const previous = sub.planCode
          sub = result.next
          if (result.planChanged) yield* planChangedEvent(sub, previous, boundaryAt, change?.operationId ?? null)
          closed += 1
        }
        return { sub, closed }
      })

    /** docs/api-notes/billing.md: a progressive invoice when lifetime usage crossed a threshold since the last check. */
    const checkThresholds = (sub: SubscriptionRecord, now: DateTime.Utc) =>
      Effect.gen(function*() {
        if (!sub.usageDirty) return { sub, issued: false }
        const plan = planOf(sub)
        if (plan === undefined) return { sub: { ...sub, usageDirty: false }, issued: false }
        const current = usageTotal(plan.usageCharges, sub.usage)
        const lifetime = big(sub.closedUsageCents) + current
        const crossed = thresholdsCrossed(plan.usageThresholds, big(sub.thresholdCheckedCents), lifetime)
        let next: SubscriptionRecord = { ...sub, usageDirty: false, thresholdCheckedCents: safeNumber(lifetime, "lifetimeUsage") }
        const due = current - big(sub.progressiveBilledCents)
        if (!crossed.crossed || due <= 0n) return { sub: next, issued: false }
        const lines = plan.usageCharges.flatMap((charge) => {
          const units = sub.usage[charge.metricCode] ?? 0
          if (units <= 0) return []
          return [{
            amountCents: safeNumber(usageAmount(charge, units), "usage"),
            code: charge.chargeCode,
            kind: "usage" as const,
            name: charge.name,
            periodStart: instantOfDay(sub.planStartDay),
            periodEnd: now,
            units: String(units)
          }]
        })
        const account = yield* repo.lockAccount(sub.organizationId)
        yield* issueInvoice({
          account,
          projectId: sub.projectId,
          kind: "subscription",
          uniqueKey: `${sub.projectId}:${sub.category}:progressive:${sub.periodStart}:${lifetime}`,
          issuedAt: now,
          currency: plan.currency,
          lines,
          creditsCents: sub.progressiveBilledCents,
          applyBalance: false
        })
        next = { ...next, progressiveBilledCents: safeNumber(current, "progressiveBilledCents") }
        return { sub: next, issued: true }
      })

    /**
     * Every category's subscription of the project, materialised (and caught up to `now`) when
     * missing or behind. Idempotent under concurrency: the store keeps one subscription per
     * category, and only the writer of it issues the opening invoice.
     */
    const ensureSubscriptions = (project: ProjectRecord, now: DateTime.Utc) =>
      Effect.flatMap(repo.listSubscriptions(project.projectId), (seen) => {
        // The common case: every subscription there and current — a read, no transaction.
        const today = dayOf(now)
        const current = categories.map((c) => seen.find((s) => s.category === c && s.periodEnd + 1 > today))
        return current.every((s) => s !== undefined)
          ? Effect.succeed(current as ReadonlyArray<SubscriptionRecord>)
          : materialise(project, now)
      })

    const materialise = (project: ProjectRecord, now: DateTime.Utc) =>
      tx.withTransaction(Effect.gen(function*() {
        const existing = yield* repo.listSubscriptions(project.projectId)
        const today = dayOf(now)
        const out: Array<SubscriptionRecord> = []
        for (const category of categories) {
          const found = existing.find((s) => s.category === category)
          if (found !== undefined && found.periodEnd + 1 > today) {
            out.push(found)
            continue
          }
          if (found === undefined) {
            const plan = defaultPlan(catalog, category)
            if (plan === undefined) continue
            const sub = defaultSubscription(project, category, plan, now)
            if (yield* repo.insertSubscription(sub)) {
              const anchorDay = sub.anchorDay
              const lines = openingLines(plan, sub.heldFixedCharges, { start: sub.periodStart, end: sub.periodEnd })
              if (lines.length > 0) {
                const account = yield* repo.lockAccount(project.organizationId)
                yield* issueInvoice({
                  account, projectId: project.projectId, kind: "subscription",
                  uniqueKey: `${project.projectId}:${category}:open:${anchorDay}`, issuedAt: project.createdAt,
                  currency: plan.currency, lines, creditsCents: 0, applyBalance: true
                })
              }
            }
          }
          // Behind (or just written): lock, re-check and close what ended.
          const locked = yield* repo.lockSubscription(project.projectId, category)
          if (Option.isNone(locked)) continue
          const { closed, sub } = yield* closeDuePeriods(locked.value, now)
          if (closed > 0) yield* repo.updateSubscription(sub)
          out.push(sub)
        }
        return out
      }))

    const projectOrFail = (projectId: ProjectId) =>
      Effect.flatMap(projects.findById(projectId), (p) =>
        Option.isSome(p) ? Effect.succeed(p.value) : Effect.fail(new ProjectNotFound({ projectId })))

    /** The project's subscriptions; `known` spares a read when the caller already has the project. */
    const subscriptionsOf = (projectId: ProjectId, known?: ProjectRecord) =>
      Effect.gen(function*() {
        const project = known !== undefined && known.projectId === projectId ? known : yield* projectOrFail(projectId)
        return { project, subs: yield* ensureSubscriptions(project, yield* DateTime.now) }
      })

    return {
      catalog, categories, planOf, planChangedEvent, closeDuePeriods, checkThresholds, ensureSubscriptions, subscriptionsOf
    } as const
  })

export type BillingSubscriptions = Effect.Success<ReturnType<typeof makeBillingSubscriptions>>
