/**
 * The batched rate limiter across processes: two limiters (two server processes, each with its own
 * counters and, on PostgreSQL, its own connection pool) on one database. Their background sync is
 * set far apart and driven by hand, so every step is deterministic.
 */
import { SqlClient } from "effect/sql"
import { RateLimiter } from "@switchboard/core/shared"
import { makeRateLimiterSql, sharedTestStores, testBackends } from "@switchboard/sql-adapter"
import { Context, DateTime, Effect, Exit, Fiber, Layer, Scope } from "effect"
import { describe, expect, it } from "vitest"

const NOW = DateTime.makeUnsafe("2030-01-01T00:00:01.000Z")
const policy = { name: "two-process", quota: 10, windowSeconds: 60 }
const MANUAL = { syncMillis: 3_600_000 }

/** `n` stores on one database, each built once (as n server processes would hold them). */
const stores = (backend: "pglite" | "postgres", n: number) =>
  Effect.flatMap(sharedTestStores(backend, n), (layers) =>
    Effect.forEach(layers, (layer) => Effect.map(Layer.build(layer), (context) => Layer.succeedContext(context) as Layer.Layer<any>)))

const limiterOn = (store: Layer.Layer<any>, options: { syncMillis?: number }) =>
  Effect.map(Layer.build(makeRateLimiterSql(options).pipe(Layer.provide(store))), (context) => Context.get(context, RateLimiter))

const hits = (limiter: RateLimiter["Service"], key: string, n: number) =>
  Effect.forEach(Array.from({ length: n }), () => limiter.hit(key, policy, NOW))

const admitted = (states: ReadonlyArray<{ allowed: boolean }>) => states.filter((s) => s.allowed).length

const storedCount = (store: Layer.Layer<any>, key: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ count: number }>`select count from rate_limit_counters where key = ${key}`).pipe(
    Effect.map((rows) => rows[0]?.count ?? 0),
    Effect.provide(store)
  )

for (const backend of testBackends()) {
  describe(`rate limits shared by two processes without a write per request (${backend})`, () => {
    it("after a sync each process sees the other's hits; the next hit of a fresh key is exact", async () => {
      await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
        const [storeA, storeB] = (yield* stores(backend, 2)) as [Layer.Layer<any>, Layer.Layer<any>]
        const a = yield* limiterOn(storeA, MANUAL)
        const b = yield* limiterOn(storeB, MANUAL)
        const key = "credential:sync"
        expect(admitted(yield* hits(a, key, 6))).toBe(6)
        // Only A's first hit is in the database so far: the rest are counted in memory.
        expect(yield* storedCount(storeA, key)).toBe(1)
        yield* a.sync
        expect(yield* storedCount(storeA, key)).toBe(6)
        // B's first hit of this key is counted in the database at once and sees A's six.
        const first = yield* b.hit(key, policy, NOW)
        expect(first).toMatchObject({ allowed: true, remaining: 3 })
        const rest = yield* hits(b, key, 4)
        expect(rest.map((s) => s.allowed)).toEqual([true, true, true, false])
        yield* b.sync
        // A learns B's hits at its next sync and refuses from then on.
        yield* a.sync
        expect((yield* a.hit(key, policy, NOW)).allowed).toBe(false)
      })))
    })

    it("one process stays exact while a sync is writing: a hit then still counts the hits being written", async () => {
      await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
        const [store] = (yield* stores(backend, 1)) as [Layer.Layer<any>]
        const limiter = yield* limiterOn(store, MANUAL)
        const key = "credential:during-sync"
        yield* hits(limiter, key, 4) // 1 in the database, 3 pending
        const syncing = yield* Effect.forkChild(limiter.sync)
        yield* Effect.repeat(Effect.yieldNow, { times: 5 }) // the sync has taken the 3 and waits for the database
        const during = yield* limiter.hit(key, policy, NOW)
        expect(during.remaining).toBe(policy.quota - 5)
        yield* Fiber.join(syncing)
        expect((yield* limiter.hit(key, policy, NOW)).remaining).toBe(policy.quota - 6)
      })))
    })

    it("worst case without syncs: two processes admit at most twice the quota, and both refuse once synced", async () => {
      await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
        const [storeA, storeB] = (yield* stores(backend, 2)) as [Layer.Layer<any>, Layer.Layer<any>]
        const a = yield* limiterOn(storeA, MANUAL)
        const b = yield* limiterOn(storeB, MANUAL)
        const key = "credential:burst"
        // Interleaved bursts inside one sync interval.
        let total = 0
        for (let i = 0; i < 15; i++) {
          total += admitted([yield* a.hit(key, policy, NOW), yield* b.hit(key, policy, NOW)])
        }
        expect(total).toBeGreaterThanOrEqual(policy.quota)
        expect(total).toBeLessThanOrEqual(2 * policy.quota)
        yield* a.sync
        yield* b.sync
        yield* a.sync
        expect((yield* a.hit(key, policy, NOW)).allowed).toBe(false)
        expect((yield* b.hit(key, policy, NOW)).allowed).toBe(false)
        expect(yield* storedCount(storeA, key)).toBeGreaterThanOrEqual(30)
      })))
    })

    it("exact mode (sync 0) counts every hit in the database: exactly the quota across processes", async () => {
      await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
        const [storeA, storeB] = (yield* stores(backend, 2)) as [Layer.Layer<any>, Layer.Layer<any>]
        const a = yield* limiterOn(storeA, { syncMillis: 0 })
        const b = yield* limiterOn(storeB, { syncMillis: 0 })
        const key = "credential:exact"
        const states = yield* Effect.all(
          Array.from({ length: 24 }, (_, i) => (i % 2 === 0 ? a : b).hit(key, policy, NOW)),
          { concurrency: "unbounded" }
        )
        expect(admitted(states)).toBe(policy.quota)
      })))
    })

    it("hits still pending when a process stops reach the database", async () => {
      await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
        const [storeA] = (yield* stores(backend, 1)) as [Layer.Layer<any>]
        const scope = yield* Scope.make()
        const a = yield* Scope.provide(limiterOn(storeA, MANUAL), scope)
        const key = "credential:shutdown"
        yield* hits(a, key, 5)
        expect(yield* storedCount(storeA, key)).toBe(1)
        yield* Scope.close(scope, Exit.void)
        expect(yield* storedCount(storeA, key)).toBe(5)
      })))
    })
  })
}
