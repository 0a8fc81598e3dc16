/**
 * Rate-limit counters shared by every server process through PostgreSQL
 * (docs/architecture.md#d3-scale-out, docs/api-notes/requests.md), without a database write per
 * request.
 *
 * Each process keeps, per (policy, key, window), the count PostgreSQL last reported (`shared`) and
 * the hits it has admitted since (`pending`). The first hit of a key in a window in this process is
 * counted in PostgreSQL at once (one upsert, so a fresh key starts from the true shared count);
 * later hits are decided in memory against `shared + writing + pending` (`writing`: the hits a sync
 * is adding right now, so a hit during a sync still sees them), and every `syncMillis` one
 * multi-row upsert adds all pending counts and reads back the shared totals.
 *
 * Tolerance (documented in docs/api-notes/requests.md): hits admitted by other processes become visible here at
 * their next sync, so over one window N processes can admit at most
 *   quota + (N − 1) × (hits one process admits for that key in one sync interval)
 * and never more than N × quota. With one process (or exact mode, `syncMillis` 0) it is exact.
 */
import { SqlClient } from "effect/sql"
import { RateLimiter, type RateLimitPolicy, stateOf, windowOf } from "@switchboard/core/shared"
import { Array as Arr, Clock, DateTime, Duration, Effect, Layer, Schedule } from "effect"
import { orDie, toDate } from "./Sql.js"

interface Counter {
  readonly policy: string
  readonly key: string
  readonly windowStart: number
  readonly windowEnd: number
  /** The shared count PostgreSQL last reported (includes this process's synced hits). */
  shared: number
  /** Hits admitted or refused here and not yet added to PostgreSQL. */
  pending: number
  /** Hits being added to PostgreSQL by a sync right now (counted until its answer is learned). */
  writing: number
}

/** How often a process adds its pending counts to PostgreSQL by default. */
export const RATE_LIMIT_SYNC_MILLIS = 200

const counterKey = (policy: string, key: string, windowStart: number) => `${policy}\u0000${key}\u0000${windowStart}`

/**
 * The limiter on a SQL client. `syncMillis` 0 counts every hit in PostgreSQL at once (exact, one
 * statement per request — the behaviour before batching).
 */
export const makeRateLimiterSql = (options: { readonly syncMillis?: number } = {}) =>
  Layer.effect(
    RateLimiter,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const syncMillis = options.syncMillis ?? RATE_LIMIT_SYNC_MILLIS
      const counters = new Map<string, Counter>()

      /** Adds `n` to one counter in PostgreSQL and returns the new shared total. */
      const addOne = (policy: RateLimitPolicy, key: string, start: number, n: number) =>
        sql<{ count: number }>`
          insert into rate_limit_counters (policy, key, window_start, window_end, count)
          values (${policy.name}, ${key}, ${new Date(start)}, ${new Date(start + policy.windowSeconds * 1000)}, ${n})
          on conflict (policy, key, window_start) do update set count = rate_limit_counters.count + excluded.count
          returning count`.pipe(Effect.map((rows) => rows[0]?.count ?? n))

      const learnNow = (rows: ReadonlyArray<{ policy: string; key: string; windowStart: Date; count: number }>) => {
        for (const r of rows) {
          const c = counters.get(counterKey(r.policy, r.key, new Date(r.windowStart).getTime()))
          if (c !== undefined) c.shared = Math.max(c.shared, r.count)
        }
      }
      const learn = (rows: ReadonlyArray<{ policy: string; key: string; windowStart: Date; count: number }>) => Effect.sync(() => learnNow(rows))

      /**
       * At most two statements, however many keys: one upsert adds every pending count, one read
       * refreshes the shared totals of the other live counters. Windows that ended are forgotten.
       */
      const sync = Effect.flatMap(Clock.currentTimeMillis, (now) => {
        const batch: Array<{ counter: Counter; delta: number }> = []
        const idle: Array<Counter> = []
        for (const [k, c] of counters) {
          if (c.pending > 0) {
            batch.push({ counter: c, delta: c.pending })
            c.writing += c.pending
            c.pending = 0
          } else if (c.windowEnd <= now) {
            counters.delete(k)
          } else {
            idle.push(c)
          }
        }
        const write = !Arr.isReadonlyArrayNonEmpty(batch) ? Effect.void : sql<{ policy: string; key: string; windowStart: Date; count: number }>`
          insert into rate_limit_counters ${
          sql.insert(Arr.map(batch, ({ counter, delta }) => ({
            policy: counter.policy,
            key: counter.key,
            windowStart: new Date(counter.windowStart),
            windowEnd: new Date(counter.windowEnd),
            count: delta
          })))
        }
          on conflict (policy, key, window_start) do update set count = rate_limit_counters.count + excluded.count
          returning policy, key, window_start, count`.pipe(
          // The totals now include the written hits: they stop counting as in flight in the same step.
            Effect.flatMap((rows) =>
              Effect.sync(() => {
                learnNow(rows)
                for (const { counter, delta } of batch) counter.writing -= delta
              })
            ),
            // Not written (database away): keep the hits pending for the next sync.
            Effect.tapCause(() =>
              Effect.sync(() => {
                for (const { counter, delta } of batch) {
                  counter.writing -= delta
                  counter.pending += delta
                }
              })
            )
          )
        const read = idle.length === 0 ? Effect.void : sql<{ policy: string; key: string; windowStart: Date; count: number }>`
          select policy, key, window_start, count from rate_limit_counters
          where key in ${sql.in([...new Set(idle.map((c) => c.key))])} and window_end > ${new Date(now)}`.pipe(Effect.flatMap(learn))
        return Effect.andThen(write, read)
      })

      if (syncMillis > 0) {
        yield* sync.pipe(
          Effect.catchCause((cause) => Effect.logDebug("rate-limit sync failed; will retry", cause)),
          Effect.repeat(Schedule.spaced(Duration.millis(syncMillis))),
          Effect.forkScoped
        )
        // What is still pending at shutdown reaches the other processes.
        yield* Effect.addFinalizer(() => Effect.ignore(sync))
      }

      return RateLimiter.of({
        hit: (key, policy, now) =>
          Effect.suspend(() => {
            const { resetSeconds, start } = windowOf(policy, DateTime.toEpochMillis(now))
            const k = counterKey(policy.name, key, start)
            const known = syncMillis > 0 ? counters.get(k) : undefined
            if (known !== undefined) {
              known.pending += 1
              return Effect.succeed(stateOf(policy, known.shared + known.writing + known.pending, resetSeconds))
            }
            // First hit of this key and window here (or exact mode): count it in PostgreSQL now.
            return addOne(policy, key, start, 1).pipe(
              Effect.map((count) => {
                if (syncMillis > 0) {
                  const c = counters.get(k)
                  if (c === undefined) {
                    counters.set(k, {
                      policy: policy.name,
                      key,
                      windowStart: start,
                      windowEnd: start + policy.windowSeconds * 1000,
                      shared: count,
                      pending: 0,
                      writing: 0
                    })
                  } else {
                    c.shared = Math.max(c.shared, count)
                  }
                }
                return stateOf(policy, count, resetSeconds)
              })
            )
          }).pipe(orDie),
        purge: (before) =>
          sql<{ n: number }>`
            with gone as (delete from rate_limit_counters where window_end <= ${toDate(before)} returning 1)
            select count(*)::int as n from gone`.pipe(Effect.map((rows) => rows[0]?.n ?? 0), orDie),
        sync: orDie(sync)
      })
    })
  )

/** The limiter of a server on PostgreSQL: batched, synced every `RATE_LIMIT_SYNC_MILLIS`. */
export const RateLimiterSql = makeRateLimiterSql()
