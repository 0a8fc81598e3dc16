/**
 * The Dashboard feature's background work in a server process (PRIVACY_JOB_ENABLED, every
 * PRIVACY_JOB_INTERVAL_SECONDS): processes received privacy requests (`PrivacyRequests.processPending`,
 * safe in several processes at once), and sweeps expired sessions and ended sign-in failure windows.
 * Off, nothing runs: tests drive `dashboardJobOnce` (or the core function) by hand.
 */
import { Sessions, SignInThrottleRepo } from "@switchboard/core/dashboard"
import { logCauseWarning } from "@switchboard/core/internal"
import { PrivacyRequests } from "@switchboard/core/privacy"
import { DateTime, Duration, Effect, Layer, Schedule } from "effect"
import type { ServerConfigShape } from "../http/ServerConfig.js"

/** One pass of the job: what it did. */
export const dashboardJobOnce = (config: ServerConfigShape) =>
  Effect.gen(function*() {
    const processed = yield* (yield* PrivacyRequests).processPending({ limit: 100 })
    const sessions = yield* (yield* Sessions).purgeExpired(1000)
    const now = yield* DateTime.now
    const windows = yield* (yield* SignInThrottleRepo).purge(DateTime.subtractDuration(now, Duration.minutes(config.signInWindowMinutes)))
    return { privacyRequests: processed.length, sessions, windows }
  })

export const DashboardWorkers = (config: ServerConfigShape) =>
  config.privacyJobEnabled
    ? Layer.effectDiscard(
      dashboardJobOnce(config).pipe(
        Effect.tap((done) =>
          done.privacyRequests + done.sessions + done.windows > 0 ? Effect.logDebug("dashboard job", done) : Effect.void
        ),
        Effect.catchCause((cause) => logCauseWarning("dashboard job failed; will retry", cause)),
        Effect.repeat(Schedule.spaced(Duration.seconds(config.privacyJobIntervalSeconds))),
        Effect.forkScoped
      )
    )
    : Layer.empty
