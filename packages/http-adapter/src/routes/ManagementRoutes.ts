/**
 * The Management feature's routes outside the HttpApi declaration (slot: fill in): pages, the Dashboard
 * API, OAuth endpoints, the management API. `ManagementRoutes` adds them to `HttpApiBuilder.Router`;
 * `managementRouteTable` lists [method, path pattern] for 405 answers.
 */
import { Layer } from "effect"

export const ManagementRoutes = Layer.empty
export const managementRouteTable: ReadonlyArray<readonly [string, string]> = []
