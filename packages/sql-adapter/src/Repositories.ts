/** The whole store on the SQL client (PGlite or PostgreSQL alike): the registry's repositories and the rest. */
import { CredentialRevocationsInProcess } from "@switchboard/core/credentials"
import { RateLimiterInProcess } from "@switchboard/core/shared"
import { SqlClient } from "effect/sql"
import { Effect, Layer } from "effect"
import { DatabaseConfig, DatabaseLive } from "./Database.js"
import { RepositoriesSql } from "./Features.js"
import { CredentialRevocationsSql } from "./credentials/CredentialRevocationsSql.js"
import { RateLimiterSql } from "./shared/RateLimiterSql.js"
import { RecordChangesSql } from "./shared/RecordChangesSql.js"
import { orDie } from "./shared/Sql.js"

export { RepositoriesSql }

/**
 * The store of one database: repositories, credential revocations and rate-limit counters (across
 * processes with PostgreSQL; in-process for PGlite, which one process owns) and the migrated client.
 */
export const StoreSql = (config: DatabaseConfig) =>
  Layer.mergeAll(
    RepositoriesSql,
    RecordChangesSql,
    // Shared across processes through PostgreSQL; within the one process that owns a PGlite.
    ...(DatabaseConfig.$is("Postgres")(config)
      ? [CredentialRevocationsSql, RateLimiterSql] as const
      : [CredentialRevocationsInProcess, RateLimiterInProcess, ReleaseAbandonedIdempotencyLocks] as const)
  ).pipe(Layer.provideMerge(DatabaseLive(config)))

/**
 * PGlite has one owner, so at start every Idempotency-Key still in progress belongs to a process
 * that is gone: release them, and a retry runs at once instead of waiting out the lock.
 */
const ReleaseAbandonedIdempotencyLocks = Layer.effectDiscard(
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql`delete from idempotency_records where response_status is null`).pipe(orDie)
)
