import { SqlClient, SqlSchema } from "effect/sql"
import { type AccountRecord, AccountsRepo, EmailTaken } from "@switchboard/core/accounts"
import { AccountId } from "@switchboard/core/shared"
import { Effect, Layer, Schema } from "effect"
import { DbTime, DbTimeOrNull, die, isUniqueViolation, orDie, toDate, toDateOrNull } from "../shared/Sql.js"

/** An `accounts` row (shared by every repository that reads accounts). */
export const AccountRow = Schema.Struct({
  accountId: AccountId,
  email: Schema.String,
  firstName: Schema.NullOr(Schema.String),
  lastName: Schema.NullOr(Schema.String),
  phoneNumber: Schema.NullOr(Schema.String),
  phoneVerifiedAt: DbTimeOrNull,
  pictureUrl: Schema.NullOr(Schema.String),
  passwordHash: Schema.NullOr(Schema.String),
  createdAt: DbTime,
  updatedAt: DbTime,
  deletedAt: DbTimeOrNull
})

/** The columns of `AccountRow`. */
export const accountColumns =
  "account_id, email, first_name, last_name, phone_number, phone_verified_at, picture_url, password_hash, created_at, updated_at, deleted_at"

export const AccountsRepoSql = Layer.effect(
  AccountsRepo,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const cols = sql.literal(accountColumns)

    const findById = SqlSchema.findOneOption({
      Request: Schema.String,
      Result: AccountRow,
      execute: (id) => sql`select ${cols} from accounts where account_id = ${id}`
    })
    const findByEmail = SqlSchema.findOneOption({
      Request: Schema.String,
      Result: AccountRow,
      execute: (email) => sql`select ${cols} from accounts where lower(email) = lower(${email})`
    })

    return AccountsRepo.of({
      insert: (a: AccountRecord) =>
        sql`
          insert into accounts ${sql.insert({
            accountId: a.accountId,
            email: a.email,
            firstName: a.firstName,
            lastName: a.lastName,
            phoneNumber: a.phoneNumber,
            phoneVerifiedAt: toDateOrNull(a.phoneVerifiedAt),
            pictureUrl: a.pictureUrl,
            passwordHash: a.passwordHash,
            createdAt: toDate(a.createdAt),
            updatedAt: toDate(a.updatedAt),
            deletedAt: toDateOrNull(a.deletedAt)
          })}`.pipe(
            Effect.asVoid,
            Effect.catchIf(isUniqueViolation, () => Effect.fail(new EmailTaken({ email: a.email }))),
            Effect.catchTag("SqlError", die)
          ),
      findById: (id) => orDie(findById(id)),
      findByEmail: (email) => orDie(findByEmail(email)),
      isEmpty: orDie(sql<{ exists: boolean }>`select exists (select 1 from accounts) as exists`).pipe(
        Effect.map((rows) => rows[0]?.exists !== true)
      )
    })
  })
)
