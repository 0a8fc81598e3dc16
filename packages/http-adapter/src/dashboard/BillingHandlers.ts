/** The Billing and Payments groups' handlers (dashboard/BillingApi.ts). */
import { HttpApiBuilder } from "effect/http-api"
import { BillingService, PaymentMethods } from "@switchboard/core/billing"
import { DashboardProjects } from "@switchboard/core/dashboard"
import { Organizations } from "@switchboard/core/organizations"
import { OrganizationId } from "@switchboard/core/shared"
import { Effect, Schema } from "effect"
import { envelopeFailure } from "../http/Surfaces.js"
import { principalOf } from "../routes/DashboardAccess.js"
import * as S from "../routes/DashboardSchemas.js"
import { BillingGroup, PaymentsGroup } from "./BillingApi.js"
import { dashboardGroup } from "./DashboardApi.js"
import { currentCaller } from "./Middleware.js"
import { answer, ok, projectIdOf } from "./Render.js"

const isOrganizationId = Schema.is(OrganizationId)

export const BillingGroupLive = HttpApiBuilder.group(dashboardGroup(BillingGroup), "dashboard-billing", (handlers) =>
  Effect.gen(function*() {
    const projects = yield* DashboardProjects
    const organizations = yield* Organizations
    const billing = yield* BillingService
    const payments = yield* PaymentMethods
    /** An organization whose own billing the caller may change: owners and admins (a non-member gets not found). */
    const billingManagerOf = (id: string) =>
      Effect.gen(function*() {
        const caller = yield* currentCaller
        if (!isOrganizationId(id)) return yield* envelopeFailure(404, "ORGANIZATION_NOT_FOUND", `No organization ${id.slice(0, 100)}.`)
        const role = yield* organizations.roleIn(id, caller.accountId)
        if (role !== "owner" && role !== "admin") return yield* envelopeFailure(403, "FORBIDDEN", "Only owners and admins manage the organization's billing.")
        return id
      })
    return handlers
      .handle("getProjectSubscription", ({ params }) =>
        answer(Effect.gen(function*() {
          const projectId = yield* projectIdOf(params.id)
          yield* projects.open(projectId, principalOf(yield* currentCaller), "read")
          return yield* ok(S.Subscription, yield* billing.overview(projectId))
        })))
      .handle("subscribeOrganization", ({ params, payload }) =>
        answer(Effect.gen(function*() {
          const organizationId = yield* billingManagerOf(params.organizationId)
          return yield* ok(S.OrganizationBilling, yield* billing.subscribeOrganization(organizationId, payload.planCode, payload.fixedCharges ?? []))
        })))
      .handle("setOrganizationFixedCharge", ({ params, payload }) =>
        answer(Effect.gen(function*() {
          const organizationId = yield* billingManagerOf(params.organizationId)
          const fixedChargeCode = params.fixedChargeCode
          if (fixedChargeCode.length === 0 || fixedChargeCode.length > 64) {
            return yield* envelopeFailure(422, "VALIDATION_FAILED", "fixedChargeCode: must be 1 to 64 characters.")
          }
          return yield* ok(S.OrganizationBilling, yield* billing.adjustOrganizationFixedCharge(organizationId, { fixedChargeCode, quantity: payload.quantity }))
        })))
      .handle("startCheckout", ({ payload }) =>
        answer(Effect.gen(function*() {
          const caller = yield* currentCaller
          let organizationId = payload.organizationId
          if (payload.projectId !== undefined) {
            const project = yield* projects.open(payload.projectId, principalOf(caller), "read")
            if (organizationId !== undefined && organizationId !== project.organizationId) {
              return yield* envelopeFailure(422, "VALIDATION_FAILED", "projectId: the project is not in organizationId.")
            }
            organizationId = project.organizationId
          } else if (organizationId !== undefined) {
            yield* organizations.roleIn(organizationId, caller.accountId)
          } else {
            const first = (yield* projects.organizationsOf(caller.accountId))[0]
            if (first === undefined) return yield* envelopeFailure(422, "VALIDATION_FAILED", "projectId: send the project (or organizationId) to pay for.")
            organizationId = first.organizationId
          }
          return yield* ok(S.Checkout, yield* payments.checkout(organizationId))
        })))
  }))

export const PaymentsGroupLive = HttpApiBuilder.group(dashboardGroup(PaymentsGroup), "dashboard-payments", (handlers) =>
  Effect.gen(function*() {
    const projects = yield* DashboardProjects
    const payments = yield* PaymentMethods
    return handlers
      .handle("getProjectPayments", ({ params }) =>
        answer(Effect.gen(function*() {
          const projectId = yield* projectIdOf(params.id)
          const project = yield* projects.open(projectId, principalOf(yield* currentCaller), "read")
          return yield* ok(S.PaymentMethod, yield* payments.get(project.organizationId))
        })))
      .handle("setUpProjectPayments", ({ params }) =>
        answer(Effect.gen(function*() {
          const projectId = yield* projectIdOf(params.id)
          const project = yield* projects.open(projectId, principalOf(yield* currentCaller), "write")
          return yield* ok(S.PaymentSetup, yield* payments.setupIntent(project.organizationId))
        })))
  }))
