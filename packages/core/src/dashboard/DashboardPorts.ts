/**
 * The Dashboard feature's ports (docs/architecture.md#rules-of-the-road): sessions of the sign-in
 * component, failed sign-in counters, onboarding answers, and the store's health for diagnostics.
 * `Context.Tag`s with no implementation. Privacy requests live in `privacy/`, per-project settings
 * in `projects/`.
 */
import { Context, DateTime, type Effect, type Option } from "effect"
import type { AccountId } from "../shared/Identifiers.js"

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

export class SessionsRepo extends Context.Service<SessionsRepo, {
  readonly insert: (session: SessionRecord) => Effect.Effect<void>
  readonly findByTokenHash: (tokenHash: string) => Effect.Effect<Option.Option<SessionRecord>>
  /** Deletes the session of that token; the deleted one, if there was one. */
  readonly deleteByTokenHash: (tokenHash: string) => Effect.Effect<Option.Option<SessionRecord>>
  /** Deletes every session of the account (erasure); how many. */
  readonly deleteForAccount: (accountId: AccountId) => Effect.Effect<number>
  /** Deletes sessions that expired at or before `now`, at most `limit`; how many. */
  readonly deleteExpired: (args: { readonly now: DateTime.Utc; readonly limit: number }) => Effect.Effect<number>
}>()("core/SessionsRepo") {}

/** Failed sign-ins of one subject (a hash of the email) in the current window. */
export interface SignInFailures {
  readonly failures: number
  readonly windowStartedAt: DateTime.Utc
}

export class SignInThrottleRepo extends Context.Service<SignInThrottleRepo, {
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
}>()("core/SignInThrottleRepo") {}

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

export class OnboardingRepo extends Context.Service<OnboardingRepo, {
  readonly get: (accountId: AccountId) => Effect.Effect<Option.Option<OnboardingRecord>>
  /** Creates or replaces the answers (`createdAt` of existing ones is kept). */
  readonly put: (record: OnboardingRecord) => Effect.Effect<OnboardingRecord>
  readonly remove: (accountId: AccountId) => Effect.Effect<void>
}>()("core/OnboardingRepo") {}

/** The store's health, for `/api/system/diagnostics`. */
export interface StoreHealthReport {
  readonly ok: boolean
  readonly latencyMs: number
  /** Applied migrations, in order (`0001_identity`, …). */
  readonly migrations: ReadonlyArray<string>
}

export class StoreHealth extends Context.Service<StoreHealth, {
  /** Never fails: an unreachable store is `ok: false`. */
  readonly check: Effect.Effect<StoreHealthReport>
}>()("core/StoreHealth") {}

/**
 * Webhook delivery counts for `/api/system/diagnostics`: deliveries waiting for an attempt and
 * dead-lettered ones. Implemented by the webhooks feature over its delivery table; optional — while
 * no layer provides it, the diagnostics report zeros.
 */
export class DeliveryStats extends Context.Service<DeliveryStats, {
  readonly counts: Effect.Effect<{ readonly pending: number; readonly deadLettered: number }>
  /** When the longest-waiting pending delivery was due (epoch ms), or null: the backlog's age. */
  readonly oldestPendingDueMillis: Effect.Effect<number | null>
}>()("core/DeliveryStats") {}
