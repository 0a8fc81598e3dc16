/**
 * The AccessTokens feature in the standalone server: the issuer and audience of access tokens from
 * the configured base URLs (`{DASHBOARD_URL}/api/auth`, `{API_URL}`), and a current signing key
 * ensured while the server starts — before it listens, and safely when several processes start at
 * once (the store keeps exactly one current key).
 */
import { SigningKeys, tokenAudienceOf, TokenAudience } from "@switchboard/core/oauth"
import { Effect, Layer } from "effect"
import type { ServerConfigShape } from "../http/ServerConfig.js"

export const AccessTokensServerAdapters = (config: ServerConfigShape) =>
  Layer.mergeAll(
    Layer.succeed(TokenAudience, tokenAudienceOf(config)),
    // Adapters build on the store and the base ports (server secret, randomness): see appLayer.
    Layer.effectDiscard(Effect.flatMap(SigningKeys, (keys) => keys.ensureCurrent())).pipe(
      Layer.provide(SigningKeys.Default)
    )
  )
