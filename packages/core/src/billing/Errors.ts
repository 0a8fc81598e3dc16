/** The billing context's domain errors: no HTTP knowledge here (the adapters map them). */
import { Schema } from "effect"
import { BillingFailureCode, BillingFailureDetail, HeldFixedCharge } from "./Schema.js"

/** No billing operation with that id on the project. */
export class BillingOperationNotFound extends Schema.TaggedError<BillingOperationNotFound>()("BillingOperationNotFound", {
  operationId: Schema.String
}) {}

/**
 * A preview the catalog or the subscription refuses (docs/api-notes/billing.md): the same
 * `{code, detail}` an operation would fail with.
 */
export class BillingChangeRejected extends Schema.TaggedError<BillingChangeRejected>()("BillingChangeRejected", {
  code: BillingFailureCode,
  detail: Schema.NullOr(BillingFailureDetail),
  retryable: Schema.Boolean,
  unsoldFixedCharges: Schema.Array(HeldFixedCharge),
  message: Schema.String
}) {}

/** The request is well-formed but cannot be read (e.g. a fixed charge sold in several categories, no category given). */
export class BillingRequestInvalid extends Schema.TaggedError<BillingRequestInvalid>()("BillingRequestInvalid", {
  field: Schema.String,
  message: Schema.String
}) {}

/** The project's subscription is on a plan the catalog no longer has. */
export class BillingNotProvisioned extends Schema.TaggedError<BillingNotProvisioned>()("BillingNotProvisioned", {
  projectId: Schema.String,
  message: Schema.String
}) {}

/** An Idempotency-Key of the caller that created another billing operation (another request body). */
export class BillingIdempotencyKeyReused extends Schema.TaggedError<BillingIdempotencyKeyReused>()(
  "BillingIdempotencyKeyReused",
  { key: Schema.String }
) {}

/** Usage for a metric no plan of the project prices (`field`: where the request named it, if in a batch). */
export class UsageMetricUnknown extends Schema.TaggedError<UsageMetricUnknown>()("UsageMetricUnknown", {
  metricCode: Schema.String,
  field: Schema.optional(Schema.String)
}) {}

/**
 * A usage record dated before the current period of the subscription it counts in: that period
 * is closed (invoiced), so the record can no longer be billed. The whole batch is refused.
 */
export class UsagePeriodClosed extends Schema.TaggedError<UsagePeriodClosed>()("UsagePeriodClosed", {
  recordId: Schema.String,
  category: Schema.String,
  /** The record's timestamp and the start of the open period (wire form). */
  timestamp: Schema.String,
  periodStart: Schema.String,
  /** The record's place in the batch (`records/<i>`). */
  field: Schema.String
}) {}

/** The organization has no subscription of its own (its projects are billed): nothing to preview. */
export class OrganizationNotSubscribed extends Schema.TaggedError<OrganizationNotSubscribed>()("OrganizationNotSubscribed", {
  organizationId: Schema.String
}) {}

/** A plan catalog that cannot be used (docs/api-notes/billing.md: the server refuses to start and says why). */
export class BillingCatalogInvalid extends Schema.TaggedError<BillingCatalogInvalid>()("BillingCatalogInvalid", {
  source: Schema.String,
  message: Schema.String
}) {}

/** Every billing error a request can meet (`BillingCatalogInvalid` stops the server at start instead). */
export type BillingError =
  | BillingOperationNotFound | BillingChangeRejected | BillingRequestInvalid | BillingNotProvisioned
  | BillingIdempotencyKeyReused | UsageMetricUnknown | UsagePeriodClosed
  | OrganizationNotSubscribed
