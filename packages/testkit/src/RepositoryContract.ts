/**
 * The repository contract suite (docs/architecture.md#dependency-rule): one set of behaviours every
 * implementation of the core's storage ports (repositories, idempotency, transactions, credential
 * revocations) must show — the memory layers here, the PGlite and PostgreSQL layers of sql-adapter,
 * and any host's own adapter. Call it from a test file with a layer that provides the ports on a
 * fresh store.
 */
import { layer, type Vitest } from "@effect/vitest"
import { type StorePorts } from "@switchboard/core"
import {
  AccountProfileRepo,
  AccountsRepo,
  type AccountServiceKey,
  AccountServiceKeysRepo,
  CredentialRevocations
} from "@switchboard/core/accounts"
import {
  AccountId,
  formatTypeId,
  IdempotencyStore,
  IdKinds,
  RateLimiter,
  RecordChanges,
  ServiceKeyId,
  Transactor,
  uuidv7Bytes
} from "@switchboard/core/shared"
import { DateTime, Duration, Effect, Fiber, Layer, Option, Result, Stream } from "effect"
import { expect } from "vitest"
import { accountFixture } from "./Fixtures.js"
import { accessTokensContract } from "./contracts/AccessTokensContract.js"
import { accountSecurityContract } from "./contracts/AccountSecurityContract.js"
import { appInstallationsContract } from "./contracts/AppInstallationsContract.js"
import { attachmentsContract } from "./contracts/AttachmentsContract.js"
import { billingContract } from "./contracts/BillingContract.js"
import { channelContract } from "./contracts/ChannelContract.js"
import { dashboardContract } from "./contracts/DashboardContract.js"
import { deviceCodesContract } from "./contracts/DeviceCodesContract.js"
import { eventsContract } from "./contracts/EventsContract.js"
import { imessageContract } from "./contracts/ImessageContract.js"
import { managementContract } from "./contracts/ManagementContract.js"
import { messagesContract } from "./contracts/MessagesContract.js"
import { oAuthProviderContract } from "./contracts/OAuthProviderContract.js"
import { organizationsContract } from "./contracts/OrganizationsContract.js"
import { platformsContract } from "./contracts/PlatformsContract.js"
import { projectApiKeysContract } from "./contracts/ProjectApiKeysContract.js"
import { projectsContract } from "./contracts/ProjectsContract.js"
import { requestCountsContract } from "./contracts/RequestCountsContract.js"
import { ssoContract } from "./contracts/SsoContract.js"
import { uploadsContract } from "./contracts/UploadsContract.js"
import { voiceContract } from "./contracts/VoiceContract.js"
import { webhooksContract } from "./contracts/WebhooksContract.js"
import { whatsappContract } from "./contracts/WhatsappContract.js"

export type RepositoryPorts = StorePorts

/** Every feature's contract suite: `repositoryContract` runs them on each backend. */
const featuresContract = (it: Vitest.MethodsNonLive<StorePorts>): void => {
  organizationsContract(it)
  projectsContract(it)
  requestCountsContract(it)
  projectApiKeysContract(it)
  accountSecurityContract(it)
  uploadsContract(it)
  accessTokensContract(it)
  eventsContract(it)
  voiceContract(it)
  billingContract(it)
  webhooksContract(it)
  managementContract(it)
  oAuthProviderContract(it)
  deviceCodesContract(it)
  dashboardContract(it)
  ssoContract(it)
  appInstallationsContract(it)
  channelContract(it)
  platformsContract(it)
  whatsappContract(it)
  imessageContract(it)
  attachmentsContract(it)
  messagesContract(it)
}

let counter = 0
const rand = () => crypto.getRandomValues(new Uint8Array(10))
const at = (iso: string) => DateTime.makeUnsafe(iso) as DateTime.Utc
const T0 = at("2030-01-01T00:00:00.000Z")
const plus = (t: DateTime.Utc, ms: number) => DateTime.makeUnsafe(DateTime.toEpochMillis(t) + ms) as DateTime.Utc

const keyFixture = (accountId: AccountId, createdAt: DateTime.Utc, expiresAt: DateTime.Utc | null = null): AccountServiceKey => ({
  serviceKeyId: ServiceKeyId.make(formatTypeId(IdKinds.accountServiceKey, uuidv7Bytes(DateTime.toEpochMillis(createdAt), rand()))),
  accountId,
  name: `key ${++counter}`,
  createdAt,
  expiresAt,
  revokedAt: null
})

const withAccount = Effect.gen(function*() {
  const accounts = yield* AccountsRepo
  const account = accountFixture()
  yield* accounts.insert(account)
  return account
})

/** Runs the whole repository contract against `makeLayer()` (built once for the block). */
export const repositoryContract = <E>(name: string, makeLayer: () => Layer.Layer<RepositoryPorts, E>) =>
  layer(makeLayer(), { excludeTestServices: true, timeout: "180 seconds" })(`${name}: repository contract`, (it) => {
    it.effect("accounts: insert, find by id and by email without regard to case", () =>
      Effect.gen(function*() {
        const accounts = yield* AccountsRepo
        const account = accountFixture({ firstName: "Ada", lastName: null, passwordHash: "h$1" })
        yield* accounts.insert(account)
        expect(yield* accounts.isEmpty).toBe(false)
        const byId = yield* accounts.findById(account.accountId)
        expect(Option.getOrThrow(byId)).toEqual(account)
        const byEmail = yield* accounts.findByEmail(account.email.toUpperCase())
        expect(Option.getOrThrow(byEmail).accountId).toBe(account.accountId)
        const missing = accountFixture()
        expect(Option.isNone(yield* accounts.findById(missing.accountId))).toBe(true)
      }))

    it.effect("accounts: a second account with the same email in other case is EmailTaken", () =>
      Effect.gen(function*() {
        const accounts = yield* AccountsRepo
        const account = accountFixture()
        yield* accounts.insert(account)
        const dup = accountFixture({ email: account.email.toUpperCase() })
        const result = yield* Effect.result(accounts.insert(dup))
        expect(Result.isFailure(result) && result.failure._tag).toBe("EmailTaken")
        expect(Option.isNone(yield* accounts.findById(dup.accountId))).toBe(true)
      }))

    it.effect("service keys: stored with their hash; unrevoked listed newest first, expired included", () =>
      Effect.gen(function*() {
        const keys = yield* AccountServiceKeysRepo
        const account = yield* withAccount
        const older = keyFixture(account.accountId, T0, plus(T0, 1000))
        const newer = keyFixture(account.accountId, plus(T0, 5000))
        yield* keys.insert({ serviceKey: older, secretHash: "a".repeat(64), limit: 20, now: T0 })
        yield* keys.insert({ serviceKey: newer, secretHash: "b".repeat(64), limit: 20, now: plus(T0, 5000) })
        const found = Option.getOrThrow(yield* keys.findById(older.serviceKeyId))
        expect(found).toEqual({ serviceKey: older, secretHash: "a".repeat(64) })
        // `older` has expired by now, but expired keys stay listed until revoked.
        const listed = yield* keys.listUnrevoked(account.accountId)
        expect(listed.map((k) => k.serviceKeyId)).toEqual([newer.serviceKeyId, older.serviceKeyId])
      }))

    it.effect("service keys: revoke sets revokedAt once, hides the key from the list, and is scoped to the owner", () =>
      Effect.gen(function*() {
        const keys = yield* AccountServiceKeysRepo
        const account = yield* withAccount
        const other = yield* withAccount
        const key = keyFixture(account.accountId, T0)
        yield* keys.insert({ serviceKey: key, secretHash: "c".repeat(64), limit: 20, now: T0 })
        expect(Option.isNone(yield* keys.revoke({ accountId: other.accountId, serviceKeyId: key.serviceKeyId, now: T0 })))
          .toBe(true)
        const first = Option.getOrThrow(yield* keys.revoke({ accountId: account.accountId, serviceKeyId: key.serviceKeyId, now: plus(T0, 10) }))
        expect(first.revokedAt?.epochMilliseconds).toBe(plus(T0, 10).epochMilliseconds)
        const again = Option.getOrThrow(yield* keys.revoke({ accountId: account.accountId, serviceKeyId: key.serviceKeyId, now: plus(T0, 99) }))
        expect(again).toEqual(first)
        expect(yield* keys.listUnrevoked(account.accountId)).toEqual([])
        const stored = Option.getOrThrow(yield* keys.findById(key.serviceKeyId))
        expect(stored.serviceKey.revokedAt?.epochMilliseconds).toBe(plus(T0, 10).epochMilliseconds)
        const unknown = keyFixture(account.accountId, T0).serviceKeyId
        expect(Option.isNone(yield* keys.revoke({ accountId: account.accountId, serviceKeyId: unknown, now: T0 }))).toBe(true)
      }))

    it.effect("service keys: the limit counts live keys only, and a key for a missing account is refused", () =>
      Effect.gen(function*() {
        const keys = yield* AccountServiceKeysRepo
        const account = yield* withAccount
        const now = plus(T0, 60_000)
        const expired = keyFixture(account.accountId, T0, plus(T0, 1))
        yield* keys.insert({ serviceKey: expired, secretHash: "d".repeat(64), limit: 3, now: T0 })
        const revoked = keyFixture(account.accountId, T0)
        yield* keys.insert({ serviceKey: revoked, secretHash: "e".repeat(64), limit: 3, now: T0 })
        yield* keys.revoke({ accountId: account.accountId, serviceKeyId: revoked.serviceKeyId, now: T0 })
        for (let i = 0; i < 3; i++) {
          yield* keys.insert({ serviceKey: keyFixture(account.accountId, now), secretHash: "f".repeat(64), limit: 3, now })
        }
        const over = yield* Effect.result(
          keys.insert({ serviceKey: keyFixture(account.accountId, now), secretHash: "f".repeat(64), limit: 3, now })
        )
        expect(Result.isFailure(over) && over.failure._tag).toBe("AccountServiceKeyLimitReached")
        const ghost = accountFixture()
        const orphan = yield* Effect.result(
          keys.insert({ serviceKey: keyFixture(ghost.accountId, now), secretHash: "f".repeat(64), limit: 3, now })
        )
        expect(Result.isFailure(orphan) && orphan.failure._tag).toBe("AccountNotFound")
      }))

    it.effect("service keys: concurrent creates never exceed the limit", () =>
      Effect.gen(function*() {
        const keys = yield* AccountServiceKeysRepo
        const account = yield* withAccount
        const attempts = Array.from({ length: 8 }, () =>
          Effect.result(keys.insert({ serviceKey: keyFixture(account.accountId, T0), secretHash: "0".repeat(64), limit: 5, now: T0 })))
        const results = yield* Effect.all(attempts, { concurrency: "unbounded" })
        expect(results.filter(Result.isSuccess)).toHaveLength(5)
        expect(yield* keys.listUnrevoked(account.accountId)).toHaveLength(5)
      }))

    it.effect("transactor: a failure rolls back everything written inside", () =>
      Effect.gen(function*() {
        const tx = yield* Transactor
        const accounts = yield* AccountsRepo
        const account = accountFixture()
        const result = yield* Effect.result(tx.withTransaction(
          Effect.andThen(accounts.insert(account), Effect.fail("boom" as const))
        ))
        expect(Result.isFailure(result)).toBe(true)
        expect(Option.isNone(yield* accounts.findById(account.accountId))).toBe(true)
        const kept = accountFixture()
        yield* tx.withTransaction(accounts.insert(kept))
        expect(Option.isSome(yield* accounts.findById(kept.accountId))).toBe(true)
      }))

    it.effect("credential revocations: a key id published in a committed transaction reaches subscribers", () =>
      Effect.gen(function*() {
        const revocations = yield* CredentialRevocations
        const tx = yield* Transactor
        const keyId = keyFixture(accountFixture().accountId, T0).serviceKeyId
        const received = yield* revocations.subscribe.pipe(
          Stream.filter((id) => id === keyId),
          Stream.take(1),
          Stream.runCollect,
          Effect.forkChild
        )
        // Give a LISTEN-based subscriber time to register before anything is published.
        yield* Effect.sleep(Duration.millis(200))
        yield* tx.withTransaction(revocations.publish(keyId))
        const got = yield* Fiber.join(received).pipe(Effect.timeout(Duration.seconds(5)))
        expect(got).toEqual([keyId])
      }))

    it.effect("record changes: a store that announces them announces an account update after commit, whoever wrote it", () =>
      Effect.gen(function*() {
        const changes = yield* RecordChanges
        if (!changes.available) return // the in-memory store announces nothing, so records are never cached
        const accounts = yield* AccountsRepo
        const profiles = yield* AccountProfileRepo
        const tx = yield* Transactor
        const account = accountFixture()
        yield* accounts.insert(account)
        const key = `account:${account.accountId}`
        const received = yield* changes.changes.pipe(Stream.filter((k) => k === key), Stream.take(1), Stream.runCollect, Effect.forkChild)
        // Give a LISTEN-based subscriber time to register before anything is written.
        yield* Effect.sleep(Duration.millis(200))
        yield* tx.withTransaction(profiles.updateNames({ accountId: account.accountId, now: T0, firstName: "Ada" }))
        const got = yield* Fiber.join(received).pipe(Effect.timeout(Duration.seconds(5)))
        expect(got).toEqual([key])
      }))

    it.effect("rate limits: counts per key and window, exactly under concurrency, and purges old windows", () =>
      Effect.gen(function*() {
        const limiter = yield* RateLimiter
        const policy = { name: "contract", quota: 5, windowSeconds: 10 }
        const key = `k-${accountFixture().accountId}`
        const t = plus(T0, 2_000)
        const first = yield* limiter.hit(key, policy, t)
        expect(first).toEqual({ allowed: true, remaining: 4, resetSeconds: 8 })
        const more = yield* Effect.all(Array.from({ length: 7 }, () => limiter.hit(key, policy, t)), { concurrency: "unbounded" })
        // 8 hits in all: exactly 4 more allowed, whatever the interleaving.
        expect(more.filter((s) => s.allowed)).toHaveLength(4)
        expect(Math.min(...more.map((s) => s.remaining))).toBe(0)
        const otherKey = yield* limiter.hit(`${key}-other`, policy, t)
        expect(otherKey.remaining).toBe(4)
        const nextWindow = yield* limiter.hit(key, policy, plus(T0, 10_000))
        expect(nextWindow).toEqual({ allowed: true, remaining: 4, resetSeconds: 10 })
        expect(yield* limiter.purge(plus(T0, 10_000))).toBeGreaterThanOrEqual(2)
        const afterPurge = yield* limiter.hit(key, policy, plus(T0, 10_500))
        expect(afterPurge.remaining).toBe(3)
      }))

    it.effect("idempotency: acquire, in progress, replay, mismatch, release, lock takeover, retention", () =>
      Effect.gen(function*() {
        const store = yield* IdempotencyStore
        const scope = `account:${accountFixture().accountId}`
        const base = { scope, key: "k-1", fingerprint: "fp-1", lockFor: Duration.seconds(30), retainFor: Duration.hours(24) }
        expect((yield* store.begin({ ...base, now: T0 }))._tag).toBe("Acquired")
        const busy = yield* store.begin({ ...base, now: plus(T0, 1000) })
        expect(busy._tag).toBe("InProgress")
        if (busy._tag === "InProgress") expect(busy.retryAfterSeconds).toBeGreaterThanOrEqual(1)
        expect((yield* store.begin({ ...base, fingerprint: "fp-2", now: plus(T0, 1000) }))._tag).toBe("Mismatch")
        const response = { status: 201, headers: { location: "/x" }, body: "{\"secret\":\"s\"}" }
        yield* store.complete({ scope, key: "k-1", response, now: plus(T0, 2000) })
        const replay = yield* store.begin({ ...base, now: plus(T0, 3000) })
        expect(replay).toMatchObject({ _tag: "Replay", response })
        // Another principal's identical key is a different record.
        expect((yield* store.begin({ ...base, scope: `${scope}-other`, now: plus(T0, 3000) }))._tag).toBe("Acquired")
        // Released keys (unknown outcome) run again.
        expect((yield* store.begin({ ...base, key: "k-2", now: T0 }))._tag).toBe("Acquired")
        yield* store.release({ scope, key: "k-2" })
        expect((yield* store.begin({ ...base, key: "k-2", now: plus(T0, 1) }))._tag).toBe("Acquired")
        // A crashed attempt's lock is taken over once it is older than lockFor.
        expect((yield* store.begin({ ...base, key: "k-2", now: plus(T0, 31_000) }))._tag).toBe("Acquired")
        // Past retention, a finished key is forgotten.
        expect((yield* store.begin({ ...base, fingerprint: "fp-9", now: plus(T0, 24 * 3600_000 + 1) }))._tag).toBe("Acquired")
        // The sweeper deletes records created before its cut-off and keeps the others.
        const sweptScope = `${scope}-swept`
        yield* store.begin({ ...base, scope: sweptScope, key: "old", now: plus(T0, -10_000) })
        yield* store.begin({ ...base, scope: sweptScope, key: "new", now: plus(T0, 10_000) })
        expect(yield* store.purge(T0)).toBeGreaterThanOrEqual(1)
        expect((yield* store.begin({ ...base, scope: sweptScope, key: "old", fingerprint: "other", now: plus(T0, 11_000) }))._tag)
          .toBe("Acquired")
        expect((yield* store.begin({ ...base, scope: sweptScope, key: "new", fingerprint: "other", now: plus(T0, 11_000) }))._tag)
          .toBe("Mismatch")
      }))

    featuresContract(it)
  })
