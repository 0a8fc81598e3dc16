/**
 * Verifies a project API key credential (`sb_sk_<id26>_<secret52>`; docs/api-notes/credentials.md,
 * docs/architecture.md#d5-credentials): one indexed lookup by key id (the key, its hash and its
 * project's state), then a constant-time compare of the secret's SHA-256. Revoked keys are refused
 * as `revoked`, expired ones as `expired`, keys of deleted projects as `revoked`; a good key is a
 * `Principal.ProjectKey` with its permissions. `Authenticator` calls `verify`.
 *
 * Verified keys are served from memory for up to the `CredentialCachePolicy` TTL (≤ 60 s). A
 * revocation or a permission change drops the key at once: `invalidate` here (the changing process,
 * so the change applies to its next request), and every process through `CredentialRevocations`,
 * to which this verifier subscribes (the Authenticator's subscriber only drops service keys).
 */
import { Clock, Context, DateTime, Effect, Layer, Option, Redacted, Stream } from "effect"
import type { ProjectState } from "../projects/Ports.js"
import { constantTimeEqual, sha256Hex } from "../internal/Crypto.js"
import type { ApiKeyId } from "../shared/Identifiers.js"
import { Principal } from "./Access.js"
import { CredentialCachePolicy } from "./CredentialCache.js"
import { InvalidCredential } from "../accounts/Errors.js"
import { makeTtlCache } from "../internal/TtlCache.js"
import { ProjectApiKeysRepo, type StoredProjectApiKey } from "./ProjectApiKeyPorts.js"
import { CredentialRevocations } from "../accounts/Ports.js"

interface Entry {
  readonly stored: StoredProjectApiKey
  readonly projectState: ProjectState
}

const invalid = (reason: InvalidCredential["reason"], message: string) => new InvalidCredential({ reason, message })

export class ProjectKeyVerifier extends Context.Service<ProjectKeyVerifier>()("core/ProjectKeyVerifier", {
  make: Effect.gen(function*() {
    const repo = yield* ProjectApiKeysRepo
    const revocations = yield* CredentialRevocations
    const cache = makeTtlCache<Entry>(yield* CredentialCachePolicy)

    // Every revocation or permission change, wherever it happened, drops the key here.
    yield* revocations.subscribe.pipe(
      Stream.runForEach((keyId) => Effect.flatMap(Clock.currentTimeMillis, (now) => Effect.sync(() => cache.drop(keyId, now)))),
      Effect.forkScoped({ startImmediately: true })
    )

    const load = (keyId: ApiKeyId, now: number) =>
      Effect.gen(function*() {
        const cached = cache.get(keyId, now)
        if (cached !== undefined) return Option.some(cached)
        const found = yield* repo.findForVerification(keyId)
        if (Option.isNone(found)) return Option.none<Entry>()
        const entry: Entry = found.value
        // Only usable keys are cached: a revoked key or a deleted project is refused from the store every time.
        if (entry.stored.apiKey.revokedAt === null && entry.projectState !== "deleted") cache.set(keyId, entry, now)
        return Option.some(entry)
      })

    // The secret each cached entry was last verified with, and the principal it gave: a later request
    // presenting the same secret skips the hash. Held as long as the entry (≤ the TTL).
    const verified = new WeakMap<Entry, { readonly secret: string; readonly principal: Principal }>()

    /** The principal of a cached key last verified with this very secret and still usable at `now`. */
    const cached = (keyId: string, secret: string, now: number): Principal | undefined => {
      const entry = cache.get(keyId, now)
      const hit = entry === undefined ? undefined : verified.get(entry)
      if (hit === undefined || !constantTimeEqual(secret, hit.secret)) return undefined
      const key = entry!.stored.apiKey
      return key.revokedAt === null && (key.expiresAt === null || DateTime.toEpochMillis(key.expiresAt) > now) && entry!.projectState !== "deleted"
        ? hit.principal
        : undefined
    }

    const verify = (keyId: string, secret: Redacted.Redacted<string>): Effect.Effect<Principal, InvalidCredential> =>
      Effect.gen(function*() {
        const now = yield* DateTime.now
        const entry = yield* load(keyId as ApiKeyId, DateTime.toEpochMillis(now))
        if (Option.isNone(entry)) return yield* invalid("unknown", "The credential is not valid.")
        const hit = cached(keyId, Redacted.value(secret), DateTime.toEpochMillis(now))
        if (hit !== undefined) return hit
        const hash = yield* sha256Hex(Redacted.value(secret))
        if (!constantTimeEqual(hash, entry.value.stored.secretHash)) return yield* invalid("unknown", "The credential is not valid.")
        const key = entry.value.stored.apiKey
        if (key.revokedAt !== null) return yield* invalid("revoked", "The project API key is revoked.")
        if (key.expiresAt !== null && !DateTime.isGreaterThan(key.expiresAt, now)) {
          return yield* invalid("expired", "The project API key has expired.")
        }
        if (entry.value.projectState === "deleted") return yield* invalid("revoked", "The project of this API key has been deleted.")
        const principal = Principal.ProjectKey({ projectId: key.projectId, apiKeyId: key.apiKeyId, permissions: key.permissions })
        verified.set(entry.value, { secret: Redacted.value(secret), principal })
        return principal
      })

    /** The key was revoked or its permissions changed: stop serving it from this process's cache now. */
    const invalidate = (keyId: string): Effect.Effect<void> =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => Effect.sync(() => cache.drop(keyId, now)))

    return { verify, cached, invalidate, cachedKeys: () => cache.size() } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
