/**
 * The Billing feature's routes outside the HttpApi declaration (slot: fill in): pages, the Dashboard
 * API, OAuth endpoints, the management API. `BillingRoutes` adds them to `HttpApiBuilder.Router`;
 * `billingRouteTable` lists [method, path pattern] for 405 answers.
 */
import { Layer } from "effect"

export const BillingRoutes = Layer.empty
export const billingRouteTable: ReadonlyArray<readonly [string, string]> = []
