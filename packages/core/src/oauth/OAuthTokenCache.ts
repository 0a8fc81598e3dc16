/**
 * Live opaque access tokens kept in memory (introspecting a live token does no
 * SQL), keyed by the token's SHA-256, for at most the credential cache's TTL (≤ 60 s, the spec's
 * revocation bound) and never past the token's own expiry (checked against the clock on every
 * hit). Only access tokens that were live when loaded are kept; refresh tokens (rotated on every
 * use) always go to the store.
 *
 * What makes a cached token dead, and how each process hears of it:
 * - **revocation of the token itself** (RFC 7009 on an opaque access token), **of its family** (a
 *   refresh token revoked or reused) or **of its grant** (withdrawal, a replayed code, the app
 *   removed): the revoking process drops the entries at once (`drop`), before it answers; every
 *   other process drops them when the id arrives on `CredentialRevocations` (`pg_notify`, on
 *   commit) — and at the latest after the TTL;
 * - **its app changed** (new secret, settings, removal): the client id arrives on the same stream;
 * - **its account deleted**: `AccountProfile` drops `account:<id>` here before it answers, and the
 *   store announces every change of an account row (`RecordChanges`) to every process. A store
 *   that cannot announce them (`available: false`) disables the cache.
 *
 * A dropped id is kept out for one TTL (tombstone), so a load that raced the revocation (it read
 * the row before the revoking transaction committed) cannot put a live entry back.
 */
import { Clock, Context, DateTime, Effect, Layer, Stream } from "effect"
import { CredentialRevocations } from "../accounts/Ports.js"
import { CredentialCachePolicy } from "../credentials/CredentialCache.js"
import { makeTtlCache } from "../internal/TtlCache.js"
import { RecordChanges } from "../shared/RecordCache.js"
import type { OAuthTokenRecord } from "./OAuthProviderPorts.js"

/** The id an account's tokens are dropped under (the form `RecordChanges` announces). */
export const accountKey = (accountId: string) => `account:${accountId}`

/** Whether a dropped id names this token: itself, its family, grant, client or account. */
const names = (id: string, t: OAuthTokenRecord) =>
  id === t.tokenHash || id === t.familyId || id === t.grantId || id === t.clientId || id === accountKey(t.accountId)

export class OAuthTokenCache extends Context.Service<OAuthTokenCache>()("core/OAuthTokenCache", {
  make: Effect.gen(function*() {
    const policy = yield* CredentialCachePolicy
    const revocations = yield* CredentialRevocations
    // A store that does not announce every change of an account (the in-memory testkit, or none
    // at all) could not tell this cache of a deletion made behind the services' back: no caching.
    const records = yield* Effect.serviceOption(RecordChanges)
    const announced = records._tag === "Some" && records.value.available
    const cache = makeTtlCache<OAuthTokenRecord>({
      ttl: policy.ttl,
      maxEntries: announced ? policy.maxEntries : 0,
      keepOut: (key, t, tombstoned) =>
        tombstoned(key) || tombstoned(t.familyId) || tombstoned(t.grantId) || tombstoned(t.clientId) ||
        tombstoned(accountKey(t.accountId))
    })

    const dropAt = (id: string, now: number) => {
      cache.drop(id, now)
      cache.dropWhere((t) => names(id, t))
    }
    /** Any of the token, its family, grant, client or account (`accountKey`) is dead or changed: drop it now. */
    const drop = (id: string): Effect.Effect<void> => Effect.map(Clock.currentTimeMillis, (now) => dropAt(id, now))

    if (cache.enabled) {
      yield* revocations.subscribe.pipe(
        Stream.runForEach(drop),
        Effect.forkScoped({ startImmediately: true })
      )
      if (announced) {
        yield* records.value.changes.pipe(
          Stream.filter((key) => key.startsWith("account:")),
          Stream.runForEach(drop),
          Effect.forkScoped({ startImmediately: true })
        )
      }
    }

    return {
      enabled: cache.enabled,
      /** The cached live access token of that hash, if not yet expired at `now` (epoch ms). */
      get: (tokenHash: string, now: number): OAuthTokenRecord | undefined => {
        const hit = cache.get(tokenHash, now)
        return hit === undefined || DateTime.toEpochMillis(hit.expiresAt) <= now ? undefined : hit
      },
      /** Keeps a live access token (loaded at `now`); anything else is ignored. */
      set: (token: OAuthTokenRecord, now: number): void => {
        if (token.kind !== "access" || token.revokedAt !== null || token.rotatedAt !== null) return
        if (DateTime.toEpochMillis(token.expiresAt) <= now) return
        cache.set(token.tokenHash, token, now)
      },
      drop,
      size: () => cache.size()
    } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
