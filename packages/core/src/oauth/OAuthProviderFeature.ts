/**
 * The OAuthProvider feature in core (docs/api-notes/oauth.md): apps (`OAuthApps`), grants and their
 * withdrawal (`OAuthGrants`) and the protocol — codes, tokens, introspection, revocation, userinfo
 * (`OAuthProvider`) — over the `OAuthAppsRepo`, `OAuthGrantsRepo`, `OAuthTokensRepo` and
 * `DeviceCodesRepo` (RFC 8628) ports; the token policy, PKCE, client credentials,
 * authorization-request rules and the discovery document as pure modules. `OAuthProviderCore` needs
 * only ports (and the identity services every feature may use).
 */
import { Layer } from "effect"
import { OAuthApps } from "./OAuthApps.js"
import { OAuthGrants } from "./OAuthGrants.js"
import { OAuthProvider } from "./OAuthProvider.js"
import type { DeviceCodesRepo } from "./DeviceCodes.js"
import type { OAuthAppsRepo, OAuthGrantsRepo, OAuthTokensRepo } from "./OAuthProviderPorts.js"

export * from "./AuthorizationRequest.js"
export * from "./AuthorizedApplications.js"
export * from "./ClientCredentials.js"
export * from "./DeviceCodes.js"
export * from "./Discovery.js"
export * from "./GrantLivenessCache.js"
export * from "./OAuthApps.js"
export * from "./OAuthClientCache.js"
export * from "./OAuthErrors.js"
export * from "./OAuthDeviceGrant.js"
export * from "./OAuthGrants.js"
export * from "./OAuthProvider.js"
export * from "./OAuthProviderPorts.js"
export * from "./OAuthSchema.js"
export * from "./OAuthTokenCache.js"
export * from "./Pkce.js"
export * from "./TokenPolicy.js"

/** The feature's services; `OAuthGrants` is shared by the other two (one instance). */
export const OAuthProviderCore = Layer.mergeAll(OAuthApps.layer, OAuthProvider.layer).pipe(
  Layer.provideMerge(OAuthGrants.layer)
)
export type OAuthProviderPorts = OAuthAppsRepo | OAuthGrantsRepo | OAuthTokensRepo | DeviceCodesRepo
