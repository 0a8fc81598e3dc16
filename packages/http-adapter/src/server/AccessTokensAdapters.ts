/**
 * The AccessTokens feature in the standalone server: the issuer and audience of access tokens from
 * the configured base URLs (`{DASHBOARD_URL}/api/auth`, `{API_URL}`), and a current signing key
 * ensured while the server starts — before it listens, and safely when several processes start at
 * once (the store keeps exactly one current key). Also the device flow's policy
 * (DEVICE_CODE_TTL_SECONDS, DEVICE_POLL_INTERVAL_SECONDS).
 */
import { DeviceFlowPolicy, SigningKeys, tokenAudienceOf, TokenAudience } from "@switchboard/core/oauth"
import { Effect, Layer } from "effect"
import type { ServerConfigShape } from "../http/ServerConfig.js"

export const AccessTokensServerAdapters = (config: ServerConfigShape) =>
  Layer.mergeAll(
    Layer.succeed(TokenAudience, tokenAudienceOf(config)),
    // Device flow (RFC 8628): device-code lifetime and the first polling interval.
    Layer.succeed(DeviceFlowPolicy, {
      lifetimeMs: config.deviceCodeTtlSeconds * 1000,
      intervalSeconds: config.devicePollIntervalSeconds
    }),
    // Adapters build on the store and the base ports (server secret, randomness): see appLayer.
    Layer.effectDiscard(Effect.flatMap(SigningKeys, (keys) => keys.ensureCurrent())).pipe(
      Layer.provide(SigningKeys.layer)
    )
  )
