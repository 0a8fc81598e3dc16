/**
 * Verified project API keys kept in memory for a short while, like `CredentialCache` does for
 * service keys (DESIGN.md §6: ≤ 60 s, the spec's revocation bound; policy `CredentialCachePolicy`).
 * An entry is dropped at once when its key is revoked or its permissions change — in this process
 * directly, in others through `CredentialRevocations` — and kept out for one TTL, so a load that
 * raced the change (it read the row before the changing transaction committed) cannot put a stale
 * entry back.
 */
import { Duration } from "effect"

export interface ProjectApiKeyCache<V> {
  readonly enabled: boolean
  readonly get: (keyId: string, now: number) => V | undefined
  readonly set: (keyId: string, value: V, now: number) => void
  /** The key changed (revoked, new permissions): drop it and keep it out for one TTL. */
  readonly drop: (keyId: string, now: number) => void
  readonly size: () => number
}

export const makeProjectApiKeyCache = <V>(policy: { readonly ttl: Duration.Duration; readonly maxEntries: number }): ProjectApiKeyCache<V> => {
  const ttlMillis = Math.min(Duration.toMillis(policy.ttl), 60_000)
  const enabled = ttlMillis > 0 && policy.maxEntries > 0
  // Insertion-ordered: the first key is the oldest, evicted when the map is full.
  const entries = new Map<string, { readonly value: V; readonly loadedAt: number }>()
  const tombstones = new Map<string, number>()
  const tombstoned = (keyId: string, now: number) => {
    const at = tombstones.get(keyId)
    if (at === undefined) return false
    if (now - at < ttlMillis && now >= at) return true
    tombstones.delete(keyId)
    return false
  }
  return {
    enabled,
    get: (keyId, now) => {
      const hit = entries.get(keyId)
      if (hit === undefined) return undefined
      if (now - hit.loadedAt >= ttlMillis || now < hit.loadedAt) {
        entries.delete(keyId)
        return undefined
      }
      return hit.value
    },
    set: (keyId, value, now) => {
      if (!enabled || tombstoned(keyId, now)) return
      entries.delete(keyId)
      if (entries.size >= policy.maxEntries) {
        const oldest = entries.keys().next()
        if (!oldest.done) entries.delete(oldest.value)
      }
      entries.set(keyId, { value, loadedAt: now })
    },
    drop: (keyId, now) => {
      entries.delete(keyId)
      if (!enabled) return
      if (tombstones.size >= policy.maxEntries) {
        for (const [k, at] of tombstones) if (now - at >= ttlMillis) tombstones.delete(k)
        const oldest = tombstones.keys().next()
        if (tombstones.size >= policy.maxEntries && !oldest.done) tombstones.delete(oldest.value)
      }
      tombstones.delete(keyId)
      tombstones.set(keyId, now)
    },
    size: () => entries.size
  }
}
