/**
 * The Dashboard feature's ports (DESIGN.md §4): sessions of the sign-in component, failed sign-in
 * counters, privacy requests and the audit log, per-project dashboard settings (iMessage
 * auto-scale, Slack integration), onboarding answers, the account erasure write, and the store's
 * health for diagnostics. `Context.Tag`s with no implementation.
 */
import { Context, type DateTime, type Effect, type Option } from "effect"
import type { AccountRecord } from "../identity/Ports.js"
import type { AccountId, ProjectId } from "../shared/Identifiers.js"

/** A signed-in session as stored: the cookie's token only as its SHA-256. */
export interface SessionRecord {
  readonly sessionId: string
  readonly tokenHash: string
  readonly accountId: AccountId
  readonly createdAt: DateTime.Utc
  readonly expiresAt: DateTime.Utc
  /** When the password (and TOTP code) were last checked for this session. */
  readonly authenticatedAt: DateTime.Utc
}

export class SessionsRepo extends Context.Tag("core/SessionsRepo")<SessionsRepo, {
  readonly insert: (session: SessionRecord) => Effect.Effect<void>
  readonly findByTokenHash: (tokenHash: string) => Effect.Effect<Option.Option<SessionRecord>>
  /** Deletes the session of that token; the deleted one, if there was one. */
  readonly deleteByTokenHash: (tokenHash: string) => Effect.Effect<Option.Option<SessionRecord>>
  /** Deletes every session of the account (erasure); how many. */
  readonly deleteForAccount: (accountId: AccountId) => Effect.Effect<number>
  /** Deletes sessions that expired at or before `now`, at most `limit`; how many. */
  readonly deleteExpired: (args: { readonly now: DateTime.Utc; readonly limit: number }) => Effect.Effect<number>
}>() {}

/** Failed sign-ins of one subject (a hash of the email) in the current window. */
export interface SignInFailures {
  readonly failures: number
  readonly windowStartedAt: DateTime.Utc
}

export class SignInThrottleRepo extends Context.Tag("core/SignInThrottleRepo")<SignInThrottleRepo, {
  readonly get: (subject: string) => Effect.Effect<Option.Option<SignInFailures>>
  /**
   * Counts one failure, atomically: in the subject's window when it started after `windowStart`,
   * else in a new window starting `now`. The count after this failure.
   */
  readonly recordFailure: (args: {
    readonly subject: string
    readonly now: DateTime.Utc
    readonly windowStart: DateTime.Utc
  }) => Effect.Effect<SignInFailures>
  readonly clear: (subject: string) => Effect.Effect<void>
  /** Drops windows that started at or before `before`; how many. */
  readonly purge: (before: DateTime.Utc) => Effect.Effect<number>
}>() {}

export type PrivacyRequestStatus = "received" | "completed"
/**
 * What processing did: the account was erased (deleted, its personal data overwritten), only
 * anonymised (it still owns organizations, so it stays as an anonymous owner), there was no live
 * account with that email, or the caller was not that account (nothing done; see PrivacyRequests).
 */
export type PrivacyRequestOutcome = "erased" | "anonymised" | "no_account" | "not_verified"

export interface PrivacyRequestRecord {
  readonly requestId: string
  /** The email as sent; cleared (null) once the request is processed. */
  readonly email: string | null
  /** SHA-256 of the lower-cased email: what the record keeps after processing. */
  readonly emailHash: string
  readonly requestedByAccountId: AccountId | null
  readonly status: PrivacyRequestStatus
  readonly outcome: PrivacyRequestOutcome | null
  readonly createdAt: DateTime.Utc
  readonly processedAt: DateTime.Utc | null
}

export class PrivacyRequestsRepo extends Context.Tag("core/PrivacyRequestsRepo")<PrivacyRequestsRepo, {
  readonly insert: (request: PrivacyRequestRecord) => Effect.Effect<void>
  readonly find: (requestId: string) => Effect.Effect<Option.Option<PrivacyRequestRecord>>
  /**
   * The oldest received request, locked until the surrounding transaction ends; requests locked by
   * another transaction are skipped (several processes may process at once).
   */
  readonly claimNext: Effect.Effect<Option.Option<PrivacyRequestRecord>>
  /** Marks a request completed with its outcome, and clears its email. */
  readonly complete: (args: {
    readonly requestId: string
    readonly outcome: PrivacyRequestOutcome
    readonly now: DateTime.Utc
  }) => Effect.Effect<void>
}>() {}

/** One audit record: who did what to what, when. `detail` holds no personal data. */
export interface AuditRecord {
  readonly auditId: string
  readonly action: string
  readonly actorAccountId: AccountId | null
  readonly subjectType: string
  readonly subjectId: string | null
  readonly detail: Readonly<Record<string, string>>
  readonly createdAt: DateTime.Utc
}

export class AuditLog extends Context.Tag("core/AuditLog")<AuditLog, {
  readonly append: (record: AuditRecord) => Effect.Effect<void>
  /** Records newest first, optionally of one subject id, at most `limit`. */
  readonly list: (args: { readonly subjectId?: string; readonly limit: number }) => Effect.Effect<ReadonlyArray<AuditRecord>>
}>() {}

/** A project's Slack integration as stored: the two secrets only sealed (ServerSecret `seal`). */
export interface SlackIntegrationRecord {
  readonly projectId: ProjectId
  readonly enabledFeatures: ReadonlyArray<string>
  readonly clientId: string
  readonly appId: string
  readonly clientSecretSealed: Uint8Array
  readonly signingSecretSealed: Uint8Array
  readonly createdAt: DateTime.Utc
  readonly updatedAt: DateTime.Utc
}

export class ProjectSettingsRepo extends Context.Tag("core/ProjectSettingsRepo")<ProjectSettingsRepo, {
  readonly getAutoScale: (projectId: ProjectId) => Effect.Effect<Option.Option<{ readonly autoScale: boolean; readonly updatedAt: DateTime.Utc }>>
  readonly putAutoScale: (args: { readonly projectId: ProjectId; readonly autoScale: boolean; readonly now: DateTime.Utc }) => Effect.Effect<void>
  readonly getSlack: (projectId: ProjectId) => Effect.Effect<Option.Option<SlackIntegrationRecord>>
  /** Creates or replaces the integration (`createdAt` of an existing one is kept). */
  readonly putSlack: (record: SlackIntegrationRecord) => Effect.Effect<SlackIntegrationRecord>
}>() {}

/** An account's onboarding answers (all optional). */
export interface OnboardingRecord {
  readonly accountId: AccountId
  readonly companyName: string | null
  readonly role: string | null
  readonly useCase: string | null
  readonly teamSize: number | null
  readonly createdAt: DateTime.Utc
  readonly updatedAt: DateTime.Utc
}

export class OnboardingRepo extends Context.Tag("core/OnboardingRepo")<OnboardingRepo, {
  readonly get: (accountId: AccountId) => Effect.Effect<Option.Option<OnboardingRecord>>
  /** Creates or replaces the answers (`createdAt` of existing ones is kept). */
  readonly put: (record: OnboardingRecord) => Effect.Effect<OnboardingRecord>
  readonly remove: (accountId: AccountId) => Effect.Effect<void>
}>() {}

export class AccountErasureRepo extends Context.Tag("core/AccountErasureRepo")<AccountErasureRepo, {
  /**
   * Overwrites the account's personal data (the same `accounts` row as `AccountsRepo`): the email
   * becomes `placeholderEmail`; names, phone, picture and password are cleared. None when absent.
   */
  readonly anonymise: (args: {
    readonly accountId: AccountId
    readonly placeholderEmail: string
    readonly now: DateTime.Utc
  }) => Effect.Effect<Option.Option<AccountRecord>>
}>() {}

/** The store's health, for `/api/system/diagnostics`. */
export interface StoreHealthReport {
  readonly ok: boolean
  readonly latencyMs: number
  /** Applied migrations, in order (`0001_identity`, …). */
  readonly migrations: ReadonlyArray<string>
}

export class StoreHealth extends Context.Tag("core/StoreHealth")<StoreHealth, {
  /** Never fails: an unreachable store is `ok: false`. */
  readonly check: Effect.Effect<StoreHealthReport>
}>() {}

/**
 * Webhook delivery counts for `/api/system/diagnostics`: deliveries waiting for an attempt and
 * dead-lettered ones. Implemented by the webhooks feature over its delivery table; optional — while
 * no layer provides it, the diagnostics report zeros.
 */
export class DeliveryStats extends Context.Tag("core/DeliveryStats")<DeliveryStats, {
  readonly counts: Effect.Effect<{ readonly pending: number; readonly deadLettered: number }>
  /** When the longest-waiting pending delivery was due (epoch ms), or null: the backlog's age. */
  readonly oldestPendingDueMillis: Effect.Effect<number | null>
}>() {}
