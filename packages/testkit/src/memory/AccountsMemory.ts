/**
 * In-memory repositories of the identity slice: accounts, account service keys and idempotency
 * records, as tables of the shared `MemoryState`.
 */
import {
  AccountNotFound,
  type AccountRecord,
  AccountsRepo,
  AccountServiceKeyLimitReached,
  AccountServiceKeysRepo,
  EmailTaken,
  type StoredServiceKey
} from "@switchboard/core/accounts"
import { BeginOutcome, IdempotencyStore, type StoredResponse, inProgressRetryAfter } from "@switchboard/core/shared"
import { DateTime, Duration, Effect, Layer, Option } from "effect"
import { MemoryState } from "./MemoryState.js"

interface IdempotencyRow {
  readonly fingerprint: string
  readonly createdAt: DateTime.Utc
  readonly lockedAt: DateTime.Utc
  readonly response: StoredResponse | null
}

const newestFirst = (a: StoredServiceKey, b: StoredServiceKey) =>
  DateTime.toEpochMillis(b.serviceKey.createdAt) - DateTime.toEpochMillis(a.serviceKey.createdAt) ||
  (b.serviceKey.serviceKeyId < a.serviceKey.serviceKeyId ? -1 : 1)

const make = Effect.gen(function*() {
  const state = yield* MemoryState
  const accountsTable = state.table<string, AccountRecord>("accounts")
  const serviceKeysTable = state.table<string, StoredServiceKey>("account_service_keys")
  const idempotencyTable = state.table<string, IdempotencyRow>("idempotency_records")
  const st = () => ({ accounts: accountsTable, serviceKeys: serviceKeysTable, idempotency: idempotencyTable })

  const accounts = AccountsRepo.of({
    insert: (account) =>
      Effect.suspend((): Effect.Effect<void, EmailTaken> => {
        const email = account.email.toLowerCase()
        for (const a of st().accounts.values()) {
          if (a.email.toLowerCase() === email) return Effect.fail(new EmailTaken({ email: account.email }))
        }
        st().accounts.set(account.accountId, account)
        return Effect.void
      }),
    findById: (id) => Effect.sync(() => Option.fromNullishOr(st().accounts.get(id))),
    findByEmail: (email) =>
      Effect.sync(() =>
        Option.fromNullishOr([...st().accounts.values()].find((a) => a.email.toLowerCase() === email.toLowerCase()))
      ),
    isEmpty: Effect.sync(() => st().accounts.size === 0)
  })

  const serviceKeys = AccountServiceKeysRepo.of({
    insert: ({ limit, now, secretHash, serviceKey }) =>
      Effect.suspend((): Effect.Effect<void, AccountNotFound | AccountServiceKeyLimitReached> => {
        if (!st().accounts.has(serviceKey.accountId)) {
          return Effect.fail(new AccountNotFound({ accountId: serviceKey.accountId }))
        }
        const live = [...st().serviceKeys.values()].filter(({ serviceKey: k }) =>
          k.accountId === serviceKey.accountId && k.revokedAt === null &&
          (k.expiresAt === null || DateTime.isGreaterThan(k.expiresAt, now))
        ).length
        if (live >= limit) return Effect.fail(new AccountServiceKeyLimitReached({ limit }))
        st().serviceKeys.set(serviceKey.serviceKeyId, { serviceKey, secretHash })
        return Effect.void
      }),
    listUnrevoked: (accountId) =>
      Effect.sync(() =>
        [...st().serviceKeys.values()]
          .filter(({ serviceKey: k }) => k.accountId === accountId && k.revokedAt === null)
          .sort(newestFirst)
          .map((s) => s.serviceKey)
      ),
    findById: (id) => Effect.sync(() => Option.fromNullishOr(st().serviceKeys.get(id))),
    revoke: ({ accountId, now, serviceKeyId }) =>
      Effect.sync(() => {
        const stored = st().serviceKeys.get(serviceKeyId)
        if (stored === undefined || stored.serviceKey.accountId !== accountId) return Option.none()
        if (stored.serviceKey.revokedAt !== null) return Option.some(stored.serviceKey)
        const serviceKey = { ...stored.serviceKey, revokedAt: now }
        st().serviceKeys.set(serviceKeyId, { ...stored, serviceKey })
        return Option.some(serviceKey)
      })
  })

  const idemKey = (scope: string, key: string) => `${scope}\u0000${key}`
  const idempotency = IdempotencyStore.of({
    begin: ({ fingerprint, key, lockFor, now, retainFor, scope }) =>
      Effect.sync(() => {
        const k = idemKey(scope, key)
        const row = st().idempotency.get(k)
        const fresh = () => {
          st().idempotency.set(k, { fingerprint, createdAt: now, lockedAt: now, response: null })
          return BeginOutcome.Acquired()
        }
        if (row === undefined) return fresh()
        if (DateTime.toEpochMillis(now) - DateTime.toEpochMillis(row.createdAt) >= Duration.toMillis(retainFor)) return fresh()
        if (row.fingerprint !== fingerprint) return BeginOutcome.Mismatch()
        if (row.response !== null) return BeginOutcome.Replay({ response: row.response })
        const lockedFor = DateTime.toEpochMillis(now) - DateTime.toEpochMillis(row.lockedAt)
        if (lockedFor >= Duration.toMillis(lockFor)) {
          st().idempotency.set(k, { ...row, lockedAt: now })
          return BeginOutcome.Acquired()
        }
        return BeginOutcome.InProgress({
          retryAfterSeconds: inProgressRetryAfter(lockedFor, Duration.toMillis(lockFor))
        })
      }),
    complete: ({ key, response, scope }) =>
      Effect.sync(() => {
        const k = idemKey(scope, key)
        const row = st().idempotency.get(k)
        if (row !== undefined) st().idempotency.set(k, { ...row, response })
      }),
    release: ({ key, scope }) =>
      Effect.sync(() => {
        const k = idemKey(scope, key)
        const row = st().idempotency.get(k)
        if (row !== undefined && row.response === null) st().idempotency.delete(k)
      }),
    purge: (before) =>
      Effect.sync(() => {
        let n = 0
        for (const [k, row] of st().idempotency) {
          if (DateTime.toEpochMillis(row.createdAt) < DateTime.toEpochMillis(before)) {
            st().idempotency.delete(k)
            n++
          }
        }
        return n
      })
  })

  return Layer.mergeAll(
    Layer.succeed(AccountsRepo, accounts),
    Layer.succeed(AccountServiceKeysRepo, serviceKeys),
    Layer.succeed(IdempotencyStore, idempotency)
  )
})

/** Accounts, service keys and idempotency records over the shared memory state. */
export const IdentityReposMemory: Layer.Layer<AccountsRepo | AccountServiceKeysRepo | IdempotencyStore, never, MemoryState> =
  Layer.unwrap(make)
