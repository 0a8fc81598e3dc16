/**
 * Billing's metered usage (reference/billing.md §3.9): hosts record units of a metric for a
 * project; the subscription's usage grows under its row lock and is marked for the scheduler,
 * which checks thresholds (progressive invoices) on its next pass.
 */
import { DateTime, Effect, Option } from "effect"
import type { ProjectId } from "../shared/Identifiers.js"
import { Transactor } from "../shared/Ports.js"
import { fn } from "../internal/Traced.js"
import type { BillingSubscriptions } from "./BillingSubscriptions.js"
import { BillingRequestInvalid, UsageMetricUnknown } from "./Errors.js"
import { safeNumber } from "./Invoicing.js"
import { big } from "./Money.js"
import { BillingRepo } from "./Ports.js"

export const makeBillingUsage = (subscriptions: BillingSubscriptions) =>
  Effect.gen(function*() {
    const repo = yield* BillingRepo
    const tx = yield* Transactor
    const { planOf, subscriptionsOf } = subscriptions

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

    return { recordUsage } as const
  })
