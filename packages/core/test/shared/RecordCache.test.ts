/**
 * RecordCache (shared/RecordCache.ts): reads are served from memory within the TTL; a change
 * announced by the store, or one this process makes (`changed`, before the store's announcement
 * arrives), is seen by the next read; a load that raced a change is not cached; a store that
 * announces nothing disables the cache.
 */
import { describe, expect, it } from "@effect/vitest"
import { CredentialCachePolicy } from "@switchboard/core/credentials"
import { RecordCache, RecordChanges } from "@switchboard/core/shared"
import { Context, Deferred, Duration, Effect, Fiber, Layer, Option, PubSub, Stream } from "effect"
import { TestClock } from "effect/testing"

/** A store whose rows are a Map, counting loads, announcing changes through a PubSub. */
const makeStore = Effect.gen(function*() {
  const hub = yield* PubSub.unbounded<string>()
  const rows = new Map<string, string>([["a", "v1"]])
  let loads = 0
  const load = (id: string) => Effect.sync(() => {
    loads++
    return Option.fromNullishOr(rows.get(id))
  })
  const layer = (available: boolean) =>
    RecordCache.layer.pipe(
      Layer.provide(Layer.succeed(RecordChanges, { available, changes: Stream.fromPubSub(hub) })),
      Layer.provide(Layer.succeed(CredentialCachePolicy, { ttl: Duration.seconds(30), maxEntries: 100 }))
    )
  return { hub, rows, load, layer, loads: () => loads }
})

/** The service, alive for the test's scope (its change subscriber with it). */
const built = (layer: Layer.Layer<RecordCache>) => Effect.map(Layer.build(layer), (ctx) => Context.get(ctx, RecordCache))

/** Lets the subscriber fiber take announced changes. */
const settle = Effect.repeat(Effect.yieldNow, { times: 20 })

describe("RecordCache", () => {
  it.effect("serves a read from memory within the TTL, and loads again after it", () =>
    Effect.gen(function*() {
      const store = yield* makeStore
      const cache = yield* built(store.layer(true))
      expect(yield* cache.read("account", "a", store.load("a"))).toEqual(Option.some("v1"))
      store.rows.set("a", "v2") // not announced: the cached copy is served
      expect(yield* cache.read("account", "a", store.load("a"))).toEqual(Option.some("v1"))
      expect(store.loads()).toBe(1)
      yield* TestClock.adjust(Duration.seconds(30))
      expect(yield* cache.read("account", "a", store.load("a"))).toEqual(Option.some("v2"))
      expect(store.loads()).toBe(2)
    }))

  it.effect("an announced change is seen by the next read, and the record stays uncached for one TTL", () =>
    Effect.gen(function*() {
      const store = yield* makeStore
      const cache = yield* built(store.layer(true))
      yield* settle
      yield* cache.read("account", "a", store.load("a"))
      store.rows.set("a", "v2")
      yield* PubSub.publish(store.hub, "account:a")
      yield* settle
      expect(yield* cache.read("account", "a", store.load("a"))).toEqual(Option.some("v2"))
      expect(yield* cache.read("account", "a", store.load("a"))).toEqual(Option.some("v2"))
      expect(store.loads()).toBe(3) // tombstoned: both reads went to the store
      // Another kind with the same id is a different record.
      yield* cache.read("project", "a", store.load("a"))
      yield* cache.read("project", "a", store.load("a"))
      expect(store.loads()).toBe(4)
    }))

  it.effect("a local change drops that record at once (no announcement needed) and nothing else", () =>
    Effect.gen(function*() {
      const store = yield* makeStore
      const cache = yield* built(store.layer(true))
      store.rows.set("b", "w1")
      yield* cache.read("account", "a", store.load("a"))
      yield* cache.read("account", "b", store.load("b"))
      yield* cache.read("project", "a", store.load("a"))
      expect(store.loads()).toBe(3)
      store.rows.set("a", "v2")
      yield* cache.changed("account", "a")
      expect(yield* cache.read("account", "a", store.load("a"))).toEqual(Option.some("v2"))
      // The other records stay cached: served from memory, not loaded again.
      expect(yield* cache.read("account", "b", store.load("b"))).toEqual(Option.some("w1"))
      expect(yield* cache.read("project", "a", store.load("a"))).toEqual(Option.some("v1"))
      expect(store.loads()).toBe(4)
      expect(cache.size()).toBe(2)
    }))

  it.effect("a load that raced a change (announced or local) is not cached", () =>
    Effect.gen(function*() {
      const store = yield* makeStore
      const cache = yield* built(store.layer(true))
      yield* settle
      for (const interfere of [
        () => cache.changed("account", "a"),
        () => Effect.andThen(PubSub.publish(store.hub, "account:a"), settle)
      ]) {
        const started = yield* Deferred.make<void>()
        const release = yield* Deferred.make<void>()
        // The load reads the old row, then waits while the change commits and is announced.
        const slowLoad = Effect.andThen(
          Effect.andThen(Deferred.succeed(started, undefined), Deferred.await(release)),
          Effect.succeed(Option.some("old"))
        )
        const fiber = yield* Effect.forkChild(cache.read("account", "a", slowLoad))
        yield* Deferred.await(started)
        yield* interfere()
        yield* Deferred.succeed(release, undefined)
        yield* Fiber.await(fiber)
        store.rows.set("a", "new")
        expect(yield* cache.read("account", "a", store.load("a"))).toEqual(Option.some("new"))
        store.rows.set("a", "v1")
        // Past the tombstone: the next round starts with nothing cached and nothing kept out.
        yield* TestClock.adjust(Duration.seconds(30))
      }
    }))

  it.effect("a missing record is never cached; a store that announces nothing disables the cache", () =>
    Effect.gen(function*() {
      const store = yield* makeStore
      const cache = yield* built(store.layer(true))
      expect(yield* cache.read("account", "b", store.load("b"))).toEqual(Option.none())
      store.rows.set("b", "v1")
      expect(yield* cache.read("account", "b", store.load("b"))).toEqual(Option.some("v1"))
      const off = yield* built(store.layer(false))
      expect(off.enabled).toBe(false)
      const before = store.loads()
      yield* off.read("account", "a", store.load("a"))
      yield* off.read("account", "a", store.load("a"))
      expect(store.loads()).toBe(before + 2)
    }))
})
