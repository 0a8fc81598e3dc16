/** Idempotency records in PostgreSQL, shared by every server process (docs/api-notes/requests.md, docs/architecture.md#d3-scale-out). */
import { SqlClient, type SqlError } from "effect/sql"
import {
  BeginOutcome,
  IdempotencyStore,
  inProgressRetryAfter,
  IdempotencyUnavailable,
  type StoredResponse
} from "@switchboard/core/shared"
import { DateTime, Duration, Effect, Layer } from "effect"
import { toDate } from "./Sql.js"

interface Row {
  readonly fingerprint: string
  readonly createdAt: Date
  readonly lockedAt: Date
  readonly responseStatus: number | null
  readonly responseHeaders: Record<string, string> | null
  readonly responseBody: string | null
}

const unavailable = (e: SqlError.SqlError) => Effect.logWarning("idempotency store unavailable", e.message).pipe(
  Effect.andThen(Effect.fail(new IdempotencyUnavailable()))
)

export const IdempotencyStoreSql = Layer.effect(
  IdempotencyStore,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const begin: IdempotencyStore["Service"]["begin"] = ({ fingerprint, key, lockFor, now, retainFor, scope }) =>
      sql.withTransaction(Effect.gen(function*() {
        const inserted = yield* sql`
          insert into idempotency_records (scope, key, fingerprint, created_at, locked_at)
          values (${scope}, ${key}, ${fingerprint}, ${toDate(now)}, ${toDate(now)})
          on conflict (scope, key) do nothing
          returning scope`
        if (inserted.length === 1) return BeginOutcome.Acquired()
        const rows = yield* sql<Row>`
          select fingerprint, created_at, locked_at, response_status, response_headers, response_body
          from idempotency_records where scope = ${scope} and key = ${key} for update`
        const row = rows[0]
        if (row === undefined) return BeginOutcome.Acquired()
        if (DateTime.toEpochMillis(now) - row.createdAt.getTime() >= Duration.toMillis(retainFor)) {
          yield* sql`
            update idempotency_records
            set fingerprint = ${fingerprint}, created_at = ${toDate(now)}, locked_at = ${toDate(now)},
                response_status = null, response_headers = null, response_body = null
            where scope = ${scope} and key = ${key}`
          return BeginOutcome.Acquired()
        }
        if (row.fingerprint !== fingerprint) return BeginOutcome.Mismatch()
        if (row.responseStatus !== null) {
          const response: StoredResponse = {
            status: row.responseStatus,
            headers: row.responseHeaders ?? {},
            body: row.responseBody ?? ""
          }
          return BeginOutcome.Replay({ response })
        }
        const lockedFor = DateTime.toEpochMillis(now) - row.lockedAt.getTime()
        if (lockedFor >= Duration.toMillis(lockFor)) {
          yield* sql`update idempotency_records set locked_at = ${toDate(now)} where scope = ${scope} and key = ${key}`
          return BeginOutcome.Acquired()
        }
        return BeginOutcome.InProgress({ retryAfterSeconds: inProgressRetryAfter(lockedFor, Duration.toMillis(lockFor)) })
      })).pipe(Effect.catchTag("SqlError", unavailable))

    const complete: IdempotencyStore["Service"]["complete"] = ({ key, response, scope }) =>
      sql`
        update idempotency_records
        set response_status = ${response.status}, response_headers = ${JSON.stringify(response.headers)}::jsonb,
            response_body = ${response.body}
        where scope = ${scope} and key = ${key}`.pipe(Effect.asVoid, Effect.catchTag("SqlError", unavailable))

    const release: IdempotencyStore["Service"]["release"] = ({ key, scope }) =>
      sql`delete from idempotency_records where scope = ${scope} and key = ${key} and response_status is null`.pipe(
        Effect.asVoid,
        Effect.catchTag("SqlError", unavailable)
      )

    const purge: IdempotencyStore["Service"]["purge"] = (before) =>
      sql<{ n: number }>`
        with gone as (delete from idempotency_records where created_at < ${toDate(before)} returning 1)
        select count(*)::int as n from gone`.pipe(
          Effect.map((rows) => rows[0]?.n ?? 0),
          Effect.catchTag("SqlError", unavailable)
        )

    return IdempotencyStore.of({ begin, complete, release, purge })
  })
)
