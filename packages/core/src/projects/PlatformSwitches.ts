/**
 * Platform switches of a project (the `Platforms` service): which of the seven platforms are on.
 * Every platform is off until switched on. Used by the management API
 * (`GET`/`PATCH /projects/{projectId}/platforms/`) and the Dashboard API (`…/platforms`, `…/toggle`).
 */
import { Context, DateTime, Effect, Layer, Option, Schema } from "effect"
import { ProjectClosing, ProjectDeleted, ProjectNotFound } from "./Errors.js"
import { ProjectsRepo } from "./Ports.js"
import { ProjectId } from "../shared/Identifiers.js"
import { Transactor } from "../shared/Ports.js"
import { PlatformsRepo } from "./PlatformsAndUsersPorts.js"
import { defaultPlatformStates, type PlatformName } from "./PlatformsAndUsersSchema.js"
import { fn } from "../internal/Traced.js"

export { PlatformName, type PlatformStates } from "./PlatformsAndUsersSchema.js"

const decodeProjectId = Schema.decodeUnknownOption(ProjectId)

/**
 * Methods take the project id as a string (callers often hold a path parameter): an id that is not
 * a project id reads as a project with every platform off, and cannot be changed (not found).
 */
export class Platforms extends Context.Service<Platforms>()("core/Platforms", {
  make: Effect.gen(function*() {
    const repo = yield* PlatformsRepo
    const projects = yield* ProjectsRepo
    const tx = yield* Transactor

    const statesOf = (projectId: ProjectId) =>
      Effect.map(repo.list(projectId), (rows) => {
        const states = defaultPlatformStates()
        for (const row of rows) states[row.platform] = { enabled: row.enabled }
        return states
      })

    /** All seven platforms' states (all off by default). */
    const get = fn("Platforms.get")(function*(projectId: string) {
      const id = decodeProjectId(projectId)
      return Option.isNone(id) ? defaultPlatformStates() : yield* statesOf(id.value)
    })

    /**
     * Switches one platform on or off and returns every platform's state. The project must be active:
     * a closing project refuses changes, a missing or deleted one is not found.
     */
    const set = fn("Platforms.set")(function*(input: {
      readonly projectId: string
      readonly platform: PlatformName
      readonly enabled: boolean
    }) {
      const id = decodeProjectId(input.projectId)
      if (Option.isNone(id)) return yield* new ProjectNotFound({ projectId: input.projectId })
      const projectId = id.value
      return yield* tx.withTransaction(Effect.gen(function*() {
        // The project row lock orders this change against the project's deletion.
        const project = yield* projects.lock(projectId)
        if (Option.isNone(project)) return yield* new ProjectNotFound({ projectId })
        if (project.value.state === "deleted") return yield* new ProjectDeleted({ projectId })
        if (project.value.state === "closing") return yield* new ProjectClosing({ projectId })
        yield* repo.set({ projectId, platform: input.platform, enabled: input.enabled, now: yield* DateTime.now })
        return yield* statesOf(projectId)
      }))
    })

    return { get, set } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
