/**
 * Whether the grant (or token family) a JWT access token names is still live, kept in memory for a
 * short while (≤ the credential cache TTL, at most 60 s: the spec's revocation bound). Revocations
 * drop entries at once — in this process directly, in others through `CredentialRevocations` —
 * and keep the id out for one TTL, so a load that raced the revocation (it read the row before the
 * revoking transaction committed) cannot put a stale "live" back. A revocation names a grant or a
 * family; dropping a grant drops the families cached under it too. "Not live" is final, so it may
 * always be cached. The cache itself is the shared `makeTtlCache`, with those two rules.
 */
import { Duration } from "effect"
import { makeTtlCache } from "../internal/TtlCache.js"

export interface Liveness {
  readonly live: boolean
  /** The grant the checked id belongs to (itself for a grant). */
  readonly grantId: string
}

export interface GrantLivenessCache {
  readonly get: (id: string, now: number) => Liveness | undefined
  readonly set: (id: string, value: Liveness, now: number) => void
  /** `id` (a grant or a family) was revoked. */
  readonly drop: (id: string, now: number) => void
  readonly size: () => number
}

export const makeGrantLivenessCache = (policy: { readonly ttlMillis: number; readonly maxEntries: number }): GrantLivenessCache => {
  const cache = makeTtlCache<Liveness>({
    ttl: Duration.millis(policy.ttlMillis),
    maxEntries: policy.maxEntries,
    // "Live" is kept out while the id or its grant was revoked within the TTL; "not live" is final.
    keepOut: (id, value, tombstoned) => value.live && (tombstoned(id) || tombstoned(value.grantId))
  })
  return {
    get: cache.get,
    set: cache.set,
    drop: (id, now) => {
      // Dropping a grant drops the families cached under it too.
      cache.drop(id, now)
      cache.dropWhere((value) => value.grantId === id)
    },
    size: cache.size
  }
}
