/**
 * The Privacy context's ports (docs/architecture.md#rules-of-the-road): privacy requests, the audit
 * log and the account erasure write. `Context.Tag`s with no implementation.
 */
import { Context, DateTime, type Effect, type Option } from "effect"
import type { AccountRecord } from "../accounts/Ports.js"
import type { AccountId } from "../shared/Identifiers.js"

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

export class PrivacyRequestsRepo extends Context.Service<PrivacyRequestsRepo, {
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
}>()("core/PrivacyRequestsRepo") {}

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

export class AuditLog extends Context.Service<AuditLog, {
  readonly append: (record: AuditRecord) => Effect.Effect<void>
  /** Records newest first, optionally of one subject id, at most `limit`. */
  readonly list: (args: { readonly subjectId?: string; readonly limit: number }) => Effect.Effect<ReadonlyArray<AuditRecord>>
}>()("core/AuditLog") {}

export class AccountErasureRepo extends Context.Service<AccountErasureRepo, {
  /**
   * Overwrites the account's personal data (the same `accounts` row as `AccountsRepo`): the email
   * becomes `placeholderEmail`; names, phone, picture and password are cleared. None when absent.
   */
  readonly anonymise: (args: {
    readonly accountId: AccountId
    readonly placeholderEmail: string
    readonly now: DateTime.Utc
  }) => Effect.Effect<Option.Option<AccountRecord>>
}>()("core/AccountErasureRepo") {}
