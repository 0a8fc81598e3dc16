/** The whole store on the SQL client (PGlite or PostgreSQL alike): the registry's repositories and the rest. */
import { CredentialRevocationsInProcess } from "@switchboard/core/credentials"
import { RateLimiterInProcess } from "@switchboard/core/shared"
import { SqlClient } from "effect/sql"
import { Effect, Layer } from "effect"
import { type DatabaseConfig, DatabaseLive, type DatabaseLiveOptions } from "./Database.js"
import { RepositoriesSql } from "./Features.js"
import { CredentialRevocationsSql } from "./credentials/CredentialRevocationsSql.js"
import { RateLimiterSql } from "./shared/RateLimiterSql.js"
import { RecordChangesSql } from "./shared/RecordChangesSql.js"
import { orDie } from "./shared/Sql.js"

export { RepositoriesSql }

/** Options of `StoreSql`: `migrate: false` when the host runs `migrate()` itself (`DatabaseLiveOptions`). */
export type StoreSqlOptions = DatabaseLiveOptions

/**
 * The store of one database: repositories, credential revocations and rate-limit counters (across
 * processes with PostgreSQL; in-process for PGlite, which one process owns) and the migrated client.
 * By default start-up migrates the database; with `{ migrate: false }` it only checks the schema
 * version and fails with `SchemaVersionMismatch` unless it is the one this package needs.
 */
export const StoreSql = (config: DatabaseConfig, options: StoreSqlOptions = {}) =>
  Layer.mergeAll(
    RepositoriesSql,
    RecordChangesSql,
    // Shared across processes through PostgreSQL; within the one process that owns a PGlite.
    ...(config._tag !== "Pglite"
      ? [CredentialRevocationsSql, RateLimiterSql] as const
      : [CredentialRevocationsInProcess, RateLimiterInProcess, ReleaseAbandonedIdempotencyLocks] as const)
  ).pipe(Layer.provideMerge(DatabaseLive(config, options)))

/**
 * PGlite has one owner, so at start every Idempotency-Key still in progress belongs to a process
 * that is gone: release them, and a retry runs at once instead of waiting out the lock.
 */
const ReleaseAbandonedIdempotencyLocks = Layer.effectDiscard(
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql`delete from idempotency_records where response_status is null`).pipe(orDie)
)
