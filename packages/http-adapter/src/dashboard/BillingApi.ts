/** The Billing and Payments groups of the Dashboard API: subscription, usage, checkout, the payment provider setup. */
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { Schema } from "effect"
import * as S from "../routes/DashboardSchemas.js"
import { declared, envelope, failures, scope } from "./Declare.js"

export const BillingGroup = HttpApiGroup.make("dashboard-billing")
  .add(HttpApiEndpoint.get("getProjectSubscription", "/api/projects/:id/subscription", {
    params: { id: Schema.String },
    success: envelope(S.Subscription),
    error: failures(401, 403, 404, 500)
  }).annotateMerge(declared({ name: "getProjectSubscription", access: scope("billing:read"), summary: "Subscription and usage", description: "The project's plan, billing period and usage so far." })))
  .add(HttpApiEndpoint.post("subscribeOrganization", "/api/organizations/:organizationId/subscription", {
    params: { organizationId: Schema.String },
    payload: S.OrganizationSubscribeBody,
    success: envelope(S.OrganizationBilling),
    error: failures(401, 403, 404, 422, 500)
  }).annotateMerge(declared({ name: "subscribeOrganization", access: scope("billing:write"), summary: "Buy the organization's own plan (owners and admins)", description: "Subscribes the organization itself to a plan of the catalog's organization category (for example SSO seats), from today: the first period's in-advance fees are invoiced now, so a card on file is needed when they are not zero. The /v1 getOrganizationBillingOverview shows it; an organization holds one such subscription." })))
  .add(HttpApiEndpoint.put("setOrganizationFixedCharge", "/api/organizations/:organizationId/subscription/fixed-charges/:fixedChargeCode", {
    params: { organizationId: Schema.String, fixedChargeCode: Schema.String },
    payload: S.OrganizationFixedChargeBody,
    success: envelope(S.OrganizationBilling),
    error: failures(401, 403, 404, 422, 500)
  }).annotateMerge(declared({ name: "setOrganizationFixedCharge", access: scope("billing:write"), summary: "Set a fixed charge of the organization's own plan (owners and admins)", description: "Sets the quantity of a fixed charge of the organization's own subscription from now on, charged exactly as the /v1 previewOrganizationChange prices it: added in-advance units are invoiced now (prorated to the period end when the charge is prorated); fewer units are not credited." })))
  .add(HttpApiEndpoint.post("startCheckout", "/api/billing/checkout", {
    payload: S.CheckoutBody,
    success: envelope(S.Checkout),
    error: failures(401, 403, 422, 500)
  }).annotateMerge(declared({ name: "startCheckout", access: scope("billing:write"), summary: "A checkout page to add a payment method", description: "Starts a checkout session to add a payment method and answers the page to send the person to." })))
  .annotateMerge(OpenApi.annotations({ title: "Billing", description: "Subscription, usage and checkout" }))

export const PaymentsGroup = HttpApiGroup.make("dashboard-payments")
  .add(HttpApiEndpoint.get("getProjectPayments", "/api/projects/:id/payments", {
    params: { id: Schema.String },
    success: envelope(S.PaymentMethod),
    error: failures(401, 403, 404, 500)
  }).annotateMerge(declared({ name: "getProjectPayments", access: scope("payments:read"), summary: "Payment provider setup of the project's organization", description: "The payment method of the project's organization, if any." })))
  .add(HttpApiEndpoint.post("setUpProjectPayments", "/api/projects/:id/payments", {
    params: { id: Schema.String },
    success: envelope(S.PaymentSetup),
    error: failures(401, 403, 404, 500)
  }).annotateMerge(declared({ name: "setUpProjectPayments", access: scope("payments:write"), summary: "Start payment provider setup (a setup intent)", description: "Creates a setup intent with the payment provider for the project's organization." })))
  .annotateMerge(OpenApi.annotations({ title: "Payments", description: "The payment provider setup of an organization" }))
