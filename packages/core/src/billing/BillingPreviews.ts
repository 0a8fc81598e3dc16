/**
 * Billing's previews (docs/api-notes/billing.md): what a plan change or a fixed-charge quantity
 * would cost, computed by the pure `previewPlanChange` / `previewFixedChargeChange` on the
 * project's current subscription. Operations (`BillingOperations.ts`) reuse the same inputs.
 */
import { DateTime, Effect, Result, Option } from "effect"
import type { ProjectRecord } from "../projects/Ports.js"
import type { ProjectId } from "../shared/Identifiers.js"
import { fn } from "../internal/Traced.js"
import { paymentState } from "./BillingInvoices.js"
import type { BillingSubscriptions } from "./BillingSubscriptions.js"
import { plansOf } from "./Catalog.js"
import { BillingChangeRejected, BillingNotProvisioned, BillingRequestInvalid } from "./Errors.js"
import { previewFixedChargeChange } from "./FixedChargeChange.js"
import { safeNumber, unbilledUsageLines } from "./Invoicing.js"
import { type Failure, failure } from "./OperationDecision.js"
import { type CurrentSubscription, type PaymentMethodState, type PlanChangePreviewError, previewPlanChange } from "./PlanChange.js"
import { BillingRepo, type SubscriptionRecord } from "./Ports.js"
import { MS_PER_DAY } from "./Proration.js"
import type { BillingPlan, PreviewProjectChangeRequest, PreviewProjectChangeResponse } from "./Schema.js"
import { usageTotal } from "./Usage.js"

/** The preview's view of a subscription on `plan` at `now`. */
export const currentOf = (sub: SubscriptionRecord, plan: BillingPlan, paymentMethod: PaymentMethodState, now: DateTime.Utc): CurrentSubscription => {
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

export const rejected = (f: Failure, message: string) =>
  new BillingChangeRejected({ code: f.code, detail: f.detail, retryable: f.retryable, unsoldFixedCharges: f.unsoldFixedCharges, message })

const notProvisioned = (sub: SubscriptionRecord) =>
  new BillingNotProvisioned({
    projectId: sub.projectId,
    message: `The plan ${sub.planCode} of ${sub.category} is no longer in the catalog.`
  })

export const previewFailure = (e: PlanChangePreviewError) => {
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

export const makeBillingPreviews = (subscriptions: BillingSubscriptions) =>
  Effect.gen(function*() {
    const repo = yield* BillingRepo
    const { catalog, categories, planOf, subscriptionsOf } = subscriptions

    /** The category of a fixed charge: the subscription whose plan sells it (or the one named). */
    const categoryOfCharge = (subs: ReadonlyArray<SubscriptionRecord>, code: string, named: string | undefined) => {
      if (named !== undefined) return Result.succeed(named)
      const selling = subs.filter((s) => planOf(s)?.fixedCharges.some((c) => c.fixedChargeCode === code) === true)
      if (selling.length === 1) return Result.succeed(selling[0]!.category)
      if (selling.length > 1) {
        return Result.fail(new BillingRequestInvalid({ field: "category", message: `is required: ${code} is sold in several categories` }))
      }
      // Not sold by any current plan: the catalog decides between feature_not_sold_by_plan and feature_not_found.
      const category = categories.find((c) => plansOf(catalog, c).some((p) => p.fixedCharges.some((f) => f.fixedChargeCode === code)))
      return Result.succeed(category ?? categories[0] ?? "")
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
          now: DateTime.toEpochMillis(now)
        })
        if (Result.isFailure(result)) return yield* previewFailure(result.failure)
        return result.success satisfies PreviewProjectChangeResponse
      }
      const category = categoryOfCharge(subs, request.fixedCharge.fixedChargeCode, request.category)
      if (Result.isFailure(category)) return yield* category.failure
      const sub = subs.find((s) => s.category === category.success)
      if (sub === undefined) return yield* rejected(failure("invalid_target", "feature_not_found"), `No category ${category.success}.`)
      const plan = planOf(sub)
      if (plan === undefined) return yield* notProvisioned(sub)
      const result = previewFixedChargeChange({
        catalog, plan, billingTime: "anniversary", anchorDay: sub.anchorDay, heldFixedCharges: sub.heldFixedCharges,
        cancellationScheduled: false, paymentMethod, fixedChargeCode: request.fixedCharge.fixedChargeCode,
        quantity: request.fixedCharge.quantity, now: DateTime.toEpochMillis(now)
      })
      if (Result.isFailure(result)) return yield* previewFailure(result.failure)
      return { dueNow: result.success.dueNow, nextCharge: result.success.nextCharge } satisfies PreviewProjectChangeResponse
    })

    return { categoryOfCharge, preview } as const
  })

export type BillingPreviews = Effect.Success<ReturnType<typeof makeBillingPreviews>>
