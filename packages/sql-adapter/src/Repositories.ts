/** Every repository port on the SQL client (PGlite or PostgreSQL alike), and the whole store. */
import { CredentialRevocationsInProcess } from "@switchboard/core/credentials"
import { RateLimiterInProcess } from "@switchboard/core/shared"
import { SqlClient } from "@effect/sql"
import { Effect, Layer } from "effect"
import { DatabaseConfig, DatabaseLive } from "./Database.js"
import { AccountServiceKeysRepoSql } from "./credentials/AccountServiceKeysRepoSql.js"
import { AccountsRepoSql } from "./accounts/AccountsRepoSql.js"
import { CredentialRevocationsSql } from "./credentials/CredentialRevocationsSql.js"
import { IdempotencyStoreSql } from "./shared/IdempotencyStoreSql.js"
import { RateLimiterSql } from "./shared/RateLimiterSql.js"
import { RecordChangesSql } from "./shared/RecordChangesSql.js"
import { TransactorSql } from "./shared/TransactorSql.js"
import { OrganizationsReposSql } from "./organizations/OrganizationsSql.js"
import { ProjectsReposSql } from "./projects/ProjectsSql.js"
import { ProjectApiKeysReposSql } from "./credentials/ProjectApiKeysSql.js"
import { AccountSecurityReposSql } from "./accounts/AccountSecuritySql.js"
import { UploadsReposSql } from "./uploads/UploadsSql.js"
import { AccessTokensReposSql } from "./oauth/AccessTokensSql.js"
import { EventsReposSql } from "./events/EventsSql.js"
import { VoiceReposSql } from "./voice/VoiceSql.js"
import { BillingReposSql } from "./billing/BillingSql.js"
import { WebhooksReposSql } from "./events/WebhooksSql.js"
import { PlatformsAndUsersReposSql } from "./projects/PlatformsAndUsersSql.js"
import { OAuthProviderReposSql } from "./oauth/OAuthProviderSql.js"
import { DashboardReposSql } from "./dashboard/DashboardSql.js"

export const RepositoriesSql = Layer.mergeAll(
  TransactorSql,
  AccountsRepoSql,
  AccountServiceKeysRepoSql,
  IdempotencyStoreSql,
  OrganizationsReposSql,
  ProjectsReposSql,
  ProjectApiKeysReposSql,
  AccountSecurityReposSql,
  UploadsReposSql,
  AccessTokensReposSql,
  EventsReposSql,
  VoiceReposSql,
  BillingReposSql,
  WebhooksReposSql,
  PlatformsAndUsersReposSql,
  OAuthProviderReposSql,
  DashboardReposSql
)

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
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql`delete from idempotency_records where response_status is null`).pipe(Effect.orDie)
)
