/**
 * Test databases (docs/testing.md): each test file gets its own — a fresh in-memory PGlite, or a
 * `sb_test_<random>` database created on the PostgreSQL of `DATABASE_URL` and dropped afterwards.
 */
import { Effect, Layer, Redacted } from "effect"
import Pg from "pg"
import { DatabaseConfig, DatabaseError } from "./Database.js"
import { StoreSql } from "./Repositories.js"

export type TestBackend = "pglite" | "postgres"

/** The backends SQL suites run on here: PGlite always, PostgreSQL when `DATABASE_URL` is set. */
export const testBackends = (): ReadonlyArray<TestBackend> =>
  process.env.DATABASE_URL ? ["pglite", "postgres"] : ["pglite"]

const withDatabase = (url: string, database: string) => {
  const u = new URL(url)
  u.pathname = `/${database}`
  return u.toString()
}

/** A throwaway PostgreSQL database for the life of the scope; yields its URL. */
export const scratchPostgres = Effect.gen(function*() {
  const url = process.env.DATABASE_URL
  if (!url) return yield* new DatabaseError({ message: "DATABASE_URL is not set" })
  const name = `sb_test_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`
  const admin = (statement: string) =>
    Effect.tryPromise({
      try: async () => {
        const client = new Pg.Client({ connectionString: url })
        await client.connect()
        try {
          await client.query(statement)
        } finally {
          await client.end()
        }
      },
      catch: (cause) => new DatabaseError({ message: String(cause), cause })
    })
  yield* Effect.acquireRelease(
    admin(`create database "${name}"`),
    () => admin(`drop database if exists "${name}" with (force)`).pipe(Effect.ignore)
  )
  return withDatabase(url, name)
})

/** The whole store (migrated database, repositories, revocations) of one backend, fresh for this test file. */
export const testStore = (backend: TestBackend) =>
  backend === "pglite"
    ? StoreSql(DatabaseConfig.Pglite({ dataDir: undefined }))
    : Layer.unwrap(Effect.map(scratchPostgres, (url) => StoreSql(DatabaseConfig.Postgres({ url: Redacted.make(url) }))))

/**
 * `n` stores on ONE fresh database, as `n` server processes would see it: on PostgreSQL each has
 * its own connection pool and listener; PGlite (one process by nature) is built once and shared.
 * The database lives as long as the calling scope.
 */
export const sharedTestStores = (backend: TestBackend, n: number) =>
  Effect.gen(function*() {
    if (backend === "postgres") {
      const url = Redacted.make(yield* scratchPostgres)
      return Array.from({ length: n }, () => Layer.fresh(StoreSql(DatabaseConfig.Postgres({ url }))))
    }
    const shared = yield* Layer.build(testStore("pglite"))
    return Array.from({ length: n }, () => Layer.succeedContext(shared))
  })
