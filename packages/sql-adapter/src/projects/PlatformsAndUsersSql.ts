/**
 * The Management feature's repositories in SQL (docs/api-notes/management-api.md): platform
 * switches (one upsert per toggle) and end users. The unique index on (project, phone number,
 * assigned number) decides between concurrent inserts (a violation is `ProjectUserExists`); the
 * service locks the project row around its read-then-write, so the per-project count holds until
 * the insert commits.
 */
import { SqlClient } from "effect/sql"
import {
  PlatformName,
  PlatformsRepo,
  ProjectUserExists,
  type ProjectUserRecord,
  ProjectUsersRepo
} from "@switchboard/core/projects"
import { ProjectId, UserId } from "@switchboard/core/shared"
import { Effect, Layer, Schema } from "effect"
import { DbTime, die, firstRow, isUniqueViolation, orDie, type Rows, rowsOf, toDate } from "../shared/Sql.js"

const PlatformRow = Schema.Struct({ platform: PlatformName, enabled: Schema.Boolean })

const UserRow = Schema.Struct({
  id: UserId,
  projectId: ProjectId,
  firstName: Schema.NullOr(Schema.String),
  lastName: Schema.NullOr(Schema.String),
  email: Schema.NullOr(Schema.String),
  phoneNumber: Schema.String,
  assignedPhoneNumber: Schema.NullOr(Schema.String),
  createdAt: DbTime,
  updatedAt: DbTime
})

const platforms = rowsOf(PlatformRow)

const PlatformsSql = Layer.effect(
  PlatformsRepo,
  Effect.map(SqlClient.SqlClient, (sql) =>
    PlatformsRepo.of({
      list: (projectId) =>
        platforms(sql`select platform, enabled from project_platforms where project_id = ${projectId}`),
      set: ({ enabled, now, platform, projectId }) =>
        orDie(sql`
          insert into project_platforms (project_id, platform, enabled, updated_at)
          values (${projectId}, ${platform}, ${enabled}, ${toDate(now)})
          on conflict (project_id, platform) do update set enabled = excluded.enabled, updated_at = excluded.updated_at`)
          .pipe(Effect.asVoid)
    }))
)

const ProjectUsersSql = Layer.effect(
  ProjectUsersRepo,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const cols = sql.literal(
      "user_id as id, project_id, first_name, last_name, email, phone_number, assigned_phone_number, created_at, updated_at"
    )
    const select: (statement: Rows) => Effect.Effect<ReadonlyArray<ProjectUserRecord>> = rowsOf(UserRow)

    return ProjectUsersRepo.of({
      list: ({ ids, projectId, type }) =>
        select(sql`
          select ${cols} from project_users
          where ${
          sql.and([
            sql`project_id = ${projectId}`,
            type === undefined
              ? sql`true`
              : type === "shared"
              ? sql`assigned_phone_number is null`
              : sql`assigned_phone_number is not null`,
            ids === undefined ? sql`true` : sql.in("user_id", ids)
          ])
        }
          order by created_at, user_id`),
      findById: (projectId, userId) =>
        Effect.map(
          select(sql`select ${cols} from project_users where user_id = ${userId} and project_id = ${projectId}`),
          firstRow
        ),
      findByKey: ({ assignedPhoneNumber, phoneNumber, projectId }) =>
        Effect.map(
          select(sql`
            select ${cols} from project_users
            where project_id = ${projectId} and phone_number = ${phoneNumber}
              and coalesce(assigned_phone_number, '') = ${assignedPhoneNumber ?? ""}`),
          firstRow
        ),
      count: (projectId) =>
        orDie(sql<{ n: number }>`select count(*)::int as n from project_users where project_id = ${projectId}`)
          .pipe(Effect.map((rows) => rows[0]?.n ?? 0)),
      insert: (u) =>
        // Its own savepoint: after a unique violation the surrounding transaction can go on.
        sql.withTransaction(sql`insert into project_users ${sql.insert({
          userId: u.id,
          projectId: u.projectId,
          firstName: u.firstName,
          lastName: u.lastName,
          email: u.email,
          phoneNumber: u.phoneNumber,
          assignedPhoneNumber: u.assignedPhoneNumber,
          createdAt: toDate(u.createdAt),
          updatedAt: toDate(u.updatedAt)
        })}`).pipe(
          Effect.asVoid,
          Effect.catchTag("SqlError", (e) =>
            isUniqueViolation(e) ? Effect.fail(new ProjectUserExists({ phoneNumber: u.phoneNumber })) : die(e))
        ),
      update: (u) =>
        orDie(sql`
          update project_users
          set first_name = ${u.firstName}, last_name = ${u.lastName}, email = ${u.email}, updated_at = ${toDate(u.updatedAt)}
          where user_id = ${u.id} and project_id = ${u.projectId}`).pipe(Effect.asVoid),
      remove: (projectId, userId) =>
        Effect.map(
          select(sql`delete from project_users where user_id = ${userId} and project_id = ${projectId} returning ${cols}`),
          firstRow
        )
    })
  })
)

export const PlatformsAndUsersReposSql = Layer.mergeAll(PlatformsSql, ProjectUsersSql)
