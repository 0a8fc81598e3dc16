/**
 * Housekeeping of the standalone server: every minute, drop idempotency records past their
 * retention (kept 24 h by default), rate-limit windows that ended, the hours of requests counted
 * per project older than 8 days (`REQUEST_COUNT_DAYS`; the console shows the last 24 h), and the
 * event channel's session rows of a process that died without closing them (not refreshed within
 * the presence window: a live process refreshes its sessions every heartbeat, docs/event-channel.md).
 * Several processes may sweep at once; the deletes are idempotent.
 */
import { ChannelPolicy, EventChannelStore } from "@switchboard/core/events"
import { ProjectRequestCounts } from "@switchboard/core/projects"
import { IdempotencyStore, RateLimiter } from "@switchboard/core/shared"
import { logCauseWarning } from "@switchboard/core/internal"
import { DateTime, Duration, Effect, Layer, Schedule } from "effect"
import { ServerConfig } from "../http/ServerConfig.js"

/** How many days of request counts per project are kept. */
export const REQUEST_COUNT_DAYS = 8

export const sweepOnce = Effect.gen(function*() {
  const config = yield* ServerConfig
  const now = yield* DateTime.now
  const records = yield* (yield* IdempotencyStore).purge(DateTime.subtract(now, { hours: config.idempotencyRetentionHours }))
  const windows = yield* (yield* RateLimiter).purge(now)
  const presence = yield* ChannelPolicy
  const sessions = yield* (yield* EventChannelStore).dropStale(DateTime.subtract(now, { milliseconds: presence.presenceMs }))
  const requestCounts = yield* (yield* ProjectRequestCounts).purge(DateTime.subtract(now, { days: REQUEST_COUNT_DAYS }))
  return { records, windows, sessions, requestCounts }
})

export const HousekeepingLive = Layer.effectDiscard(
  sweepOnce.pipe(
    Effect.tap(({ records, requestCounts, sessions, windows }) =>
      records + windows + sessions + requestCounts > 0
        ? Effect.logDebug("housekeeping", { idempotencyRecords: records, rateLimitWindows: windows, staleChannelSessions: sessions, requestCountHours: requestCounts })
        : Effect.void
    ),
    Effect.catchCause((cause) => logCauseWarning("housekeeping failed; will retry", cause)),
    Effect.repeat(Schedule.spaced(Duration.minutes(1))),
    Effect.forkScoped
  )
)
