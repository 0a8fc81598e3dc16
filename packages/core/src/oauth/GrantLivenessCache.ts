/**
 * Whether the grant (or token family) a JWT access token names is still live, kept in memory for a
 * short while (≤ the credential cache TTL, at most 60 s: the spec's revocation bound). Revocations
 * drop entries at once — in this process directly, in others through `CredentialRevocations` —
 * and keep the id out for one TTL, so a load that raced the revocation (it read the row before the
 * revoking transaction committed) cannot put a stale "live" back. A revocation names a grant or a
 * family; dropping a grant drops the families cached under it too. "Not live" is final, so it may
 * always be cached.
 */
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
  const ttl = Math.min(policy.ttlMillis, 60_000)
  const enabled = ttl > 0 && policy.maxEntries > 0
  const entries = new Map<string, { readonly value: Liveness; readonly loadedAt: number }>()
  const tombstones = new Map<string, number>()
  const tombstoned = (id: string, now: number) => {
    const at = tombstones.get(id)
    if (at === undefined) return false
    if (now >= at && now - at < ttl) return true
    tombstones.delete(id)
    return false
  }
  return {
    get: (id, now) => {
      const hit = entries.get(id)
      if (hit === undefined) return undefined
      if (now < hit.loadedAt || now - hit.loadedAt >= ttl) {
        entries.delete(id)
        return undefined
      }
      return hit.value
    },
    set: (id, value, now) => {
      if (!enabled) return
      if (value.live && (tombstoned(id, now) || tombstoned(value.grantId, now))) return
      entries.delete(id)
      if (entries.size >= policy.maxEntries) {
        const oldest = entries.keys().next()
        if (!oldest.done) entries.delete(oldest.value)
      }
      entries.set(id, { value, loadedAt: now })
    },
    drop: (id, now) => {
      entries.delete(id)
      for (const [key, entry] of entries) if (entry.value.grantId === id) entries.delete(key)
      if (!enabled) return
      if (tombstones.size >= policy.maxEntries) {
        for (const [k, at] of tombstones) if (now - at >= ttl || now < at) tombstones.delete(k)
        const oldest = tombstones.keys().next()
        if (tombstones.size >= policy.maxEntries && !oldest.done) tombstones.delete(oldest.value)
      }
      tombstones.delete(id)
      tombstones.set(id, now)
    },
    size: () => entries.size
  }
}
