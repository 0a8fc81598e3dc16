/**
 * Device codes (RFC 8628; core oauth/DeviceCodes.ts) in SQL: found by the SHA-256 of the device
 * code (primary key) or of the user code (unique). Deciding and consuming are single conditional
 * `update … returning` statements; a poll reads the row as it was and records itself in one
 * statement (the row lock orders concurrent polls).
 */
import { SqlClient } from "effect/sql"
import { type DeviceCodeRecord, DeviceCodesRepo, SLOW_DOWN_SECONDS } from "@switchboard/core/oauth"
import { AccountId } from "@switchboard/core/shared"
import { Effect, Layer, Option, Schema } from "effect"
import { DbTime, DbTimeOrNull, firstRow, orDie, rowsOf, toDate, toDateOrNull } from "../shared/Sql.js"
import { json, prefixed, Strings } from "./OAuthRows.js"

const DeviceRow = Schema.Struct({
  deviceCodeHash: Schema.String,
  userCodeHash: Schema.String,
  clientId: Schema.String,
  scopes: Strings,
  resource: Schema.NullOr(Schema.String),
  status: Schema.Literals(["pending", "approved", "denied", "consumed"]),
  accountId: Schema.NullOr(AccountId),
  grantId: Schema.NullOr(Schema.String),
  authTime: DbTimeOrNull,
  intervalSeconds: Schema.Number,
  lastPolledAt: DbTimeOrNull,
  createdAt: DbTime,
  expiresAt: DbTime
})

const cols =
  "device_code_hash, user_code_hash, client_id, scopes, resource, status, account_id, grant_id, auth_time, interval_seconds, last_polled_at, created_at, expires_at"

export const DeviceCodesRepoSql = Layer.effect(
  DeviceCodesRepo,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rows = rowsOf(DeviceRow)
    const polls = rowsOf(Schema.Struct({ ...DeviceRow.fields, slowDown: Schema.Boolean }))
    const all = sql.literal(cols)
    const old = sql.literal(prefixed("o", cols))
    const toRecord = (r: typeof DeviceRow.Type): DeviceCodeRecord => r

    return DeviceCodesRepo.of({
      insert: (c) =>
        orDie(sql`
          insert into oauth_device_codes (${all}) values (
            ${c.deviceCodeHash}, ${c.userCodeHash}, ${c.clientId}, ${json(c.scopes)}::jsonb, ${c.resource}, ${c.status},
            ${c.accountId}, ${c.grantId}, ${toDateOrNull(c.authTime)}::timestamptz, ${c.intervalSeconds},
            ${toDateOrNull(c.lastPolledAt)}::timestamptz, ${toDate(c.createdAt)}, ${toDate(c.expiresAt)})
          on conflict do nothing
          returning device_code_hash`).pipe(Effect.map((r) => r.length > 0)),
      findByUserCode: (userCodeHash) =>
        rows(sql`select ${all} from oauth_device_codes where user_code_hash = ${userCodeHash}`).pipe(
          Effect.map((rs) => Option.map(firstRow(rs), toRecord))
        ),
      decide: ({ decision, now, userCodeHash }) =>
        orDie(
          decision._tag === "Approve"
            ? sql`
              update oauth_device_codes set status = 'approved', account_id = ${decision.accountId}, grant_id = ${decision.grantId},
                auth_time = ${toDate(decision.authTime)}
              where user_code_hash = ${userCodeHash} and status = 'pending' and expires_at > ${toDate(now)}
              returning device_code_hash`
            : sql`
              update oauth_device_codes set status = 'denied', account_id = ${decision.accountId}
              where user_code_hash = ${userCodeHash} and status = 'pending' and expires_at > ${toDate(now)}
              returning device_code_hash`
        ).pipe(Effect.map((r) => r.length > 0)),
      poll: ({ deviceCodeHash, now }) => {
        const at = toDate(now)
        // `o` is the row as it was (locked); the update records the poll and, polled too soon
        // while pending, the longer interval.
        const tooSoon = sql`(o.status = 'pending' and o.last_polled_at is not null
          and o.last_polled_at > ${at}::timestamptz - make_interval(secs => o.interval_seconds))`
        return polls(sql`
          with o as (select ${all} from oauth_device_codes where device_code_hash = ${deviceCodeHash} for update)
          update oauth_device_codes d set last_polled_at = ${at},
            interval_seconds = case when ${tooSoon} then o.interval_seconds + ${SLOW_DOWN_SECONDS} else o.interval_seconds end
          from o where d.device_code_hash = o.device_code_hash
          returning ${old}, ${tooSoon} as slow_down`).pipe(
          Effect.map((rs) => Option.map(firstRow(rs), ({ slowDown, ...r }) => ({ code: toRecord(r), slowDown })))
        )
      },
      consume: ({ deviceCodeHash }) =>
        orDie(sql`
          update oauth_device_codes set status = 'consumed'
          where device_code_hash = ${deviceCodeHash} and status = 'approved'
          returning device_code_hash`).pipe(Effect.map((r) => r.length > 0)),
      sweep: ({ before }) =>
        orDie(sql`delete from oauth_device_codes where expires_at < ${toDate(before)} returning device_code_hash`).pipe(
          Effect.map((r) => r.length)
        )
    })
  })
)
