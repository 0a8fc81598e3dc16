/**
 * The Webhooks feature's routes outside the HttpApi declaration (slot: fill in): pages, the Dashboard
 * API, OAuth endpoints, the management API. `WebhooksRoutes` adds them to `HttpApiBuilder.Router`;
 * `webhooksRouteTable` lists [method, path pattern] for 405 answers.
 */
import { Layer } from "effect"

export const WebhooksRoutes = Layer.empty
export const webhooksRouteTable: ReadonlyArray<readonly [string, string]> = []
