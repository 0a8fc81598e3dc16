/**
 * The Billing feature's /v1 handlers (docs/api-notes/billing.md). Each route states what it needs
 * (`decideBilling`: account credentials, `billing:read|write` for access tokens, project keys only
 * for their project's billing reads); core then checks membership (404) and the project's state.
 *
 * `changePlan` and `adjustFixedChargeQuantity` require an Idempotency-Key. The key is kept with the
 * billing operation itself (scoped to the caller, with the request's fingerprint), so a repeat
 * answers the operation as it is now: 202 + `Location` + `Retry-After` while pending, 200 once it
 * resolved (the public contract: "200 = key already resolved to a terminal operation").
 */
import { HttpApiBuilder } from "effect/http-api"
import { HttpServerRequest } from "effect/http"
import { Billing } from "@switchboard/core"
import {
  BillingService,
  type OperationRequest,
  PaymentMethods,
  toBillingOperation
} from "@switchboard/core/billing"
import { type Principal, principalScope } from "@switchboard/core/credentials"
import { sha256Hex } from "@switchboard/core/internal"
import { canonicalJson, parseIdempotencyKey, type ProjectId } from "@switchboard/core/shared"
import { Effect, Option } from "effect"
import { ServerConfig } from "../http/ServerConfig.js"
import { v1Group } from "./V1Group.js"
import { BillingGroup, BillingKicker } from "./BillingApi.js"
import { requestJson } from "./JsonBody.js"
import { domain, rendered, toResponse } from "./Pipeline.js"
import { accountFor, authorizeBilling } from "./BillingAccess.js"
import { problem } from "./Problems.js"

const noStore = { "cache-control": "no-store" }

export const BillingGroupLive = HttpApiBuilder.group(v1Group(BillingGroup), "billing", (handlers) =>
  Effect.gen(function*() {
    const billing = yield* BillingService
    const payments = yield* PaymentMethods
    const config = yield* ServerConfig

    /** A project route: the caller may read the project's billing. */
    const projectRead = (projectId: ProjectId) =>
      Effect.gen(function*() {
        const principal = yield* authorizeBilling({ scope: "billing:read", organizationRoute: false, projectId })
        yield* domain(billing.openProject(principal, projectId, "read"))
        return principal
      })

    /** An organization route on one of its projects. */
    const organizationProject = (
      organizationId: Parameters<typeof billing.openOrganizationProject>[1],
      projectId: ProjectId,
      use: "read" | "write"
    ) =>
      Effect.gen(function*() {
        const principal = yield* authorizeBilling({ scope: use === "read" ? "billing:read" : "billing:write", organizationRoute: true, projectId })
        const accountId = yield* accountFor(principal)
        const project = yield* domain(billing.openOrganizationProject(accountId, organizationId, projectId, use))
        return { principal, project }
      })

    const organization = (organizationId: Parameters<typeof billing.openOrganization>[1], scope: "billing:read" | "billing:write") =>
      Effect.gen(function*() {
        const principal = yield* authorizeBilling({ scope, organizationRoute: true })
        yield* domain(billing.openOrganization(yield* accountFor(principal), organizationId))
        return principal
      })

    const operationUrl = (projectId: string, operationId: string) =>
      `${config.apiUrl}/v1/projects/${projectId}/billing/operations/${operationId}`

    /** The operation as the answer of its route: 202 while pending (poll `Location`), 200 once resolved. */
    const operationResponse = (operation: Billing.BillingOperation, projectId: string, replayed: boolean) =>
      Effect.gen(function*() {
        const replay = replayed ? { "idempotent-replayed": "true" } : {}
        if (operation.status === "pending") {
          return toResponse(yield* rendered(Billing.BillingOperation, operation, 202, {
            location: operationUrl(projectId, operation.operationId),
            "retry-after": "1",
            ...noStore,
            ...replay
          }))
        }
        return toResponse(yield* rendered(Billing.BillingOperation, operation, 200, { ...noStore, ...replay }))
      })

    /**
     * Creates (or finds, for the same key) a billing operation and starts it. The fingerprint is the
     * Idempotency middleware's: method, route, path parameters and the JSON body `JsonBody` read.
     */
    const submitOperation = (args: {
      readonly principal: Principal
      readonly projectId: ProjectId
      readonly kind: Billing.BillingOperationKind
      readonly request: OperationRequest | { readonly type: "adjust_fixed_charge_quantity"; readonly fixedChargeCode: string; readonly quantity: number }
      readonly route: string
      readonly path: Record<string, string>
    }) =>
      Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        const raw = request.headers["idempotency-key"]
        if (raw === undefined) return yield* problem("IDEMPOTENCY_KEY_REQUIRED", "This operation requires an Idempotency-Key header.")
        const key = parseIdempotencyKey(raw)
        if (key === undefined) return yield* problem("IDEMPOTENCY_KEY_INVALID", "Idempotency-Key must be 1-255 visible ASCII characters.")
        const fingerprint = yield* sha256Hex(canonicalJson({ method: request.method, route: args.route, path: args.path, body: requestJson(request) }))
        const { created, operation } = yield* domain(billing.submit({
          principal: args.principal,
          projectId: args.projectId,
          kind: args.kind,
          request: args.request,
          idempotency: { scope: principalScope(args.principal), key, fingerprint }
        }))
        if (created) {
          const kicker = yield* Effect.serviceOption(BillingKicker)
          if (Option.isSome(kicker)) yield* kicker.value.kick(operation.operationId)
        }
        // A repeat answers the operation as it is now.
        return yield* operationResponse(toBillingOperation(operation), args.projectId, !created)
      })

    return handlers
      .handle("listBillingPlans", ({ params: path }) =>
        Effect.gen(function*() {
          yield* projectRead(path.projectId)
          return { plans: billing.listPlans() }
        }))
      .handle("getBillingOverview", ({ params: path }) =>
        Effect.gen(function*() {
          yield* projectRead(path.projectId)
          return toResponse(yield* rendered(Billing.BillingOverview, yield* domain(billing.overview(path.projectId)), 200, noStore))
        }))
      .handle("getBillingOperation", ({ params: path }) =>
        Effect.gen(function*() {
          yield* projectRead(path.projectId)
          const operation = yield* domain(billing.getOperation(path.projectId, path.operationId))
          return toResponse(yield* rendered(Billing.BillingOperation, operation, 200, {
            ...noStore,
            ...(operation.status === "pending" ? { "retry-after": "1" } : {})
          }))
        }))
      .handle("recordUsage", ({ params: path, payload }) =>
        Effect.gen(function*() {
          const principal = yield* authorizeBilling({ scope: "billing:write", organizationRoute: false, projectId: path.projectId })
          const project = yield* domain(billing.openProject(principal, path.projectId, "write"))
          const results = yield* domain(billing.recordUsageBatch(path.projectId, payload.records, project))
          return toResponse(yield* rendered(Billing.RecordUsageResponse, { results }, 200, noStore))
        }))
      .handle("previewProjectChange", ({ params: path, payload }) =>
        Effect.gen(function*() {
          const { project } = yield* organizationProject(path.organizationId, path.projectId, "read")
          const preview = yield* domain(billing.preview(path.projectId, payload, project))
          return toResponse(yield* rendered(Billing.PreviewProjectChangeResponse, preview, 200, noStore))
        }))
      .handle("changePlan", ({ params: path, payload }) =>
        Effect.gen(function*() {
          const { principal } = yield* organizationProject(path.organizationId, path.projectId, "write")
          return yield* submitOperation({
            principal,
            projectId: path.projectId,
            kind: "change_plan",
            request: { type: "change_plan", category: payload.category, planCode: payload.planCode, additions: payload.additions ?? [] },
            route: "/v1/organizations/:organizationId/billing/projects/:projectId/purchase",
            path: { organizationId: path.organizationId, projectId: path.projectId }
          })
        }))
      .handle("adjustFixedChargeQuantity", ({ params: path, payload }) =>
        Effect.gen(function*() {
          const { principal } = yield* organizationProject(path.organizationId, path.projectId, "write")
          return yield* submitOperation({
            principal,
            projectId: path.projectId,
            kind: "adjust_fixed_charge_quantity",
            request: { type: "adjust_fixed_charge_quantity", fixedChargeCode: path.fixedChargeCode, quantity: payload.quantity },
            route: "/v1/organizations/:organizationId/billing/projects/:projectId/fixed-charges/:fixedChargeCode",
            path: { organizationId: path.organizationId, projectId: path.projectId, fixedChargeCode: path.fixedChargeCode }
          })
        }))
      .handle("getEffectiveTerms", ({ params: path }) =>
        Effect.gen(function*() {
          yield* organizationProject(path.organizationId, path.projectId, "read")
          return toResponse(yield* rendered(Billing.EffectiveTerms, yield* domain(billing.terms(path.projectId)), 200, noStore))
        }))
      .handle("getOrganizationBillingOverview", ({ params: path }) =>
        Effect.gen(function*() {
          yield* organization(path.organizationId, "billing:read")
          const overview = yield* domain(billing.organizationOverview(path.organizationId))
          return toResponse(yield* rendered(Billing.OrganizationBillingOverview, overview, 200, noStore))
        }))
      .handle("previewOrganizationChange", ({ params: path, payload }) =>
        Effect.gen(function*() {
          yield* organization(path.organizationId, "billing:read")
          const preview = yield* domain(billing.previewOrganizationChange(path.organizationId, payload))
          return toResponse(yield* rendered(Billing.PreviewOrganizationChangeResponse, preview, 200, noStore))
        }))
      .handle("listInvoices", ({ params: path }) =>
        Effect.gen(function*() {
          yield* organization(path.organizationId, "billing:read")
          const invoices = yield* domain(billing.listInvoices(path.organizationId))
          return toResponse(yield* rendered(Billing.ListInvoicesResponse, { invoices }, 200, noStore))
        }))
      .handle("getOrganizationPaymentMethod", ({ params: path }) =>
        Effect.gen(function*() {
          yield* organization(path.organizationId, "billing:read")
          return toResponse(yield* rendered(Billing.PaymentMethodResponse, yield* payments.get(path.organizationId), 200, noStore))
        }))
      .handle("createOrganizationPaymentMethodCheckout", ({ params: path }) =>
        Effect.gen(function*() {
          yield* organization(path.organizationId, "billing:write")
          return toResponse(yield* rendered(Billing.CheckoutResponse, yield* payments.checkout(path.organizationId), 200, noStore))
        }))
      .handle("createOrganizationSetupIntent", ({ params: path }) =>
        Effect.gen(function*() {
          yield* organization(path.organizationId, "billing:write")
          return toResponse(yield* rendered(Billing.SetupIntentResponse, yield* payments.setupIntent(path.organizationId), 200, noStore))
        }))
  }))
