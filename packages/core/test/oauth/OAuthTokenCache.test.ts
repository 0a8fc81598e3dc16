/**
 * The cache of live opaque access tokens: only live access tokens are kept, never
 * past their expiry nor the TTL; a drop of the token, its family, grant, client or account removes
 * it — here directly, in other processes through the revocation stream and the store's account
 * announcements — and keeps a load that raced the drop out; a store that cannot announce account
 * changes disables it.
 */
import { describe, expect, it } from "@effect/vitest"
import { CredentialRevocations } from "@switchboard/core/accounts"
import { CredentialCachePolicy, CredentialRevocationsInProcess } from "@switchboard/core/credentials"
import { accountKey, OAuthTokenCache, type OAuthTokenRecord } from "@switchboard/core/oauth"
import { RecordChanges } from "@switchboard/core/shared"
import { DateTime, Duration, Effect, Layer, PubSub, Stream } from "effect"
import { TestClock } from "effect/testing"

const T0 = Date.parse("2030-01-01T00:00:00.000Z")
const at = (ms: number) => DateTime.makeUnsafe(ms) as DateTime.Utc

const token = (o: Partial<OAuthTokenRecord> = {}): OAuthTokenRecord => ({
  tokenHash: "h1",
  kind: "access",
  familyId: "fam1",
  grantId: "grant1",
  clientId: "client1",
  accountId: "sb_acc_01m7zvg8epecnadf5bkm51v23z" as never,
  scopes: ["openid"],
  createdAt: at(T0),
  expiresAt: at(T0 + 3_600_000),
  revokedAt: null,
  rotatedAt: null,
  ...o
})

/** The cache over an in-process revocation stream and an account-change stream the test publishes to. */
const env = (available: boolean) =>
  Effect.gen(function*() {
    const changes = yield* PubSub.unbounded<string>()
    const layer = OAuthTokenCache.layer.pipe(Layer.provideMerge(Layer.mergeAll(
      CredentialRevocationsInProcess,
      Layer.succeed(RecordChanges, { available, changes: Stream.fromPubSub(changes) }),
      Layer.succeed(CredentialCachePolicy, { ttl: Duration.seconds(30), maxEntries: 100 })
    )))
    const context = yield* Layer.build(layer)
    yield* Effect.yieldNow
    return { changes, context }
  })

describe("OAuthTokenCache", () => {
  it.effect("keeps live access tokens only, for at most the TTL and never past their expiry", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(T0)
      const { context } = yield* env(true)
      const cache = yield* Effect.provide(OAuthTokenCache, context)
      cache.set(token(), T0)
      expect(cache.get("h1", T0 + 29_999)).toMatchObject({ tokenHash: "h1" })
      expect(cache.get("h1", T0 + 30_000)).toBeUndefined()
      cache.set(token({ tokenHash: "short", expiresAt: at(T0 + 10_000) }), T0)
      expect(cache.get("short", T0 + 9_999)).toBeDefined()
      expect(cache.get("short", T0 + 10_000)).toBeUndefined()
      for (const dead of [{ kind: "refresh" as const }, { revokedAt: at(T0) }, { rotatedAt: at(T0) }, { expiresAt: at(T0) }]) {
        cache.set(token({ ...dead, tokenHash: "dead" }), T0)
        expect(cache.get("dead", T0)).toBeUndefined()
      }
    }))

  it.effect("a drop of the token, its family, grant, client or account removes it and keeps a racing load out", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(T0)
      const { context } = yield* env(true)
      const cache = yield* Effect.provide(OAuthTokenCache, context)
      const fields = ["tokenHash", "familyId", "grantId", "clientId", "accountId"] as const
      for (const [i, field] of fields.entries()) {
        // Ids of their own per round: a dropped id stays dropped (kept out) for the TTL.
        const t = token({
          tokenHash: `h${i}`,
          familyId: `fam${i}`,
          grantId: `grant${i}`,
          clientId: `client${i}`,
          accountId: `sb_acc_01m7zvg8epecnadf5bkm51v2${i}0` as never
        })
        cache.set(t, T0)
        expect(cache.get(t.tokenHash, T0)).toBeDefined()
        yield* cache.drop(field === "accountId" ? accountKey(t.accountId) : t[field])
        expect(cache.get(t.tokenHash, T0)).toBeUndefined()
        // A load that read the row before the revocation committed cannot put it back.
        cache.set(t, T0)
        expect(cache.get(t.tokenHash, T0)).toBeUndefined()
        // A token of another family, grant, client and account is not touched.
        const other = token({ tokenHash: `other${i}`, familyId: `f${i}`, grantId: `g${i}`, clientId: `c${i}` })
        cache.set(other, T0)
        expect(cache.get(other.tokenHash, T0)).toBeDefined()
      }
    }))

  it.live("revocations announced by other processes and account changes announced by the store drop it", () =>
    Effect.gen(function*() {
      const { changes, context } = yield* env(true)
      const cache = yield* Effect.provide(OAuthTokenCache, context)
      const revocations = yield* Effect.provide(CredentialRevocations, context)
      yield* Effect.sleep("100 millis") // the cache's subscriptions start
      cache.set(token(), Date.now())
      yield* revocations.publish("fam1")
      for (let i = 0; i < 5 && cache.get("h1", Date.now()) !== undefined; i++) yield* Effect.sleep("10 millis")
      expect(cache.get("h1", Date.now())).toBeUndefined()

      cache.set(token({ tokenHash: "h2", familyId: "f2", grantId: "g2" }), Date.now())
      expect(cache.get("h2", Date.now())).toBeDefined()
      yield* PubSub.publish(changes, accountKey(token().accountId))
      for (let i = 0; i < 5 && cache.get("h2", Date.now()) !== undefined; i++) yield* Effect.sleep("10 millis")
      expect(cache.get("h2", Date.now())).toBeUndefined()
    }), { timeout: 10_000 })

  it.effect("is off when the store cannot announce account changes", () =>
    Effect.gen(function*() {
      const { context } = yield* env(false)
      const cache = yield* Effect.provide(OAuthTokenCache, context)
      cache.set(token(), T0)
      expect(cache.enabled).toBe(false)
      expect(cache.get("h1", T0)).toBeUndefined()
    }))
})
