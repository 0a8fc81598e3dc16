/**
 * Forward-only migrations (docs/embedding.md, "Storage on your PostgreSQL"), registered by record
 * so bundlers keep them. `runMigrations` applies the pending ones in one transaction that first
 * takes an advisory lock (`MIGRATION_LOCK_KEY`), so any number of processes may run it at once.
 * `checkSchemaVersion` is the start-up check of a store that does not migrate: the schema must be
 * exactly the version this package expects.
 */
import * as Migrator from "effect/sql/Migrator"
import { SqlClient } from "effect/sql"
import type { SqlError } from "effect/sql/SqlError"
import { Data, Duration, Effect } from "effect"
import { migrations } from "./Features.js"
import { messagesOf } from "./shared/ErrorMessages.js"

export { migrations }

/** The table that records applied migrations (one row per migration id). */
export const MIGRATIONS_TABLE = "switchboard_migrations"

/**
 * The migrator alone, without the advisory lock: prefer `runMigrations`, which every entry point of
 * this package uses.
 */
export const Migrations = Migrator.make({})({ loader: Migrator.fromRecord(migrations), table: MIGRATIONS_TABLE })

/** The id of a migration key (`0150_webhookDeliveriesDueIndex` → 150). */
const idOf = (key: string) => Number(/^(\d+)_/.exec(key)?.[1] ?? Number.NaN)

/**
 * The schema version this package needs: the id of its last migration. A database's version is the
 * highest migration id recorded in `switchboard_migrations`.
 */
export const EXPECTED_SCHEMA_VERSION: number = Math.max(...Object.keys(migrations).map(idOf))

/**
 * The key of the PostgreSQL advisory lock taken around migrations (`pg_try_advisory_xact_lock`,
 * held by the migration's transaction): "SWBDMIGR" in ASCII. Fixed for every version of this
 * package, so an older and a newer Switchboard that both take it never migrate one database at
 * the same time.
 */
export const MIGRATION_LOCK_KEY = 0x5357_4244_4d49_4752n

/** One migration applied by a run. */
export interface AppliedMigration {
  readonly id: number
  readonly name: string
}

/** What a migration run did: the migrations it applied (none when the schema was current) and the version after it. */
export interface MigrationResult {
  readonly applied: ReadonlyArray<AppliedMigration>
  readonly version: number
}

/** A migration run failed (a migration's error, the database unreachable, …); `cause` is the underlying error. */
export class MigrationFailed extends Data.TaggedError("MigrationFailed")<{ readonly message: string; readonly cause?: unknown }> {}

/**
 * The store's schema is not the version this package needs (a store built with `migrate: false`):
 * `kind` says which way, `found` is the database's version (undefined: no Switchboard schema at all).
 */
export class SchemaVersionMismatch extends Data.TaggedError("SchemaVersionMismatch")<{
  readonly kind: "missing" | "behind" | "ahead"
  readonly found: number | undefined
  readonly expected: number
  readonly message: string
}> {}

/** The message of a version mismatch, naming what to do about it. */
export const schemaVersionMismatch = (found: number | undefined, expected = EXPECTED_SCHEMA_VERSION): SchemaVersionMismatch =>
  found === undefined
    ? new SchemaVersionMismatch({
      kind: "missing",
      found,
      expected,
      message: `database has no Switchboard schema (no ${MIGRATIONS_TABLE} table): run migrate() from @switchboard/sql-adapter first`
    })
    : found < expected
    ? new SchemaVersionMismatch({
      kind: "behind",
      found,
      expected,
      message: `database schema is at version ${found}, this Switchboard needs ${expected}: run migrate() from @switchboard/sql-adapter`
    })
    : new SchemaVersionMismatch({
      kind: "ahead",
      found,
      expected,
      message:
        `database schema was migrated by a newer Switchboard (version ${found} > ${expected}): upgrade @switchboard/sql-adapter`
    })

/**
 * The database's schema version: the highest id in `switchboard_migrations` (0 for an empty
 * table), undefined when there is no such table.
 */
export const schemaVersion: Effect.Effect<number | undefined, SqlError, SqlClient.SqlClient> = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const table = yield* sql<{ found: boolean }>`select to_regclass(${MIGRATIONS_TABLE}) is not null as found`.withoutTransform
  if (table[0]?.found !== true) return undefined
  const rows = yield* sql<{ version: number | null }>`select max(migration_id) as version from ${sql(MIGRATIONS_TABLE)}`.withoutTransform
  return rows[0]?.version ?? 0
})

/** Succeeds when the schema is exactly `EXPECTED_SCHEMA_VERSION`; fails with the mismatch otherwise. */
export const checkSchemaVersion: Effect.Effect<void, SchemaVersionMismatch | SqlError, SqlClient.SqlClient> = Effect.flatMap(
  schemaVersion,
  (found) => found === EXPECTED_SCHEMA_VERSION ? Effect.void : Effect.fail(schemaVersionMismatch(found))
)

const LOCK = `select pg_try_advisory_xact_lock(${MIGRATION_LOCK_KEY}) as locked`

/**
 * Takes the migration lock for the rest of the current transaction, trying again every 50 ms,
 * growing to 1 s, while another transaction holds it. Trying (rather than `pg_advisory_xact_lock`,
 * which waits on the server) keeps every statement short, so a `statement_timeout` or a client read
 * timeout never cuts the wait short, and an interrupted wait leaves nothing queued on the server.
 */
const takeLock = (sql: SqlClient.SqlClient, pauseMs = 50): Effect.Effect<void, SqlError> =>
  Effect.flatMap(
    sql.unsafe<{ locked: boolean }>(LOCK).withoutTransform,
    (rows) =>
      rows[0]?.locked === true
        ? Effect.void
        : Effect.andThen(Effect.sleep(Duration.millis(pauseMs)), Effect.suspend(() => takeLock(sql, Math.min(pauseMs * 2, 1_000))))
  )

/**
 * `self` in one transaction that first takes the migration lock (`MIGRATION_LOCK_KEY`): any other
 * run waits until this transaction ends, however it ends (commit, rollback, lost connection).
 * The lock is transaction-level on purpose: it needs no connection besides the migration's, and
 * migration 0040 takes the session-level advisory lock functions away from `PUBLIC` (a session lock
 * would outlive a metrics query's transaction on its pooled connection), while the
 * transaction-level ones stay callable by every role. Transactions inside `self` (the migrator's)
 * become savepoints of this one. On the embedded PGlite (one session) the lock is harmless.
 */
export const withMigrationLock = <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E | SqlError, R | SqlClient.SqlClient> =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql.withTransaction(Effect.andThen(takeLock(sql), self)))

/**
 * Applies every pending migration under the migration lock, in one transaction, and reports what
 * it did. Safe to run from several processes at once: each migration is applied exactly once, and
 * every run ends with the same version.
 */
export const runMigrations: Effect.Effect<MigrationResult, MigrationFailed, SqlClient.SqlClient> = withMigrationLock(
  Effect.gen(function*() {
    const applied = yield* Migrations
    const version = yield* schemaVersion
    return { applied: applied.map(([id, name]) => ({ id, name })), version: version ?? 0 }
  })
).pipe(Effect.mapError((e) => new MigrationFailed({ message: `migration failed: ${messagesOf(e)}`, cause: e })))
