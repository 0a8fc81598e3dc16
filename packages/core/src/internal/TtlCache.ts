/**
 * A bounded, time-limited cache of values loaded from the store (docs/architecture.md#hot-paths:
 * credentials and the records a credential reads are cached ≤ 60 s, the spec's revocation bound).
 * An entry is dropped at once when it changes — in the changing process directly, in others through
 * a change stream — and its key is kept out for one TTL ("tombstone"), so a load that raced the
 * change (it read the row before the changing transaction committed) cannot put a stale entry back.
 * Time is passed in by the caller (from `Clock`), so tests drive it with `TestClock`.
 */
import { Duration } from "effect"

export interface TtlCache<V> {
  readonly enabled: boolean
  readonly get: (key: string, now: number) => V | undefined
  readonly set: (key: string, value: V, now: number) => void
  /** The entry changed (revoked, updated elsewhere): drop it and keep it out for one TTL. */
  readonly drop: (key: string, now: number) => void
  /** Drops every entry whose value matches (no tombstones): e.g. every entry under a revoked parent. */
  readonly dropWhere: (matches: (value: V) => boolean) => void
  /** Drops every entry (no tombstones). */
  readonly clear: () => void
  readonly size: () => number
}

/**
 * `keepOut` decides whether a load is refused because of tombstones; by default, when its own key
 * was dropped within the TTL. A cache whose values name a parent (a token family's grant) or whose
 * negative answers are final passes its own rule.
 */
export const makeTtlCache = <V>(policy: {
  readonly ttl: Duration.Duration
  readonly maxEntries: number
  readonly keepOut?: (key: string, value: V, tombstoned: (key: string) => boolean) => boolean
}): TtlCache<V> => {
  const ttlMillis = Math.min(Duration.toMillis(policy.ttl), 60_000)
  const enabled = ttlMillis > 0 && policy.maxEntries > 0
  // Insertion-ordered: the first key is the oldest, evicted when the map is full.
  const entries = new Map<string, { readonly value: V; readonly loadedAt: number }>()
  const tombstones = new Map<string, number>()
  const tombstoned = (key: string, now: number) => {
    const at = tombstones.get(key)
    if (at === undefined) return false
    if (now - at < ttlMillis && now >= at) return true
    tombstones.delete(key)
    return false
  }
  return {
    enabled,
    get: (key, now) => {
      const hit = entries.get(key)
      if (hit === undefined) return undefined
      if (now - hit.loadedAt >= ttlMillis || now < hit.loadedAt) {
        entries.delete(key)
        return undefined
      }
      return hit.value
    },
    set: (key, value, now) => {
      if (!enabled) return
      if (policy.keepOut === undefined ? tombstoned(key, now) : policy.keepOut(key, value, (k) => tombstoned(k, now))) return
      entries.delete(key)
      if (entries.size >= policy.maxEntries) {
        const oldest = entries.keys().next()
        if (!oldest.done) entries.delete(oldest.value)
      }
      entries.set(key, { value, loadedAt: now })
    },
    drop: (key, now) => {
      entries.delete(key)
      if (!enabled) return
      if (tombstones.size >= policy.maxEntries) {
        for (const [k, at] of tombstones) if (now - at >= ttlMillis) tombstones.delete(k)
        const oldest = tombstones.keys().next()
        if (tombstones.size >= policy.maxEntries && !oldest.done) tombstones.delete(oldest.value)
      }
      tombstones.delete(key)
      tombstones.set(key, now)
    },
    dropWhere: (matches) => {
      for (const [key, entry] of entries) if (matches(entry.value)) entries.delete(key)
    },
    clear: () => entries.clear(),
    size: () => entries.size
  }
}
