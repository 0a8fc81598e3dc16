/** iMessage's SQL repository (migration 0105): shared-line assignments. */
import { SqlClient } from "effect/sql"
import { type SharedLineAssignmentRecord, SharedLineAssignmentsRepo } from "@switchboard/core/platforms"
import { Effect, Layer, Option, Schema } from "effect"
import { DbTime, DbTimeOrNull, firstRow, orDie, rowsOf, toDate } from "../shared/Sql.js"

const AssignmentRow = Schema.Struct({
  assignmentId: Schema.String,
  projectId: Schema.String,
  platform: Schema.Literals(["imessage", "whatsapp"]),
  handle: Schema.String,
  handleKey: Schema.String,
  assignedPhoneNumber: Schema.String,
  email: Schema.NullOr(Schema.String),
  firstName: Schema.NullOr(Schema.String),
  lastName: Schema.NullOr(Schema.String),
  createdAt: DbTime,
  updatedAt: DbTime,
  releasedAt: DbTimeOrNull
})
const assignmentRows = rowsOf(AssignmentRow)

export const ImessageReposSql = Layer.effect(
  SharedLineAssignmentsRepo,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const select = (statement: Parameters<typeof assignmentRows>[0]): Effect.Effect<ReadonlyArray<SharedLineAssignmentRecord>> =>
      assignmentRows(statement)
    return SharedLineAssignmentsRepo.of({
      insert: (r) =>
        Effect.map(
          orDie(sql<{ assignmentId: string }>`
            insert into shared_line_assignments (assignment_id, project_id, platform, handle, handle_key, assigned_phone_number,
              email, first_name, last_name, created_at, updated_at, released_at)
            values (${r.assignmentId}, ${r.projectId}, ${r.platform}, ${r.handle}, ${r.handleKey}, ${r.assignedPhoneNumber},
              ${r.email}, ${r.firstName}, ${r.lastName}, ${toDate(r.createdAt)}, ${toDate(r.updatedAt)}, null)
            on conflict (project_id, platform, handle_key) where released_at is null do nothing
            returning assignment_id`),
          (rows) => rows.length === 1
        ),
      handleTaken: (projectId, platform, handleKey) =>
        Effect.map(
          orDie(sql<{ n: number | string }>`
            select count(*)::int as n from shared_line_assignments
            where project_id = ${projectId} and platform = ${platform} and handle_key = ${handleKey} and released_at is null`),
          (rows) => Number(rows[0]?.n ?? 0) > 0
        ),
      find: (projectId, assignmentId) =>
        Effect.map(
          select(sql`select * from shared_line_assignments where project_id = ${projectId} and assignment_id = ${assignmentId}`),
          firstRow
        ),
      list: ({ after, includeReleased, limit, platform, projectId }) =>
        select(sql`
          select * from shared_line_assignments
          where project_id = ${projectId} and platform = ${platform}
            ${includeReleased ? sql`` : sql`and released_at is null`}
            ${after === undefined ? sql`` : sql`and (created_at, assignment_id) > (${toDate(after.createdAt)}, ${after.assignmentId})`}
          order by created_at, assignment_id
          limit ${limit}`),
      countLive: (projectId, platform) =>
        Effect.map(
          orDie(sql<{ n: number | string }>`
            select count(*)::int as n from shared_line_assignments
            where project_id = ${projectId} and platform = ${platform} and released_at is null`),
          (rows) => Number(rows[0]?.n ?? 0)
        ),
      release: ({ assignmentId, now, projectId }) =>
        Effect.gen(function*() {
          const released = yield* select(sql`
            update shared_line_assignments set released_at = ${toDate(now)}, updated_at = ${toDate(now)}
            where project_id = ${projectId} and assignment_id = ${assignmentId} and released_at is null
            returning *`)
          if (released[0] !== undefined) return Option.some({ assignment: released[0], released: true })
          const found = yield* select(sql`
            select * from shared_line_assignments where project_id = ${projectId} and assignment_id = ${assignmentId}`)
          return Option.map(firstRow(found), (assignment) => ({ assignment, released: false }))
        })
    })
  })
)
