/**
 * The Dashboard feature in the standalone server: its policies from the configuration — how long
 * a session lives (SESSION_TTL_HOURS) and how many failed sign-ins an email may have in a window
 * (SIGN_IN_MAX_FAILURES, SIGN_IN_WINDOW_MINUTES). Its stores are the SQL repositories.
 */
import { DeliveryStats, SessionPolicy, SignInPolicy } from "@switchboard/core/dashboard"
import { WebhooksRepo } from "@switchboard/core/events"
import { Duration, Effect, Layer } from "effect"
import type { ServerConfigShape } from "../http/ServerConfig.js"

export const DashboardServerAdapters = (config: ServerConfigShape) =>
  Layer.mergeAll(
    Layer.succeed(SessionPolicy, { ttl: Duration.hours(config.sessionTtlHours) }),
    Layer.succeed(SignInPolicy, {
      maxFailures: config.signInMaxFailures,
      window: Duration.minutes(config.signInWindowMinutes)
    }),
    // Diagnostics report the delivery engine's backlog from the webhooks store.
    Layer.effect(DeliveryStats, Effect.map(WebhooksRepo, (repo) => DeliveryStats.of({ counts: repo.deliveryCounts, oldestPendingDueMillis: repo.oldestPendingDueMillis })))
  )
