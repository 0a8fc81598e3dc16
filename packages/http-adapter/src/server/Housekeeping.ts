/**
 * Housekeeping of the standalone server: every minute, drop idempotency records past their
 * retention (API.md §0: kept 24 h by default) and rate-limit windows that ended. Several processes
 * may sweep at once; the deletes are idempotent.
 */
import { IdempotencyStore, RateLimiter } from "@switchboard/core/shared"
import { logCauseWarning } from "@switchboard/core/internal"
import { DateTime, Duration, Effect, Layer, Schedule } from "effect"
import { ServerConfig } from "../http/ServerConfig.js"

export const sweepOnce = Effect.gen(function*() {
  const config = yield* ServerConfig
  const now = yield* DateTime.now
  const records = yield* (yield* IdempotencyStore).purge(DateTime.subtract(now, { hours: config.idempotencyRetentionHours }))
  const windows = yield* (yield* RateLimiter).purge(now)
  return { records, windows }
})

export const HousekeepingLive = Layer.effectDiscard(
  sweepOnce.pipe(
    Effect.tap(({ records, windows }) =>
      records + windows > 0 ? Effect.logDebug("housekeeping", { idempotencyRecords: records, rateLimitWindows: windows }) : Effect.void
    ),
    Effect.catchCause((cause) => logCauseWarning("housekeeping failed; will retry", cause)),
    Effect.repeat(Schedule.spaced(Duration.minutes(1))),
    Effect.forkScoped
  )
)
