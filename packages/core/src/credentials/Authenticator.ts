/**
 * Verifies a presented bearer credential (docs/api-notes/credentials.md,
 * docs/architecture.md#d5-credentials): the kind is told apart by prefix, then an account service
 * key is one indexed lookup by key id plus a constant-time compare of the secret's SHA-256; expired
 * and revoked keys, and deleted accounts, are refused. Verified keys are served from
 * `CredentialCache` for up to its TTL (≤ 60 s); revocations, from this process or another, drop
 * them at once. Project API keys and access tokens have their own verifiers.
 */
import { Clock, Context, DateTime, Effect, Layer, Option, Redacted, Stream } from "effect"
import { fn } from "../internal/Traced.js"
import { constantTimeEqual, sha256Hex } from "../internal/Crypto.js"
import type { ServiceKeyId } from "../shared/Identifiers.js"
import { Principal } from "./Access.js"
import { AccessTokenVerifier } from "./AccessTokenVerifier.js"
import { keyCredentialParts, parseCredential } from "./Credential.js"
import { type CachedServiceKey, CredentialCache } from "./CredentialCache.js"
import { AccountDeleted, InvalidCredential } from "../accounts/Errors.js"
import { AccountsRepo, AccountServiceKeysRepo, CredentialRevocations } from "../accounts/Ports.js"
import { ProjectKeyVerifier } from "./ProjectKeyVerifier.js"

const PARSED_KEYS_MEMO = 10_000

const invalid = (reason: InvalidCredential["reason"], message: string) => new InvalidCredential({ reason, message })

export class Authenticator extends Context.Service<Authenticator>()("core/Authenticator", {
  make: Effect.gen(function*() {
    const keys = yield* AccountServiceKeysRepo
    const accounts = yield* AccountsRepo
    const cache = yield* CredentialCache
    const revocations = yield* CredentialRevocations
    const projectKeys = yield* ProjectKeyVerifier
    const accessTokens = yield* AccessTokenVerifier

    // Every revocation, wherever it happened, drops the key from this process's cache. The fiber
    // starts at once, so it is subscribed before the service is: it hears every later revocation.
    yield* revocations.subscribe.pipe(
      Stream.runForEach((keyId) => Effect.flatMap(Clock.currentTimeMillis, (now) => Effect.sync(() => cache.revoked(keyId, now)))),
      Effect.forkScoped({ startImmediately: true })
    )

    const load = (keyId: ServiceKeyId, now: number) =>
      Effect.gen(function*() {
        const cached = cache.get(keyId, now)
        if (cached !== undefined) return Option.some(cached)
        const stored = yield* keys.findById(keyId)
        if (Option.isNone(stored)) return Option.none<CachedServiceKey>()
        const account = yield* accounts.findById(stored.value.serviceKey.accountId)
        if (Option.isNone(account)) return Option.none<CachedServiceKey>()
        const entry: CachedServiceKey = {
          stored: stored.value,
          accountDeletedAt: account.value.deletedAt === null ? null : DateTime.toEpochMillis(account.value.deletedAt)
        }
        // Only usable keys are cached: a revoked or deleted one is refused from the database every time.
        if (entry.stored.serviceKey.revokedAt === null && entry.accountDeletedAt === null) cache.set(keyId, entry, now)
        return Option.some(entry)
      })

    const parsedKeys = new Map<string, NonNullable<ReturnType<typeof keyCredentialParts>>>()

    // The secret each cached service key was last verified with, and its principal: a later request
    // presenting the same secret skips the hash. Held as long as the cache entry (≤ the TTL), which a
    // revocation drops at once.
    const verified = new WeakMap<CachedServiceKey, { readonly secret: string; readonly principal: Principal }>()

    const cachedServiceKey = (keyId: string, secret: string, now: number): Principal | undefined => {
      const entry = cache.get(keyId, now)
      const hit = entry === undefined ? undefined : verified.get(entry)
      if (hit === undefined || !constantTimeEqual(secret, hit.secret)) return undefined
      const key = entry!.stored.serviceKey
      return key.revokedAt === null && (key.expiresAt === null || DateTime.toEpochMillis(key.expiresAt) > now) && entry!.accountDeletedAt === null
        ? hit.principal
        : undefined
    }

    /**
     * The request path's synchronous check: the principal of a key credential verified before with
     * this very secret, still cached, unrevoked and unexpired at `now` (epoch ms, from `Clock`);
     * `undefined` for anything else (then `authenticate` decides, with the store if need be).
     */
    const cached = (raw: string, now: number): Principal | undefined => {
      // A key credential's parts, remembered by its text (no pattern match per request).
      // Only well-formed keys (≤ ~100 characters each) are remembered; the map is bounded.
      let parts = parsedKeys.get(raw)
      if (parts === undefined) {
        parts = keyCredentialParts(raw)
        if (parts === undefined) return undefined
        if (parsedKeys.size >= PARSED_KEYS_MEMO) parsedKeys.clear()
        parsedKeys.set(raw, parts)
      }
      return parts.kind === "AccountServiceKey"
        ? cachedServiceKey(parts.keyId, parts.secret, now)
        : projectKeys.cached(parts.keyId, parts.secret, now)
    }

    const verify = fn("Authenticator.authenticate")(function*(raw: Redacted.Redacted<string>): Effect.fn.Return<
      Principal,
      InvalidCredential | AccountDeleted
    > {
      const parsed = parseCredential(Redacted.value(raw))
      if (parsed === undefined) return yield* invalid("malformed", "The credential is not a recognised credential.")
      switch (parsed._tag) {
        case "ProjectApiKey":
          return yield* projectKeys.verify(parsed.keyId, parsed.secret)
        case "AccessToken":
          return yield* accessTokens.verify(parsed.token)
        case "AccountServiceKey": {
          const now = yield* DateTime.now
          const entry = yield* load(parsed.keyId as ServiceKeyId, DateTime.toEpochMillis(now))
          if (Option.isNone(entry)) return yield* invalid("unknown", "The credential is not valid.")
          const hit = cachedServiceKey(parsed.keyId, Redacted.value(parsed.secret), DateTime.toEpochMillis(now))
          if (hit !== undefined) return hit
          const hash = yield* sha256Hex(Redacted.value(parsed.secret))
          if (!constantTimeEqual(hash, entry.value.stored.secretHash)) {
            return yield* invalid("unknown", "The credential is not valid.")
          }
          const key = entry.value.stored.serviceKey
          if (key.revokedAt !== null) return yield* invalid("revoked", "The service key is revoked.")
          if (key.expiresAt !== null && !DateTime.isGreaterThan(key.expiresAt, now)) {
            return yield* invalid("expired", "The service key has expired.")
          }
          if (entry.value.accountDeletedAt !== null) return yield* new AccountDeleted({ accountId: key.accountId })
          const principal = Principal.Account({ accountId: key.accountId, serviceKeyId: key.serviceKeyId })
          verified.set(entry.value, { secret: Redacted.value(parsed.secret), principal })
          return principal
        }
      }
    })

    /** Verifies a presented credential: from memory when `cached` knows it, else in full. */
    const authenticate = (raw: Redacted.Redacted<string>): Effect.Effect<Principal, InvalidCredential | AccountDeleted> =>
      Effect.clockWith((clock) => {
        const hit = cached(Redacted.value(raw), clock.currentTimeMillisUnsafe())
        return hit === undefined ? verify(raw) : Effect.succeed(hit)
      })

    return { authenticate, cached } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
