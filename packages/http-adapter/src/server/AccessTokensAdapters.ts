/**
 * The AccessTokens feature in the standalone server: the issuer and audience of access tokens from
 * the configured base URLs (`{DASHBOARD_URL}/api/auth`, `{API_URL}`), and a current signing key
 * ensured while the server starts — before it listens, and safely when several processes start at
 * once (the store keeps exactly one current key).
 */
import { SecretsLive, SigningKeys, tokenAudienceOf, TokenAudience } from "@switchboard/core"
import { Effect, Layer } from "effect"
import type { ServerConfigShape } from "../http/ServerConfig.js"
import { ServerSecretLive } from "./ServerSecretFile.js"

export const AccessTokensServerAdapters = (config: ServerConfigShape) =>
  Layer.mergeAll(
    Layer.succeed(TokenAudience, tokenAudienceOf(config)),
    // The adapters see only the store, so the key service gets the server secret and randomness
    // here (the same SECRET_KEY or DATA_DIR/secret.key the server's own layer reads).
    Layer.effectDiscard(Effect.flatMap(SigningKeys, (keys) => keys.ensureCurrent())).pipe(
      Layer.provide(SigningKeys.Default),
      Layer.provide(Layer.mergeAll(ServerSecretLive(config), SecretsLive))
    )
  )
