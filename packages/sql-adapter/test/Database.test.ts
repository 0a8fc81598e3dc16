/**
 * The embedded database under concurrency: every statement gets its own rows. (With several
 * connections through pglite-socket, concurrent extended-protocol queries interleaved and read each
 * other's results; the embedded database now uses one connection.)
 */
import { SqlClient } from "effect/sql"
import { testBackends, testStore } from "@switchboard/sql-adapter"
import { Effect } from "effect"
import { describe, expect, it } from "vitest"

for (const backend of testBackends()) {
  describe(`database (${backend})`, () => {
    it("200 concurrent statements and transactions each get their own result", async () => {
      const program = Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const plain = (i: number) => Effect.map(sql<{ n: number }>`select ${i}::int as n`, (rows) => rows[0]?.n === i)
        const shaped = (i: number) =>
          Effect.map(sql<{ label: string; twice: number }>`select ${`row-${i}`}::text as label, ${i * 2}::int as twice`,
            (rows) => rows[0]?.label === `row-${i}` && rows[0]?.twice === i * 2)
        // Transactions with several statements, interleaved with plain statements on other connections.
        const inTransaction = (i: number) =>
          sql.withTransaction(Effect.zipWith(plain(i), Effect.andThen(Effect.yieldNow, shaped(i)), (a, b) => a && b))
        const results = yield* Effect.all(
          Array.from({ length: 200 }, (_, i) => (i % 3 === 0 ? inTransaction(i) : i % 3 === 1 ? plain(i) : shaped(i))),
          { concurrency: "unbounded" }
        ).pipe(Effect.catchCause(() => Effect.succeed([false])))
        return results.filter((ok) => !ok).length
      }).pipe(Effect.scoped, Effect.provide(testStore(backend)))
      expect(await Effect.runPromise(program)).toBe(0)
    })
  })
}
