/** The Billing feature's rows of the error table: core error tag → problem (see Problems.ts). */
import { problem, validationFailed } from "./ProblemFailure.js"
import type { ErrorTable } from "./Problems.js"

export const billingErrors: ErrorTable = {
  BillingOperationNotFound: (e) => problem("OPERATION_NOT_FOUND", `No billing operation ${String(e.operationId)} on this project.`),
  // A preview the catalog or the subscription refuses: the failure an operation would end with.
  BillingChangeRejected: (e) =>
    problem("FAILED_PRECONDITION", String(e.message), {
      extra: { failure: { code: e.code, detail: e.detail, retryable: e.retryable, unsoldFixedCharges: e.unsoldFixedCharges } }
    }),
  BillingRequestInvalid: (e) =>
    validationFailed(
      [{ code: "invalid_value", location: "json", message: String(e.message), path: e.field === "" ? "" : `/${String(e.field)}` }],
      e.field === "" ? String(e.message) : `${String(e.field)} ${String(e.message)}`
    ),
  BillingNotProvisioned: (e) => problem("BILLING_NOT_PROVISIONED", String(e.message), { headers: { "retry-after": "60" } }),
  BillingIdempotencyKeyReused: () => problem("IDEMPOTENCY_KEY_REUSED", "This Idempotency-Key was used with a different request."),
  UsageMetricUnknown: (e) =>
    validationFailed(
      [{ code: "invalid_value", location: "json", message: "no plan of the project prices this metric", path: "/metricCode" }],
      `No plan of the project prices the metric ${String(e.metricCode)}.`
    )
}
