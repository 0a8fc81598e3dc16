/**
 * The Projects feature's adapters in the standalone server: the closure job as a background fiber
 * (docs/api-notes/accounts-and-projects.md: a deleted project closes after
 * `PROJECT_CLOSURE_SECONDS`, default 60), and the closure policy for the core services. Several
 * server processes may run the job at once: the store finishes each project once.
 */
import { ProjectClosurePolicy, ProjectClosures } from "@switchboard/core/projects"
import { Duration, Effect, Layer } from "effect"
import type { ServerConfigShape } from "../http/ServerConfig.js"
import { projectClosureSecondsSetting } from "../http/Settings.js"

/** `PROJECT_CLOSURE_SECONDS`: how long a deleted project stays closing (0..86400, default 60). */
export const projectClosureSeconds = projectClosureSecondsSetting.config

/** The policy for a closure delay: the job looks every quarter of it (1..10 s). */
export const closurePolicy = (delaySeconds: number) => ({
  delay: Duration.seconds(delaySeconds),
  interval: Duration.seconds(Math.min(10, Math.max(1, Math.ceil(delaySeconds / 4)))),
  batchSize: 100
})

export const ProjectsServerAdapters = (_config: ServerConfigShape) =>
  Layer.unwrap(Effect.map(projectClosureSeconds, (seconds) => {
    const policy = Layer.succeed(ProjectClosurePolicy, closurePolicy(seconds))
    const job = Layer.effectDiscard(
      Effect.flatMap(ProjectClosures, (closures) => Effect.forkScoped(closures.runPeriodically))
    ).pipe(Layer.provide(ProjectClosures.layer), Layer.provide(policy))
    return Layer.merge(policy, job)
  }))
