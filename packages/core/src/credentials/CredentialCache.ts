/**
 * Verified credentials kept in memory for a short while (docs/architecture.md#hot-paths: credential
 * verification is a hot path; cache ≤ 60 s, the spec's revocation bound). An entry is dropped at
 * once when its key is revoked — in this process directly, in others through
 * `CredentialRevocations`. Expiry and revocation are still checked against the clock on every hit,
 * so a cached key expires on time.
 */
import { Context, Duration, Effect, Layer } from "effect"
import { makeTtlCache } from "../internal/TtlCache.js"
import type { StoredServiceKey } from "../accounts/Ports.js"
import { Setting } from "../internal/Settings.js"

export interface CachedServiceKey {
  readonly stored: StoredServiceKey
  /** The owner's `deletedAt` when the entry was loaded (epoch ms), or null. */
  readonly accountDeletedAt: number | null
}

/** How long a verified credential may be served from memory, and how many are kept. */
export class CredentialCachePolicy extends Setting<CredentialCachePolicy>()("core/CredentialCachePolicy", {
  defaultValue: () => ({ ttl: Duration.seconds(30), maxEntries: 10_000 })
}) {}

export class CredentialCache extends Context.Service<CredentialCache>()("core/CredentialCache", {
  make: Effect.map(CredentialCachePolicy, (policy) => {
    const cache = makeTtlCache<CachedServiceKey>(policy)
    return {
      enabled: cache.enabled,
      get: cache.get,
      set: cache.set,
      /** The key was revoked: drop it and keep it out for one TTL. */
      revoked: cache.drop,
      size: cache.size
    }
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
