/**
 * Account security's ports: the account row's profile writes (the same `accounts` table as
 * `AccountsRepo`), pending phone verifications, TOTP factors, and the SMS sender.
 */
import { Context, DateTime, type Effect, type Option } from "effect"
import type { AccountId, TotpFactorId } from "../shared/Identifiers.js"
import type { SmsDeliveryFailed } from "./AccountSecurityErrors.js"
import type { AccountRecord } from "./Ports.js"

export class AccountProfileRepo extends Context.Service<AccountProfileRepo, {
  /** The account, its row locked until the surrounding transaction ends (deleted ones too). */
  readonly lock: (accountId: AccountId) => Effect.Effect<Option.Option<AccountRecord>>
  /**
   * Sets the names given (an absent one is kept; `lastName` null clears it) and `updatedAt` on a
   * live account; none when there is no such account or it is deleted.
   */
  readonly updateNames: (args: {
    readonly accountId: AccountId
    readonly firstName?: string
    readonly lastName?: string | null
    readonly now: DateTime.Utc
  }) => Effect.Effect<Option.Option<AccountRecord>>
  /** Binds a verified phone number: `phoneNumber`, `phoneVerifiedAt` and `updatedAt`; none as above. */
  readonly bindPhone: (args: {
    readonly accountId: AccountId
    readonly phoneNumber: string
    readonly now: DateTime.Utc
  }) => Effect.Effect<Option.Option<AccountRecord>>
  /** Sets `deletedAt` and `updatedAt` unless already deleted (a repeat keeps the first); none when absent. */
  readonly markDeleted: (args: { readonly accountId: AccountId; readonly now: DateTime.Utc }) => Effect.Effect<
    Option.Option<AccountRecord>
  >
}>()("core/AccountProfileRepo") {}

/** The pending phone verification of an account (one at a time; a new one replaces it). */
export interface PhoneVerificationRecord {
  readonly accountId: AccountId
  /** Normalised: the digits, with the leading `+` when one was sent. */
  readonly phoneNumber: string
  /** A keyed MAC of the code (never the code). */
  readonly codeHash: string
  /** Wrong codes tried so far. */
  readonly attempts: number
  readonly createdAt: DateTime.Utc
  readonly expiresAt: DateTime.Utc
  readonly resendAvailableAt: DateTime.Utc
}

export class PhoneVerificationsRepo extends Context.Service<PhoneVerificationsRepo, {
  /** The account's pending verification, its row locked until the surrounding transaction ends. */
  readonly find: (accountId: AccountId) => Effect.Effect<Option.Option<PhoneVerificationRecord>>
  /** Stores the account's pending verification, replacing any earlier one. */
  readonly put: (record: PhoneVerificationRecord) => Effect.Effect<void>
  /** Counts one wrong code (atomically) and returns the new count; none when nothing is pending. */
  readonly recordFailedAttempt: (accountId: AccountId) => Effect.Effect<Option.Option<number>>
  readonly remove: (accountId: AccountId) => Effect.Effect<void>
}>()("core/PhoneVerificationsRepo") {}

/** A TOTP factor as stored: the secret only sealed (ServerSecret `seal("totp", …)`). */
export interface TotpFactorRecord {
  readonly factorId: TotpFactorId
  readonly accountId: AccountId
  /** AES-GCM of the raw secret; null once the factor is deleted. */
  readonly secretSealed: Uint8Array | null
  /** SHA-256 (hex) of the enrollment token. */
  readonly enrollmentTokenHash: string
  readonly enrollmentExpiresAt: DateTime.Utc
  readonly createdAt: DateTime.Utc
  readonly verifiedAt: DateTime.Utc | null
  /** The last time step a code was accepted for (codes of it and earlier steps are refused). */
  readonly lastUsedStep: number | null
  readonly deletedAt: DateTime.Utc | null
}

export class TotpFactorsRepo extends Context.Service<TotpFactorsRepo, {
  readonly insert: (factor: TotpFactorRecord) => Effect.Effect<void>
  /** The factor, its row locked until the surrounding transaction ends. */
  readonly find: (factorId: TotpFactorId) => Effect.Effect<Option.Option<TotpFactorRecord>>
  /** The account's verified, undeleted factors, oldest first. */
  readonly listVerified: (accountId: AccountId) => Effect.Effect<ReadonlyArray<TotpFactorRecord>>
  /**
   * Accepts a code of `step` for an undeleted factor: atomically, only when `step` is later than the
   * last used one; sets `lastUsedStep` and `verifiedAt` (once). False when the step was used already.
   */
  readonly useStep: (args: {
    readonly factorId: TotpFactorId
    readonly step: number
    readonly now: DateTime.Utc
  }) => Effect.Effect<boolean>
  /**
   * Deletes one of the account's factors: sets `deletedAt` unless set (a repeat keeps the first)
   * and drops the sealed secret. None when the account has no such factor.
   */
  readonly softDelete: (args: {
    readonly accountId: AccountId
    readonly factorId: TotpFactorId
    readonly now: DateTime.Utc
  }) => Effect.Effect<Option.Option<TotpFactorRecord>>
  /** Removes the account's unverified enrollments (a new enrollment supersedes them). */
  readonly removePending: (accountId: AccountId) => Effect.Effect<void>
  /** Soft-deletes every factor of the account (account deletion). */
  readonly softDeleteAll: (args: { readonly accountId: AccountId; readonly now: DateTime.Utc }) => Effect.Effect<void>
}>()("core/TotpFactorsRepo") {}

/**
 * Sends a text message (phone verification codes). The standalone server logs it; a host plugs in
 * its SMS provider; the testkit keeps an inbox.
 */
export class SmsSender extends Context.Service<SmsSender, {
  readonly send: (phoneNumber: string, text: string) => Effect.Effect<void, SmsDeliveryFailed>
}>()("core/SmsSender") {}
