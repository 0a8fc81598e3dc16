/**
 * `migrate()`: the migrations as a Promise, for hosts that do not run Effect (a deploy step, a
 * start-up script). The same run as `runMigrations` (Migrations.ts): under the migration lock, so
 * several processes may call it at once. See docs/embedding.md, "Storage on your PostgreSQL".
 */
import { Effect, Redacted } from "effect"
import type { PostgresPool } from "./PostgresClient.js"
import { DatabaseClient, DatabaseConfig } from "./Database.js"
import { type MigrationResult, runMigrations } from "./Migrations.js"

/**
 * The database to migrate: a connection URL (a pool of one connection is opened for the run and
 * ended after it), the host's own `pg` pool (used as it is, never ended), or any `DatabaseConfig`
 * (e.g. `DatabaseConfig.Pglite({ dataDir })`).
 */
export type MigrateTarget =
  | { readonly url: string | Redacted.Redacted<string>; readonly connectTimeoutMs?: number | undefined }
  | { readonly pool: PostgresPool }
  | { readonly config: DatabaseConfig }

/** The `DatabaseConfig` of a target. Statements of a migration may run long: 10 minutes each for a URL. */
const configOf = (target: MigrateTarget): DatabaseConfig =>
  "config" in target
    ? target.config
    : "pool" in target
    ? DatabaseConfig.PostgresPool({ pool: target.pool })
    : DatabaseConfig.Postgres({
      url: Redacted.isRedacted(target.url) ? target.url : Redacted.make(target.url),
      maxConnections: 1,
      statementTimeoutMs: 600_000,
      ...(target.connectTimeoutMs === undefined ? {} : { connectTimeoutMs: target.connectTimeoutMs })
    })

/**
 * The Effect of `migrate`: connects to `target`, applies the pending migrations under the
 * migration lock, disconnects (a host's pool stays open). Fails with `MigrationFailed` or, when the
 * database cannot be reached, `DatabaseError`.
 */
export const migrateEffect = (target: MigrateTarget) => Effect.scoped(Effect.provide(runMigrations, DatabaseClient(configOf(target))))

/**
 * Applies the pending migrations to `target` and resolves with the migrations applied (none when
 * the schema was current) and the schema version after the run. Rejects with `MigrationFailed`
 * (a migration's error) or `DatabaseError` (the database cannot be reached), whose `message` says
 * what went wrong.
 *
 * ```ts
 * const { applied, version } = await migrate({ url: process.env.DATABASE_URL! })
 * ```
 */
export const migrate = (target: MigrateTarget): Promise<MigrationResult> => Effect.runPromise(migrateEffect(target))
