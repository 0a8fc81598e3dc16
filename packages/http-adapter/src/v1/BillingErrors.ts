/** The Billing feature's rows of the /v1 error table: core error → problem (see Problems.ts). */
import type { BillingError } from "@switchboard/core/billing"
import { type ErrorTable, problem, validationFailed } from "./ProblemFailure.js"

export const billingErrors: ErrorTable<BillingError> = {
  BillingOperationNotFound: (e) => problem("OPERATION_NOT_FOUND", `No billing operation ${e.operationId} on this project.`),
  // A preview the catalog or the subscription refuses: the failure an operation would end with.
  BillingChangeRejected: (e) =>
    problem("FAILED_PRECONDITION", e.message, {
      extra: { failure: { code: e.code, detail: e.detail, retryable: e.retryable, unsoldFixedCharges: e.unsoldFixedCharges } }
    }),
  BillingRequestInvalid: (e) =>
    validationFailed(
      [{ code: "invalid_value", location: "json", message: e.message, path: e.field === "" ? "" : `/${e.field}` }],
      e.field === "" ? e.message : `${e.field} ${e.message}`
    ),
  BillingNotProvisioned: (e) => problem("BILLING_NOT_PROVISIONED", e.message, { headers: { "retry-after": "60" } }),
  BillingIdempotencyKeyReused: () => problem("IDEMPOTENCY_KEY_REUSED", "This Idempotency-Key was used with a different request."),
  UsageMetricUnknown: (e) =>
    validationFailed(
      [{ code: "invalid_value", location: "json", message: `no plan of the project prices the metric ${e.metricCode}`, path: `/${e.field ?? "metricCode"}` }],
      `No plan of the project prices the metric ${e.metricCode}.`
    ),
  // The batch is refused whole: the period the record belongs to is closed (invoiced).
  UsagePeriodClosed: (e) =>
    problem(
      "FAILED_PRECONDITION",
      `Usage record ${e.recordId} is dated ${e.timestamp}, before the open ${e.category} billing period (from ${e.periodStart}); that period is closed.`,
      { extra: { reason: "billing_period_closed", recordId: e.recordId, category: e.category, periodStart: e.periodStart, path: `/${e.field}` } }
    ),
  OrganizationNotSubscribed: (e) =>
    problem(
      "FAILED_PRECONDITION",
      `Organization ${e.organizationId} has no subscription of its own: its projects are billed (see previewProjectChange).`,
      { extra: { reason: "no_organization_subscription" } }
    )
}
