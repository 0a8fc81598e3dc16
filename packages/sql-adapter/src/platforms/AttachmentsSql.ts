/** Attachments' SQL repository (migration 0106). */
import { SqlClient } from "effect/sql"
import { type AttachmentRecord, AttachmentsRepo, AttachmentState } from "@switchboard/core/platforms"
import { DateTime, Effect, Layer, Schema } from "effect"
import { DbTime, firstRow, orDie, rowsOf, toDate } from "../shared/Sql.js"

const AttachmentRow = Schema.Struct({
  attachmentId: Schema.String,
  projectId: Schema.String,
  contentType: Schema.String,
  sizeBytes: Schema.Union([Schema.Number, Schema.NumberFromString]),
  state: AttachmentState,
  blobKey: Schema.NullOr(Schema.String),
  createdAt: DbTime,
  updatedAt: DbTime
})
const attachmentRows = rowsOf(AttachmentRow)
const toRecord = ({ sizeBytes, ...r }: typeof AttachmentRow.Type): AttachmentRecord => ({ ...r, size: sizeBytes })

export const AttachmentsReposSql = Layer.effect(
  AttachmentsRepo,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const select = (statement: Parameters<typeof attachmentRows>[0]) => Effect.map(attachmentRows(statement), (rows) => rows.map(toRecord))
    const at = (ms: number) => toDate(DateTime.makeUnsafe(ms))
    return AttachmentsRepo.of({
      insert: (r) =>
        orDie(sql`
          insert into attachments (attachment_id, project_id, content_type, size_bytes, state, blob_key, created_at, updated_at)
          values (${r.attachmentId}, ${r.projectId}, ${r.contentType}, ${r.size}, ${r.state}, ${r.blobKey},
            ${toDate(r.createdAt)}, ${toDate(r.updatedAt)})`).pipe(Effect.asVoid),
      find: (projectId, attachmentId) =>
        Effect.map(select(sql`select * from attachments where project_id = ${projectId} and attachment_id = ${attachmentId}`), firstRow),
      markReady: ({ attachmentId, blobKey, now, size }) =>
        Effect.map(
          select(sql`
            update attachments set state = 'ready', blob_key = ${blobKey}, size_bytes = ${size}, updated_at = ${toDate(now)}
            where attachment_id = ${attachmentId} and state = 'processing'
            returning *`),
          firstRow
        ),
      list: ({ after, createdBefore, createdSince, limit, order, orderBy, projectId, updatedBefore, updatedSince }) => {
        const column = sql.literal(orderBy === "createdAt" ? "created_at" : "updated_at")
        const direction = sql.literal(order === "asc" ? "asc" : "desc")
        const cmp = sql.literal(order === "asc" ? ">" : "<")
        return select(sql`
          select * from attachments
          where project_id = ${projectId}
            ${createdSince === undefined ? sql`` : sql`and created_at >= ${at(createdSince)}`}
            ${createdBefore === undefined ? sql`` : sql`and created_at < ${at(createdBefore)}`}
            ${updatedSince === undefined ? sql`` : sql`and updated_at >= ${at(updatedSince)}`}
            ${updatedBefore === undefined ? sql`` : sql`and updated_at < ${at(updatedBefore)}`}
            ${after === undefined ? sql`` : sql`and (${column}, attachment_id) ${cmp} (${at(after.t)}, ${after.id})`}
          order by ${column} ${direction}, attachment_id ${direction}
          limit ${limit}`)
      }
    })
  })
)
