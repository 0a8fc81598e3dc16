/**
 * The OAuthProvider feature in core (slot: fill in; see CONTRIBUTING.md). `OAuthProviderCore` is a layer of the
 * feature's services needing only ports; `OAuthProviderPorts` the port tags it adds.
 */
import { Layer } from "effect"

export const OAuthProviderCore = Layer.empty
export type OAuthProviderPorts = never
