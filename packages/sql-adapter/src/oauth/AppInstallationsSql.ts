/**
 * The app installation feature's SQL repository (migration 0095): requests read and replaced by
 * id (locked `for update` inside the caller's transaction), found by the hash of their code, the
 * account's pending ones by a partial index; key sets upserted; assertion jtis claimed with
 * `insert … on conflict do nothing` after the app's expired ones are dropped.
 */
import { SqlClient } from "effect/sql"
import { AppInstallationsRepo, type InstallationRequestRecord } from "@switchboard/core/oauth"
import { AccountId, ApiKeyId, ProjectId } from "@switchboard/core/shared"
import { Effect, Layer, Schema } from "effect"
import { DbTime, DbTimeOrNull, firstRow, JsonColumn, orDie, rowsOf, toDate, toDateOrNull } from "../shared/Sql.js"

const JsonArray = <S extends Schema.Top>(item: S) => JsonColumn(Schema.Array(item))

const RequestRow = Schema.Struct({
  requestId: Schema.String,
  appId: Schema.String,
  appVersion: Schema.String,
  redirectUri: Schema.String,
  state: Schema.String,
  createdAt: DbTime,
  expiresAt: DbTime,
  accountId: Schema.NullOr(AccountId),
  status: Schema.Literals(["pending", "approved", "denied", "delivered"]),
  projectId: Schema.NullOr(ProjectId),
  permissions: JsonArray(Schema.String),
  decidedAt: DbTimeOrNull,
  codeHash: Schema.NullOr(Schema.String),
  codeExpiresAt: DbTimeOrNull,
  installationId: Schema.NullOr(Schema.String),
  apiKeyId: Schema.NullOr(ApiKeyId),
  deliveredAt: DbTimeOrNull
})
const requestCols = "request_id, app_id, app_version, redirect_uri, state, created_at, expires_at, account_id, status, project_id, " +
  "permissions, decided_at, code_hash, code_expires_at, installation_id, api_key_id, delivered_at"

const KeySetRow = Schema.Struct({
  appId: Schema.String,
  keys: JsonArray(Schema.Record(Schema.String, Schema.Unknown)),
  updatedAt: DbTime
})

export const AppInstallationsReposSql = Layer.effect(
  AppInstallationsRepo,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const requests = rowsOf(RequestRow)
    const keySets = rowsOf(KeySetRow)
    const claimed = rowsOf(Schema.Struct({ jti: Schema.String }))
    const cols = sql.literal(requestCols)

    const update = (r: InstallationRequestRecord) =>
      orDie(sql`update app_installation_requests set account_id = ${r.accountId}, status = ${r.status}, project_id = ${r.projectId},
          permissions = ${JSON.stringify(r.permissions)}::jsonb, decided_at = ${toDateOrNull(r.decidedAt)}, code_hash = ${r.codeHash},
          code_expires_at = ${toDateOrNull(r.codeExpiresAt)}, installation_id = ${r.installationId}, api_key_id = ${r.apiKeyId},
          delivered_at = ${toDateOrNull(r.deliveredAt)}
        where request_id = ${r.requestId}`).pipe(Effect.asVoid)

    return AppInstallationsRepo.of({
      insertRequest: (r) =>
        orDie(sql`insert into app_installation_requests (${cols}) values (${r.requestId}, ${r.appId}, ${r.appVersion}, ${r.redirectUri},
          ${r.state}, ${toDate(r.createdAt)}, ${toDate(r.expiresAt)}, ${r.accountId}, ${r.status}, ${r.projectId},
          ${JSON.stringify(r.permissions)}::jsonb, ${toDateOrNull(r.decidedAt)}, ${r.codeHash}, ${toDateOrNull(r.codeExpiresAt)},
          ${r.installationId}, ${r.apiKeyId}, ${toDateOrNull(r.deliveredAt)})`).pipe(Effect.asVoid),
      findRequest: (id) => Effect.map(requests(sql`select ${cols} from app_installation_requests where request_id = ${id}`), firstRow),
      lockRequest: (id) =>
        Effect.map(requests(sql`select ${cols} from app_installation_requests where request_id = ${id} for update`), firstRow),
      lockRequestByCode: (codeHash) =>
        Effect.map(requests(sql`select ${cols} from app_installation_requests where code_hash = ${codeHash} for update`), firstRow),
      updateRequest: update,
      listPending: ({ accountId, limit, now }) =>
        requests(sql`select ${cols} from app_installation_requests
          where account_id = ${accountId} and status = 'pending' and expires_at > ${toDate(now)}
          order by created_at desc, request_id desc limit ${limit}`),
      findKeySet: (appId) =>
        Effect.map(keySets(sql`select app_id, keys, updated_at from app_installation_keys where app_id = ${appId}`), firstRow),
      saveKeySet: (k) =>
        orDie(sql`insert into app_installation_keys (app_id, keys, updated_at)
          values (${k.appId}, ${JSON.stringify(k.keys)}::jsonb, ${toDate(k.updatedAt)})
          on conflict (app_id) do update set keys = excluded.keys, updated_at = excluded.updated_at`).pipe(Effect.asVoid),
      claimAssertion: ({ appId, expiresAt, jti, now }) =>
        Effect.gen(function*() {
          yield* orDie(sql`delete from app_installation_jtis where app_id = ${appId} and expires_at <= ${toDate(now)}`)
          const rows = yield* claimed(sql`insert into app_installation_jtis (app_id, jti, expires_at)
            values (${appId}, ${jti}, ${toDate(expiresAt)}) on conflict (app_id, jti) do nothing returning jti`)
          return rows.length === 1
        })
    })
  })
)
