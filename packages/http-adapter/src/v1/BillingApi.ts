/**
 * The Billing feature's /v1 routes (docs/api-notes/billing.md): the group, the problem codes of
 * each operation, the *Idem* ones. Handlers get their payload decoded by the schema declared here.
 *
 * `changePlan` and `adjustFixedChargeQuantity` are `Idempotent` "in handler": their key is kept
 * with the billing operation itself, and a repeat answers the operation as it is now, not a stored
 * response (v1/BillingHandlers.ts).
 */
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { Billing } from "@switchboard/core"
import { BillingOperationId, OrganizationId, ProjectId } from "@switchboard/core/shared"
import { type ProblemCode } from "../http/ProblemCatalog.js"
import { Context, type Effect, Schema } from "effect"
import { commonProblems as common, idempotencyProblems as idempotency } from "./CommonProblems.js"
import { billingAccess } from "./BillingAccess.js"
import { Idempotent, Requires, problems } from "./Declare.js"
import { authenticated } from "./V1Group.js"

/**
 * Runs a new billing operation in the background of this process (provided by the server's billing
 * workers, server/BillingWorkers.ts; absent when they are off — the scheduler runs it then).
 */
export class BillingKicker extends Context.Service<BillingKicker, {
  readonly kick: (operationId: string) => Effect.Effect<void>
}>()("http/BillingKicker") {}

const ProjectPath = Schema.Struct({ projectId: ProjectId })
const OperationPath = Schema.Struct({ projectId: ProjectId, operationId: BillingOperationId })
const OrganizationPath = Schema.Struct({ organizationId: OrganizationId })
const OrganizationProjectPath = Schema.Struct({ organizationId: OrganizationId, projectId: ProjectId })
const FixedChargePath = Schema.Struct({
  organizationId: OrganizationId,
  projectId: ProjectId,
  fixedChargeCode: Billing.FixedChargeCode
})

const organizationBilling = "/v1/organizations/:organizationId/billing"
const projectBilling = `${organizationBilling}/projects/:projectId`

const project: ReadonlyArray<ProblemCode> = [...common, "RESOURCE_MISMATCH", "PROJECT_NOT_FOUND", "PROJECT_DELETED", "BILLING_NOT_PROVISIONED", "ORGANIZATION_SSO_REQUIRED"]
const organization: ReadonlyArray<ProblemCode> = [...common, "RESOURCE_NOT_FOUND", "ORGANIZATION_SSO_REQUIRED"]
const organizationProject: ReadonlyArray<ProblemCode> = [...organization, "PROJECT_NOT_FOUND", "PROJECT_DELETED", "BILLING_NOT_PROVISIONED"]

export const BillingGroup = HttpApiGroup.make("billing")
  .add(HttpApiEndpoint.get("listBillingPlans", "/v1/projects/:projectId/billing/plans", {
    params: ProjectPath,
    success: Billing.ListBillingPlansResponse,
    error: problems(project)
  }).annotate(Requires, billingAccess("billing:read", false)).annotateMerge(OpenApi.annotations({ summary: "List plans", description: "The plans the project can move to, with their prices and fixed charges." })))
  .add(HttpApiEndpoint.get("getBillingOverview", "/v1/projects/:projectId/billing", {
    params: ProjectPath,
    success: Billing.BillingOverview,
    error: problems(project)
  }).annotate(Requires, billingAccess("billing:read", false)).annotateMerge(OpenApi.annotations({ summary: "Billing overview", description: "The project's subscription, current period and what is due." })))
  .add(HttpApiEndpoint.get("getBillingOperation", "/v1/projects/:projectId/billing/operations/:operationId", {
    params: OperationPath,
    success: Billing.BillingOperation,
    error: problems(project, "OPERATION_NOT_FOUND")
  }).annotate(Requires, billingAccess("billing:read", false)).annotateMerge(OpenApi.annotations({ summary: "Get a billing operation", description: "The state of an asynchronous plan change: pending, succeeded or failed." })))
  .add(HttpApiEndpoint.post("recordUsage", "/v1/projects/:projectId/billing/usage", {
    params: ProjectPath,
    payload: Billing.RecordUsageRequest,
    success: Billing.RecordUsageResponse,
    error: problems(project, "PROJECT_CLOSING", "FAILED_PRECONDITION", "PAYLOAD_TOO_LARGE")
  }).annotate(Requires, billingAccess("billing:write", false)).annotateMerge(OpenApi.annotations({
    summary: "Record usage",
    description: "Adds a batch of 1-100 usage records (id, metric, quantity, timestamp) to the project's subscriptions, " +
        "priced as the plan's usage charges; usage thresholds then bill progressively. Each record applies once: " +
        "a repeated id answers `ignored` (`already_applied`) and changes nothing. Only metrics the project's plans price are " +
        "accepted (422 naming the record), and a record dated before the open billing period refuses the batch " +
        "(409 `FAILED_PRECONDITION`, reason `billing_period_closed`). The batch is all or nothing. Needs `billing:write`."
  })))
  .add(HttpApiEndpoint.post("previewProjectChange", `${projectBilling}/preview`, {
    params: OrganizationProjectPath,
    payload: Billing.PreviewProjectChangeRequest,
    success: Billing.PreviewProjectChangeResponse,
    error: problems(organizationProject, "FAILED_PRECONDITION", "PAYLOAD_TOO_LARGE")
  }).annotate(Requires, billingAccess("billing:read", true)).annotateMerge(OpenApi.annotations({ summary: "Preview a plan change", description: "What a plan change would cost now and at the next charge, without changing anything." })))
  .add(HttpApiEndpoint.post("changePlan", `${projectBilling}/purchase`, {
    params: OrganizationProjectPath,
    payload: Billing.ChangePlanRequest,
    success: [Billing.TerminalBillingOperation, Billing.PendingBillingOperation.pipe(HttpApiSchema.status(202))],
    error: problems(organizationProject, idempotency, "PROJECT_CLOSING", "PAYLOAD_TOO_LARGE")
  }).annotate(Requires, billingAccess("billing:write", true)).annotate(Idempotent, "in handler").annotateMerge(OpenApi.annotations({ summary: "Change the plan", description: "Moves the project to another plan; answers a billing operation to follow." })))
  .add(HttpApiEndpoint.post("adjustFixedChargeQuantity", `${projectBilling}/fixed-charges/:fixedChargeCode`, {
    params: FixedChargePath,
    payload: Billing.AdjustFixedChargeQuantityRequest,
    success: [Billing.TerminalBillingOperation, Billing.PendingBillingOperation.pipe(HttpApiSchema.status(202))],
    error: problems(organizationProject, idempotency, "PROJECT_CLOSING", "PAYLOAD_TOO_LARGE")
  }).annotate(Requires, billingAccess("billing:write", true)).annotate(Idempotent, "in handler").annotateMerge(OpenApi.annotations({ summary: "Change a fixed charge", description: "Changes the quantity of a fixed charge (for example extra lines) and bills the difference." })))
  .add(HttpApiEndpoint.get("getEffectiveTerms", `${projectBilling}/terms`, {
    params: OrganizationProjectPath,
    success: Billing.EffectiveTerms,
    error: problems(organizationProject)
  }).annotate(Requires, billingAccess("billing:read", true)).annotateMerge(OpenApi.annotations({ summary: "Effective terms", description: "The prices and allowances in force for the project." })))
  .add(HttpApiEndpoint.get("getOrganizationBillingOverview", organizationBilling, {
    params: OrganizationPath,
    success: Billing.OrganizationBillingOverview,
    error: problems(organization)
  }).annotate(Requires, billingAccess("billing:read", true)).annotateMerge(OpenApi.annotations({
    summary: "Organization billing overview",
    description: "The organization's own subscription (a plan of the catalog's `organization` category, e.g. SSO seats; null when " +
        "it has none — its projects are billed on their own, see getBillingOverview) and the version of its entitlements, " +
        "which moves with every change of the subscription."
  })))
  .add(HttpApiEndpoint.post("previewOrganizationChange", `${organizationBilling}/preview`, {
    params: OrganizationPath,
    payload: Billing.PreviewOrganizationChangeRequest,
    success: Billing.PreviewOrganizationChangeResponse,
    error: problems(organization, "FAILED_PRECONDITION", "PAYLOAD_TOO_LARGE")
  }).annotate(Requires, billingAccess("billing:read", true)).annotateMerge(OpenApi.annotations({
    summary: "Preview an organization change",
    description: "What setting a fixed charge of the organization's own subscription to a quantity (e.g. SSO seats) would cost, " +
        "priced as a project's fixed-charge preview is: the invoice due now and the next regular charge. Nothing changes. " +
        "A charge the plan does not sell or a quantity out of range answers 409 FAILED_PRECONDITION with the failure an operation " +
        "would end with; an organization without a subscription of its own answers 409 FAILED_PRECONDITION with reason " +
        "no_organization_subscription."
  })))
  .add(HttpApiEndpoint.get("listInvoices", `${organizationBilling}/invoices`, {
    params: OrganizationPath,
    success: Billing.ListInvoicesResponse,
    error: problems(organization)
  }).annotate(Requires, billingAccess("billing:read", true)).annotateMerge(OpenApi.annotations({ summary: "List invoices", description: "The organization's invoices, newest first." })))
  .add(HttpApiEndpoint.get("getOrganizationPaymentMethod", `${organizationBilling}/payment-method`, {
    params: OrganizationPath,
    success: Billing.PaymentMethodResponse,
    error: problems(organization)
  }).annotate(Requires, billingAccess("billing:read", true)).annotateMerge(OpenApi.annotations({ summary: "Get the payment method", description: "The card on file of the organization, if any." })))
  .add(HttpApiEndpoint.post("createOrganizationPaymentMethodCheckout", `${organizationBilling}/checkout`, {
    params: OrganizationPath,
    success: Billing.CheckoutResponse,
    error: problems(organization)
  }).annotate(Requires, billingAccess("billing:write", true)).annotateMerge(OpenApi.annotations({ summary: "Start a checkout", description: "A checkout page where a person adds a payment method." })))
  .add(HttpApiEndpoint.post("createOrganizationSetupIntent", `${organizationBilling}/setup-intent`, {
    params: OrganizationPath,
    success: Billing.SetupIntentResponse,
    error: problems(organization, idempotency)
  }).annotate(Requires, billingAccess("billing:write", true)).annotate(Idempotent, true).annotateMerge(OpenApi.annotations({ summary: "Create a setup intent", description: "A payment provider setup intent for adding a card in your own page." })))
  .pipe(authenticated)
  .annotateMerge(OpenApi.annotations({
    title: "Billing",
    description: "Plans, subscriptions, plan-change previews, billing operations, invoices and payment methods. " +
      "Account credentials (billing:read / billing:write for OAuth access tokens); project API keys may read their project's billing."
  }))
