/**
 * The ProjectApiKeys feature's SQL repositories (docs/api-notes/credentials.md). Creating a key
 * locks its project's row, so the live-key count and the project's state hold until the insert
 * commits (concurrent creates never exceed the limit, and no key lands on a project being deleted).
 * Verification is one lookup by primary key, joined with the project's state.
 */
import { SqlClient } from "effect/sql"
import { ProjectApiKey } from "@switchboard/core/accounts"
import { ApiKeyLimitReached, ProjectApiKeysRepo } from "@switchboard/core/credentials"
import { ProjectClosing, ProjectDeleted, ProjectNotFound } from "@switchboard/core/projects"
import { AccountId, ApiKeyId, ProjectId } from "@switchboard/core/shared"
import { Effect, Layer, Option, Schema } from "effect"
import { DbTime, DbTimeOrNull, die, firstRow, orDie, rowsOf, toDate, toDateOrNull } from "../shared/Sql.js"

const KeyRow = Schema.Struct({
  apiKeyId: ApiKeyId,
  projectId: ProjectId,
  createdByAccountId: AccountId,
  name: Schema.String,
  createdAt: DbTime,
  expiresAt: DbTimeOrNull,
  permissionsUpdatedAt: DbTimeOrNull,
  revokedAt: DbTimeOrNull,
  permissions: Schema.Array(Schema.String),
  secretHash: Schema.String
})
type KeyRow = typeof KeyRow.Type
const VerificationRow = Schema.Struct({
  ...KeyRow.fields,
  projectState: Schema.Literals(["active", "closing", "deleted"])
})

const toKey = ({ secretHash: _, ...row }: KeyRow): ProjectApiKey => row

export const ProjectApiKeysReposSql = Layer.effect(
  ProjectApiKeysRepo,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const names = [
      "api_key_id", "project_id", "created_by_account_id", "name", "created_at", "expires_at",
      "permissions_updated_at", "revoked_at", "permissions", "secret_hash"
    ]
    const cols = sql.literal(names.join(", "))
    const keyCols = sql.literal(names.map((n) => `k.${n}`).join(", "))
    const keys = rowsOf(KeyRow)
    const verifications = rowsOf(VerificationRow)

    return ProjectApiKeysRepo.of({
      insert: ({ apiKey: k, limit, now, secretHash }) =>
        sql.withTransaction(Effect.gen(function*() {
          // Locking the project row serialises concurrent creates, so the count below stays true.
          const [project] = yield* sql<{ state: string }>`select state from projects where project_id = ${k.projectId} for update`
          if (project === undefined) return yield* new ProjectNotFound({ projectId: k.projectId })
          if (project.state === "closing") return yield* new ProjectClosing({ projectId: k.projectId })
          if (project.state === "deleted") return yield* new ProjectDeleted({ projectId: k.projectId })
          const [live] = yield* sql<{ count: number }>`
            select count(*)::int as count from project_api_keys
            where project_id = ${k.projectId} and revoked_at is null
              and (expires_at is null or expires_at > ${toDate(now)})`
          if ((live?.count ?? 0) >= limit) return yield* new ApiKeyLimitReached({ limit })
          yield* sql`insert into project_api_keys ${sql.insert({
            apiKeyId: k.apiKeyId,
            projectId: k.projectId,
            createdByAccountId: k.createdByAccountId,
            name: k.name,
            permissions: JSON.stringify(k.permissions),
            secretHash,
            createdAt: toDate(k.createdAt),
            expiresAt: toDateOrNull(k.expiresAt),
            permissionsUpdatedAt: toDateOrNull(k.permissionsUpdatedAt),
            revokedAt: toDateOrNull(k.revokedAt)
          })}`
        })).pipe(Effect.catchTag("SqlError", die)),
      listUnrevoked: (projectId) =>
        keys(sql`
          select ${cols} from project_api_keys
          where project_id = ${projectId} and revoked_at is null
          order by created_at desc, api_key_id desc`).pipe(Effect.map((rows) => rows.map(toKey))),
      findForVerification: (apiKeyId) =>
        verifications(sql`
          select ${keyCols}, p.state as project_state
          from project_api_keys k join projects p on p.project_id = k.project_id
          where k.api_key_id = ${apiKeyId}`).pipe(Effect.map((rows) =>
          Option.map(firstRow(rows), ({ projectState, ...row }) => ({
            stored: { apiKey: toKey(row), secretHash: row.secretHash },
            projectState
          }))
        )),
      lock: (projectId, apiKeyId) =>
        keys(sql`
          select ${cols} from project_api_keys
          where api_key_id = ${apiKeyId} and project_id = ${projectId}
          for update`).pipe(Effect.map((rows) => Option.map(firstRow(rows), toKey))),
      setPermissions: ({ apiKeyId, permissions, permissionsUpdatedAt }) =>
        orDie(sql`
          update project_api_keys
          set permissions = ${JSON.stringify(permissions)}::jsonb, permissions_updated_at = ${toDate(permissionsUpdatedAt)}
          where api_key_id = ${apiKeyId}`).pipe(Effect.asVoid),
      revoke: ({ apiKeyId, now, projectId }) =>
        // coalesce keeps the firstRow revocation time: a repeat returns the same revokedAt.
        keys(sql`
          update project_api_keys set revoked_at = coalesce(revoked_at, ${toDate(now)})
          where api_key_id = ${apiKeyId} and project_id = ${projectId}
          returning ${cols}`).pipe(Effect.map((rows) => Option.map(firstRow(rows), toKey)))
    })
  })
)
