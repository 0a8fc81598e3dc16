/**
 * The billing events (docs/api-notes/events-and-webhooks.md): written to the outbox in the
 * transaction of the change. `billingEventSchemas` maps each type to the schema of its `data`, for
 * the event catalog.
 */
import { Schema } from "effect"
import { Timestamp } from "../shared/Timestamp.js"
import { BillingOperationFailure, BillingOperationKind, BillingOperationResult, CategorySlug, PlanCode } from "./Schema.js"

export const BILLING_EVENT_SOURCE = "switchboard.billing"

const operationFields = {
  operationId: Schema.String,
  projectId: Schema.String,
  organizationId: Schema.String,
  kind: BillingOperationKind
}

/** `billing.operation.succeeded`: an operation applied its change (or scheduled it for period end). */
export const BillingOperationSucceededData = Schema.Struct({
  ...operationFields,
  result: BillingOperationResult
}).annotate({ identifier: "BillingOperationSucceededData" })

/** `billing.operation.failed`: an operation failed; nothing changed. */
export const BillingOperationFailedData = Schema.Struct({
  ...operationFields,
  failure: BillingOperationFailure
}).annotate({ identifier: "BillingOperationFailedData" })

/** `billing.plan.changed`: the plan a project is billed on changed (an upgrade now, a downgrade at period end). */
export const BillingPlanChangedData = Schema.Struct({
  projectId: Schema.String,
  organizationId: Schema.String,
  category: CategorySlug,
  previousPlanCode: PlanCode,
  planCode: PlanCode,
  version: Schema.String,
  effectiveAt: Timestamp,
  operationId: Schema.NullOr(Schema.String)
}).annotate({ identifier: "BillingPlanChangedData" })

/** Event type → the schema of its `data`. */
export const billingEventSchemas: Record<string, Schema.Codec<any, any>> = {
  "billing.operation.succeeded": BillingOperationSucceededData,
  "billing.operation.failed": BillingOperationFailedData,
  "billing.plan.changed": BillingPlanChangedData
}
