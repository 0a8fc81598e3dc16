import { SqlClient, SqlSchema } from "effect/sql"
import {
  AccountNotFound,
  type AccountServiceKey,
  AccountServiceKeyLimitReached,
  AccountServiceKeysRepo
} from "@switchboard/core/accounts"
import { AccountId, ServiceKeyId } from "@switchboard/core/shared"
import { Effect, Layer, Option, Schema } from "effect"
import { DbTime, DbTimeOrNull, die, orDie, toDate, toDateOrNull } from "../shared/Sql.js"

const KeyRow = Schema.Struct({
  serviceKeyId: ServiceKeyId,
  accountId: AccountId,
  name: Schema.String,
  createdAt: DbTime,
  expiresAt: DbTimeOrNull,
  revokedAt: DbTimeOrNull,
  secretHash: Schema.String
})
type KeyRow = typeof KeyRow.Type

const toKey = ({ secretHash: _, ...key }: KeyRow): AccountServiceKey => key

export const AccountServiceKeysRepoSql = Layer.effect(
  AccountServiceKeysRepo,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const cols = sql.literal("service_key_id, account_id, name, created_at, expires_at, revoked_at, secret_hash")

    const listUnrevoked = SqlSchema.findAll({
      Request: Schema.String,
      Result: KeyRow,
      execute: (accountId) => sql`
        select ${cols} from account_service_keys
        where account_id = ${accountId} and revoked_at is null
        order by created_at desc, service_key_id desc`
    })
    const findById = SqlSchema.findOneOption({
      Request: Schema.String,
      Result: KeyRow,
      execute: (id) => sql`select ${cols} from account_service_keys where service_key_id = ${id}`
    })
    const revoke = SqlSchema.findOneOption({
      Request: Schema.Struct({ accountId: Schema.String, serviceKeyId: Schema.String, now: Schema.Date }),
      Result: KeyRow,
      // coalesce keeps the first revocation time: a repeat returns the same revokedAt.
      execute: ({ accountId, now, serviceKeyId }) => sql`
        update account_service_keys set revoked_at = coalesce(revoked_at, ${now})
        where service_key_id = ${serviceKeyId} and account_id = ${accountId}
        returning ${cols}`
    })

    return AccountServiceKeysRepo.of({
      insert: ({ limit, now, secretHash, serviceKey: k }) =>
        sql.withTransaction(Effect.gen(function*() {
          // Locking the account row serialises concurrent creates, so the count below stays true.
          const owner = yield* sql`select 1 from accounts where account_id = ${k.accountId} for update`
          if (owner.length === 0) return yield* new AccountNotFound({ accountId: k.accountId })
          const [live] = yield* sql<{ count: number }>`
            select count(*)::int as count from account_service_keys
            where account_id = ${k.accountId} and revoked_at is null
              and (expires_at is null or expires_at > ${toDate(now)})`
          if ((live?.count ?? 0) >= limit) return yield* new AccountServiceKeyLimitReached({ limit })
          yield* sql`insert into account_service_keys ${sql.insert({
            serviceKeyId: k.serviceKeyId,
            accountId: k.accountId,
            name: k.name,
            secretHash,
            createdAt: toDate(k.createdAt),
            expiresAt: toDateOrNull(k.expiresAt),
            revokedAt: toDateOrNull(k.revokedAt)
          })}`
        })).pipe(Effect.catchTag("SqlError", die)),
      listUnrevoked: (accountId) => orDie(listUnrevoked(accountId)).pipe(Effect.map((rows) => rows.map(toKey))),
      findById: (id) =>
        orDie(findById(id)).pipe(Effect.map(Option.map((row) => ({ serviceKey: toKey(row), secretHash: row.secretHash })))),
      revoke: ({ accountId, now, serviceKeyId }) =>
        orDie(revoke({ accountId, serviceKeyId, now: toDate(now) })).pipe(Effect.map(Option.map(toKey)))
    })
  })
)
