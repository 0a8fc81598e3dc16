/**
 * Verified credentials kept in memory for a short while (DESIGN.md §6: credential verification is a
 * hot path; cache ≤ 60 s, the spec's revocation bound). An entry is dropped at once when its key is
 * revoked — in this process directly, in others through `CredentialRevocations`. Expiry and
 * revocation are still checked against the clock on every hit, so a cached key expires on time.
 */
import { Context, Duration, Effect } from "effect"
import type { StoredServiceKey } from "./Ports.js"

export interface CachedServiceKey {
  readonly stored: StoredServiceKey
  /** The owner's `deletedAt` when the entry was loaded (epoch ms), or null. */
  readonly accountDeletedAt: number | null
}

/** How long a verified credential may be served from memory, and how many are kept. */
export class CredentialCachePolicy extends Context.Reference<CredentialCachePolicy>()("core/CredentialCachePolicy", {
  defaultValue: () => ({ ttl: Duration.seconds(30), maxEntries: 10_000 })
}) {}

export class CredentialCache extends Effect.Service<CredentialCache>()("core/CredentialCache", {
  effect: Effect.gen(function*() {
    const policy = yield* CredentialCachePolicy
    const ttlMillis = Math.min(Duration.toMillis(policy.ttl), 60_000)
    // Insertion-ordered: the first key is the oldest, evicted when the map is full.
    const entries = new Map<string, { readonly value: CachedServiceKey; readonly loadedAt: number }>()
    // Keys revoked within the last TTL are never (re)cached: a load that raced the revocation —
    // it read the row before the revoking transaction committed — cannot put a stale entry back.
    const tombstones = new Map<string, number>()
    const tombstoned = (keyId: string, now: number) => {
      const at = tombstones.get(keyId)
      if (at === undefined) return false
      if (now - at < ttlMillis) return true
      tombstones.delete(keyId)
      return false
    }
    return {
      enabled: ttlMillis > 0 && policy.maxEntries > 0,
      get: (keyId: string, now: number): CachedServiceKey | undefined => {
        const hit = entries.get(keyId)
        if (hit === undefined) return undefined
        if (now - hit.loadedAt >= ttlMillis || now < hit.loadedAt) {
          entries.delete(keyId)
          return undefined
        }
        return hit.value
      },
      set: (keyId: string, value: CachedServiceKey, now: number): void => {
        if (ttlMillis <= 0 || policy.maxEntries <= 0 || tombstoned(keyId, now)) return
        entries.delete(keyId)
        if (entries.size >= policy.maxEntries) {
          const oldest = entries.keys().next()
          if (!oldest.done) entries.delete(oldest.value)
        }
        entries.set(keyId, { value, loadedAt: now })
      },
      /** The key was revoked: drop it and keep it out for one TTL. */
      revoked: (keyId: string, now: number): void => {
        entries.delete(keyId)
        if (ttlMillis <= 0) return
        if (tombstones.size >= policy.maxEntries) {
          for (const [k, at] of tombstones) if (now - at >= ttlMillis) tombstones.delete(k)
          const oldest = tombstones.keys().next()
          if (tombstones.size >= policy.maxEntries && !oldest.done) tombstones.delete(oldest.value)
        }
        tombstones.set(keyId, now)
      },
      size: (): number => entries.size
    }
  })
}) {}
