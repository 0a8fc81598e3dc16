/**
 * An organization's own subscription (the public contract's `getOrganizationBillingOverview`,
 * `previewOrganizationChange`; OrganizationBillingSchema.ts): a plan of the catalog's
 * `organization` category (Catalog.ts `ORGANIZATION_CATEGORY`) bought by the organization itself,
 * e.g. one selling SSO seats with the `organization_sso` entitlement (sso/SsoPolicy.ts).
 *
 * The money rules are the projects' ones, by the same pure functions: the opening invoice is
 * `openingLines` (BillingSubscriptions.ts) and a fixed-charge quantity change is priced — for the
 * preview and when applied — by `previewFixedChargeChange` (FixedChargeChange.ts) on the
 * subscription's anchor, held charges and the organization's card, so a preview's numbers are the
 * ones an equal project preview gives and the ones the change charges.
 *
 * Buying and changing quantities (`subscribe`, `adjustFixedCharge`) apply at once, in one
 * transaction, and issue an organization invoice (subject `organization`) that the scheduler
 * collects off-session like any other; an amount due with no card on file is refused
 * (`payment_method_required`), as an operation would fail. The scheduler renews it (`renewDue`):
 * once a period ends, one invoice bills that period's in-arrears fees and the next period's
 * in-advance ones at the quantities held then (no usage: organization plans meter nothing here).
 * Not done here (see docs/api-notes/billing.md): plan changes or cancelling an organization
 * subscription, and the billing-operation flow (the contract has no purchase operation for
 * organizations).
 */
import { DateTime, Effect, Result, Option } from "effect"
import { fn } from "../internal/Traced.js"
import type { OrganizationId } from "../shared/Identifiers.js"
import { Transactor } from "../shared/Ports.js"
import { paymentState } from "./BillingInvoices.js"
import type { BillingInvoices } from "./BillingInvoices.js"
import { heldView } from "./BillingOverview.js"
import { previewFailure, rejected } from "./BillingPreviews.js"
import { byCode, dayOf, openingLines, periodLines } from "./BillingSubscriptions.js"
import { findPlan, ORGANIZATION_CATEGORY } from "./Catalog.js"
import { OrganizationNotSubscribed } from "./Errors.js"
import { previewFixedChargeChange } from "./FixedChargeChange.js"
import { feesOf, instantOfDay } from "./Invoicing.js"
import { failure } from "./OperationDecision.js"
import type { OrganizationBillingOverview, PreviewOrganizationChangeRequest, PreviewOrganizationChangeResponse } from "./OrganizationBillingSchema.js"
import { BillingCatalog, BillingRepo, type OrganizationSubscriptionRecord } from "./Ports.js"
import { period } from "./Proration.js"
import type { BillingPlan, HeldFixedCharge } from "./Schema.js"

/** The contract's view of the subscription on `plan` at `now`. */
export const toOrganizationOverview = (
  record: OrganizationSubscriptionRecord,
  plan: BillingPlan,
  now: DateTime.Utc
): OrganizationBillingOverview => {
  const current = period(plan.interval, "anniversary", record.anchorDay, Math.max(record.anchorDay, dayOf(now)))
  return {
    entitlementsVersion: record.version,
    subscription: {
      planCode: plan.planCode,
      planName: plan.name,
      status: "active",
      baseAmountCents: plan.baseAmountCents,
      currency: plan.currency,
      currentPeriodEnd: instantOfDay(current.end + 1),
      cancelsAt: null,
      entitlements: plan.entitlements,
      fixedCharges: heldView(plan, record.heldFixedCharges),
      minimumCommitment: plan.minimumCommitment
    }
  }
}

export const makeOrganizationBilling = (invoices: BillingInvoices) =>
  Effect.gen(function*() {
    const repo = yield* BillingRepo
    const { catalog } = yield* BillingCatalog
    const tx = yield* Transactor
    const planOf = (record: OrganizationSubscriptionRecord) => findPlan(catalog, ORGANIZATION_CATEGORY, record.planCode)
    const paymentRequired = (what: string) =>
      rejected(failure("payment_method_required", null), `${what} is due now and the organization has no card on file.`)

    /** The subscription (null: none, or its plan left the catalog) and the version of its entitlements. */
    const overview = fn("Billing.organizationOverview")(function*(organizationId: OrganizationId) {
      const found = yield* repo.findOrganizationSubscription(organizationId)
      if (Option.isNone(found)) return { entitlementsVersion: 0, subscription: null } satisfies OrganizationBillingOverview
      const plan = planOf(found.value)
      if (plan === undefined) return { entitlementsVersion: found.value.version, subscription: null } satisfies OrganizationBillingOverview
      return toOrganizationOverview(found.value, plan, yield* DateTime.now)
    })

    /** What setting a fixed charge's quantity would cost now (nothing is written). */
    const preview = fn("Billing.previewOrganizationChange")(function*(
      organizationId: OrganizationId,
      request: PreviewOrganizationChangeRequest
    ) {
      const found = yield* repo.findOrganizationSubscription(organizationId)
      if (Option.isNone(found)) return yield* new OrganizationNotSubscribed({ organizationId })
      const account = Option.getOrUndefined(yield* repo.findAccount(organizationId))
      const priced = yield* price(found.value, paymentState(account), request.fixedCharge, yield* DateTime.now)
      return { dueNow: priced.dueNow, nextCharge: priced.nextCharge } satisfies PreviewOrganizationChangeResponse
    })

    const price = (record: OrganizationSubscriptionRecord, paymentMethod: ReturnType<typeof paymentState>, change: HeldFixedCharge, now: DateTime.Utc) =>
      Effect.gen(function*() {
        const plan = planOf(record)
        if (plan === undefined) return yield* new OrganizationNotSubscribed({ organizationId: record.organizationId })
        const result = previewFixedChargeChange({
          catalog, plan, billingTime: "anniversary", anchorDay: record.anchorDay, heldFixedCharges: record.heldFixedCharges,
          cancellationScheduled: false, paymentMethod, fixedChargeCode: change.fixedChargeCode, quantity: change.quantity,
          now: DateTime.toEpochMillis(now)
        })
        if (Result.isFailure(result)) return yield* previewFailure(result.failure)
        return result.success
      })

    /**
     * Buys `planCode` of the organization category for the organization, holding each fixed charge
     * at its `defaultUnits` (or the quantities given), from today: the first period is invoiced now.
     */
    const subscribe = fn("Billing.subscribeOrganization")(function*(
      organizationId: OrganizationId,
      planCode: string,
      quantities: ReadonlyArray<HeldFixedCharge> = []
    ) {
      const plan = findPlan(catalog, ORGANIZATION_CATEGORY, planCode)
      if (plan === undefined) {
        return yield* rejected(failure("invalid_target", "plan_not_found"), `No plan ${planCode} in ${ORGANIZATION_CATEGORY}.`)
      }
      const held: Array<HeldFixedCharge> = []
      for (const charge of plan.fixedCharges) {
        const quantity = quantities.find((q) => q.fixedChargeCode === charge.fixedChargeCode)?.quantity ?? charge.defaultUnits
        if (quantity !== 0 && (quantity < charge.minQuantity || quantity > charge.maxQuantity)) {
          return yield* rejected(failure("invalid_target", "quantity_out_of_range"), `${charge.fixedChargeCode}: ${quantity} is out of range.`)
        }
        if (quantity > 0) held.push({ fixedChargeCode: charge.fixedChargeCode, quantity })
      }
      const unsold = quantities.find((q) => !plan.fixedCharges.some((c) => c.fixedChargeCode === q.fixedChargeCode))
      if (unsold !== undefined) {
        return yield* rejected(failure("invalid_target", "feature_not_sold_by_plan"), `${planCode} does not sell ${unsold.fixedChargeCode}.`)
      }
      return yield* tx.withTransaction(Effect.gen(function*() {
        const existing = yield* repo.lockOrganizationSubscription(organizationId)
        if (Option.isSome(existing)) {
          return yield* rejected(failure("invalid_target", "target_rejected"), "The organization already has a subscription.")
        }
        const now = yield* DateTime.now
        const anchorDay = dayOf(now)
        const first = period(plan.interval, "anniversary", anchorDay, anchorDay)
        const lines = openingLines(plan, held.sort(byCode), first)
        const account = yield* repo.lockAccount(organizationId)
        if (feesOf(lines) > 0n && paymentState(account) === "none") return yield* paymentRequired("The first period")
        const record: OrganizationSubscriptionRecord = {
          organizationId, planCode, anchorDay, paidThroughDay: first.end, heldFixedCharges: held, version: 1, createdAt: now, updatedAt: now
        }
        if (lines.length > 0) {
          yield* invoices.issueInvoice({
            account, projectId: null, kind: "subscription", uniqueKey: `org:${organizationId}:open:${anchorDay}`, issuedAt: now,
            currency: plan.currency, lines, creditsCents: 0, applyBalance: true
          })
        }
        yield* repo.saveOrganizationSubscription(record)
        return toOrganizationOverview(record, plan, now)
      }))
    })

    /**
     * Sets a fixed charge's quantity on the organization's subscription: priced exactly as
     * `preview` prices it, the amount due invoiced now, the new quantity held from now on.
     */
    const adjustFixedCharge = fn("Billing.adjustOrganizationFixedCharge")(function*(
      organizationId: OrganizationId,
      change: HeldFixedCharge
    ) {
      return yield* tx.withTransaction(Effect.gen(function*() {
        const found = yield* repo.lockOrganizationSubscription(organizationId)
        if (Option.isNone(found)) return yield* new OrganizationNotSubscribed({ organizationId })
        const record = found.value
        const now = yield* DateTime.now
        const account = yield* repo.lockAccount(organizationId)
        const priced = yield* price(record, paymentState(account), change, now)
        if (priced.dueNow.totalCents > 0 && paymentState(account) === "none") return yield* paymentRequired(change.fixedChargeCode)
        const next: OrganizationSubscriptionRecord = { ...record, heldFixedCharges: priced.heldAfter, version: record.version + 1, updatedAt: now }
        if (priced.dueNow.lines.length > 0) {
          yield* invoices.issueInvoice({
            account, projectId: null, kind: "one_off", uniqueKey: `org:${organizationId}:v${next.version}`, issuedAt: now,
            currency: priced.dueNow.currency, lines: priced.dueNow.lines, creditsCents: 0, applyBalance: false
          })
        }
        yield* repo.saveOrganizationSubscription(next)
        return toOrganizationOverview(next, planOf(next)!, now)
      }))
    })

    /**
     * Renews the organization's subscription through `now` (several periods when catching up): one
     * invoice per period boundary, written once (its unique key is the boundary). Returns how many.
     */
    const renewDue = (organizationId: OrganizationId, now: DateTime.Utc) =>
      tx.withTransaction(Effect.gen(function*() {
        const found = yield* repo.lockOrganizationSubscription(organizationId)
        if (Option.isNone(found)) return 0
        let record = found.value
        const plan = planOf(record)
        if (plan === undefined) return 0
        const today = dayOf(now)
        let renewed = 0
        while (record.paidThroughDay + 1 <= today) {
          const ended = period(plan.interval, "anniversary", record.anchorDay, record.paidThroughDay)
          const next = period(plan.interval, "anniversary", record.anchorDay, record.paidThroughDay + 1)
          const lines = [...periodLines(plan, record.heldFixedCharges, ended, false), ...openingLines(plan, record.heldFixedCharges, next)]
          if (lines.length > 0) {
            const account = yield* repo.lockAccount(organizationId)
            yield* invoices.issueInvoice({
              account, projectId: null, kind: "subscription", uniqueKey: `org:${organizationId}:close:${next.start}`,
              issuedAt: instantOfDay(next.start), currency: plan.currency, lines, creditsCents: 0, applyBalance: true
            })
          }
          record = { ...record, paidThroughDay: next.end, updatedAt: now }
          renewed += 1
        }
        if (renewed > 0) yield* repo.saveOrganizationSubscription(record)
        return renewed
      }))

    return { overview, preview, subscribe, adjustFixedCharge, renewDue } as const
  })

export type OrganizationBilling = Effect.Success<ReturnType<typeof makeOrganizationBilling>>
