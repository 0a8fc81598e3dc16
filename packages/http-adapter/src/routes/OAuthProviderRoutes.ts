/**
 * The OAuthProvider feature's routes outside the HttpApi declaration (slot: fill in): pages, the Dashboard
 * API, OAuth endpoints, the management API. `OAuthProviderRoutes` adds them to `HttpApiBuilder.Router`;
 * `oAuthProviderRouteTable` lists [method, path pattern] for 405 answers.
 */
import { Layer } from "effect"

export const OAuthProviderRoutes = Layer.empty
export const oAuthProviderRouteTable: ReadonlyArray<readonly [string, string]> = []
