/**
 * OAuth apps as client authentication needs them, kept in memory for a short while (≤ the
 * credential cache TTL, at most 60 s): every token, introspection and revocation request starts
 * with the client's record, and apps rarely change. A change (new secret, new settings, removal)
 * drops the entry at once — in this process directly, in others through `CredentialRevocations`
 * (`pg_notify` on PostgreSQL) — and keeps it out for one TTL, so a load that raced the change
 * cannot put the old record back. Unknown clients are not cached.
 */
import { Clock, Context, Effect, Layer, Option, Stream } from "effect"
import { CredentialCachePolicy } from "../credentials/CredentialCache.js"
import { CredentialRevocations } from "../accounts/Ports.js"
import { makeTtlCache } from "../internal/TtlCache.js"
import { OAuthAppsRepo, type StoredOAuthApp } from "./OAuthProviderPorts.js"

export class OAuthClientCache extends Context.Service<OAuthClientCache>()("core/OAuthClientCache", {
  make: Effect.gen(function*() {
    const repo = yield* OAuthAppsRepo
    const revocations = yield* CredentialRevocations
    const policy = yield* CredentialCachePolicy
    const cache = makeTtlCache<StoredOAuthApp>(policy)

    yield* revocations.subscribe.pipe(
      Stream.runForEach((id) => Effect.flatMap(Clock.currentTimeMillis, (now) => Effect.sync(() => cache.drop(id, now)))),
      Effect.forkScoped({ startImmediately: true })
    )

    /** The app (not removed), from memory while fresh. */
    const find = (clientId: string): Effect.Effect<Option.Option<StoredOAuthApp>> =>
      Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        const hit = cache.get(clientId, now)
        if (hit !== undefined) return Option.some(hit)
        const found = yield* repo.find(clientId)
        if (Option.isSome(found)) cache.set(clientId, found.value, now)
        return found
      })

    /** The app changed: stop serving it from this process's memory now. */
    const invalidate = (clientId: string): Effect.Effect<void> =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => Effect.sync(() => cache.drop(clientId, now)))

    return { find, invalidate, size: () => cache.size() } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
