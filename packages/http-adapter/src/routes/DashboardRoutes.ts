/**
 * The Dashboard feature's routes outside the HttpApi declaration (slot: fill in): pages, the Dashboard
 * API, OAuth endpoints, the management API. `DashboardRoutes` adds them to `HttpApiBuilder.Router`;
 * `dashboardRouteTable` lists [method, path pattern] for 405 answers.
 */
import { Layer } from "effect"

export const DashboardRoutes = Layer.empty
export const dashboardRouteTable: ReadonlyArray<readonly [string, string]> = []
