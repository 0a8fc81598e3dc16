/**
 * An organization's own billing on the wire (the public contract's
 * `getOrganizationBillingOverview`, `previewOrganizationChange` and `OrganizationSubscription`).
 * Besides its projects' subscriptions (one per category, billing/BillingSubscriptions.ts), an
 * organization may hold one subscription of its own to a plan of the catalog's `organization`
 * category (billing/OrganizationBilling.ts); without one its overview has `subscription: null` and
 * a preview is refused (409 `FAILED_PRECONDITION`, reason `no_organization_subscription`).
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
import { noExcessKeys } from "../internal/ExcessKeys.js"

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
}).annotate({ identifier: "OrganizationSubscription" })
export type OrganizationSubscription = typeof OrganizationSubscription.Type

/** `getOrganizationBillingOverview`: the organization's own subscription (null: none) and its entitlements' version. */
export const OrganizationBillingOverview = Schema.Struct({
  entitlementsVersion: NonNegativeSafeInt,
  subscription: Schema.NullOr(OrganizationSubscription)
}).annotate({ identifier: "GetOrganizationBillingOverviewResponse" })
export type OrganizationBillingOverview = typeof OrganizationBillingOverview.Type

/** `previewOrganizationChange`: the quantity of a fixed charge of the organization's own subscription to hold from now on. */
export const PreviewOrganizationChangeRequest = Schema.Struct({
  fixedCharge: HeldFixedCharge
}).annotate({ identifier: "PreviewOrganizationChangeRequest" }).pipe(noExcessKeys)
export type PreviewOrganizationChangeRequest = typeof PreviewOrganizationChangeRequest.Type

/** What the change would cost (the shape of a project preview's fixed-charge answer). */
export const PreviewOrganizationChangeResponse = PreviewProjectChangeResponse.annotate({ identifier: "PreviewOrganizationChangeResponse" })
export type PreviewOrganizationChangeResponse = typeof PreviewOrganizationChangeResponse.Type
