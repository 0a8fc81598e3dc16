/**
 * Housekeeping of the standalone server: every minute, drop idempotency records past their
 * retention (kept 24 h by default), rate-limit windows that ended, and the
 * event channel's session rows of a process that died without closing them (not refreshed within
 * the presence window: a live process refreshes its sessions every heartbeat, docs/event-channel.md).
 * Several processes may sweep at once; the deletes are idempotent.
 */
import { ChannelPolicy, EventChannelStore } from "@switchboard/core/events"
import { IdempotencyStore, RateLimiter } from "@switchboard/core/shared"
import { logCauseWarning } from "@switchboard/core/internal"
import { DateTime, Duration, Effect, Layer, Schedule } from "effect"
import { ServerConfig } from "../http/ServerConfig.js"

export const sweepOnce = Effect.gen(function*() {
  const config = yield* ServerConfig
  const now = yield* DateTime.now
  const records = yield* (yield* IdempotencyStore).purge(DateTime.subtract(now, { hours: config.idempotencyRetentionHours }))
  const windows = yield* (yield* RateLimiter).purge(now)
  const presence = yield* ChannelPolicy
  const sessions = yield* (yield* EventChannelStore).dropStale(DateTime.subtract(now, { milliseconds: presence.presenceMs }))
  return { records, windows, sessions }
})

export const HousekeepingLive = Layer.effectDiscard(
  sweepOnce.pipe(
    Effect.tap(({ records, sessions, windows }) =>
      records + windows + sessions > 0
        ? Effect.logDebug("housekeeping", { idempotencyRecords: records, rateLimitWindows: windows, staleChannelSessions: sessions })
        : Effect.void
    ),
    Effect.catchCause((cause) => logCauseWarning("housekeeping failed; will retry", cause)),
    Effect.repeat(Schedule.spaced(Duration.minutes(1))),
    Effect.forkScoped
  )
)
