/**
 * The platforms feature's SQL repositories (migration 0070): operations in `platform_operations`,
 * resources in `lines` (a line is a resource; its resource columns are null when the voice feature
 * stored it, and core's `lineResourceDefaults` fills them in). The worker's claim is one statement
 * that picks due operations with `FOR UPDATE SKIP LOCKED` and leases them, so any number of server
 * processes share the work and never hold the same claim.
 */
import { SqlClient } from "effect/sql"
import {
  lineResourceDefaults,
  OperationsRepo,
  OperationState,
  OperationType,
  platformOfType,
  ResourceNumberTaken,
  type OperationRecord,
  type ResourceRecord,
  ResourcesRepo,
  ResourceType
} from "@switchboard/core/platforms"
import { LinePlatform } from "@switchboard/core/voice"
import { DateTime, Effect, Layer, Schema } from "effect"
import { DbTime, DbTimeOrNull, die, firstRow, isUniqueViolation, JsonColumn, orDie, rowsOf, toDate, toDateOrNull } from "../shared/Sql.js"

const Json = JsonColumn(Schema.Unknown)
const JsonRecord = JsonColumn(Schema.Record(Schema.String, Schema.Unknown))

const OperationRow = Schema.Struct({
  operationId: Schema.String,
  projectId: Schema.String,
  type: OperationType,
  resourceType: ResourceType,
  resourceId: Schema.NullOr(Schema.String),
  state: OperationState,
  committed: Schema.Boolean,
  params: JsonRecord,
  detail: Schema.NullOr(JsonRecord),
  error: Schema.NullOr(Json),
  reason: Schema.NullOr(Schema.String),
  attempts: Schema.Number,
  nextAttemptAt: DbTime,
  leasedUntil: DbTimeOrNull,
  claimSeq: Schema.Number,
  createdAt: DbTime,
  startedAt: DbTimeOrNull,
  endedAt: DbTimeOrNull,
  updatedAt: DbTime
})
const operationRows = rowsOf(OperationRow)
const toOperation = (r: typeof OperationRow.Type): OperationRecord => ({
  ...r,
  error: r.error === null ? null : (r.error as OperationRecord["error"])
})

const ResourceRow = Schema.Struct({
  lineId: Schema.String,
  projectId: Schema.String,
  platform: LinePlatform,
  phoneNumber: Schema.NullOr(Schema.String),
  voiceCapable: Schema.Boolean,
  createdAt: DbTime,
  releasedAt: DbTimeOrNull,
  resourceType: Schema.NullOr(ResourceType),
  abilities: Schema.NullOr(Json),
  detail: Schema.NullOr(JsonRecord),
  updatedAt: DbTimeOrNull
})
const resourceRows = rowsOf(ResourceRow)
const toResource = (r: typeof ResourceRow.Type): ResourceRecord => {
  const defaults = lineResourceDefaults(r.platform, r.voiceCapable)
  const updatedAt = r.updatedAt ?? r.releasedAt ?? r.createdAt
  return {
    resourceId: r.lineId,
    projectId: r.projectId,
    type: r.resourceType ?? defaults.type,
    abilities: Array.isArray(r.abilities) ? (r.abilities as ReadonlyArray<string>) : defaults.abilities,
    detail: r.detail ?? (r.phoneNumber === null ? {} : { phoneNumber: r.phoneNumber }),
    phoneNumber: r.phoneNumber,
    state: r.releasedAt === null ? "active" : "retired",
    createdAt: r.createdAt,
    updatedAt: r.releasedAt !== null && DateTime.toEpochMillis(r.releasedAt) > DateTime.toEpochMillis(updatedAt) ? r.releasedAt : updatedAt,
    retiredAt: r.releasedAt
  }
}

export const PlatformsReposSql = Layer.mergeAll(
  Layer.effect(
    OperationsRepo,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const select = (statement: Parameters<typeof operationRows>[0]) =>
        Effect.map(operationRows(statement), (rows) => rows.map(toOperation))
      const json = (v: unknown) => (v === null || v === undefined ? null : JSON.stringify(v))
      return OperationsRepo.of({
        insert: (op) =>
          orDie(sql`
            insert into platform_operations (operation_id, project_id, type, resource_type, resource_id, subject, state,
              committed, params, detail, error, reason, attempts, next_attempt_at, leased_until, claim_seq, created_at,
              started_at, ended_at, updated_at)
            values (${op.operationId}, ${op.projectId}, ${op.type}, ${op.resourceType}, ${op.resourceId}, ${op.subject ?? null},
              ${op.state}, ${op.committed}, ${json(op.params)}::jsonb, ${json(op.detail)}::jsonb, ${json(op.error)}::jsonb,
              ${op.reason}, ${op.attempts}, ${toDate(op.nextAttemptAt)}, ${toDateOrNull(op.leasedUntil)}, ${op.claimSeq},
              ${toDate(op.createdAt)}, ${toDateOrNull(op.startedAt)}, ${toDateOrNull(op.endedAt)}, ${toDate(op.updatedAt)})`)
            .pipe(Effect.asVoid),
        find: (operationId) =>
          Effect.map(select(sql`select * from platform_operations where operation_id = ${operationId}`), firstRow),
        lock: (operationId) =>
          Effect.map(select(sql`select * from platform_operations where operation_id = ${operationId} for update`), firstRow),
        update: (op) =>
          orDie(sql`
            update platform_operations set resource_id = ${op.resourceId}, state = ${op.state}, committed = ${op.committed},
              params = ${json(op.params)}::jsonb, detail = ${json(op.detail)}::jsonb, error = ${json(op.error)}::jsonb,
              reason = ${op.reason}, attempts = ${op.attempts}, next_attempt_at = ${toDate(op.nextAttemptAt)},
              leased_until = ${toDateOrNull(op.leasedUntil)}, claim_seq = ${op.claimSeq},
              started_at = ${toDateOrNull(op.startedAt)}, ended_at = ${toDateOrNull(op.endedAt)},
              updated_at = ${toDate(op.updatedAt)}
            where operation_id = ${op.operationId}`).pipe(Effect.asVoid),
        list: ({ after, endedAfter, limit, projectId, resourceId, states, type }) =>
          select(sql`
            select * from platform_operations
            where project_id = ${projectId}
              ${states === undefined ? sql`` : sql`and ${sql.in("state", states)}`}
              ${type === undefined ? sql`` : sql`and type = ${type}`}
              ${resourceId === undefined ? sql`` : sql`and resource_id = ${resourceId}`}
              ${endedAfter === undefined ? sql`` : sql`and ended_at > ${toDate(endedAfter)}`}
              ${after === undefined ? sql`` : sql`and (created_at, operation_id) > (${toDate(after.createdAt)}, ${after.operationId})`}
            order by created_at, operation_id
            limit ${limit}`),
        claimDue: ({ leaseUntil, limit, now }) =>
          select(sql`
            with due as (
              select operation_id from platform_operations
              where state in ('pending', 'running') and next_attempt_at <= ${toDate(now)}
                and (leased_until is null or leased_until <= ${toDate(now)})
              order by next_attempt_at, operation_id
              limit ${limit}
              for update skip locked
            )
            update platform_operations o set leased_until = ${toDate(leaseUntil)}, claim_seq = o.claim_seq + 1
            from due where o.operation_id = due.operation_id
            returning o.*`),
        findUnfinished: ({ projectId, resourceType, subject }) =>
          Effect.map(
            select(sql`
              select * from platform_operations
              where resource_type = ${resourceType} and state in ('pending', 'running')
                ${projectId === undefined ? sql`` : sql`and project_id = ${projectId}`}
                ${subject === undefined ? sql`` : sql`and subject = ${subject}`}
              order by created_at limit 1`),
            firstRow
          )
      })
    })
  ),
  Layer.effect(
    ResourcesRepo,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const cols = sql.literal(
        "line_id, project_id, platform, phone_number, voice_capable, created_at, released_at, resource_type, abilities, " +
          "detail, updated_at"
      )
      const select = (statement: Parameters<typeof resourceRows>[0]) =>
        Effect.map(resourceRows(statement), (rows) => rows.map(toResource))
      return ResourcesRepo.of({
        insert: (r) =>
          sql`
            insert into lines (line_id, project_id, platform, phone_number, voice_capable, created_at, assignment_version,
              assignment_updated_at, resource_type, abilities, detail, subject, updated_at)
            values (${r.resourceId}, ${r.projectId}, ${platformOfType(r.type)}, ${r.phoneNumber},
              ${r.abilities.includes("pstn_voice")}, ${toDate(r.createdAt)}, 1, ${toDate(r.createdAt)}, ${r.type},
              ${JSON.stringify(r.abilities)}::jsonb, ${JSON.stringify(r.detail)}::jsonb, ${r.subject ?? null},
              ${toDate(r.updatedAt)})`.pipe(
            Effect.asVoid,
            Effect.catchTag("SqlError", (e) =>
              isUniqueViolation(e) ? Effect.fail(new ResourceNumberTaken({ phoneNumber: r.phoneNumber ?? r.subject ?? "" })) : die(e))
          ),
        find: (projectId, resourceId) =>
          Effect.map(select(sql`select ${cols} from lines where line_id = ${resourceId} and project_id = ${projectId}`), firstRow),
        lock: (projectId, resourceId) =>
          Effect.map(
            select(sql`select ${cols} from lines where line_id = ${resourceId} and project_id = ${projectId} for update`),
            firstRow
          ),
        list: ({ ability, after, limit, projectId, states, type }) =>
          // Type and ability filters apply to the resolved view (lines of the voice feature have null
          // columns), so they are checked on the rows; the page is fetched in key order.
          Effect.map(
            select(sql`
              select ${cols} from lines
              where project_id = ${projectId}
                ${states === undefined ? sql`` : states.includes("retired") && states.includes("active") ? sql`` :
                states.includes("retired") ? sql`and released_at is not null` : states.includes("active") ? sql`and released_at is null` : sql`and false`}
                ${after === undefined ? sql`` : sql`and (created_at, line_id) > (${toDate(after.createdAt)}, ${after.resourceId})`}
              order by created_at, line_id
              limit ${type === undefined && ability === undefined ? limit : 10_000}`),
            (rows) =>
              rows.filter((r) => (type === undefined || r.type === type) && (ability === undefined || r.abilities.includes(ability)))
                .slice(0, limit)
          ),
        retire: ({ now, projectId, resourceId }) =>
          Effect.map(
            select(sql`
              update lines set released_at = ${toDate(now)}, voice_profile_id = null, updated_at = ${toDate(now)}
              where line_id = ${resourceId} and project_id = ${projectId} and released_at is null
              returning ${cols}`),
            firstRow
          ),
        updateDetail: ({ detail, now, projectId, resourceId }) =>
          Effect.map(
            select(sql`
              update lines set detail = ${JSON.stringify(detail)}::jsonb, updated_at = ${toDate(now)}
              where line_id = ${resourceId} and project_id = ${projectId} and released_at is null
              returning ${cols}`),
            firstRow
          ),
        findActiveBySubject: (type, subject) =>
          Effect.map(
            select(sql`select ${cols} from lines where resource_type = ${type} and subject = ${subject} and released_at is null`),
            firstRow
          )
      })
    })
  )
)
