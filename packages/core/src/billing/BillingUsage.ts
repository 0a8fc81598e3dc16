/**
 * Billing's metered usage (docs/api-notes/billing.md): units of a metric for a project, recorded
 * by a host (`recordUsage`) or by the metering edge in batches of records with ids
 * (`recordUsageBatch`, `POST /v1/projects/{projectId}/billing/usage`). Both add to the
 * subscription whose plan prices the metric, under its row lock, and mark it for the scheduler,
 * which checks thresholds (progressive invoices) on its next pass.
 *
 * A batch is all or nothing: an unknown metric (422), a record dated before the open period (409)
 * or a timestamp in the future refuses it whole. A record id is applied once per project: its row
 * is written in the same transaction as the usage it adds, so a repeat — later, or from another
 * process at the same time — is `ignored` and changes nothing.
 */
import { DateTime, Effect, Option } from "effect"
import type { ProjectRecord } from "../projects/Ports.js"
import type { ProjectId } from "../shared/Identifiers.js"
import { formatTimestamp } from "../shared/Timestamp.js"
import { Transactor } from "../shared/Ports.js"
import { fn } from "../internal/Traced.js"
import type { BillingSubscriptions } from "./BillingSubscriptions.js"
import { BillingNotProvisioned, BillingRequestInvalid, UsageMetricUnknown, UsagePeriodClosed } from "./Errors.js"
import { instantOfDay, safeNumber } from "./Invoicing.js"
import { big } from "./Money.js"
import { BillingRepo, type SubscriptionRecord, type UsageRecordRow } from "./Ports.js"
import type { UsageRecordInput, UsageRecordResult } from "./UsageSchema.js"

/** How far ahead of the server's clock a record may be dated (clock skew of the metering edge). */
export const USAGE_CLOCK_SKEW_MILLIS = 5 * 60_000

export const makeBillingUsage = (subscriptions: BillingSubscriptions) =>
  Effect.gen(function*() {
    const repo = yield* BillingRepo
    const tx = yield* Transactor
    const { planOf, subscriptionsOf } = subscriptions

    /** The subscription that prices `metricCode` (in `category` when named): the first one, by category. */
    const pricing = (subs: ReadonlyArray<SubscriptionRecord>, metricCode: string, category?: string) =>
      subs.find((s) =>
        (category === undefined || s.category === category) &&
        planOf(s)?.usageCharges.some((c) => c.metricCode === metricCode) === true)

    /** `sub` with `units` more of `metricCode`, marked for the scheduler's threshold check. */
    const withUnits = (sub: SubscriptionRecord, metricCode: string, units: number, now: DateTime.Utc): SubscriptionRecord => ({
      ...sub,
      usage: { ...sub.usage, [metricCode]: safeNumber(big(sub.usage[metricCode] ?? 0) + big(units), "units") },
      usageDirty: true,
      updatedAt: now
    })

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
      const target = pricing(subs, input.metricCode, input.category)
      if (target === undefined) return yield* new UsageMetricUnknown({ metricCode: input.metricCode })
      yield* tx.withTransaction(Effect.gen(function*() {
        const locked = yield* repo.lockSubscription(target.projectId, target.category)
        if (Option.isNone(locked)) return
        yield* repo.updateSubscription(withUnits(locked.value, input.metricCode, input.units, yield* DateTime.now))
      }))
    })

    /**
     * Applies a batch of usage records (1–100, decoded by `RecordUsageRequest`) to the project's
     * subscriptions; answers each record's outcome in the request's order.
     */
    const recordUsageBatch = fn("Billing.recordUsageBatch")(function*(
      projectId: ProjectId,
      records: ReadonlyArray<UsageRecordInput>,
      known?: ProjectRecord
    ) {
      const seen = new Set<string>()
      for (const [i, r] of records.entries()) {
        if (seen.has(r.id)) return yield* new BillingRequestInvalid({ field: `records/${i}/id`, message: `repeats the id ${r.id} of an earlier record of this batch` })
        seen.add(r.id)
      }
      const now = yield* DateTime.now
      for (const [i, r] of records.entries()) {
        if (DateTime.toEpochMillis(r.timestamp) > DateTime.toEpochMillis(now) + USAGE_CLOCK_SKEW_MILLIS) {
          return yield* new BillingRequestInvalid({ field: `records/${i}/timestamp`, message: "is in the future" })
        }
      }
      const { subs } = yield* subscriptionsOf(projectId, known)
      const categories: Array<string> = []
      for (const [i, r] of records.entries()) {
        const target = pricing(subs, r.metric)
        if (target === undefined) return yield* new UsageMetricUnknown({ metricCode: r.metric, field: `records/${i}/metric` })
        categories.push(target.category)
      }

      return yield* tx.withTransaction(Effect.gen(function*() {
        // Locks in category order (every writer of a subscription locks it first), so batches
        // of one project serialise per category and never deadlock one another.
        const locked = new Map<string, SubscriptionRecord>()
        for (const category of [...new Set(categories)].sort()) {
          const sub = yield* repo.lockSubscription(projectId, category)
          if (Option.isNone(sub)) {
            return yield* new BillingNotProvisioned({ projectId, message: `The project has no ${category} subscription.` })
          }
          locked.set(category, sub.value)
        }
        const rows: Array<UsageRecordRow> = records.map((r, i) => ({
          recordId: r.id, metricCode: r.metric, category: categories[i]!, quantity: r.quantity, occurredAt: r.timestamp, recordedAt: now
        }))
        const inserted = new Set(yield* repo.insertUsageRecords(projectId, rows))
        const results: Array<UsageRecordResult> = []
        const changed = new Set<string>()
        for (const [i, row] of rows.entries()) {
          if (!inserted.has(row.recordId)) {
            results.push({ id: row.recordId, outcome: "ignored", reason: "already_applied", category: row.category })
            continue
          }
          const sub = locked.get(row.category)!
          const opened = instantOfDay(sub.periodStart)
          if (DateTime.toEpochMillis(row.occurredAt) < DateTime.toEpochMillis(opened)) {
            // Failing rolls the whole batch back, the records written above included.
            return yield* new UsagePeriodClosed({
              recordId: row.recordId, category: row.category, timestamp: formatTimestamp(row.occurredAt),
              periodStart: formatTimestamp(opened), field: `records/${i}`
            })
          }
          locked.set(row.category, withUnits(sub, row.metricCode, row.quantity, now))
          changed.add(row.category)
          results.push({ id: row.recordId, outcome: "applied", category: row.category })
        }
        for (const category of changed) yield* repo.updateSubscription(locked.get(category)!)
        return results
      }))
    })

    return { recordUsage, recordUsageBatch } as const
  })
