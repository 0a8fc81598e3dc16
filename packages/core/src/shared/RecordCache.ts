/**
 * The records an authenticated read returns most often — the caller's account (`GET /v1/account`)
 * and a project (`GET /v1/projects/{id}`) — served from memory for the credential cache's TTL
 * (`CredentialCachePolicy`, ≤ 60 s), like the verified credential itself (no database
 * statement on a cached read).
 *
 * Freshness, in the order it is enforced:
 * - a change made anywhere — any process, any writer, a background job — is announced by the store
 *   after commit (`RecordChanges`: PostgreSQL/PGlite triggers + `LISTEN`), and the record is dropped
 *   and kept out for one TTL (a read that raced the change cannot put the old row back);
 * - the service that writes an account or a project in this process calls `changed` as it writes
 *   (before it answers), so a client that reads after its own write never sees the old record —
 *   even before the store's announcement reaches this process. Requests that write nothing else
 *   (introspection, failed writes, other records) leave the cache alone;
 * - only the read paths named above use it: reads inside a transaction (read-modify-write) always go
 *   to the store.
 * A store that cannot announce changes (`available: false`, the in-memory testkit) disables it.
 */
import { Clock, Context, Effect, Layer, Option, Stream } from "effect"
import { CredentialCachePolicy } from "../credentials/CredentialCache.js"
import { makeTtlCache } from "../internal/TtlCache.js"

/** Changes to cached records, announced by the store after commit: `account:<accountId>` or `project:<projectId>`. */
export class RecordChanges extends Context.Service<RecordChanges, {
  /** Whether `changes` announces every change (else nothing is cached). */
  readonly available: boolean
  readonly changes: Stream.Stream<string>
}>()("core/RecordChanges") {}

/** For stores that announce nothing (the in-memory testkit): records are never cached. */
export const RecordChangesNone = Context.make(RecordChanges, { available: false, changes: Stream.never })

export type RecordKind = "account" | "project"

export class RecordCache extends Context.Service<RecordCache>()("core/RecordCache", {
  make: Effect.gen(function*() {
    const store = yield* RecordChanges
    const policy = yield* CredentialCachePolicy
    const cache = makeTtlCache<unknown>(store.available ? policy : { ttl: policy.ttl, maxEntries: 0 })
    // Bumped by every announced change: a load that saw another generation is not cached.
    let generation = 0

    if (cache.enabled) {
      yield* store.changes.pipe(
        Stream.runForEach((key) =>
          Effect.flatMap(Clock.currentTimeMillis, (now) =>
            Effect.sync(() => {
              generation++
              cache.drop(key, now)
            }))
        ),
        Effect.forkScoped({ startImmediately: true })
      )
    }

    /** The record of `kind` and `id`, from memory when fresh, else from `load` (cached when found). */
    const read = <A>(kind: RecordKind, id: string, load: Effect.Effect<Option.Option<A>>): Effect.Effect<Option.Option<A>> =>
      cache.enabled
        ? Effect.flatMap(Clock.currentTimeMillis, (now) => {
          const key = `${kind}:${id}`
          const hit = cache.get(key, now)
          if (hit !== undefined) return Effect.succeed(Option.some(hit as A))
          const seen = generation
          return Effect.tap(load, (found) =>
            Effect.sync(() => {
              if (Option.isSome(found) && generation === seen) cache.set(key, found.value, now)
            }))
        })
        : load

    /**
     * This process writes the record of `kind` and `id` (call it in the writing transaction or right
     * after it, before answering): dropped now and kept out for one TTL, so neither a read that
     * raced the write nor one made before the commit puts the old row back.
     */
    const changed = (kind: RecordKind, id: string): Effect.Effect<void> =>
      cache.enabled ? Effect.flatMap(Clock.currentTimeMillis, (now) => Effect.sync(() => cache.drop(`${kind}:${id}`, now))) : Effect.void

    return { read, changed, enabled: cache.enabled, size: () => cache.size() } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
