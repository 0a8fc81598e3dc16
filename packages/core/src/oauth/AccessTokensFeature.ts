/**
 * The AccessTokens feature in core: JWT signing keys (`SigningKeys`, over the `SigningKeysRepo`
 * port) and the claims of access tokens; `identity/AccessTokenVerifier` verifies them for /v1.
 * `AccessTokensCore` needs only ports (and the server secret and randomness every core needs).
 */
import type { SigningKeysRepo } from "./Ports.js"
import { SigningKeys } from "./SigningKeys.js"

export * from "./AccessTokenClaims.js"
export * from "./Ports.js"
export * from "./Scopes.js"
export * from "./JwtTypes.js"
export * from "./SigningKeyMaterial.js"
export * from "./SigningKeys.js"
export * from "./TokenAudience.js"

/** The same layer value as `AccessTokenVerifier`'s dependency, so one instance (one key cache) serves both. */
export const AccessTokensCore = SigningKeys.layer
export type AccessTokensPorts = SigningKeysRepo
