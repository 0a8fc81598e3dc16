/**
 * The Dashboard feature's SQL repositories (migration 0011): sessions by token hash, sign-in
 * failure windows (one conditional upsert per failure), privacy requests (claimed with
 * `for update skip locked`, so several processes can run the job), the audit log, per-project
 * settings, onboarding answers, the account erasure write on `accounts`, and the store's health.
 */
import { SqlClient, SqlSchema } from "effect/sql"
import {
  OnboardingRepo,
  type OnboardingRecord,
  SessionsRepo,
  SignInThrottleRepo,
  StoreHealth
} from "@switchboard/core/dashboard"
import { AccountErasureRepo, AuditLog, type AuditRecord, PrivacyRequestsRepo } from "@switchboard/core/privacy"
import { ProjectSettingsRepo, type SlackIntegrationRecord } from "@switchboard/core/projects"
import { AccountId, ProjectId } from "@switchboard/core/shared"
import { Effect, Layer, Schema, SchemaTransformation } from "effect"
import { accountColumns, AccountRow } from "../accounts/AccountsRepoSql.js"
import { DbTime, DbTimeOrNull, orDie, toDate } from "../shared/Sql.js"

/** A jsonb column: parsed by the driver, or text under another driver setting. */
const Jsonb = <A, I>(schema: Schema.Codec<A, I>) =>
  Schema.Union([schema, Schema.fromJsonString(schema)]) as unknown as Schema.Codec<A, unknown>

const SessionRow = Schema.Struct({
  sessionId: Schema.String,
  tokenHash: Schema.String,
  accountId: AccountId,
  createdAt: DbTime,
  expiresAt: DbTime,
  authenticatedAt: DbTime
})
const sessionColumns = "session_id, token_hash, account_id, created_at, expires_at, authenticated_at"

const SessionsRepoSql = Layer.effect(
  SessionsRepo,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const cols = sql.literal(sessionColumns)
    const findByTokenHash = SqlSchema.findOneOption({
      Request: Schema.String,
      Result: SessionRow,
      execute: (h) => sql`select ${cols} from dashboard_sessions where token_hash = ${h}`
    })
    const deleteByTokenHash = SqlSchema.findOneOption({
      Request: Schema.String,
      Result: SessionRow,
      execute: (h) => sql`delete from dashboard_sessions where token_hash = ${h} returning ${cols}`
    })
    const count = Schema.Struct({ n: Schema.Union([Schema.Int, Schema.NumberFromString]) })
    return SessionsRepo.of({
      insert: (s) =>
        orDie(sql`insert into dashboard_sessions ${
          sql.insert({
            sessionId: s.sessionId,
            tokenHash: s.tokenHash,
            accountId: s.accountId,
            createdAt: toDate(s.createdAt),
            expiresAt: toDate(s.expiresAt),
            authenticatedAt: toDate(s.authenticatedAt)
          })
        }`).pipe(Effect.asVoid),
      findByTokenHash: (h) => orDie(findByTokenHash(h)),
      deleteByTokenHash: (h) => orDie(deleteByTokenHash(h)),
      deleteForAccount: (accountId) =>
        orDie(SqlSchema.findOne({
          Request: Schema.String,
          Result: count,
          execute: (id) => sql`with d as (delete from dashboard_sessions where account_id = ${id} returning 1) select count(*) as n from d`
        })(accountId)).pipe(Effect.map((r) => r.n)),
      deleteExpired: ({ limit, now }) =>
        orDie(SqlSchema.findOne({
          Request: Schema.Void,
          Result: count,
          execute: () =>
            sql`
              with d as (
                delete from dashboard_sessions where token_hash in (
                  select token_hash from dashboard_sessions where expires_at <= ${toDate(now)} limit ${limit}
                ) returning 1
              ) select count(*) as n from d`
        })(undefined)).pipe(Effect.map((r) => r.n))
    })
  })
)

const FailuresRow = Schema.Struct({ failures: Schema.Int, windowStartedAt: DbTime })

const SignInThrottleRepoSql = Layer.effect(
  SignInThrottleRepo,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const get = SqlSchema.findOneOption({
      Request: Schema.String,
      Result: FailuresRow,
      execute: (s) => sql`select failures, window_started_at from dashboard_sign_in_failures where subject = ${s}`
    })
    return SignInThrottleRepo.of({
      get: (subject) => orDie(get(subject)),
      // One statement: concurrent failures of one subject all count.
      recordFailure: ({ now, subject, windowStart }) =>
        orDie(SqlSchema.findOne({
          Request: Schema.Void,
          Result: FailuresRow,
          execute: () =>
            sql`
              insert into dashboard_sign_in_failures (subject, failures, window_started_at)
              values (${subject}, 1, ${toDate(now)})
              on conflict (subject) do update set
                failures = case when dashboard_sign_in_failures.window_started_at > ${toDate(windowStart)}
                  then dashboard_sign_in_failures.failures + 1 else 1 end,
                window_started_at = case when dashboard_sign_in_failures.window_started_at > ${toDate(windowStart)}
                  then dashboard_sign_in_failures.window_started_at else ${toDate(now)} end
              returning failures, window_started_at`
        })(undefined)),
      clear: (subject) => orDie(sql`delete from dashboard_sign_in_failures where subject = ${subject}`).pipe(Effect.asVoid),
      purge: (before) =>
        orDie(sql<{ subject: string }>`delete from dashboard_sign_in_failures where window_started_at <= ${toDate(before)} returning subject`)
          .pipe(Effect.map((rows) => rows.length))
    })
  })
)

const PrivacyRequestRow = Schema.Struct({
  requestId: Schema.String,
  email: Schema.NullOr(Schema.String),
  emailHash: Schema.String,
  requestedByAccountId: Schema.NullOr(AccountId),
  status: Schema.Literals(["received", "completed"]),
  outcome: Schema.NullOr(Schema.Literals(["erased", "anonymised", "no_account", "not_verified"])),
  createdAt: DbTime,
  processedAt: DbTimeOrNull
})
const requestColumns = "request_id, email, email_hash, requested_by_account_id, status, outcome, created_at, processed_at"

const PrivacyRequestsRepoSql = Layer.effect(
  PrivacyRequestsRepo,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const cols = sql.literal(requestColumns)
    const find = SqlSchema.findOneOption({
      Request: Schema.String,
      Result: PrivacyRequestRow,
      execute: (id) => sql`select ${cols} from privacy_requests where request_id = ${id}`
    })
    const claimNext = SqlSchema.findOneOption({
      Request: Schema.Void,
      Result: PrivacyRequestRow,
      execute: () =>
        sql`
          select ${cols} from privacy_requests where status = 'received'
          order by created_at, request_id limit 1 for update skip locked`
    })
    return PrivacyRequestsRepo.of({
      insert: (r) =>
        orDie(sql`insert into privacy_requests ${
          sql.insert({
            requestId: r.requestId,
            email: r.email,
            emailHash: r.emailHash,
            requestedByAccountId: r.requestedByAccountId,
            status: r.status,
            outcome: r.outcome,
            createdAt: toDate(r.createdAt),
            processedAt: r.processedAt === null ? null : toDate(r.processedAt)
          })
        }`).pipe(Effect.asVoid),
      find: (id) => orDie(find(id)),
      claimNext: orDie(claimNext(undefined)),
      complete: ({ now, outcome, requestId }) =>
        orDie(sql`
          update privacy_requests set status = 'completed', outcome = ${outcome}, processed_at = ${toDate(now)}, email = null
          where request_id = ${requestId}`).pipe(Effect.asVoid)
    })
  })
)

const AuditRow = Schema.Struct({
  auditId: Schema.String,
  action: Schema.String,
  actorAccountId: Schema.NullOr(AccountId),
  subjectType: Schema.String,
  subjectId: Schema.NullOr(Schema.String),
  detail: Jsonb(Schema.Record(Schema.String, Schema.String)),
  createdAt: DbTime
})

const AuditLogSql = Layer.effect(
  AuditLog,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const cols = sql.literal("audit_id, action, actor_account_id, subject_type, subject_id, detail, created_at")
    return AuditLog.of({
      append: (r: AuditRecord) =>
        orDie(sql`
          insert into audit_records (audit_id, action, actor_account_id, subject_type, subject_id, detail, created_at)
          values (${r.auditId}, ${r.action}, ${r.actorAccountId}, ${r.subjectType}, ${r.subjectId},
                  ${JSON.stringify(r.detail)}::jsonb, ${toDate(r.createdAt)})`).pipe(Effect.asVoid),
      list: ({ limit, subjectId }) =>
        orDie(SqlSchema.findAll({
          Request: Schema.Void,
          Result: AuditRow,
          execute: () =>
            subjectId === undefined
              ? sql`select ${cols} from audit_records order by created_at desc, audit_id desc limit ${limit}`
              : sql`select ${cols} from audit_records where subject_id = ${subjectId} order by created_at desc, audit_id desc limit ${limit}`
        })(undefined))
    })
  })
)

/** A `bytea` column: `pg` returns a Buffer; callers get a plain Uint8Array. */
const Bytes = Schema.Uint8Array.pipe(Schema.decodeTo(
  Schema.Uint8Array,
  SchemaTransformation.transform({
    decode: (b: Uint8Array) => new Uint8Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength)),
    encode: (b: Uint8Array) => b
  })
))

const SlackRow = Schema.Struct({
  projectId: ProjectId,
  enabledFeatures: Jsonb(Schema.Array(Schema.String)),
  clientId: Schema.String,
  appId: Schema.String,
  clientSecretSealed: Bytes,
  signingSecretSealed: Bytes,
  createdAt: DbTime,
  updatedAt: DbTime
})
const slackColumns = "project_id, enabled_features, client_id, app_id, client_secret_sealed, signing_secret_sealed, created_at, updated_at"

const ProjectSettingsRepoSql = Layer.effect(
  ProjectSettingsRepo,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const slackCols = sql.literal(slackColumns)
    const getAutoScale = SqlSchema.findOneOption({
      Request: Schema.String,
      Result: Schema.Struct({ autoScale: Schema.Boolean, updatedAt: DbTime }),
      execute: (id) => sql`select auto_scale, updated_at from project_imessage_settings where project_id = ${id}`
    })
    const getSlack = SqlSchema.findOneOption({
      Request: Schema.String,
      Result: SlackRow,
      execute: (id) => sql`select ${slackCols} from project_slack_integrations where project_id = ${id}`
    })
    return ProjectSettingsRepo.of({
      getAutoScale: (projectId) => orDie(getAutoScale(projectId)),
      putAutoScale: ({ autoScale, now, projectId }) =>
        orDie(sql`
          insert into project_imessage_settings (project_id, auto_scale, updated_at)
          values (${projectId}, ${autoScale}, ${toDate(now)})
          on conflict (project_id) do update set auto_scale = excluded.auto_scale, updated_at = excluded.updated_at`)
          .pipe(Effect.asVoid),
      getSlack: (projectId) => orDie(getSlack(projectId)),
      putSlack: (r: SlackIntegrationRecord) =>
        orDie(SqlSchema.findOne({
          Request: Schema.Void,
          Result: SlackRow,
          execute: () =>
            sql`
              insert into project_slack_integrations (${slackCols})
              values (${r.projectId}, ${JSON.stringify(r.enabledFeatures)}::jsonb, ${r.clientId}, ${r.appId},
                      ${r.clientSecretSealed}, ${r.signingSecretSealed}, ${toDate(r.createdAt)}, ${toDate(r.updatedAt)})
              on conflict (project_id) do update set
                enabled_features = excluded.enabled_features, client_id = excluded.client_id, app_id = excluded.app_id,
                client_secret_sealed = excluded.client_secret_sealed, signing_secret_sealed = excluded.signing_secret_sealed,
                updated_at = excluded.updated_at
              returning ${slackCols}`
        })(undefined))
    })
  })
)

const OnboardingRow = Schema.Struct({
  accountId: AccountId,
  companyName: Schema.NullOr(Schema.String),
  role: Schema.NullOr(Schema.String),
  useCase: Schema.NullOr(Schema.String),
  teamSize: Schema.NullOr(Schema.Int),
  createdAt: DbTime,
  updatedAt: DbTime
})
const onboardingColumns = "account_id, company_name, role, use_case, team_size, created_at, updated_at"

const OnboardingRepoSql = Layer.effect(
  OnboardingRepo,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const cols = sql.literal(onboardingColumns)
    const get = SqlSchema.findOneOption({
      Request: Schema.String,
      Result: OnboardingRow,
      execute: (id) => sql`select ${cols} from onboarding_answers where account_id = ${id}`
    })
    return OnboardingRepo.of({
      get: (accountId) => orDie(get(accountId)),
      put: (r: OnboardingRecord) =>
        orDie(SqlSchema.findOne({
          Request: Schema.Void,
          Result: OnboardingRow,
          execute: () =>
            sql`
              insert into onboarding_answers (${cols})
              values (${r.accountId}, ${r.companyName}, ${r.role}, ${r.useCase}, ${r.teamSize}, ${toDate(r.createdAt)}, ${toDate(r.updatedAt)})
              on conflict (account_id) do update set
                company_name = excluded.company_name, role = excluded.role, use_case = excluded.use_case,
                team_size = excluded.team_size, updated_at = excluded.updated_at
              returning ${cols}`
        })(undefined)),
      remove: (accountId) => orDie(sql`delete from onboarding_answers where account_id = ${accountId}`).pipe(Effect.asVoid)
    })
  })
)

const AccountErasureRepoSql = Layer.effect(
  AccountErasureRepo,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const cols = sql.literal(accountColumns)
    return AccountErasureRepo.of({
      anonymise: ({ accountId, now, placeholderEmail }) =>
        orDie(SqlSchema.findOneOption({
          Request: Schema.String,
          Result: AccountRow,
          execute: (id) =>
            sql`
              update accounts set email = ${placeholderEmail}, first_name = null, last_name = null, phone_number = null,
                phone_verified_at = null, picture_url = null, password_hash = null, updated_at = ${toDate(now)}
              where account_id = ${id}
              returning ${cols}`
        })(accountId))
    })
  })
)

const StoreHealthSql = Layer.effect(
  StoreHealth,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const migrations = SqlSchema.findAll({
      Request: Schema.Void,
      Result: Schema.Struct({ migrationId: Schema.Int, name: Schema.String }),
      execute: () => sql`select migration_id, name from switchboard_migrations order by migration_id`
    })
    return StoreHealth.of({
      check: Effect.gen(function*() {
        const started = performance.now()
        yield* sql`select 1`
        const latencyMs = Math.round((performance.now() - started) * 100) / 100
        const applied = yield* migrations(undefined)
        return { ok: true, latencyMs, migrations: applied.map((m) => `${String(m.migrationId).padStart(4, "0")}_${m.name}`) }
      }).pipe(
        // Unreachable (or any other failure): reported, not thrown — diagnostics must answer.
        Effect.catchCause(() => Effect.succeed({ ok: false, latencyMs: 0, migrations: [] as ReadonlyArray<string> })),
        Effect.timeoutOrElse({
          duration: "5 seconds",
          orElse: () => Effect.succeed({ ok: false, latencyMs: 5000, migrations: [] as ReadonlyArray<string> })
        })
      )
    })
  })
)

export const DashboardReposSql = Layer.mergeAll(
  SessionsRepoSql,
  SignInThrottleRepoSql,
  PrivacyRequestsRepoSql,
  AuditLogSql,
  ProjectSettingsRepoSql,
  OnboardingRepoSql,
  AccountErasureRepoSql,
  StoreHealthSql
)
