/** The Uploads feature's SQL repositories: upload tickets, and the picture column of accounts. */
import { SqlClient, SqlSchema } from "effect/sql"
import { ImageContentType } from "@switchboard/core/accounts"
import { UploadId } from "@switchboard/core/shared"
import {
  AccountPictureRepo,
  type UploadPurpose,
  type UploadTicketRecord,
  UploadTicketsRepo
} from "@switchboard/core/uploads"
import { Effect, Layer, Option, Schema } from "effect"
import { DbTime, DbTimeOrNull, orDie, toDate, toDateOrNull } from "../shared/Sql.js"

const TicketRow = Schema.Struct({
  uploadId: UploadId,
  owner: Schema.String,
  purpose: Schema.String,
  contentType: ImageContentType,
  maxBytes: Schema.Int,
  state: Schema.Literals(["pending", "received", "committed"]),
  blobKey: Schema.NullOr(Schema.String),
  byteSize: Schema.NullOr(Schema.Int),
  createdAt: DbTime,
  expiresAt: DbTime,
  receivedAt: DbTimeOrNull,
  committedAt: DbTimeOrNull
})

// Purposes are written only from `UploadPurpose` values, so the stored string is one.
const toTicket = (row: typeof TicketRow.Type): UploadTicketRecord => ({ ...row, purpose: row.purpose as UploadPurpose })

const columns =
  "upload_id, owner, purpose, content_type, max_bytes, state, blob_key, byte_size, created_at, expires_at, received_at, committed_at"

const UploadTicketsRepoSql = Layer.effect(
  UploadTicketsRepo,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const cols = sql.literal(columns)

    const findById = SqlSchema.findOneOption({
      Request: Schema.String,
      Result: TicketRow,
      execute: (id) => sql`select ${cols} from upload_tickets where upload_id = ${id}`
    })
    // Each transition is one conditional UPDATE: of concurrent attempts exactly one matches the row.
    const markReceived = SqlSchema.findOneOption({
      Request: Schema.Struct({ uploadId: Schema.String, blobKey: Schema.String, byteSize: Schema.Int, now: Schema.Date }),
      Result: TicketRow,
      execute: ({ blobKey, byteSize, now, uploadId }) => sql`
        update upload_tickets
        set state = 'received', blob_key = ${blobKey}, byte_size = ${byteSize}, received_at = ${now}
        where upload_id = ${uploadId} and state = 'pending'
        returning ${cols}`
    })
    const markCommitted = SqlSchema.findOneOption({
      Request: Schema.Struct({ uploadId: Schema.String, now: Schema.Date }),
      Result: TicketRow,
      execute: ({ now, uploadId }) => sql`
        update upload_tickets set state = 'committed', committed_at = ${now}
        where upload_id = ${uploadId} and state = 'received'
        returning ${cols}`
    })

    return UploadTicketsRepo.of({
      insert: (t) =>
        orDie(sql`
          insert into upload_tickets ${sql.insert({
            uploadId: t.uploadId,
            owner: t.owner,
            purpose: t.purpose,
            contentType: t.contentType,
            maxBytes: t.maxBytes,
            state: t.state,
            blobKey: t.blobKey,
            byteSize: t.byteSize,
            createdAt: toDate(t.createdAt),
            expiresAt: toDate(t.expiresAt),
            receivedAt: toDateOrNull(t.receivedAt),
            committedAt: toDateOrNull(t.committedAt)
          })}`).pipe(Effect.asVoid),
      findById: (id) => orDie(findById(id)).pipe(Effect.map(Option.map(toTicket))),
      markReceived: ({ blobKey, byteSize, now, uploadId }) =>
        orDie(markReceived({ uploadId, blobKey, byteSize, now: toDate(now) })).pipe(Effect.map(Option.map(toTicket))),
      markCommitted: ({ now, uploadId }) =>
        orDie(markCommitted({ uploadId, now: toDate(now) })).pipe(Effect.map(Option.map(toTicket)))
    })
  })
)

const AccountPictureRepoSql = Layer.effect(
  AccountPictureRepo,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    // The subquery locks the row first, so `previous` is the value this update replaced even when
    // another transaction changed it while this one waited.
    const setPicture = SqlSchema.findOneOption({
      Request: Schema.Struct({ accountId: Schema.String, pictureUrl: Schema.NullOr(Schema.String), now: Schema.Date }),
      Result: Schema.Struct({ previous: Schema.NullOr(Schema.String) }),
      execute: ({ accountId, now, pictureUrl }) => sql`
        update accounts a set picture_url = ${pictureUrl}, updated_at = ${now}
        from (select account_id, picture_url from accounts where account_id = ${accountId} for update) old
        where a.account_id = old.account_id
        returning old.picture_url as previous`
    })
    return AccountPictureRepo.of({
      setPicture: ({ accountId, now, pictureUrl }) => orDie(setPicture({ accountId, pictureUrl, now: toDate(now) }))
    })
  })
)

export const UploadsReposSql = Layer.mergeAll(UploadTicketsRepoSql, AccountPictureRepoSql)
