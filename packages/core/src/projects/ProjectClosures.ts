/**
 * The closure job (docs/api-notes/accounts-and-projects.md): a deleted project is `closing` for
 * `delay` (reads work, writes answer 409), then becomes `deleted` (everything answers 410).
 * Clock-driven so tests drive it with `TestClock`; the standalone server runs `runPeriodically` as
 * a background fiber. Several processes may run it at once: the store finishes each project once.
 */
import { Context, DateTime, Duration, Effect, Layer } from "effect"
import type { ProjectId } from "../shared/Identifiers.js"
import { ProjectsRepo } from "./Ports.js"
import { fn } from "../internal/Traced.js"
import { logCauseWarning } from "../internal/CauseSummary.js"
import { Setting } from "../internal/Settings.js"

/** How long a project stays closing, how often the job looks, and how many it finishes per batch. */
export class ProjectClosurePolicy extends Setting<ProjectClosurePolicy>()("core/ProjectClosurePolicy", {
  defaultValue: () => ({ delay: Duration.seconds(60), interval: Duration.seconds(5), batchSize: 100 })
}) {}

export class ProjectClosures extends Context.Service<ProjectClosures>()("core/ProjectClosures", {
  make: Effect.gen(function*() {
    const repo = yield* ProjectsRepo
    const policy = yield* ProjectClosurePolicy
    const batchSize = Math.max(1, policy.batchSize)

    /** Finishes every closing project deleted at least `delay` before `now`; returns their ids. */
    const completeClosures = fn("ProjectClosures.completeClosures")(function*(now: DateTime.Utc) {
      const closingBefore = DateTime.subtractDuration(now, policy.delay)
      const finished: Array<ProjectId> = []
      for (;;) {
        const batch = yield* repo.finishClosings({ closingBefore, now, limit: batchSize })
        finished.push(...batch)
        if (batch.length < batchSize) return finished
      }
    })

    /** Runs `completeClosures` every `interval` for ever; a failed round is logged, not fatal. */
    const runPeriodically = Effect.gen(function*() {
      for (;;) {
        yield* Effect.sleep(policy.interval)
        yield* DateTime.now.pipe(
          Effect.flatMap(completeClosures),
          Effect.catchCause((cause) => logCauseWarning("project closure round failed", cause))
        )
      }
    })

    return { completeClosures, runPeriodically, policy } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
