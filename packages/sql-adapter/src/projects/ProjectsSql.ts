/**
 * The Projects feature's SQL repositories (docs/api-notes/accounts-and-projects.md). The slug's
 * unique index decides between concurrent creates (a violation is `SlugInUse`); read-then-write
 * operations lock the row (`lock`, inside the service's transaction); the closure job takes due
 * rows with `FOR UPDATE SKIP LOCKED`, so several processes finish each project once.
 */
import { SqlClient } from "effect/sql"
import { Projects } from "@switchboard/core"
import { type ProjectFilter, type ProjectRecord, ProjectsRepo, SlugInUse } from "@switchboard/core/projects"
import { AccountId, OrganizationId, ProjectId } from "@switchboard/core/shared"
import { Effect, Layer, Option, Schema } from "effect"
import { DbTime, DbTimeOrNull, die, firstRow, isUniqueViolation, orDie, type Rows, rowsOf, toDate, toDateOrNull } from "../shared/Sql.js"

const ProjectRow = Schema.Struct({
  projectId: ProjectId,
  organizationId: OrganizationId,
  name: Schema.String,
  slug: Projects.ProjectSlug,
  state: Schema.Literals(["active", "closing", "deleted"]),
  agentFirstName: Schema.NullOr(Schema.String),
  agentLastName: Schema.NullOr(Schema.String),
  agentAvatarUrl: Schema.NullOr(Schema.String),
  createdByAccountId: AccountId,
  createdAt: DbTime,
  updatedAt: DbTime,
  deletedAt: DbTimeOrNull,
  closedAt: DbTimeOrNull
})

export const ProjectsReposSql = Layer.effect(
  ProjectsRepo,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const cols = sql.literal(
      "project_id, organization_id, name, slug, state, agent_first_name, agent_last_name, agent_avatar_url, " +
        "created_by_account_id, created_at, updated_at, deleted_at, closed_at"
    )
    const select: (statement: Rows) => Effect.Effect<ReadonlyArray<ProjectRecord>> = rowsOf(ProjectRow)

    /** The conditions of a `ProjectFilter` (live projects of the organization). */
    const filtered = (f: ProjectFilter) => [
      sql`organization_id = ${f.organizationId}`,
      sql`deleted_at is null`,
      f.query === undefined
        ? sql`true`
        : sql`(strpos(lower(name), lower(${f.query})) > 0 or strpos(slug, lower(${f.query})) > 0)`,
      f.createdAfter === undefined ? sql`true` : sql`created_at > ${toDate(f.createdAfter)}`,
      f.createdBefore === undefined ? sql`true` : sql`created_at < ${toDate(f.createdBefore)}`
    ]

    return ProjectsRepo.of({
      insert: ({ project: p, secretHash }) =>
        // Its own savepoint: after a unique violation the surrounding transaction can go on.
        sql.withTransaction(sql`insert into projects ${sql.insert({
          projectId: p.projectId,
          organizationId: p.organizationId,
          name: p.name,
          slug: p.slug,
          state: p.state,
          agentFirstName: p.agentFirstName,
          agentLastName: p.agentLastName,
          agentAvatarUrl: p.agentAvatarUrl,
          secretHash,
          createdByAccountId: p.createdByAccountId,
          createdAt: toDate(p.createdAt),
          updatedAt: toDate(p.updatedAt),
          deletedAt: toDateOrNull(p.deletedAt),
          closedAt: toDateOrNull(p.closedAt)
        })}`).pipe(
          Effect.asVoid,
          Effect.catchTag("SqlError", (e) => isUniqueViolation(e) ? Effect.fail(new SlugInUse({ slug: p.slug })) : die(e))
        ),
      findById: (projectId) => Effect.map(select(sql`select ${cols} from projects where project_id = ${projectId}`), firstRow),
      lock: (projectId) => Effect.map(select(sql`select ${cols} from projects where project_id = ${projectId} for update`), firstRow),
      update: (p) =>
        orDie(sql`
          update projects set
            name = ${p.name},
            agent_first_name = ${p.agentFirstName},
            agent_last_name = ${p.agentLastName},
            agent_avatar_url = ${p.agentAvatarUrl},
            state = ${p.state},
            updated_at = ${toDate(p.updatedAt)},
            deleted_at = ${toDateOrNull(p.deletedAt)},
            closed_at = ${toDateOrNull(p.closedAt)}
          where project_id = ${p.projectId}`).pipe(Effect.asVoid),
      setSecretHash: (projectId, secretHash) =>
        orDie(sql`update projects set secret_hash = ${secretHash} where project_id = ${projectId}`).pipe(Effect.asVoid),
      findSecretHash: (projectId) =>
        orDie(sql<{ secretHash: string }>`select secret_hash from projects where project_id = ${projectId}`).pipe(
          Effect.map((rows) => Option.map(firstRow(rows), (r) => r.secretHash))
        ),
      slugHolders: (slugs) =>
        slugs.length === 0
          ? Effect.succeed([])
          : orDie(sql<{ slug: string; live: boolean }>`
              select slug, deleted_at is null as live from projects where ${sql.in("slug", [...slugs])}`).pipe(
            Effect.map((rows) => rows.map((r) => ({ slug: r.slug, holder: r.live ? "active" as const : "retired" as const })))
          ),
      list: (request) =>
        select(sql`
          select ${cols} from projects
          where ${sql.and([
            ...filtered(request),
            request.after === undefined
              ? sql`true`
              : sql`(created_at, project_id) < (${toDate(request.after.createdAt)}, ${request.after.projectId}::uuid)`
          ])}
          order by created_at desc, project_id desc
          limit ${request.limit}`),
      count: (filter) =>
        orDie(sql<{ n: string | number }>`select count(*) as n from projects where ${sql.and(filtered(filter))}`).pipe(
          Effect.map((rows) => Number(rows[0]?.n ?? 0))
        ),
      finishClosings: ({ closingBefore, limit, now }) =>
        orDie(sql<{ projectId: string }>`
          update projects set state = 'deleted', closed_at = ${toDate(now)}, updated_at = ${toDate(now)}
          where project_id in (
            select project_id from projects
            where state = 'closing' and deleted_at <= ${toDate(closingBefore)}
            order by deleted_at
            limit ${limit}
            for update skip locked)
          returning project_id`).pipe(Effect.map((rows) => rows.map((r) => ProjectId.make(r.projectId))))
    })
  })
)
