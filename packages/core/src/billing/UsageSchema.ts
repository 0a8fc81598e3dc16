/**
 * Usage metering on the wire (`POST /v1/projects/{projectId}/billing/usage`;
 * docs/api-notes/billing.md, usage metering): a batch of usage records, each with its own id. A
 * record is applied once: a repeat of its id (in a later batch, from any process) answers `ignored`
 * with reason `already_applied` and changes nothing.
 */
import { Schema } from "effect"
import { BoundedString } from "../shared/Bounds.js"
import { Timestamp } from "../shared/Timestamp.js"
import { noExcessKeys } from "../internal/ExcessKeys.js"

/** The largest batch of usage records (as the edge's other batches, e.g. call signals). */
export const MAX_USAGE_RECORDS_PER_BATCH = 100

/** The largest quantity of one record (a batch of 100 stays far below 2^53). */
export const MAX_USAGE_QUANTITY = 1_000_000_000

/** The caller's id of a usage record: 1–128 letters, digits, `.`, `_`, `:` or `-`, starting with a letter or digit. */
export const UsageRecordId = Schema.String.pipe(
  Schema.check(Schema.isPattern(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/u, {
    message: "must be 1-128 letters, digits, '.', '_', ':' or '-', starting with a letter or digit"
  }))
).annotate({ identifier: "UsageRecordId", examples: ["usage-2030-01-01-0001"] })

export const UsageQuantity = Schema.Int.pipe(
  Schema.check(Schema.isBetween({ minimum: 0, maximum: MAX_USAGE_QUANTITY }, { message: `must be an integer from 0 to ${MAX_USAGE_QUANTITY}` }))
).annotate({ identifier: "UsageQuantity", examples: [42] })

/** One usage record: `quantity` units of `metric` (a metric code the project's plan prices) at `timestamp`. */
export const UsageRecordInput = Schema.Struct({
  id: UsageRecordId,
  metric: BoundedString(1, 64).annotate({ examples: ["voice_minute"] }),
  quantity: UsageQuantity,
  timestamp: Timestamp
}).annotate({ identifier: "UsageRecord" }).pipe(noExcessKeys)
export type UsageRecordInput = typeof UsageRecordInput.Type

export const RecordUsageRequest = Schema.Struct({
  records: Schema.Array(UsageRecordInput).pipe(Schema.check(Schema.isMinLength(1)), Schema.check(Schema.isMaxLength(MAX_USAGE_RECORDS_PER_BATCH)))
}).annotate({ identifier: "RecordUsageRequest" }).pipe(noExcessKeys)
export type RecordUsageRequest = typeof RecordUsageRequest.Type

export const UsageRecordOutcome = Schema.Literals(["applied", "ignored"]).annotate({ identifier: "UsageRecordOutcome" })
export type UsageRecordOutcome = typeof UsageRecordOutcome.Type

/** One record's outcome, in the order of the request. `ignored` records were applied before (`reason: already_applied`). */
export const UsageRecordResult = Schema.Struct({
  id: UsageRecordId,
  outcome: UsageRecordOutcome,
  reason: Schema.optionalKey(Schema.Literal("already_applied")),
  /** The billing category whose subscription the record counts in. */
  category: BoundedString(1, 64)
}).annotate({ identifier: "UsageRecordResult" })
export type UsageRecordResult = typeof UsageRecordResult.Type

export const RecordUsageResponse = Schema.Struct({
  results: Schema.Array(UsageRecordResult)
}).annotate({
  identifier: "RecordUsageResponse",
  examples: [{
    results: [
      { id: "usage-2030-01-01-0001", outcome: "applied", category: "voice" },
      { id: "usage-2030-01-01-0002", outcome: "ignored", reason: "already_applied", category: "messaging" }
    ]
  }]
})
export type RecordUsageResponse = typeof RecordUsageResponse.Type
