/**
 * The API requests each project was answered, counted per hour: the port. The HTTP adapter counts
 * the requests of the versioned API (`/v1/projects/{projectId}/…`) and the management API
 * (`/projects/{projectId}/…`) in memory and adds them here every few seconds; several processes
 * add to the same rows. The console's project overview reads the last 24 hours.
 */
import { Context, type DateTime, type Effect } from "effect"
import type { ProjectId } from "../shared/Identifiers.js"

/** The surface a request was answered on. */
export type RequestSurface = "v1" | "management"

/** The class of an answer's status: 2xx and 3xx `success`, 4xx `client_error`, 5xx `server_error`. */
export type RequestOutcome = "success" | "client_error" | "server_error"

/** The outcome class of an HTTP status. */
export const requestOutcomeOf = (status: number): RequestOutcome =>
  status >= 500 ? "server_error" : status >= 400 ? "client_error" : "success"

/** How many requests of one project, surface and outcome were answered in one hour (UTC). */
export interface RequestCount {
  readonly projectId: ProjectId
  /** The start of the hour (UTC), a whole hour. */
  readonly hour: DateTime.Utc
  readonly surface: RequestSurface
  readonly outcome: RequestOutcome
  readonly count: number
}

export class ProjectRequestCounts extends Context.Service<ProjectRequestCounts, {
  /**
   * Adds each count to its row (project, hour, surface, outcome), made at 0 when there is none: an
   * additive upsert, so the batches of several processes add up. Counts of a project that does not
   * exist are dropped; an `hour` is taken down to its whole hour.
   */
  readonly add: (batch: ReadonlyArray<RequestCount>) => Effect.Effect<void>
  /** The project's rows of the 24 hours ending with the hour of `now` (that hour and the 23 before it), oldest first. */
  readonly last24h: (projectId: ProjectId, now: DateTime.Utc) => Effect.Effect<ReadonlyArray<RequestCount>>
  /** Deletes every row of an hour before `before`; how many went. */
  readonly purge: (before: DateTime.Utc) => Effect.Effect<number>
}>()("core/ProjectRequestCounts") {}
