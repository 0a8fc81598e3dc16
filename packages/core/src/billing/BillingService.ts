/**
 * Billing (API.md §1.6; SPEC.md § Billing plan, § Billing operation states; reference/billing.md
 * §3): subscriptions, previews, billing operations, invoices and the period-end scheduler.
 *
 * - **Subscriptions.** Every project is on its category's default plan from its creation: the
 *   subscription is materialised on first use (or by the scheduler), idempotently, anchored at the
 *   project's `createdAt` (anniversary billing), with the opening invoice dated then and every
 *   period since closed in order — so it is the same as if it had been written at creation.
 * - **Operations** (`changePlan`, `adjustFixedChargeQuantity`) are created `pending` under the
 *   caller's Idempotency-Key, then executed (`process`): the preview of billing.md §3 decides what
 *   happens — a rejection fails the operation, a downgrade is scheduled for period end (replacing
 *   an older one), an upgrade applies now (`immediate`: charged off-session, a decline changes
 *   nothing) or once paid (`on_payment`: it waits for `settlePayment`, and fails `payment_timeout`
 *   at `min(submitted + 23 h, period end)`). An upgrade cancels a scheduled downgrade.
 * - **Period end** (`tick`): closes each due period exactly once (the subscription row is locked
 *   and re-checked; an invoice's unique key is the period boundary), applies scheduled changes,
 *   bills in-arrears fees, usage and commitment true-ups, issues progressive invoices when usage
 *   crosses a threshold (billing.md §3.9), and expires unpaid `on_payment` operations.
 * Every state change writes its `billing.*` events in its own transaction.
 */
import { DateTime, Duration, Effect, Either, Option, Schema } from "effect"
import { type Principal } from "../credentials/Access.js"
import { OrganizationsRepo } from "../organizations/OrganizationsPorts.js"
import { EventPublisher } from "../events/EventsFeature.js"
import { ProjectClosing, ProjectDeleted, ProjectNotFound, ProjectOrganizationNotFound } from "../projects/Errors.js"
import { makeProjectGate, type ProjectUse } from "../projects/ProjectGate.js"
import { type ProjectRecord, ProjectsRepo } from "../projects/Ports.js"
import type { AccountId, IdKind, OrganizationId, ProjectId } from "../shared/Identifiers.js"
import { IdKinds } from "../shared/Identifiers.js"
import { Ids } from "../shared/Ids.js"
import { Transactor } from "../shared/Ports.js"
import {
  categoriesOf, categoryDisplayName, defaultPlan, findPlan, plansOf
} from "./Catalog.js"
import {
  BillingChangeRejected, BillingIdempotencyKeyReused, BillingNotProvisioned, BillingOperationNotFound,
  BillingRequestInvalid, UsageMetricUnknown
} from "./Errors.js"
import { BILLING_EVENT_SOURCE } from "./Events.js"
import { previewFixedChargeChange, withQuantity } from "./FixedChargeChange.js"
import { chargeFor, closePeriod, feesOf, instantOfDay, safeNumber, unbilledUsageLines } from "./Invoicing.js"
import { big, rhu } from "./Money.js"
import { type CurrentSubscription, type PaymentMethodState, type PlanChangePreviewError, previewPlanChange } from "./PlanChange.js"
import {
  type AwaitingPayment, BillingCatalog, type BillingAccountRecord, BillingRepo, type ChargeOutcome, type InvoiceRecord,
  type OperationRecord, type OperationRequest, PaymentProvider, type SubscriptionRecord
} from "./Ports.js"
import { epochDayOfMillis, MS_PER_DAY, period, periodDays } from "./Proration.js"
import {
  type BillingOperation, BillingOperationFailure, type BillingOperationKind, BillingOperationResult, type BillingOverview,
  type BillingPlan, type BillingPlanCatalog, type EffectiveTerms, type FixedChargeAddition, type Invoice, type MeteredUsage,
  PreviewInvoice, PreviewLine, type PreviewProjectChangeRequest, type PreviewProjectChangeResponse, type ProjectSubscription,
  type ScheduledPlanChange, type SubscribedFixedCharge
} from "./Schema.js"
import { thresholdsCrossed, usageAmount, usageTotal } from "./Usage.js"
import { fn } from "../shared/Traced.js"

/** How long an `on_payment` operation waits for its payment at most (Stripe's cap; billing.md §3.6). */
export const PAYMENT_WINDOW = Duration.hours(23)

/** Rows a scheduler tick takes per step. */
const TICK_BATCH = 100

/** The identifier kind of invoices (`sb_bin_…`). */
const INVOICE_ID_KIND: IdKind = IdKinds.invoice

const encodeResult = Schema.encodeSync(BillingOperationResult)
const decodeResult = Schema.decodeUnknownSync(BillingOperationResult)
const encodeFailure = Schema.encodeSync(BillingOperationFailure)
const decodeFailure = Schema.decodeUnknownSync(BillingOperationFailure)
const encodeLines = Schema.encodeSync(Schema.Array(PreviewLine))
const decodeLines = Schema.decodeUnknownSync(Schema.Array(PreviewLine))
const encodeInvoice = Schema.encodeSync(PreviewInvoice)
const decodeInvoice = Schema.decodeUnknownSync(PreviewInvoice)

type Failure = typeof BillingOperationFailure.Type

const RETRYABLE: ReadonlySet<string> = new Set(["payment_failed", "internal"])

const failure = (
  code: Failure["code"],
  detail: Failure["detail"],
  unsoldFixedCharges: Failure["unsoldFixedCharges"] = [],
  retryable = RETRYABLE.has(code) && detail !== "reconciliation_required"
): Failure => ({ code, detail, retryable: detail === "payment_timeout" ? true : retryable, unsoldFixedCharges })

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

const dayOf = (t: DateTime.Utc) => epochDayOfMillis(t.epochMillis)
const byCode = <A extends { readonly fixedChargeCode: string }>(a: A, b: A) =>
  a.fixedChargeCode < b.fixedChargeCode ? -1 : a.fixedChargeCode > b.fixedChargeCode ? 1 : 0

/** The held charges plus `additions` (quantities added), by code ascending. */
const withAdditions = (held: SubscriptionRecord["heldFixedCharges"], additions: ReadonlyArray<FixedChargeAddition>) => {
  const quantities = new Map(held.map((h) => [h.fixedChargeCode, h.quantity]))
  for (const a of additions) quantities.set(a.fixedChargeCode, (quantities.get(a.fixedChargeCode) ?? 0) + a.quantity)
  return [...quantities].filter(([, q]) => q > 0).map(([fixedChargeCode, quantity]) => ({ fixedChargeCode, quantity })).sort(byCode)
}

export class BillingService extends Effect.Service<BillingService>()("core/Billing", {
  accessors: true,
  effect: Effect.gen(function*() {
    const repo = yield* BillingRepo
    const { catalog } = yield* BillingCatalog
    const provider = yield* PaymentProvider
    const projects = yield* ProjectsRepo
    const organizations = yield* OrganizationsRepo
    const tx = yield* Transactor
    const ids = yield* Ids
    const events = yield* EventPublisher
    const gate = yield* makeProjectGate
    const categories = categoriesOf(catalog)

    // -------------------------------------------------------------------------------------------
    // Access (the route's credential rules are decided before: BillingAccess.ts)
    // -------------------------------------------------------------------------------------------

    /** A project under `/v1/projects/{projectId}/billing`: the caller must see it (see ProjectGate). */
    const openProject = fn("Billing.openProject")(function*(principal: Principal, projectId: ProjectId, use: ProjectUse) {
      return yield* gate.open(projectId, principal, use)
    })

    /**
     * A project under `/v1/organizations/{organizationId}/billing/projects/{projectId}`: the account
     * must be a member of the organization (404 otherwise) and the project one of its projects.
     */
    const openOrganizationProject = fn("Billing.openOrganizationProject")(function*(
      accountId: AccountId,
      organizationId: OrganizationId,
      projectId: ProjectId,
      use: ProjectUse
    ) {
      yield* openOrganization(accountId, organizationId)
      const found = yield* projects.findById(projectId)
      if (Option.isNone(found) || found.value.organizationId !== organizationId) return yield* new ProjectNotFound({ projectId })
      const record = found.value
      if (record.state === "deleted") return yield* new ProjectDeleted({ projectId })
      if (record.state === "closing" && use === "write") return yield* new ProjectClosing({ projectId })
      return record
    })

    const openOrganization = fn("Billing.openOrganization")(function*(accountId: AccountId, organizationId: OrganizationId) {
      const role = yield* organizations.roleOf(organizationId, accountId)
      if (Option.isNone(role)) return yield* new ProjectOrganizationNotFound({ organizationId })
    })

    // -------------------------------------------------------------------------------------------
    // Invoices and the account
    // -------------------------------------------------------------------------------------------

    const paymentState = (account: BillingAccountRecord | undefined): PaymentMethodState =>
      account?.paymentMethod?.behaviour ?? "none"

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
        const count = args.account.invoiceCount + 1
        const invoiceId = yield* ids.typeId(INVOICE_ID_KIND)
        const paymentStatus: InvoiceRecord["paymentStatus"] = args.paymentStatus ?? (total <= 0n ? "succeeded" : "pending")
        const invoice: InvoiceRecord = {
          invoiceId,
          organizationId: args.account.organizationId,
          projectId: args.projectId,
          number: `${args.account.organizationId.slice(7, 15).toUpperCase()}-${String(count).padStart(5, "0")}`,
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

    // -------------------------------------------------------------------------------------------
    // Subscriptions: materialising, closing periods, thresholds
    // -------------------------------------------------------------------------------------------

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

    /** billing.md §3.9: a progressive invoice when lifetime usage crossed a threshold since the last check. */
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
              const lines: Array<PreviewLine> = []
              const P = big(periodDays({ start: sub.periodStart, end: sub.periodEnd }))
              if (plan.payInAdvance) {
                lines.push({
                  amountCents: plan.baseAmountCents, code: plan.planCode, kind: "subscription", name: plan.name,
                  periodStart: instantOfDay(anchorDay), periodEnd: instantOfDay(sub.periodEnd + 1), units: "1"
                })
              }
              for (const charge of plan.fixedCharges) {
                if (!charge.payInAdvance || charge.defaultUnits === 0) continue
                lines.push({
                  amountCents: safeNumber(chargeFor(charge, big(charge.defaultUnits), P, P), "fixed charge"),
                  code: charge.fixedChargeCode, kind: "fixed_charge", name: charge.name,
                  periodStart: instantOfDay(anchorDay), periodEnd: instantOfDay(sub.periodEnd + 1), units: String(charge.defaultUnits)
                })
              }
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

    // -------------------------------------------------------------------------------------------
    // Reads
    // -------------------------------------------------------------------------------------------

    const heldView = (plan: BillingPlan, sub: SubscriptionRecord): ReadonlyArray<SubscribedFixedCharge> =>
      sub.heldFixedCharges.flatMap((h) => {
        const charge = plan.fixedCharges.find((c) => c.fixedChargeCode === h.fixedChargeCode)
        return charge === undefined ? [] : [{
          fixedChargeCode: h.fixedChargeCode, name: charge.name, quantity: h.quantity, unitAmountCents: charge.unitAmountCents,
          payInAdvance: charge.payInAdvance, prorated: charge.prorated
        }]
      })

    const pendingPayments = (projectId: ProjectId) => repo.waitingOperations(projectId)

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
          fixedCharges: heldView(plan, sub),
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
            fixedCharges: heldView(plan, sub),
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

    const listPlans = (): BillingPlanCatalog => catalog

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

    // -------------------------------------------------------------------------------------------
    // Previews
    // -------------------------------------------------------------------------------------------

    const currentOf = (sub: SubscriptionRecord, plan: BillingPlan, paymentMethod: PaymentMethodState, now: DateTime.Utc): CurrentSubscription => {
      const unbilledUsage = unbilledUsageLines(plan, sub, now)
      return {
        plan,
        billingTime: "anniversary",
        anchorDate: sub.anchorDay * MS_PER_DAY,
        heldFixedCharges: sub.heldFixedCharges,
        baseFeeBilledCents: sub.baseFeeBilledCents,
        baseFeeCreditedCents: sub.baseFeeCreditedCents,
        unbilledUsage,
        periodUsageCents: safeNumber(usageTotal(plan.usageCharges, sub.usage), "periodUsageCents"),
        cancellationScheduled: false,
        paymentMethod
      }
    }

    const rejected = (f: Failure, message: string) =>
      new BillingChangeRejected({ code: f.code, detail: f.detail, retryable: f.retryable, unsoldFixedCharges: f.unsoldFixedCharges, message })

    /** The category of a fixed charge: the subscription whose plan sells it (or the one named). */
    const categoryOfCharge = (subs: ReadonlyArray<SubscriptionRecord>, code: string, named: string | undefined) => {
      if (named !== undefined) return Either.right(named)
      const selling = subs.filter((s) => planOf(s)?.fixedCharges.some((c) => c.fixedChargeCode === code) === true)
      if (selling.length === 1) return Either.right(selling[0]!.category)
      if (selling.length > 1) {
        return Either.left(new BillingRequestInvalid({ field: "category", message: `is required: ${code} is sold in several categories` }))
      }
      // Not sold by any current plan: the catalog decides between feature_not_sold_by_plan and feature_not_found.
      const category = categories.find((c) => plansOf(catalog, c).some((p) => p.fixedCharges.some((f) => f.fixedChargeCode === code)))
      return Either.right(category ?? categories[0] ?? "")
    }

    const preview = fn("Billing.preview")(function*(projectId: ProjectId, request: PreviewProjectChangeRequest, known?: ProjectRecord) {
      const { project, subs } = yield* subscriptionsOf(projectId, known)
      const now = yield* DateTime.now
      const account = Option.getOrUndefined(yield* repo.findAccount(project.organizationId))
      const paymentMethod = paymentState(account)
      if ("planCode" in request) {
        const sub = subs.find((s) => s.category === request.category)
        if (sub === undefined) return yield* rejected(failure("invalid_target", "plan_not_found"), `No plan ${request.planCode} in ${request.category}.`)
        const plan = planOf(sub)
        if (plan === undefined) return yield* notProvisioned(sub)
        const result = previewPlanChange({
          catalog, current: currentOf(sub, plan, paymentMethod, now),
          request: { category: request.category, planCode: request.planCode, ...(request.additions === undefined ? {} : { additions: request.additions }) },
          now: now.epochMillis
        })
        if (Either.isLeft(result)) return yield* previewFailure(result.left)
        return result.right satisfies PreviewProjectChangeResponse
      }
      const category = categoryOfCharge(subs, request.fixedCharge.fixedChargeCode, request.category)
      if (Either.isLeft(category)) return yield* category.left
      const sub = subs.find((s) => s.category === category.right)
      if (sub === undefined) return yield* rejected(failure("invalid_target", "feature_not_found"), `No category ${category.right}.`)
      const plan = planOf(sub)
      if (plan === undefined) return yield* notProvisioned(sub)
      const result = previewFixedChargeChange({
        catalog, plan, billingTime: "anniversary", anchorDay: sub.anchorDay, heldFixedCharges: sub.heldFixedCharges,
        cancellationScheduled: false, paymentMethod, fixedChargeCode: request.fixedCharge.fixedChargeCode,
        quantity: request.fixedCharge.quantity, now: now.epochMillis
      })
      if (Either.isLeft(result)) return yield* previewFailure(result.left)
      return { dueNow: result.right.dueNow, nextCharge: result.right.nextCharge } satisfies PreviewProjectChangeResponse
    })

    const notProvisioned = (sub: SubscriptionRecord) =>
      new BillingNotProvisioned({
        projectId: sub.projectId,
        message: `The plan ${sub.planCode} of ${sub.category} is no longer in the catalog.`
      })

    const previewFailure = (e: PlanChangePreviewError) => {
      switch (e._tag) {
        case "PlanChangeRejected":
          return rejected(
            failure("invalid_target", e.detail),
            `The change is refused: ${e.detail}${e.fixedChargeCode === null ? "" : ` (${e.fixedChargeCode})`}.`
          )
        case "PlanChangeRequestInvalid":
          return new BillingRequestInvalid({ field: "", message: e.message })
        case "PlanChangeInputInvalid":
        case "PlanChangeAmountOutOfRange":
          return new BillingRequestInvalid({ field: e.field, message: e.message })
      }
    }

    // -------------------------------------------------------------------------------------------
    // Operations
    // -------------------------------------------------------------------------------------------

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

    /**
     * Creates a pending operation under the caller's Idempotency-Key; the same key with the same
     * request returns the operation it created (`created: false`), with another request it is
     * refused. The project must be writable (locked while the operation is written).
     */
    const submit = fn("Billing.submit")(function*(input: {
      readonly principal: Principal
      readonly projectId: ProjectId
      readonly kind: BillingOperationKind
      readonly request: OperationRequest | { readonly type: "adjust_fixed_charge_quantity"; readonly fixedChargeCode: string; readonly quantity: number }
      readonly idempotency: { readonly scope: string; readonly key: string; readonly fingerprint: string }
    }) {
      return yield* tx.withTransaction(Effect.gen(function*() {
        const known = yield* repo.findOperationByKey(input.idempotency.scope, input.idempotency.key)
        if (Option.isSome(known)) {
          if (known.value.fingerprint !== input.idempotency.fingerprint || known.value.projectId !== input.projectId) {
            return yield* new BillingIdempotencyKeyReused({ key: input.idempotency.key })
          }
          return { operation: known.value, created: false }
        }
        const project = yield* gate.open(input.projectId, input.principal, "write", { lock: true })
        const now = yield* DateTime.now
        const subs = yield* ensureSubscriptions(project, now)
        let request: OperationRequest
        if (input.request.type === "change_plan") {
          request = input.request
        } else {
          const category = categoryOfCharge(subs, input.request.fixedChargeCode, undefined)
          request = {
            type: "adjust_fixed_charge_quantity",
            category: Either.getOrElse(category, () => categories[0] ?? ""),
            fixedChargeCode: input.request.fixedChargeCode,
            quantity: input.request.quantity
          }
        }
        const op: OperationRecord = {
          operationId: yield* ids.typeId(IdKinds.billingOperation),
          projectId: project.projectId,
          organizationId: project.organizationId,
          kind: input.kind,
          status: "pending",
          request,
          idempotencyScope: input.idempotency.scope,
          idempotencyKey: input.idempotency.key,
          fingerprint: input.idempotency.fingerprint,
          awaitingPayment: null,
          result: null,
          failure: null,
          submittedAt: now,
          resolvedAt: null
        }
        const taken = yield* repo.insertOperation(op)
        if (Option.isSome(taken)) {
          if (taken.value.fingerprint !== op.fingerprint) return yield* new BillingIdempotencyKeyReused({ key: op.idempotencyKey })
          return { operation: taken.value, created: false }
        }
        return { operation: op, created: true }
      }))
    })

    /** Applies an upgrade computed on `day` (billing.md §3.5): invoices, credit, the new plan from `day`. */
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

    /**
     * Charges what is due now (billing.md §3.6): `immediate` → off-session, synchronously;
     * `on_payment` → the customer pays later (the operation waits). Returns how to go on.
     */
    const collect = (op: OperationRecord, account: BillingAccountRecord | undefined, amountCents: number, currency: string, deadline: DateTime.Utc) =>
      Effect.gen(function*() {
        if (amountCents <= 0) return { _tag: "Paid" as const }
        if (account === undefined || account.paymentMethod === null) return { _tag: "Failed" as const, failure: failure("payment_method_required", null) }
        const outcome = yield* provider.charge({
          organizationId: account.organizationId, reference: op.operationId, amountCents, currency,
          paymentMethod: account.paymentMethod, expiresAt: deadline
        })
        switch (outcome._tag) {
          case "Succeeded":
            return { _tag: "Paid" as const }
          case "RequiresAction":
            return { _tag: "Waiting" as const, actionUrl: outcome.actionUrl }
          case "Declined":
            return { _tag: "Failed" as const, failure: failure("payment_failed", null) }
          case "Unknown":
            return { _tag: "Failed" as const, failure: failure("internal", "reconciliation_required", [], false) }
        }
      })

    const execute = (op0: OperationRecord) =>
      Effect.gen(function*() {
        const op = op0
        const now = yield* DateTime.now
        const project = yield* projects.findById(op.projectId)
        if (Option.isNone(project) || project.value.state !== "active") return yield* fail(op, failure("not_provisioned", null))
        const request = op.request
        const locked = yield* repo.lockSubscription(op.projectId, request.category)
        if (Option.isNone(locked)) {
          return yield* fail(op, failure("invalid_target", request.type === "change_plan" ? "plan_not_found" : "feature_not_found"))
        }
        // A period that ended is closed first: the change starts from the current one.
        const { sub } = yield* closeDuePeriods(locked.value, now)
        if (sub !== locked.value) yield* repo.updateSubscription(sub)
        const plan = planOf(sub)
        if (plan === undefined) return yield* fail(op, failure("not_provisioned", null))
        const account = Option.getOrUndefined(yield* repo.findAccount(sub.organizationId))
        const paymentMethod = paymentState(account)
        const D = dayOf(now)
        const periodEndAt = instantOfDay(period(plan.interval, "anniversary", sub.anchorDay, D).end + 1)
        const deadline = DateTime.min(DateTime.addDuration(now, PAYMENT_WINDOW), periodEndAt)

        const wait = (actionUrl: string, amountCents: number, currency: string, invoice: PreviewInvoice, additions: ReadonlyArray<PreviewLine>, unusedTimeCredit: number) =>
          Effect.gen(function*() {
            const awaitingPayment: AwaitingPayment = {
              day: D, subscriptionVersion: sub.version, amountCents, currency, deadline, actionUrl,
              invoice: encodeInvoice(invoice), additions: encodeLines(additions), unusedTimeCredit
            }
            const waiting = { ...op, awaitingPayment }
            yield* repo.updateOperation(waiting)
            return waiting
          })

        if (request.type === "adjust_fixed_charge_quantity") {
          const result = previewFixedChargeChange({
            catalog, plan, billingTime: "anniversary", anchorDay: sub.anchorDay, heldFixedCharges: sub.heldFixedCharges,
            cancellationScheduled: false, paymentMethod, fixedChargeCode: request.fixedChargeCode, quantity: request.quantity,
            now: now.epochMillis
          })
          if (Either.isLeft(result)) {
            const e = result.left
            return yield* fail(op, failure("invalid_target", e._tag === "PlanChangeRejected" ? e.detail : "quantity_out_of_range"))
          }
          const { dueNow } = result.right
          const paid = yield* collect(op, account, dueNow.totalCents, dueNow.currency, deadline)
          if (paid._tag === "Failed") return yield* fail(op, paid.failure)
          if (paid._tag === "Waiting") return yield* wait(paid.actionUrl, dueNow.totalCents, dueNow.currency, dueNow, [], 0)
          return yield* applyQuantity(op, sub, request.fixedChargeCode, request.quantity, dueNow, true)
        }

        const result = previewPlanChange({
          catalog, current: currentOf(sub, plan, paymentMethod, now),
          request: { category: request.category, planCode: request.planCode, ...(request.additions.length === 0 ? {} : { additions: request.additions }) },
          now: now.epochMillis
        })
        if (Either.isLeft(result)) {
          const e = result.left
          return yield* fail(op, failure("invalid_target", e._tag === "PlanChangeRejected" ? e.detail : "target_rejected"))
        }
        const p = result.right
        const change = p.planChange!
        if (change.unsoldFixedCharges.length > 0) {
          return yield* fail(op, failure("invalid_target", "release_required", change.unsoldFixedCharges))
        }
        const target = findPlan(catalog, request.category, request.planCode)!
        if (change.timing === "period_end") {
          const effectiveDay = dayOf(change.effectiveAt!)
          const next: SubscriptionRecord = {
            ...sub,
            scheduledChange: { operationId: op.operationId, planCode: target.planCode, effectiveDay, additions: request.additions },
            version: sub.version + 1,
            updatedAt: now
          }
          yield* repo.updateSubscription(next)
          return yield* resolve(op, { result: { type: "version", version: String(next.version), effectiveAt: change.effectiveAt } })
        }
        const paid = yield* collect(op, account, p.dueNow.totalCents, p.dueNow.currency, deadline)
        if (paid._tag === "Failed") return yield* fail(op, paid.failure)
        if (paid._tag === "Waiting") {
          return yield* wait(paid.actionUrl, p.dueNow.totalCents, p.dueNow.currency, p.dueNow, change.additions, change.unusedTimeCredit)
        }
        return yield* applyUpgrade({
          op, sub, target, day: D, dueNow: p.dueNow, additions: change.additions, additionsRequested: request.additions,
          unusedTimeCredit: change.unusedTimeCredit, paid: true
        })
      })

    /**
     * Runs a pending operation that has not started (idempotent: an operation already resolved, or
     * waiting for its payment, is returned as it is). A defect fails it `internal` (retryable).
     */
    const process = fn("Billing.process")(function*(operationId: string) {
      const run = tx.withTransaction(Effect.gen(function*() {
        const op = yield* repo.lockOperation(operationId)
        if (Option.isNone(op)) return yield* new BillingOperationNotFound({ operationId })
        if (op.value.status !== "pending" || op.value.awaitingPayment !== null) return op.value
        return yield* execute(op.value)
      }))
      const done = yield* run.pipe(
        Effect.catchAllDefect((defect) =>
          Effect.zipRight(
            Effect.logError("billing operation failed unexpectedly", defect),
            tx.withTransaction(Effect.gen(function*() {
              const op = yield* repo.lockOperation(operationId)
              if (Option.isNone(op)) return yield* new BillingOperationNotFound({ operationId })
              if (op.value.status !== "pending" || op.value.awaitingPayment !== null) return op.value
              return yield* fail(op.value, failure("internal", null))
            }))
          ))
      )
      return toBillingOperation(done)
    })

    /** Fails a waiting operation whose payment window closed, and cancels the payment. */
    const expire = (op: OperationRecord) =>
      Effect.gen(function*() {
        yield* provider.cancel({ reference: op.operationId })
        return yield* fail(op, failure("payment_failed", "payment_timeout"))
      })

    /**
     * The provider reports the payment of a waiting operation: paid → the change applies with the
     * amounts computed when it was asked (billing.md §3.6), declined → `payment_failed`. Late
     * (past the window) → `payment_timeout`. Repeats return the operation as it is.
     */
    const settlePayment = fn("Billing.settlePayment")(function*(operationId: string, outcome: "succeeded" | "failed") {
      const done = yield* tx.withTransaction(Effect.gen(function*() {
        const found = yield* repo.lockOperation(operationId)
        if (Option.isNone(found)) return yield* new BillingOperationNotFound({ operationId })
        const op = found.value
        const waiting = op.awaitingPayment
        if (op.status !== "pending" || waiting === null) return op
        const now = yield* DateTime.now
        if (!DateTime.lessThan(now, waiting.deadline)) return yield* expire(op)
        if (outcome === "failed") return yield* fail(op, failure("payment_failed", null))
        const locked = yield* repo.lockSubscription(op.projectId, op.request.category)
        if (Option.isNone(locked) || locked.value.version !== waiting.subscriptionVersion) {
          return yield* fail(op, failure("internal", "reconciliation_required", [], false))
        }
        const sub = locked.value
        const dueNow = decodeInvoice(waiting.invoice)
        if (op.request.type === "adjust_fixed_charge_quantity") {
          return yield* applyQuantity(op, sub, op.request.fixedChargeCode, op.request.quantity, dueNow, true)
        }
        const target = findPlan(catalog, op.request.category, op.request.planCode)
        if (target === undefined) return yield* fail(op, failure("not_provisioned", null))
        return yield* applyUpgrade({
          op, sub, target, day: waiting.day, dueNow, additions: decodeLines(waiting.additions),
          additionsRequested: op.request.additions, unusedTimeCredit: waiting.unusedTimeCredit, paid: true
        })
      }))
      return toBillingOperation(done)
    })

    /** What a payment page shows: the operation and the payment it waits for (none once it stopped waiting). */
    const paymentOf = fn("Billing.paymentOf")(function*(operationId: string) {
      const op = yield* repo.findOperation(operationId)
      if (Option.isNone(op)) return Option.none()
      const waiting = op.value.awaitingPayment
      return Option.some({
        operation: toBillingOperation(op.value),
        planCode: op.value.request.type === "change_plan" ? op.value.request.planCode : null,
        payment: waiting === null ? null : { amountCents: waiting.amountCents, currency: waiting.currency, deadline: waiting.deadline }
      })
    })

    // -------------------------------------------------------------------------------------------
    // Usage
    // -------------------------------------------------------------------------------------------

    /** Records usage of a metric for a project (hosts meter it); thresholds are checked by the scheduler. */
    const recordUsage = fn("Billing.recordUsage")(function*(input: {
      readonly projectId: ProjectId
      readonly metricCode: string
      readonly units: number
      readonly category?: string
    }) {
      if (!Number.isSafeInteger(input.units) || input.units < 0) {
        return yield* new BillingRequestInvalid({ field: "units", message: "must be a non-negative integer" })
      }
      const { subs } = yield* subscriptionsOf(input.projectId)
      const target = subs.find((s) =>
        (input.category === undefined || s.category === input.category) &&
        planOf(s)?.usageCharges.some((c) => c.metricCode === input.metricCode) === true)
      if (target === undefined) return yield* new UsageMetricUnknown({ metricCode: input.metricCode })
      yield* tx.withTransaction(Effect.gen(function*() {
        const locked = yield* repo.lockSubscription(target.projectId, target.category)
        if (Option.isNone(locked)) return
        const sub = locked.value
        const units = safeNumber(big(sub.usage[input.metricCode] ?? 0) + big(input.units), "units")
        yield* repo.updateSubscription({ ...sub, usage: { ...sub.usage, [input.metricCode]: units }, usageDirty: true, updatedAt: yield* DateTime.now })
      }))
    })

    // -------------------------------------------------------------------------------------------
    // The scheduler
    // -------------------------------------------------------------------------------------------

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
          const done = yield* tx.withTransaction(Effect.gen(function*() {
            const locked = yield* repo.lockOperation(operationId)
            if (Option.isNone(locked) || locked.value.status !== "pending" || locked.value.awaitingPayment === null) return false
            if (DateTime.lessThan(now, locked.value.awaitingPayment.deadline)) return false
            yield* expire(locked.value)
            return true
          }))
          if (done) expired += 1
        }
      }
      let collected = 0
      for (const invoiceId of yield* repo.collectibleInvoices(TICK_BATCH)) {
        const done = yield* tx.withTransaction(Effect.gen(function*() {
          const locked = yield* repo.lockInvoice(invoiceId)
          if (Option.isNone(locked) || locked.value.paymentAttempts > 0 || locked.value.paymentStatus !== "pending") return false
          yield* collectInvoice(locked.value, now)
          return true
        })).pipe(Effect.catchAllDefect((defect) => Effect.as(Effect.logWarning("invoice collection failed", defect), false)))
        if (done) collected += 1
      }
      return { materialised, closed, progressive, processed, expired, collected }
    })

    return {
      catalog,
      listPlans,
      openProject,
      openOrganization,
      openOrganizationProject,
      overview,
      terms,
      preview,
      listInvoices,
      getOperation,
      submit,
      process,
      settlePayment,
      paymentOf,
      recordUsage,
      tick,
      ensureSubscriptions: (projectId: ProjectId) => Effect.map(subscriptionsOf(projectId), ({ subs }) => subs)
    } as const
  }),
  dependencies: [Ids.Default, EventPublisher.Default]
}) {}
