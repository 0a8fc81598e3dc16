/** Identity's repository ports: `Context.Tag`s with no implementation (docs/architecture.md#rules-of-the-road). */
import { Context, DateTime, type Effect, type Option, type Redacted, type Stream } from "effect"
import type { AccountId, ServiceKeyId } from "../shared/Identifiers.js"
import type { AccountNotFound, AccountServiceKeyLimitReached, EmailTaken } from "./Errors.js"
import type { AccountServiceKey } from "./Schema.js"

/** An account as stored. `pictureUrl` null means "the default picture". */
export interface AccountRecord {
  readonly accountId: AccountId
  readonly email: string
  readonly firstName: string | null
  readonly lastName: string | null
  readonly phoneNumber: string | null
  readonly phoneVerifiedAt: DateTime.Utc | null
  readonly pictureUrl: string | null
  readonly passwordHash: string | null
  readonly createdAt: DateTime.Utc
  readonly updatedAt: DateTime.Utc
  readonly deletedAt: DateTime.Utc | null
}

export class AccountsRepo extends Context.Service<AccountsRepo, {
  /** Inserts a new account; the email is unique without regard to case. */
  readonly insert: (account: AccountRecord) => Effect.Effect<void, EmailTaken>
  readonly findById: (accountId: AccountId) => Effect.Effect<Option.Option<AccountRecord>>
  readonly findByEmail: (email: string) => Effect.Effect<Option.Option<AccountRecord>>
  /** Whether any account exists (the standalone server bootstraps an empty store). */
  readonly isEmpty: Effect.Effect<boolean>
}>()("core/AccountsRepo") {}

/** A service key with the hash of its secret, as needed to verify a presented credential. */
export interface StoredServiceKey {
  readonly serviceKey: AccountServiceKey
  readonly secretHash: string
}

export class AccountServiceKeysRepo extends Context.Service<AccountServiceKeysRepo, {
  /**
   * Inserts a key unless the account already has `limit` live keys (unrevoked, unexpired at `now`).
   * The check and the insert are atomic: concurrent creates never exceed the limit.
   */
  readonly insert: (args: {
    readonly serviceKey: AccountServiceKey
    readonly secretHash: string
    readonly limit: number
    readonly now: DateTime.Utc
  }) => Effect.Effect<void, AccountServiceKeyLimitReached | AccountNotFound>
  /** The account's unrevoked keys (expired included), newest first. */
  readonly listUnrevoked: (accountId: AccountId) => Effect.Effect<ReadonlyArray<AccountServiceKey>>
  readonly findById: (serviceKeyId: ServiceKeyId) => Effect.Effect<Option.Option<StoredServiceKey>>
  /**
   * Sets `revokedAt` to `now` unless already set (so a repeat keeps the first time) and returns
   * the key; none when the account has no such key.
   */
  readonly revoke: (args: {
    readonly accountId: AccountId
    readonly serviceKeyId: ServiceKeyId
    readonly now: DateTime.Utc
  }) => Effect.Effect<Option.Option<AccountServiceKey>>
}>()("core/AccountServiceKeysRepo") {}

/** Password hashing (scrypt with a per-user salt in the adapters; docs/architecture.md#reliability-and-security). */
export class PasswordHasher extends Context.Service<PasswordHasher, {
  readonly hash: (password: Redacted.Redacted<string>) => Effect.Effect<string>
  readonly verify: (password: Redacted.Redacted<string>, hash: string) => Effect.Effect<boolean>
}>()("core/PasswordHasher") {}

/**
 * Revocations of credentials, told to every server process so their caches drop the key at once
 * (docs/architecture.md#d3-scale-out: `pg_notify` on PostgreSQL; in-process where the store is
 * single-process).
 */
export class CredentialRevocations extends Context.Service<CredentialRevocations, {
  /** Announces a revoked key id; with a transactional store it is delivered on commit. */
  readonly publish: (keyId: string) => Effect.Effect<void>
  /** Key ids revoked from now on, by any process. */
  readonly subscribe: Stream.Stream<string>
}>()("core/CredentialRevocations") {}
