/**
 * The Projects feature's memory layers: projects (with the hash of their management secret) as a
 * table of the shared `MemoryState`, so transactions roll them back. Each operation is one
 * synchronous step, hence atomic; `lock` is `findById` (memory transactions run one at a time).
 */
import { type ProjectFilter, type ProjectRecord, ProjectsRepo, SlugInUse } from "@switchboard/core/projects"
import { type ProjectId } from "@switchboard/core/shared"
import { DateTime, Effect, Layer, Option } from "effect"
import { MemoryState } from "./MemoryState.js"

/** A project row: the record and the SHA-256 of its management secret. */
export interface ProjectRow {
  readonly project: ProjectRecord
  readonly secretHash: string
}

/** The table's name, shared with the ProjectApiKeys memory layer (which checks a key's project). */
export const PROJECTS_TABLE = "projects"

const newestFirst = (a: ProjectRecord, b: ProjectRecord) =>
  DateTime.toEpochMillis(b.createdAt) - DateTime.toEpochMillis(a.createdAt) || (b.projectId < a.projectId ? -1 : b.projectId > a.projectId ? 1 : 0)

/** Whether a project is one a `ProjectFilter` takes (live, of the organization, matching the filters). */
const matches = (f: ProjectFilter, p: ProjectRecord) => {
  const q = f.query?.toLowerCase()
  return p.organizationId === f.organizationId &&
    p.deletedAt === null &&
    (q === undefined || p.name.toLowerCase().includes(q) || p.slug.toLowerCase().includes(q)) &&
    (f.createdAfter === undefined || DateTime.isGreaterThan(p.createdAt, f.createdAfter)) &&
    (f.createdBefore === undefined || DateTime.isLessThan(p.createdAt, f.createdBefore))
}

const make = Effect.gen(function*() {
  const state = yield* MemoryState
  const table = state.table<string, ProjectRow>(PROJECTS_TABLE)
  const find = (projectId: ProjectId) => Effect.sync(() => Option.fromNullishOr(table.get(projectId)?.project))

  return ProjectsRepo.of({
    insert: ({ project, secretHash }) =>
      Effect.suspend(() => {
        for (const row of table.values()) {
          if (row.project.slug === project.slug) return Effect.fail(new SlugInUse({ slug: project.slug }))
        }
        table.set(project.projectId, { project, secretHash })
        return Effect.void
      }),
    findById: find,
    lock: find,
    update: (project) =>
      Effect.sync(() => {
        const row = table.get(project.projectId)
        if (row !== undefined) {
          // Only the mutable fields change, as in SQL.
          table.set(project.projectId, {
            ...row,
            project: {
              ...row.project,
              name: project.name,
              agentFirstName: project.agentFirstName,
              agentLastName: project.agentLastName,
              agentAvatarUrl: project.agentAvatarUrl,
              state: project.state,
              updatedAt: project.updatedAt,
              deletedAt: project.deletedAt,
              closedAt: project.closedAt
            }
          })
        }
      }),
    setSecretHash: (projectId, secretHash) =>
      Effect.sync(() => {
        const row = table.get(projectId)
        if (row !== undefined) table.set(projectId, { ...row, secretHash })
      }),
    findSecretHash: (projectId) => Effect.sync(() => Option.fromNullishOr(table.get(projectId)?.secretHash)),
    slugHolders: (slugs) =>
      Effect.sync(() => {
        const wanted = new Set(slugs)
        return [...table.values()]
          .filter((row) => wanted.has(row.project.slug))
          .map((row) => ({ slug: row.project.slug as string, holder: row.project.deletedAt === null ? "active" as const : "retired" as const }))
      }),
    list: (request) =>
      Effect.sync(() => {
        const { after } = request
        return [...table.values()]
          .map((row) => row.project)
          .filter((p) =>
            matches(request, p) &&
            (after === undefined ||
              DateTime.toEpochMillis(p.createdAt) < DateTime.toEpochMillis(after.createdAt) ||
              (DateTime.toEpochMillis(p.createdAt) === DateTime.toEpochMillis(after.createdAt) && p.projectId < after.projectId))
          )
          .sort(newestFirst)
          .slice(0, request.limit)
      }),
    count: (filter) => Effect.sync(() => [...table.values()].filter((row) => matches(filter, row.project)).length),
    finishClosings: ({ closingBefore, limit, now }) =>
      Effect.sync(() => {
        const due = [...table.values()]
          .filter(({ project: p }) =>
            p.state === "closing" && p.deletedAt !== null && !DateTime.isGreaterThan(p.deletedAt, closingBefore))
          .sort((a, b) => (a.project.deletedAt?.epochMilliseconds ?? 0) - (b.project.deletedAt?.epochMilliseconds ?? 0))
          .slice(0, limit)
        for (const row of due) {
          table.set(row.project.projectId, {
            ...row,
            project: { ...row.project, state: "deleted", closedAt: now, updatedAt: now }
          })
        }
        return due.map((row) => row.project.projectId)
      })
  })
})

export const ProjectsMemory: Layer.Layer<ProjectsRepo, never, MemoryState> = Layer.effect(ProjectsRepo, make)
