/**
 * The Billing feature in core (docs/api-notes/billing.md): the plan catalog, subscriptions,
 * plan-change previews (pure), billing operations, invoices, payment methods and the period-end
 * scheduler. `BillingCore` is a layer of its services needing only ports; `BillingPorts` the store's
 * port it adds (the catalog and the payment provider are adapters' ports: `BillingCatalog`,
 * `PaymentProvider`).
 */
import { Layer } from "effect"
import { BillingService } from "./BillingService.js"
import type { BillingRepo } from "./Ports.js"
import { PaymentMethods } from "./PaymentMethods.js"

export * from "./BillingAccess.js"
export * from "./BillingService.js"
export { ORGANIZATION_CATEGORY, validateCatalog } from "./Catalog.js"
export * from "./Errors.js"
export * from "./Events.js"
export { type FixedChargePreview, type FixedChargePreviewInput, previewFixedChargeChange } from "./FixedChargeChange.js"
export * from "./PaymentMethods.js"
export * from "./Ports.js"
export { parseDecimal, thresholdsCrossed, usageAmount } from "./Usage.js"

export const BillingCore = Layer.mergeAll(BillingService.layer, PaymentMethods.layer)
export type BillingPorts = BillingRepo
