/**
 * Rate-limit counters in PostgreSQL (DESIGN.md D3): one upsert per request increments the counter of
 * (policy, key, window) atomically, so all server processes share one count.
 */
import { SqlClient } from "@effect/sql"
import { RateLimiter, stateOf, windowOf } from "@switchboard/core"
import { Effect, Layer } from "effect"
import { toDate } from "./Sql.js"

export const RateLimiterSql = Layer.effect(
  RateLimiter,
  Effect.map(SqlClient.SqlClient, (sql) =>
    RateLimiter.of({
      hit: (key, policy, now) =>
        Effect.gen(function*() {
          const { resetSeconds, start } = windowOf(policy, now.epochMillis)
          const rows = yield* sql<{ count: number }>`
            insert into rate_limit_counters (policy, key, window_start, window_end, count)
            values (${policy.name}, ${key}, ${new Date(start)}, ${new Date(start + policy.windowSeconds * 1000)}, 1)
            on conflict (policy, key, window_start) do update set count = rate_limit_counters.count + 1
            returning count`
          return stateOf(policy, rows[0]?.count ?? 1, resetSeconds)
        }).pipe(Effect.orDie),
      purge: (before) =>
        sql<{ n: number }>`
          with gone as (delete from rate_limit_counters where window_end <= ${toDate(before)} returning 1)
          select count(*)::int as n from gone`.pipe(Effect.map((rows) => rows[0]?.n ?? 0), Effect.orDie)
    }))
)
