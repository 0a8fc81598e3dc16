/**
 * The OAuthProvider feature's background work in a server process: every
 * `OAUTH_SWEEP_INTERVAL_SECONDS` (0: never), codes and tokens that expired more than a day ago
 * are deleted, with the token families left empty. Several processes may sweep at once: each
 * delete is idempotent. A failed sweep is logged and retried at the next interval.
 */
import { OAuthProvider } from "@switchboard/core/oauth"
import { logCauseWarning } from "@switchboard/core/internal"
import { Duration, Effect, Layer, Schedule } from "effect"
import type { ServerConfigShape } from "../http/ServerConfig.js"

export const OAuthProviderWorkers = (config: ServerConfigShape) =>
  config.oauthSweepIntervalSeconds === 0
    ? Layer.empty
    : Layer.effectDiscard(Effect.gen(function*() {
      const provider = yield* OAuthProvider
      const sweepOnce = provider.sweep().pipe(
        Effect.tap((n) => (n > 0 ? Effect.logDebug("oauth sweep", { deleted: n }) : Effect.void)),
        Effect.catchCause((cause) => logCauseWarning("oauth sweep failed", cause))
      )
      yield* sweepOnce.pipe(
        Effect.repeat(Schedule.spaced(Duration.seconds(config.oauthSweepIntervalSeconds))),
        Effect.delay(Duration.seconds(config.oauthSweepIntervalSeconds)),
        Effect.forkScoped
      )
    }))
