import { describe, expect, it } from "@effect/vitest"
import { makeTtlCache } from "@switchboard/core/internal"
import { makeGrantLivenessCache } from "@switchboard/core/oauth"
import { Duration } from "effect"

describe("makeTtlCache", () => {
  const policy = { ttl: Duration.seconds(10), maxEntries: 3 }

  it("keeps an entry for the TTL, never past 60 s, and evicts the oldest when full", () => {
    const cache = makeTtlCache<number>(policy)
    cache.set("a", 1, 0)
    expect(cache.get("a", 9_999)).toBe(1)
    expect(cache.get("a", 10_000)).toBeUndefined()
    for (const [k, v] of [["a", 1], ["b", 2], ["c", 3], ["d", 4]] as const) cache.set(k, v, 20_000)
    expect([cache.get("a", 20_001), cache.get("d", 20_001), cache.size()]).toEqual([undefined, 4, 3])
    const long = makeTtlCache<number>({ ttl: Duration.hours(1), maxEntries: 3 })
    long.set("a", 1, 0)
    expect(long.get("a", 60_000)).toBeUndefined()
  })

  it("a dropped key stays out for one TTL (a load that raced the change cannot put it back)", () => {
    const cache = makeTtlCache<number>(policy)
    cache.set("a", 1, 0)
    cache.drop("a", 1_000)
    cache.set("a", 1, 1_001)
    expect(cache.get("a", 1_002)).toBeUndefined()
    cache.set("a", 2, 11_000)
    expect(cache.get("a", 11_001)).toBe(2)
  })

  it("dropWhere drops matching entries without tombstones; keepOut replaces the tombstone rule", () => {
    const cache = makeTtlCache<{ parent: string }>({
      ...policy,
      keepOut: (key, value, tombstoned) => tombstoned(key) || tombstoned(value.parent)
    })
    cache.set("x", { parent: "p" }, 0)
    cache.set("y", { parent: "q" }, 0)
    cache.dropWhere((v) => v.parent === "p")
    expect([cache.get("x", 1), cache.get("y", 1)]).toEqual([undefined, { parent: "q" }])
    cache.set("x", { parent: "p" }, 2)
    expect(cache.get("x", 3)).toEqual({ parent: "p" })
    cache.drop("p", 4)
    cache.set("z", { parent: "p" }, 5)
    expect(cache.get("z", 6)).toBeUndefined()
  })
})

describe("makeGrantLivenessCache (the TTL cache with its two rules)", () => {
  it("a revoked grant drops its families and keeps a racing 'live' out; 'not live' is always kept", () => {
    const cache = makeGrantLivenessCache({ ttlMillis: 10_000, maxEntries: 10 })
    cache.set("family-1", { live: true, grantId: "grant-1" }, 0)
    cache.set("grant-1", { live: true, grantId: "grant-1" }, 0)
    cache.drop("grant-1", 1_000)
    expect([cache.get("family-1", 1_001), cache.get("grant-1", 1_001)]).toEqual([undefined, undefined])
    cache.set("family-1", { live: true, grantId: "grant-1" }, 1_002)
    expect(cache.get("family-1", 1_003)).toBeUndefined()
    cache.set("family-1", { live: false, grantId: "grant-1" }, 1_004)
    expect(cache.get("family-1", 1_005)).toEqual({ live: false, grantId: "grant-1" })
  })
})
