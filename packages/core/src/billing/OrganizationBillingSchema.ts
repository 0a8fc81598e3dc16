/**
 * An organization's own billing on the wire (contract.md §1 5 `getOrganizationBillingOverview`,
 * `previewOrganizationChange`; §3.4 `OrganizationSubscription`). In Switchboard subscriptions
 * belong to projects (one per category, billing/BillingSubscriptions.ts): no plan of the catalog
 * is sold to an organization itself, so its overview has `subscription: null` and a preview of a
 * change to it is refused (409 `FAILED_PRECONDITION`, reason `no_organization_subscription`). The
 * shapes are the contract's, so a catalog with organization plans can fill them later.
 */
import { Schema } from "effect"
import { NonNegativeSafeInt } from "../shared/Bounds.js"
import { NullableTimestamp } from "../shared/Timestamp.js"
import {
  Currency,
  Entitlement,
  HeldFixedCharge,
  MinimumCommitment,
  PlanCode,
  PreviewProjectChangeResponse,
  SubscribedFixedCharge,
  SubscriptionStatus
} from "./Schema.js"

const strict = { onExcessProperty: "error" } as const

export const OrganizationSubscription = Schema.Struct({
  planCode: PlanCode,
  planName: Schema.String,
  status: SubscriptionStatus,
  baseAmountCents: NonNegativeSafeInt,
  currency: Currency,
  currentPeriodEnd: NullableTimestamp,
  cancelsAt: NullableTimestamp,
  entitlements: Schema.Array(Entitlement),
  fixedCharges: Schema.Array(SubscribedFixedCharge),
  minimumCommitment: Schema.NullOr(MinimumCommitment)
}).annotations({ identifier: "OrganizationSubscription" })
export type OrganizationSubscription = typeof OrganizationSubscription.Type

/** `getOrganizationBillingOverview`: the organization's own subscription (null: none) and its entitlements' version. */
export const OrganizationBillingOverview = Schema.Struct({
  entitlementsVersion: NonNegativeSafeInt,
  subscription: Schema.NullOr(OrganizationSubscription)
}).annotations({ identifier: "GetOrganizationBillingOverviewResponse" })
export type OrganizationBillingOverview = typeof OrganizationBillingOverview.Type

/** `previewOrganizationChange`: the quantity of a fixed charge of the organization's own subscription to hold from now on. */
export const PreviewOrganizationChangeRequest = Schema.Struct({
  fixedCharge: HeldFixedCharge
}).annotations({ identifier: "PreviewOrganizationChangeRequest", parseOptions: strict })
export type PreviewOrganizationChangeRequest = typeof PreviewOrganizationChangeRequest.Type

/** What the change would cost (the shape of a project preview's fixed-charge answer). */
export const PreviewOrganizationChangeResponse = PreviewProjectChangeResponse.annotations({ identifier: "PreviewOrganizationChangeResponse" })
export type PreviewOrganizationChangeResponse = typeof PreviewOrganizationChangeResponse.Type
