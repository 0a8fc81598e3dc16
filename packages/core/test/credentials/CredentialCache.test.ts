/**
 * The verified-credential cache (docs/architecture.md#hot-paths) and how the Authenticator uses it:
 * hits skip the database; a revocation drops a key at once — from this process, or from another
 * through `CredentialRevocations`; an unannounced change is bounded by the TTL; expiry holds on a
 * hit.
 */
import { describe, expect, it } from "@effect/vitest"
import { SwitchboardCore } from "@switchboard/core"
import { Accounts, AccountServiceKeysRepo, CredentialRevocations } from "@switchboard/core/accounts"
import {
  AccountServiceKeys,
  Authenticator,
  type CachedServiceKey,
  CredentialCache,
  CredentialCachePolicy
} from "@switchboard/core/credentials"
import { ServiceKeyId } from "@switchboard/core/shared"
import { TestkitLive } from "@switchboard/testkit"
import { DateTime, Duration, Effect, Result, Layer, Redacted } from "effect"
import { TestClock } from "effect/testing"

const T0 = Date.parse("2030-01-01T00:00:00.000Z")

const entry = (id: string): CachedServiceKey => ({
  accountDeletedAt: null,
  stored: {
    secretHash: "0".repeat(64),
    serviceKey: {
      serviceKeyId: ServiceKeyId.make(id),
      accountId: "sb_acc_01m7zvg8epecnadf5bkm51v23z" as never,
      name: "k",
      createdAt: DateTime.makeUnsafe(T0) as DateTime.Utc,
      expiresAt: null,
      revokedAt: null
    }
  }
})
const K1 = "sb_ask_01m7zvg8epecnadf5bkm51v23z"
const K2 = "sb_ask_01m7zvg8epecnadf5bkm51v240"
const K3 = "sb_ask_01m7zvg8epecnadf5bkm51v241"

const cacheWith = (policy: typeof CredentialCachePolicy.Service) =>
  CredentialCache.layer.pipe(Layer.provide(Layer.succeed(CredentialCachePolicy, policy)))

describe("CredentialCache", () => {
  it.effect("serves an entry for the TTL, then forgets it", () =>
    Effect.gen(function*() {
      const cache = yield* CredentialCache
      cache.set(K1, entry(K1), T0)
      expect(cache.get(K1, T0 + 29_999)).toBeDefined()
      expect(cache.get(K1, T0 + 30_000)).toBeUndefined()
    }).pipe(Effect.provide(cacheWith({ ttl: Duration.seconds(30), maxEntries: 10 }))))

  it.effect("never keeps an entry longer than 60 s, whatever the policy says", () =>
    Effect.gen(function*() {
      const cache = yield* CredentialCache
      cache.set(K1, entry(K1), T0)
      expect(cache.get(K1, T0 + 59_999)).toBeDefined()
      expect(cache.get(K1, T0 + 60_000)).toBeUndefined()
    }).pipe(Effect.provide(cacheWith({ ttl: Duration.minutes(10), maxEntries: 10 }))))

  it.effect("evicts the oldest entry when full", () =>
    Effect.gen(function*() {
      const cache = yield* CredentialCache
      cache.set(K1, entry(K1), T0)
      cache.set(K2, entry(K2), T0 + 1)
      cache.set(K3, entry(K3), T0 + 2)
      expect(cache.get(K1, T0 + 3)).toBeUndefined()
      expect(cache.get(K2, T0 + 3)).toBeDefined()
      expect(cache.size()).toBe(2)
    }).pipe(Effect.provide(cacheWith({ ttl: Duration.seconds(30), maxEntries: 2 }))))

  it.effect("a revoked key is dropped and not cached again for one TTL (a racing load cannot restore it)", () =>
    Effect.gen(function*() {
      const cache = yield* CredentialCache
      cache.set(K1, entry(K1), T0)
      cache.revoked(K1, T0 + 10)
      expect(cache.get(K1, T0 + 10)).toBeUndefined()
      cache.set(K1, entry(K1), T0 + 20)
      expect(cache.get(K1, T0 + 20)).toBeUndefined()
      cache.set(K1, entry(K1), T0 + 30_010)
      expect(cache.get(K1, T0 + 30_010)).toBeDefined()
    }).pipe(Effect.provide(cacheWith({ ttl: Duration.seconds(30), maxEntries: 10 }))))

  it.effect("a zero TTL turns caching off", () =>
    Effect.gen(function*() {
      const cache = yield* CredentialCache
      cache.set(K1, entry(K1), T0)
      expect(cache.get(K1, T0)).toBeUndefined()
      expect(cache.enabled).toBe(false)
    }).pipe(Effect.provide(cacheWith({ ttl: Duration.zero, maxEntries: 10 }))))
})

/** The testkit with a counter on service-key lookups, to see which authentications reach the store. */
const counted = Effect.gen(function*() {
  const lookups = { n: 0 }
  const layer = SwitchboardCore.pipe(
    Layer.provideMerge(Layer.effect(AccountServiceKeysRepo, Effect.map(AccountServiceKeysRepo, (repo) => ({
      ...repo,
      findById: (id: Parameters<typeof repo.findById>[0]) => Effect.suspend(() => {
        lookups.n += 1
        return repo.findById(id)
      })
    })))),
    Layer.provideMerge(TestkitLive)
  )
  return { lookups, layer }
})

const setup = Effect.gen(function*() {
  yield* TestClock.setTime(T0)
  const account = yield* (yield* Accounts).create({ email: "cache@example.com" })
  const keys = yield* AccountServiceKeys
  const created = yield* keys.create({ accountId: account.accountId, name: "k", expiresAt: DateTime.makeUnsafe(T0 + 100_000) as DateTime.Utc })
  return { account, keys, created, auth: yield* Authenticator }
})

const run = <A, E>(f: (lookups: { n: number }) => Effect.Effect<A, E, any>) =>
  Effect.flatMap(counted, ({ layer, lookups }) => Effect.provide(f(lookups), layer) as Effect.Effect<A, E>)

describe("Authenticator with the cache", () => {
  it.effect("a second authentication is served from memory", () =>
    run((lookups) =>
      Effect.gen(function*() {
        const { auth, created } = yield* setup
        yield* auth.authenticate(created.secret)
        yield* auth.authenticate(created.secret)
        yield* auth.authenticate(created.secret)
        expect(lookups.n).toBe(1)
        // A wrong secret for a cached key id is still refused.
        const wrong = Redacted.make(`${created.serviceKey.serviceKeyId}_${"0".repeat(52)}`)
        const refused = yield* Effect.result(auth.authenticate(wrong))
        expect(Result.isFailure(refused) && refused.failure._tag === "InvalidCredential" && refused.failure.reason).toBe("unknown")
      })))

  it.effect("revoking through the service refuses the key at once", () =>
    run(() =>
      Effect.gen(function*() {
        const { account, auth, created, keys } = yield* setup
        yield* auth.authenticate(created.secret)
        yield* keys.revoke(account.accountId, created.serviceKey.serviceKeyId)
        const after = yield* Effect.result(auth.authenticate(created.secret))
        expect(Result.isFailure(after) && after.failure._tag === "InvalidCredential" && after.failure.reason).toBe("revoked")
      })))

  it.effect("a revocation announced by another process drops the key; an unannounced one lasts at most the TTL", () =>
    run(() =>
      Effect.gen(function*() {
        const { account, auth, created } = yield* setup
        const repo = yield* AccountServiceKeysRepo
        const revocations = yield* CredentialRevocations
        // Another process revokes in the shared store without telling us: the cached key still works…
        yield* auth.authenticate(created.secret)
        yield* repo.revoke({ accountId: account.accountId, serviceKeyId: created.serviceKey.serviceKeyId, now: DateTime.makeUnsafe(T0) as DateTime.Utc })
        expect(Result.isSuccess(yield* Effect.result(auth.authenticate(created.secret)))).toBe(true)
        // …until the announcement arrives,
        yield* revocations.publish(created.serviceKey.serviceKeyId)
        yield* Effect.yieldNow
        yield* Effect.yieldNow
        const announced = yield* Effect.result(auth.authenticate(created.secret))
        expect(Result.isFailure(announced) && announced.failure._tag === "InvalidCredential" && announced.failure.reason).toBe("revoked")
      })))

  it.effect("without any announcement the store is read again once the TTL has passed", () =>
    run((lookups) =>
      Effect.gen(function*() {
        const { account, auth, created } = yield* setup
        const repo = yield* AccountServiceKeysRepo
        yield* auth.authenticate(created.secret)
        yield* repo.revoke({ accountId: account.accountId, serviceKeyId: created.serviceKey.serviceKeyId, now: DateTime.makeUnsafe(T0) as DateTime.Utc })
        yield* TestClock.adjust(Duration.seconds(30))
        const stale = yield* Effect.result(auth.authenticate(created.secret))
        expect(Result.isFailure(stale) && stale.failure._tag === "InvalidCredential" && stale.failure.reason).toBe("revoked")
        expect(lookups.n).toBe(2)
      })))

  it.effect("expiry is checked on every hit", () =>
    run(() =>
      Effect.gen(function*() {
        const { auth, created } = yield* setup
        yield* auth.authenticate(created.secret)
        yield* TestClock.adjust(Duration.millis(99_999))
        expect(Result.isSuccess(yield* Effect.result(auth.authenticate(created.secret)))).toBe(true)
        yield* TestClock.adjust(Duration.millis(1))
        const expired = yield* Effect.result(auth.authenticate(created.secret))
        expect(Result.isFailure(expired) && expired.failure._tag === "InvalidCredential" && expired.failure.reason).toBe("expired")
      })))
})
