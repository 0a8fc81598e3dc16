/**
 * The Billing feature in core (slot: fill in; see CONTRIBUTING.md). `BillingCore` is a layer of the
 * feature's services needing only ports; `BillingPorts` the port tags it adds.
 */
import { Layer } from "effect"

export const BillingCore = Layer.empty
export type BillingPorts = never
