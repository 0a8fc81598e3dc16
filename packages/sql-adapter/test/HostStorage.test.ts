/**
 * Storage on the host's PostgreSQL (docs/embedding.md, "Storage on your PostgreSQL"): `migrate()`
 * (Promise) and `runMigrations` (Effect) under the migration lock, a store over the host's own `pg`
 * pool that never ends it, and a store started with `{ migrate: false }` that checks the schema
 * version. Each test gets a fresh database: a PGlite data directory, or a scratch PostgreSQL
 * database (when DATABASE_URL is set).
 */
import { SqlClient } from "effect/sql"
import {
  DatabaseClient,
  DatabaseConfig,
  EXPECTED_SCHEMA_VERSION,
  migrate,
  MIGRATION_LOCK_KEY,
  migrations,
  runMigrations,
  scratchPostgres,
  StoreSql,
  testBackends,
  type TestBackend
} from "@switchboard/sql-adapter"
import { Effect, Exit, Layer, Redacted, Scope } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import Pg from "pg"
import { afterAll, afterEach, describe, expect, it } from "vitest"

const migrationCount = Object.keys(migrations).length
const root = mkdtempSync(join(tmpdir(), "switchboard-host-storage-"))
// Shared with the other PGlite suites: a new data directory is a copy of this template.
const templateDir = join(tmpdir(), "switchboard-test-pglite-templates")
afterAll(() => rmSync(root, { recursive: true, force: true }))

/** Scopes opened by a test (scratch databases, host pools), closed after it. */
let scopes: Array<Scope.Closeable> = []
afterEach(async () => {
  for (const scope of scopes.reverse()) await Effect.runPromise(Scope.close(scope, Exit.void))
  scopes = []
})
const inTestScope = <A, E>(effect: Effect.Effect<A, E, Scope.Scope>): Promise<A> => {
  const scope = Effect.runSync(Scope.make())
  scopes.push(scope)
  return Effect.runPromise(Scope.provide(effect, scope))
}

/** A fresh database of `backend`: its config, and a way to run SQL on it outside the store. */
interface TestDatabase {
  readonly config: DatabaseConfig
  readonly exec: (statement: string) => Promise<ReadonlyArray<Record<string, unknown>>>
}

let dirs = 0
const freshDatabase = async (backend: TestBackend): Promise<TestDatabase> => {
  if (backend === "pglite") {
    const config = DatabaseConfig.Pglite({ dataDir: join(root, `db-${dirs++}`), templateDir })
    return {
      config,
      exec: (statement) =>
        Effect.runPromise(
          Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe<Record<string, unknown>>(statement)).pipe(
            Effect.provide(Layer.fresh(DatabaseClient(config))),
            Effect.scoped
          )
        )
    }
  }
  const url = await inTestScope(scratchPostgres)
  return {
    config: DatabaseConfig.Postgres({ url: Redacted.make(url) }),
    exec: async (statement) => {
      const client = new Pg.Client({ connectionString: url })
      await client.connect()
      try {
        return (await client.query(statement)).rows
      } finally {
        await client.end()
      }
    }
  }
}

/** Starts (and stops) the store with `{ migrate: false }`; yields its start-up error, if any. */
const startWithoutMigrating = (config: DatabaseConfig) =>
  Effect.runPromise(Effect.scoped(Layer.build(Layer.fresh(StoreSql(config, { migrate: false })))).pipe(
    Effect.as(undefined),
    Effect.catch((e) => Effect.succeed(e))
  ))

for (const backend of testBackends()) {
  describe(`a store that does not migrate (${backend})`, () => {
    it("starts on a database at this package's version", async () => {
      const db = await freshDatabase(backend)
      const result = await migrate({ config: db.config })
      expect(result.version).toBe(EXPECTED_SCHEMA_VERSION)
      expect(result.applied).toHaveLength(migrationCount)
      expect(await startWithoutMigrating(db.config)).toBeUndefined()
      // It did not migrate: the recorded migrations are the ones migrate() applied.
      expect(await db.exec("select count(*)::int as n from switchboard_migrations")).toEqual([{ n: migrationCount }])
    })

    it("fails on a database without the Switchboard schema, saying to run migrate()", async () => {
      const db = await freshDatabase(backend)
      const error = await startWithoutMigrating(db.config)
      expect(error).toMatchObject({ _tag: "SchemaVersionMismatch", kind: "missing", found: undefined, expected: EXPECTED_SCHEMA_VERSION })
      expect((error as Error).message).toBe(
        "database has no Switchboard schema (no switchboard_migrations table): run migrate() from @switchboard/sql-adapter first"
      )
      // Nothing was created.
      expect(await db.exec("select to_regclass('switchboard_migrations') is null as absent")).toEqual([{ absent: true }])
    })

    it("fails on an older schema, naming both versions and migrate()", async () => {
      const db = await freshDatabase(backend)
      await migrate({ config: db.config })
      // As an older Switchboard left it: the last migration not applied yet.
      await db.exec(`delete from switchboard_migrations where migration_id = ${EXPECTED_SCHEMA_VERSION}`)
      const [{ older }] = await db.exec("select max(migration_id) as older from switchboard_migrations") as [{ older: number }]
      const error = await startWithoutMigrating(db.config)
      expect(error).toMatchObject({ _tag: "SchemaVersionMismatch", kind: "behind", found: older, expected: EXPECTED_SCHEMA_VERSION })
      expect((error as Error).message).toBe(
        `database schema is at version ${older}, this Switchboard needs ${EXPECTED_SCHEMA_VERSION}: run migrate() from @switchboard/sql-adapter`
      )
    })

    it("fails on a newer schema, saying to upgrade the package", async () => {
      const db = await freshDatabase(backend)
      await migrate({ config: db.config })
      const newer = EXPECTED_SCHEMA_VERSION + 10
      await db.exec(`insert into switchboard_migrations (migration_id, name) values (${newer}, 'fromTheFuture')`)
      const error = await startWithoutMigrating(db.config)
      expect(error).toMatchObject({ _tag: "SchemaVersionMismatch", kind: "ahead", found: newer, expected: EXPECTED_SCHEMA_VERSION })
      expect((error as Error).message).toBe(
        `database schema was migrated by a newer Switchboard (version ${newer} > ${EXPECTED_SCHEMA_VERSION}): upgrade @switchboard/sql-adapter`
      )
      // migrate() leaves a newer schema alone too (forward only): nothing to apply.
      expect(await migrate({ config: db.config })).toEqual({ applied: [], version: newer })
    })

    it("runMigrations run concurrently on one client apply each migration once", async () => {
      const db = await freshDatabase(backend)
      const results = await Effect.runPromise(
        Effect.all(Array.from({ length: 4 }, () => runMigrations), { concurrency: "unbounded" }).pipe(
          Effect.provide(Layer.fresh(DatabaseClient(db.config))),
          Effect.scoped
        )
      )
      expect(results.map((r) => r.version)).toEqual([1, 2, 3, 4].map(() => EXPECTED_SCHEMA_VERSION))
      expect(results.flatMap((r) => r.applied).map((m) => m.id).sort((a, b) => a - b)).toEqual(
        Object.keys(migrations).map((k) => Number(k.slice(0, 4)))
      )
      expect(await db.exec("select count(*)::int as n from switchboard_migrations")).toEqual([{ n: migrationCount }])
      // The lock was released by every run.
      expect(await db.exec(`select pg_try_advisory_lock(${MIGRATION_LOCK_KEY}) as locked`)).toEqual([{ locked: true }])
    })
  })
}

describe.runIf(Boolean(process.env.DATABASE_URL))("migrate() and the host's pool on PostgreSQL", () => {
  /** A scratch database's URL and a session on it for the test's own statements. */
  const scratch = async () => {
    const url = await inTestScope(scratchPostgres)
    const session = new Pg.Client({ connectionString: url })
    await session.connect()
    await inTestScope(Effect.addFinalizer(() => Effect.promise(() => session.end())))
    return { url, session }
  }

  it("4 processes calling migrate() at once: each migration applied once, the same version for all", async () => {
    const { url, session } = await scratch()
    const results = await Promise.all([1, 2, 3, 4].map(() => migrate({ url })))
    expect(results.map((r) => r.version)).toEqual([1, 2, 3, 4].map(() => EXPECTED_SCHEMA_VERSION))
    const applied = results.flatMap((r) => r.applied)
    expect(applied).toHaveLength(migrationCount)
    expect(new Set(applied.map((m) => m.id)).size).toBe(migrationCount)
    const rows = (await session.query("select migration_id, count(*)::int as n from switchboard_migrations group by 1")).rows
    expect(rows).toHaveLength(migrationCount)
    expect(rows.every((r: { n: number }) => r.n === 1)).toBe(true)
    expect((await session.query(`select pg_try_advisory_lock(${MIGRATION_LOCK_KEY}) as locked`)).rows).toEqual([{ locked: true }])
  })

  it("migrate() waits while another session holds the migration lock, then migrates", async () => {
    const { url, session } = await scratch()
    await session.query(`select pg_advisory_lock(${MIGRATION_LOCK_KEY})`)
    let settled = false
    const run = migrate({ url }).finally(() => {
      settled = true
    })
    // However long it is given, it cannot start while the lock is held elsewhere.
    await new Promise((resolve) => setTimeout(resolve, 500))
    expect(settled).toBe(false)
    expect((await session.query("select to_regclass('switchboard_migrations') is null as absent")).rows).toEqual([{ absent: true }])
    await session.query(`select pg_advisory_unlock(${MIGRATION_LOCK_KEY})`)
    expect((await run).version).toBe(EXPECTED_SCHEMA_VERSION)
  })

  it("a failed migration rejects with MigrationFailed and releases the lock", async () => {
    const { url, session } = await scratch()
    // The first migration creates `accounts`: a table already there makes it fail.
    await session.query("create table accounts (id int)")
    const error = await migrate({ url }).then(() => undefined, (e: unknown) => e)
    expect(error).toMatchObject({ _tag: "MigrationFailed" })
    expect((error as Error).message).toMatch(/^migration failed: Migration "1_identity" failed: .*relation "accounts" already exists$/)
    expect((await session.query(`select pg_try_advisory_lock(${MIGRATION_LOCK_KEY}) as locked`)).rows).toEqual([{ locked: true }])
    // One transaction, rolled back: not even the migrations table is left.
    expect((await session.query("select to_regclass('switchboard_migrations') is null as absent")).rows).toEqual([{ absent: true }])
  })

  it("a role without superuser migrates a database a superuser migrated (the lock needs no grant 0040 takes away)", async () => {
    const { url, session } = await scratch()
    expect((await migrate({ url })).version).toBe(EXPECTED_SCHEMA_VERSION)
    // Migrating as a superuser took the session-level advisory locks away from PUBLIC.
    const role = `sb_app_${Math.random().toString(36).slice(2, 10)}`
    await session.query(`create role ${role} login`)
    try {
      expect((await session.query(`select has_function_privilege('${role}', 'pg_try_advisory_lock(bigint)', 'execute') as granted`)).rows)
        .toEqual([{ granted: false }])
      await session.query(`grant select, insert, update, delete on switchboard_migrations to ${role}`)
      const asApp = new URL(url)
      asApp.username = role
      expect(await migrate({ url: asApp.toString() })).toEqual({ applied: [], version: EXPECTED_SCHEMA_VERSION })
    } finally {
      await session.query(`drop owned by ${role}`)
      await session.query(`drop role ${role}`)
    }
  })

  it("an unreachable server rejects with a DatabaseError naming it", async () => {
    const error = await migrate({ url: "postgres://postgres@127.0.0.1:1/postgres", connectTimeoutMs: 2_000 }).then(() => undefined, (e: unknown) => e)
    expect(error).toMatchObject({ _tag: "DatabaseError" })
    expect((error as Error).message).toMatch(/^could not connect to the database: PostgreSQL at 127\.0\.0\.1:1 cannot be reached: /)
  })

  it("a store over the host's pool: migrated through it, usable, and the pool left open for the host", async () => {
    const { url } = await scratch()
    const pool = new Pg.Pool({ connectionString: url, max: 4, statement_timeout: 10_000, connectionTimeoutMillis: 5_000 })
    pool.on("error", () => {})
    try {
      expect((await migrate({ pool })).version).toBe(EXPECTED_SCHEMA_VERSION)
      const store = StoreSql(DatabaseConfig.PostgresPool({ pool }), { migrate: false })
      const count = await Effect.runPromise(
        Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ n: number }>`select count(*)::int as n from accounts`).pipe(
          Effect.provide(Layer.fresh(store)),
          Effect.scoped
        )
      )
      expect(count).toEqual([{ n: 0 }])
      // The store's scope is closed; the pool is still the host's, and still works.
      expect(pool.ending).toBe(false)
      expect((await pool.query("select 1 as one")).rows).toEqual([{ one: 1 }])
      // Migrating with the default store over the pool: nothing left to apply.
      await Effect.runPromise(Effect.scoped(Layer.build(Layer.fresh(StoreSql(DatabaseConfig.PostgresPool({ pool }))))))
      expect((await pool.query("select count(*)::int as n from switchboard_migrations")).rows).toEqual([{ n: migrationCount }])
    } finally {
      await pool.end()
    }
  })

  it("a host pool of one connection is enough: the store migrates through it and serves statements", async () => {
    const { url } = await scratch()
    const pool = new Pg.Pool({ connectionString: url, max: 1 })
    pool.on("error", () => {})
    try {
      const rows = await Effect.runPromise(
        Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ n: number }>`select count(*)::int as n from switchboard_migrations`).pipe(
          Effect.provide(Layer.fresh(StoreSql(DatabaseConfig.PostgresPool({ pool })))),
          Effect.scoped
        )
      )
      expect(rows).toEqual([{ n: migrationCount }])
    } finally {
      await pool.end()
    }
  })
})
