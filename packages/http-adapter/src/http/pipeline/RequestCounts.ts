/**
 * The requests answered per project (REQUEST_COUNTS_FLUSH_SECONDS; the console's overview,
 * docs/console.md): every request whose declared route is the versioned API's
 * `/v1/projects/:projectId/…` or the management API's `/projects/:projectId/…` counts toward the
 * project its `projectId` parameter names, by hour (UTC), surface and outcome class (2xx/3xx, 4xx,
 * 5xx). A request answered before routing (an unknown path, a URL the checks refuse, 429 over the
 * rate limit) is not counted; a request refused after routing (401, 403, 404) is, and the store
 * drops the counts of a project it does not hold.
 *
 * On the request's path this is one lookup of the route the router matched (in the request fiber's
 * context), one key string and one `Map` update: no effect, no await. A worker
 * (server/RequestCountsWorker.ts) adds the counts to the store every few seconds and at shutdown.
 * The tally holds at most `maxKeys` keys between two flushes; a request of a further key is dropped
 * (and counted as dropped), so a flood of made-up project ids cannot grow the process's memory.
 */
import { HttpRouter } from "effect/http"
import type { RequestCount, RequestSurface } from "@switchboard/core/projects"
import { ProjectId } from "@switchboard/core/shared"
import { Context, DateTime, type Effect, Schema } from "effect"

const HOUR = 3_600_000

/** The most keys (project × hour × surface × outcome) the tally holds between two flushes. */
export const MAX_TALLY_KEYS = 10_000

export interface RequestTally {
  /** One request of `projectId` on `surface`, answered `status` at `nowMs` (epoch ms). */
  readonly count: (projectId: string, surface: RequestSurface, status: number, nowMs: number) => void
  /** Every count since the last drain, as store rows (ids that cannot be a project's left out); the tally starts over. */
  readonly drain: () => ReadonlyArray<RequestCount>
  /** Puts back what a drain took (a flush that failed), as far as the bound allows. */
  readonly restore: (batch: ReadonlyArray<RequestCount>) => void
  /** How many requests were dropped because the tally was full. */
  readonly dropped: () => number
}

const isProjectId = Schema.is(ProjectId)

/** A key: `hour|surface outcome|projectId` (`v`/`m`, `2`/`4`/`5`). */
const keyOf = (hour: number, surface: RequestSurface, outcome: "2" | "4" | "5", projectId: string) =>
  `${hour}|${surface === "v1" ? "v" : "m"}${outcome}|${projectId}`

const outcomes = { "2": "success", "4": "client_error", "5": "server_error" } as const

export const makeRequestTally = (maxKeys: number = MAX_TALLY_KEYS): RequestTally => {
  let counts = new Map<string, number>()
  let dropped = 0
  const bump = (key: string, n: number) => {
    const current = counts.get(key)
    if (current !== undefined) counts.set(key, current + n)
    else if (counts.size < maxKeys) counts.set(key, n)
    else dropped += n
  }
  return {
    count: (projectId, surface, status, nowMs) =>
      bump(keyOf(Math.floor(nowMs / HOUR), surface, status >= 500 ? "5" : status >= 400 ? "4" : "2", projectId), 1),
    drain: () => {
      const taken = counts
      counts = new Map()
      const rows: Array<RequestCount> = []
      for (const [key, count] of taken) {
        const bar = key.indexOf("|")
        const hour = Number(key.slice(0, bar))
        const surface = key[bar + 1] === "v" ? "v1" : "management"
        const outcome = outcomes[key[bar + 2] as "2" | "4" | "5"]
        // The management API takes upper-case UUIDs too; project ids are lower-case UUIDv7.
        const projectId = key.slice(bar + 4).toLowerCase()
        if (!isProjectId(projectId)) continue
        rows.push({ projectId, hour: DateTime.makeUnsafe(hour * HOUR) as DateTime.Utc, surface, outcome, count })
      }
      return rows
    },
    restore: (batch) => {
      for (const r of batch) {
        const outcome = r.outcome === "success" ? "2" : r.outcome === "client_error" ? "4" : "5"
        bump(keyOf(Math.floor(DateTime.toEpochMillis(r.hour) / HOUR), r.surface, outcome, r.projectId), r.count)
      }
    },
    dropped: () => dropped
  }
}

/** The process's tally and its flush (the store's additive upsert); absent with REQUEST_COUNTS_FLUSH_SECONDS=0. */
export class RequestCounter extends Context.Service<RequestCounter, {
  readonly tally: RequestTally
  /** Adds what the tally holds to the store now (put back into the tally if the store fails). */
  readonly flush: Effect.Effect<void>
}>()("http/RequestCounter") {}

const V1 = "/v1/projects/:projectId"
const MANAGEMENT = "/projects/:projectId"

/**
 * The pipeline's step, run as the answer leaves: `context` is the request fiber's, which holds the
 * route the router matched (none for an unknown path).
 */
export const makeCountRequest = (tally: RequestTally) => (context: Context.Context<never>, status: number) => {
  const routed = Context.getOrUndefined(context as Context.Context<HttpRouter.RouteContext>, HttpRouter.RouteContext)
  if (routed === undefined) return
  const path = routed.route.path
  const surface: RequestSurface | undefined = path.startsWith(V1) && (path.length === V1.length || path[V1.length] === "/")
    ? "v1"
    : path.startsWith(MANAGEMENT) && (path.length === MANAGEMENT.length || path[MANAGEMENT.length] === "/")
    ? "management"
    : undefined
  const projectId = routed.params.projectId
  if (surface !== undefined && projectId !== undefined) tally.count(projectId, surface, status, Date.now())
}
