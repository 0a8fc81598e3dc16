/**
 * WhatsApp's and the filtered verification codes' SQL repositories (migration 0100): the WABA
 * connection per project, the WhatsApp shared-line assignments (the unique index keeps one
 * unreleased assignment per handle), and the filtered-code records (newest first by received time
 * and id).
 */
import { SqlClient } from "effect/sql"
import {
  AssignmentHandleTaken,
  VerificationCodesRepo,
  WhatsappAccountsRepo,
  WhatsappAssignmentsRepo,
  WhatsappOutboundCapacity,
  WhatsappReviewStatus
} from "@switchboard/core/platforms"
import { formatTimestamp } from "@switchboard/core/shared"
import { Effect, Layer, Option, Schema } from "effect"
import { DbTime, DbTimeOrNull, die, firstRow, isUniqueViolation, orDie, rowsOf, toDate, toDateOrNull } from "../shared/Sql.js"

const accountRows = rowsOf(Schema.Struct({
  projectId: Schema.String,
  wabaId: Schema.String,
  businessId: Schema.String,
  businessName: Schema.NullOr(Schema.String),
  accountName: Schema.NullOr(Schema.String),
  reviewStatus: WhatsappReviewStatus,
  outboundCapacity: WhatsappOutboundCapacity,
  maxPhoneNumbers: Schema.NullOr(Schema.Number),
  state: Schema.Literals(["connected", "disconnecting"]),
  connectedAt: DbTime,
  subscribedAt: DbTimeOrNull,
  updatedAt: DbTime
}))

const assignmentRows = rowsOf(Schema.Struct({
  assignmentId: Schema.String,
  projectId: Schema.String,
  handle: Schema.String,
  assignedPhoneNumber: Schema.String,
  email: Schema.NullOr(Schema.String),
  firstName: Schema.NullOr(Schema.String),
  lastName: Schema.NullOr(Schema.String),
  createdAt: DbTime,
  updatedAt: DbTime,
  releasedAt: DbTimeOrNull
}))

const codeRowsWithFact = rowsOf(Schema.Struct({
  filteredCodeId: Schema.String,
  projectId: Schema.String,
  resourceId: Schema.String,
  platform: Schema.String,
  receivedAt: DbTime,
  whatsappCode: Schema.NullOr(Schema.String),
  factId: Schema.NullOr(Schema.String)
}))
/** Filtered-code rows as core keeps them (`factId` only when the record came from a fact). */
const codeRows = (statement: Parameters<typeof codeRowsWithFact>[0]) =>
  Effect.map(codeRowsWithFact(statement), (rows) => rows.map(({ factId, ...r }) => factId === null ? r : { ...r, factId }))
const countRows = rowsOf(Schema.Struct({ n: Schema.Number }))

export const WhatsappReposSql = Layer.mergeAll(
  Layer.effect(WhatsappAccountsRepo, Effect.map(SqlClient.SqlClient, (sql) =>
    WhatsappAccountsRepo.of({
      find: (projectId) =>
        Effect.map(accountRows(sql`select * from whatsapp_accounts where project_id = ${projectId}`), (rows) =>
          Option.map(firstRow(rows), ({ maxPhoneNumbers, ...a }) => ({ ...a, maxPhoneNumbersPerBusiness: maxPhoneNumbers }))),
      upsert: (a) =>
        orDie(sql`
          insert into whatsapp_accounts (project_id, waba_id, business_id, business_name, account_name, review_status,
            outbound_capacity, max_phone_numbers, state, connected_at, subscribed_at, updated_at)
          values (${a.projectId}, ${a.wabaId}, ${a.businessId}, ${a.businessName}, ${a.accountName}, ${a.reviewStatus},
            ${a.outboundCapacity}, ${a.maxPhoneNumbersPerBusiness}, ${a.state}, ${toDate(a.connectedAt)},
            ${toDateOrNull(a.subscribedAt)}, ${toDate(a.updatedAt)})
          on conflict (project_id) do update set waba_id = excluded.waba_id, business_id = excluded.business_id,
            business_name = excluded.business_name, account_name = excluded.account_name,
            review_status = excluded.review_status, outbound_capacity = excluded.outbound_capacity,
            max_phone_numbers = excluded.max_phone_numbers, state = excluded.state, connected_at = excluded.connected_at,
            subscribed_at = excluded.subscribed_at, updated_at = excluded.updated_at`).pipe(Effect.asVoid),
      remove: (projectId) => orDie(sql`delete from whatsapp_accounts where project_id = ${projectId}`).pipe(Effect.asVoid)
    }))),
  Layer.effect(WhatsappAssignmentsRepo, Effect.map(SqlClient.SqlClient, (sql) =>
    WhatsappAssignmentsRepo.of({
      insert: (r) =>
        sql`
          insert into whatsapp_assignments (assignment_id, project_id, handle, assigned_phone_number, email, first_name,
            last_name, created_at, updated_at, released_at)
          values (${r.assignmentId}, ${r.projectId}, ${r.handle}, ${r.assignedPhoneNumber}, ${r.email}, ${r.firstName},
            ${r.lastName}, ${toDate(r.createdAt)}, ${toDate(r.updatedAt)}, ${toDateOrNull(r.releasedAt)})`.pipe(
          Effect.asVoid,
          Effect.catchTag("SqlError", (e) =>
            isUniqueViolation(e) ? Effect.fail(new AssignmentHandleTaken({ handle: r.handle })) : die(e))
        ),
      handleTaken: (projectId, handle) =>
        Effect.map(
          orDie(sql<{ n: number | string }>`
            select count(*)::int as n from whatsapp_assignments
            where project_id = ${projectId} and handle = ${handle} and released_at is null`),
          (rows) => Number(rows[0]?.n ?? 0) > 0
        ),
      find: (projectId, assignmentId) =>
        Effect.map(
          assignmentRows(sql`select * from whatsapp_assignments where assignment_id = ${assignmentId} and project_id = ${projectId}`),
          firstRow
        ),
      list: ({ after, includeReleased, limit, projectId }) =>
        assignmentRows(sql`
          select * from whatsapp_assignments
          where project_id = ${projectId}
            ${includeReleased ? sql`` : sql`and released_at is null`}
            ${after === undefined ? sql`` : sql`and (created_at, assignment_id) > (${toDate(after.createdAt)}, ${after.assignmentId})`}
          order by created_at, assignment_id
          limit ${limit}`),
      release: ({ assignmentId, now, projectId }) =>
        Effect.map(
          assignmentRows(sql`
            update whatsapp_assignments set released_at = ${toDate(now)}, updated_at = ${toDate(now)}
            where assignment_id = ${assignmentId} and project_id = ${projectId} and released_at is null
            returning *`),
          firstRow
        ),
      countActive: (projectId) =>
        Effect.map(
          countRows(sql`select count(*)::int as n from whatsapp_assignments where project_id = ${projectId} and released_at is null`),
          (rows) => rows[0]?.n ?? 0
        )
    }))),
  Layer.effect(VerificationCodesRepo, Effect.map(SqlClient.SqlClient, (sql) => {
    const where = (f: Parameters<typeof VerificationCodesRepo.Service.count>[0]) =>
      sql`project_id = ${f.projectId}
        ${f.resourceId === undefined ? sql`` : sql`and resource_id = ${f.resourceId}`}
        ${f.platform === undefined ? sql`` : sql`and platform = ${f.platform}`}
        and received_at > ${toDate(f.receivedAfter)} and received_at < ${toDate(f.receivedBefore)}`
    return VerificationCodesRepo.of({
      insert: (r) =>
        orDie(sql`
          insert into filtered_verification_codes (filtered_code_id, project_id, resource_id, platform, received_at, whatsapp_code)
          values (${r.filteredCodeId}, ${r.projectId}, ${r.resourceId}, ${r.platform}, ${toDate(r.receivedAt)}, ${r.whatsappCode})`)
          .pipe(Effect.asVoid),
      insertFromFacts: (records) =>
        records.length === 0 ? Effect.succeed(true) : Effect.map(
          orDie(sql<{ n: number | string }>`
            with inserted as (
              insert into filtered_verification_codes
                (filtered_code_id, project_id, resource_id, platform, received_at, whatsapp_code, fact_id)
              select r.filtered_code_id, r.project_id::uuid, r.resource_id, r.platform, r.received_at, r.whatsapp_code, r.fact_id
              from unnest(
                ${records.map((r) => r.filteredCodeId)}::text[], ${records.map((r) => r.projectId)}::text[],
                ${records.map((r) => r.resourceId)}::text[], ${records.map((r) => r.platform)}::text[],
                ${records.map((r) => formatTimestamp(r.receivedAt))}::timestamptz[], ${records.map((r) => r.whatsappCode)}::text[],
                ${records.map((r) => r.factId ?? null)}::text[]
              ) as r(filtered_code_id, project_id, resource_id, platform, received_at, whatsapp_code, fact_id)
              on conflict do nothing
              returning 1
            )
            select count(*) as n from inserted`),
          (rows) => Number(rows[0]?.n) === records.length
        ),
      factsHeldBack: (projectId, factIds) =>
        factIds.length === 0 ? Effect.succeed(new Set<string>()) : Effect.map(
          orDie(sql<{ factId: string }>`
            select fact_id from filtered_verification_codes
            where project_id = ${projectId} and fact_id = any(${[...factIds]}::text[])`),
          (rows) => new Set(rows.map((r) => r.factId))
        ),
      count: (f) =>
        Effect.map(countRows(sql`select count(*)::int as n from filtered_verification_codes where ${where(f)}`), (rows) => rows[0]?.n ?? 0),
      list: ({ before, limit, ...f }) =>
        codeRows(sql`
          select * from filtered_verification_codes
          where ${where(f)}
            ${before === undefined ? sql`` : sql`and (received_at, filtered_code_id) < (${toDate(before.receivedAt)}, ${before.filteredCodeId})`}
          order by received_at desc, filtered_code_id desc
          limit ${limit}`),
      latestWhatsappCode: ({ after, projectId, resourceId }) =>
        Effect.map(
          codeRows(sql`
            select * from filtered_verification_codes
            where project_id = ${projectId} and resource_id = ${resourceId} and whatsapp_code is not null
              and received_at > ${toDate(after)}
            order by received_at desc, filtered_code_id desc
            limit 1`),
          (rows) => Option.map(firstRow(rows), (r) => ({ code: r.whatsappCode!, receivedAt: r.receivedAt }))
        )
    })
  }))
)
