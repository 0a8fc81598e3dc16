/**
 * The AccountSecurity feature's SQL repositories: profile writes on `accounts`, pending phone
 * verifications and TOTP factors (migration 0005). Reads that precede a write lock their row
 * (`for update`); counters and step checks are single conditional statements.
 */
import { SqlClient, type SqlError, SqlSchema } from "effect/sql"
import {
  AccountProfileRepo,
  type AccountRecord,
  type PhoneVerificationRecord,
  PhoneVerificationsRepo,
  type TotpFactorRecord,
  TotpFactorsRepo
} from "@switchboard/core/accounts"
import { AccountId, TotpFactorId } from "@switchboard/core/shared"
import { Effect, Layer, Option, Schema } from "effect"
import { DbTime, DbTimeOrNull, orDie, toDate } from "../shared/Sql.js"
import { accountColumns, AccountRow } from "./AccountsRepoSql.js"

const AccountProfileRepoSql = Layer.effect(
  AccountProfileRepo,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const cols = sql.literal(accountColumns)
    /** The account row a statement returns, by account id. */
    const one = (execute: (accountId: string) => Effect.Effect<ReadonlyArray<unknown>, SqlError.SqlError>) =>
      (accountId: string): Effect.Effect<Option.Option<AccountRecord>> =>
        orDie(SqlSchema.findOneOption({ Request: Schema.String, Result: AccountRow, execute })(accountId))

    return AccountProfileRepo.of({
      lock: one((id) => sql`select ${cols} from accounts where account_id = ${id} for update`),
      updateNames: ({ accountId, now, ...names }) => {
        const set: Record<string, unknown> = { updatedAt: toDate(now) }
        if (names.firstName !== undefined) set.firstName = names.firstName
        if (names.lastName !== undefined) set.lastName = names.lastName
        return one((id) => sql`
          update accounts set ${sql.update(set)}
          where account_id = ${id} and deleted_at is null
          returning ${cols}`)(accountId)
      },
      bindPhone: ({ accountId, now, phoneNumber }) =>
        one((id) => sql`
          update accounts set phone_number = ${phoneNumber}, phone_verified_at = ${toDate(now)}, updated_at = ${toDate(now)}
          where account_id = ${id} and deleted_at is null
          returning ${cols}`)(accountId),
      // coalesce keeps the first deletion: a repeat returns the same tombstone.
      markDeleted: ({ accountId, now }) =>
        one((id) => sql`
          update accounts
          set deleted_at = coalesce(deleted_at, ${toDate(now)}),
              updated_at = case when deleted_at is null then ${toDate(now)} else updated_at end
          where account_id = ${id}
          returning ${cols}`)(accountId)
    })
  })
)

const PhoneVerificationRow = Schema.Struct({
  accountId: AccountId,
  phoneNumber: Schema.String,
  codeHash: Schema.String,
  attempts: Schema.Int,
  createdAt: DbTime,
  expiresAt: DbTime,
  resendAvailableAt: DbTime
})

const PhoneVerificationsRepoSql = Layer.effect(
  PhoneVerificationsRepo,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const cols = sql.literal("account_id, phone_number, code_hash, attempts, created_at, expires_at, resend_available_at")
    const find = SqlSchema.findOneOption({
      Request: Schema.String,
      Result: PhoneVerificationRow,
      execute: (id) => sql`select ${cols} from phone_verifications where account_id = ${id} for update`
    })
    const recordFailedAttempt = SqlSchema.findOneOption({
      Request: Schema.String,
      Result: Schema.Struct({ attempts: Schema.Int }),
      execute: (id) => sql`update phone_verifications set attempts = attempts + 1 where account_id = ${id} returning attempts`
    })

    return PhoneVerificationsRepo.of({
      find: (accountId) => orDie(find(accountId)),
      put: (r: PhoneVerificationRecord) => {
        const row = {
          accountId: r.accountId,
          phoneNumber: r.phoneNumber,
          codeHash: r.codeHash,
          attempts: r.attempts,
          createdAt: toDate(r.createdAt),
          expiresAt: toDate(r.expiresAt),
          resendAvailableAt: toDate(r.resendAvailableAt)
        }
        return orDie(sql`
          insert into phone_verifications ${sql.insert(row)}
          on conflict (account_id) do update set ${sql.update(row, ["accountId"])}`).pipe(Effect.asVoid)
      },
      recordFailedAttempt: (accountId) => orDie(recordFailedAttempt(accountId)).pipe(Effect.map(Option.map((r) => r.attempts))),
      remove: (accountId) => orDie(sql`delete from phone_verifications where account_id = ${accountId}`).pipe(Effect.asVoid)
    })
  })
)

/** `bigint` arrives as a string from `pg`; steps stay far below 2^53. */
const Step = Schema.Union([Schema.Int, Schema.NumberFromString.pipe(Schema.decodeTo(Schema.Int))])

const TotpFactorRow = Schema.Struct({
  factorId: TotpFactorId,
  accountId: AccountId,
  secretSealed: Schema.NullOr(Schema.Uint8Array),
  enrollmentTokenHash: Schema.String,
  enrollmentExpiresAt: DbTime,
  createdAt: DbTime,
  verifiedAt: DbTimeOrNull,
  lastUsedStep: Schema.NullOr(Step),
  deletedAt: DbTimeOrNull
})
type TotpFactorRow = typeof TotpFactorRow.Type

// `pg` returns bytea as a Buffer; the port speaks plain Uint8Array.
const toRecord = (row: TotpFactorRow): TotpFactorRecord => ({
  ...row,
  secretSealed: row.secretSealed === null ? null : new Uint8Array(row.secretSealed)
})
const toBuffer = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)

const TotpFactorsRepoSql = Layer.effect(
  TotpFactorsRepo,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const cols = sql.literal(
      "factor_id, account_id, secret_sealed, enrollment_token_hash, enrollment_expires_at, created_at, verified_at, last_used_step, deleted_at"
    )
    const find = SqlSchema.findOneOption({
      Request: Schema.String,
      Result: TotpFactorRow,
      execute: (id) => sql`select ${cols} from totp_factors where factor_id = ${id} for update`
    })
    const listVerified = SqlSchema.findAll({
      Request: Schema.String,
      Result: TotpFactorRow,
      execute: (accountId) => sql`
        select ${cols} from totp_factors
        where account_id = ${accountId} and deleted_at is null and verified_at is not null
        order by created_at, factor_id`
    })
    const softDelete = SqlSchema.findOneOption({
      Request: Schema.Struct({ accountId: Schema.String, factorId: Schema.String, now: Schema.Date }),
      Result: TotpFactorRow,
      execute: ({ accountId, factorId, now }) => sql`
        update totp_factors set deleted_at = coalesce(deleted_at, ${now}), secret_sealed = null
        where factor_id = ${factorId} and account_id = ${accountId}
        returning ${cols}`
    })

    return TotpFactorsRepo.of({
      insert: (f) =>
        orDie(sql`insert into totp_factors ${sql.insert({
          factorId: f.factorId,
          accountId: f.accountId,
          secretSealed: f.secretSealed === null ? null : toBuffer(f.secretSealed),
          enrollmentTokenHash: f.enrollmentTokenHash,
          enrollmentExpiresAt: toDate(f.enrollmentExpiresAt),
          createdAt: toDate(f.createdAt),
          verifiedAt: f.verifiedAt === null ? null : toDate(f.verifiedAt),
          lastUsedStep: f.lastUsedStep,
          deletedAt: f.deletedAt === null ? null : toDate(f.deletedAt)
        })}`).pipe(Effect.asVoid),
      find: (factorId) => orDie(find(factorId)).pipe(Effect.map(Option.map(toRecord))),
      listVerified: (accountId) => orDie(listVerified(accountId)).pipe(Effect.map((rows) => rows.map(toRecord))),
      // One conditional statement: of two concurrent uses of one step, only one updates the row.
      useStep: ({ factorId, now, step }) =>
        orDie(sql`
          update totp_factors
          set last_used_step = ${step}, verified_at = coalesce(verified_at, ${toDate(now)})
          where factor_id = ${factorId} and deleted_at is null and (last_used_step is null or last_used_step < ${step})
          returning factor_id`).pipe(Effect.map((rows) => rows.length > 0)),
      softDelete: ({ accountId, factorId, now }) =>
        orDie(softDelete({ accountId, factorId, now: toDate(now) })).pipe(Effect.map(Option.map(toRecord))),
      removePending: (accountId) =>
        orDie(sql`
          delete from totp_factors
          where account_id = ${accountId} and verified_at is null and deleted_at is null`).pipe(Effect.asVoid),
      softDeleteAll: ({ accountId, now }) =>
        orDie(sql`
          update totp_factors set deleted_at = ${toDate(now)}, secret_sealed = null
          where account_id = ${accountId} and deleted_at is null`).pipe(Effect.asVoid)
    })
  })
)

/** Account security's repositories on the SQL client. */
export const AccountSecurityReposSql = Layer.mergeAll(AccountProfileRepoSql, PhoneVerificationsRepoSql, TotpFactorsRepoSql)
