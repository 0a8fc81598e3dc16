/**
 * The JWT signing keys (docs/architecture.md#contexts-and-pure-modules, docs/api-notes/oauth.md):
 * Ed25519 key pairs with a `kid`, private halves sealed under the server secret, public halves
 * published.
 *
 * Life of a key: `next` (published, not signing) → `current` (signs; exactly one) → `retired`
 * (published until every token it signed has expired, then dropped). A rotation promotes the next
 * key, which verifiers everywhere already hold, and publishes a fresh next key. All time from Clock.
 *
 * Verification is a hot path: the published set is kept in memory for `cacheTtl`. A token signed
 * with a key this process has not seen yet (another process rotated) refreshes the set once, at
 * most once per `unknownKidCooldown`, so a flood of made-up kids costs one read per cooldown.
 */
import { Clock, Context, DateTime, Duration, Effect, Layer, Option, Semaphore } from "effect"
import type { JwtClaims, SigningCryptoKey } from "./JwtTypes.js"
import { Secrets } from "../shared/Secrets.js"
import { ServerSecret } from "../shared/ServerSecret.js"
import { type PublicSigningJwk, type SigningKeyRecord, SigningKeysRepo } from "./Ports.js"
import { Ed25519Signer, generateSigningKey, importPublicKey, sealPrivateJwk, signJwt, unsealPrivateKey } from "./SigningKeyMaterial.js"
import { fn } from "../internal/Traced.js"
import { Setting } from "../internal/Settings.js"

export interface SigningKeysPolicyShape {
  /**
   * The longest lifetime of any token signed (access tokens: 1 h, docs/api-notes/oauth.md). `sign`
   * refuses a longer one, so a retired key published this much longer covers all its tokens.
   */
  readonly maxTokenLifetime: Duration.Duration
  /** Extra publication of a retired key: clock skew, and processes still signing from a stale cache. */
  readonly retiredGrace: Duration.Duration
  /** How long the published key set is served from memory. */
  readonly cacheTtl: Duration.Duration
  /** The least time between two refreshes forced by an unknown `kid`. */
  readonly unknownKidCooldown: Duration.Duration
}

export class SigningKeysPolicy extends Setting<SigningKeysPolicy>()("core/SigningKeysPolicy", {
  defaultValue: (): SigningKeysPolicyShape => ({
    maxTokenLifetime: Duration.hours(1),
    retiredGrace: Duration.minutes(5),
    cacheTtl: Duration.seconds(30),
    unknownKidCooldown: Duration.seconds(1)
  })
}) {}

/** The public key set (RFC 7517 JWKS): what `/api/auth/jwks` serves. */
export interface VerificationKeySet {
  readonly keys: ReadonlyArray<PublicSigningJwk>
}

interface CachedKey {
  readonly record: SigningKeyRecord
  readonly publicKey: SigningCryptoKey
}

interface Snapshot {
  readonly loadedAt: number
  readonly keys: ReadonlyArray<CachedKey>
}

/** Whether a key of the set is still published at `now` (a retired key drops at `publishedUntil`). */
const publishedAt = (record: SigningKeyRecord, now: number) =>
  record.state !== "retired" || (record.publishedUntil !== null && DateTime.toEpochMillis(record.publishedUntil) > now)

export class SigningKeys extends Context.Service<SigningKeys>()("core/SigningKeys", {
  make: Effect.gen(function*() {
    const repo = yield* SigningKeysRepo
    const serverSecret = yield* ServerSecret
    const secrets = yield* Secrets
    const policy = yield* SigningKeysPolicy
    const signer = yield* Ed25519Signer
    const ttl = Duration.toMillis(policy.cacheTtl)
    const cooldown = Duration.toMillis(policy.unknownKidCooldown)
    const maxLifetime = Duration.toMillis(policy.maxTokenLifetime)
    // A retired key must outlive every process's cache: they may sign with it until they reload.
    const grace = Math.max(Duration.toMillis(policy.retiredGrace), ttl)

    let snapshot: Snapshot | undefined
    let lastForcedRefresh = Number.NEGATIVE_INFINITY
    const privateKeys = new Map<string, SigningCryptoKey>()
    const loading = yield* Semaphore.make(1)

    const fresh = (s: Snapshot | undefined, now: number): s is Snapshot =>
      s !== undefined && now >= s.loadedAt && now - s.loadedAt < ttl

    const reload = (now: number) =>
      Effect.gen(function*() {
        const records = yield* repo.listPublished(DateTime.makeUnsafe(now) as DateTime.Utc)
        const keys = yield* Effect.forEach(records, (record) =>
          Effect.map(importPublicKey(record.publicJwk), (publicKey): CachedKey => ({ record, publicKey })))
        for (const kid of privateKeys.keys()) if (!records.some((r) => r.kid === kid)) privateKeys.delete(kid)
        const loaded: Snapshot = { loadedAt: now, keys }
        snapshot = loaded
        return loaded
      })

    /** The key set, from memory while fresh; concurrent misses share one read. */
    const keySet = (now: number): Effect.Effect<Snapshot> =>
      fresh(snapshot, now)
        ? Effect.succeed(snapshot)
        : loading.withPermits(1)(Effect.suspend(() => fresh(snapshot, now) ? Effect.succeed(snapshot) : reload(now)))

    const withSealing = <A, E>(self: Effect.Effect<A, E, ServerSecret | Secrets>) =>
      self.pipe(Effect.provideService(ServerSecret, serverSecret), Effect.provideService(Secrets, secrets))

    /** A new key pair as a record in `state`, its private half sealed. */
    const newRecord = (state: "next" | "current", now: DateTime.Utc) =>
      Effect.gen(function*() {
        const key = yield* generateSigningKey
        const privateKeySealed = yield* withSealing(sealPrivateJwk(key.privateJwk))
        return {
          kid: key.kid,
          state,
          publicJwk: key.publicJwk,
          privateKeySealed,
          createdAt: now,
          activatedAt: state === "current" ? now : null,
          retiredAt: null,
          publishedUntil: null
        } satisfies SigningKeyRecord
      })

    const invalidate = () => {
      snapshot = undefined
    }

    /**
     * Makes sure a current key (and a next key) exist: creates them when the store has none.
     * Called at server start; concurrent starts, in any process, end with exactly one current key.
     */
    const ensureCurrent = fn("SigningKeys.ensureCurrent")(function*() {
      const now = yield* DateTime.now
      const published = yield* repo.listPublished(now)
      if (published.some((k) => k.state === "current") && published.some((k) => k.state === "next")) return
      const current = yield* newRecord("current", now)
      const next = yield* newRecord("next", now)
      yield* repo.ensure({ current, next })
      invalidate()
    })

    /** The public key set: the current key, the next key and retired keys not yet expired. */
    const verificationKeys = fn("SigningKeys.verificationKeys")(function*() {
      const now = yield* Clock.currentTimeMillis
      const set = yield* keySet(now)
      return { keys: set.keys.filter((k) => publishedAt(k.record, now)).map((k) => k.record.publicJwk) } satisfies VerificationKeySet
    })

    /**
     * The public key of `kid` for verifying a token, if published. A kid this process does not
     * know refreshes the set once (a key created by another process), rate-limited by the cooldown.
     */
    const publicKeyFor = (kid: string): Effect.Effect<Option.Option<SigningCryptoKey>> =>
      Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        const find = (s: Snapshot) =>
          Option.fromNullishOr(s.keys.find((k) => k.record.kid === kid && publishedAt(k.record, now))).pipe(
            Option.map((k) => k.publicKey)
          )
        const prior = snapshot
        const set = yield* keySet(now)
        const found = find(set)
        // Found, or the set was just read anyway, or a forced refresh happened moments ago.
        if (Option.isSome(found) || set !== prior || now - lastForcedRefresh < cooldown) return found
        lastForcedRefresh = now
        return find(yield* loading.withPermits(1)(reload(now)))
      })

    const currentKey = (now: number) =>
      Effect.gen(function*() {
        const pick = (s: Snapshot) => s.keys.find((k) => k.record.state === "current")
        let current = pick(yield* keySet(now))
        if (current === undefined) {
          // No key yet (a host that never ran ensureCurrent): create one rather than fail.
          yield* ensureCurrent()
          current = pick(yield* keySet(now))
        }
        if (current === undefined) return yield* Effect.die(new Error("no current signing key after ensureCurrent"))
        const record = current.record
        const cached = privateKeys.get(record.kid)
        if (cached !== undefined) return { kid: record.kid, key: cached }
        const key = yield* withSealing(unsealPrivateKey(record))
        privateKeys.set(record.kid, key)
        return { kid: record.kid, key }
      })

    /**
     * Signs `payload` with the current key (EdDSA, `kid` in the header). The payload must carry
     * `exp` no further away than `maxTokenLifetime` (a retired key's publication covers exactly
     * that); `iat` is set from Clock when absent. Anything else is a programming error (a defect).
     */
    const sign = fn("SigningKeys.sign")(function*(payload: JwtClaims, header: { readonly typ?: string } = {}) {
      const now = yield* Clock.currentTimeMillis
      if (typeof payload.exp !== "number" || !Number.isFinite(payload.exp)) {
        return yield* Effect.die(new Error("SigningKeys.sign: the payload needs a numeric exp"))
      }
      if (payload.exp * 1000 > now + maxLifetime) {
        return yield* Effect.die(new Error(
          `SigningKeys.sign: exp is more than ${Duration.format(policy.maxTokenLifetime)} away (SigningKeysPolicy.maxTokenLifetime)`
        ))
      }
      const { key, kid } = yield* currentKey(now)
      return yield* signJwt(key, kid, { iat: Math.floor(now / 1000), ...payload }, header, signer)
    })

    /**
     * Rotates: the next key starts signing, the current key retires (published for the longest
     * token lifetime plus grace, then dropped), and a new next key is published.
     */
    const rotate = fn("SigningKeys.rotate")(function*() {
      const now = yield* DateTime.now
      const next = yield* newRecord("next", now)
      const fallback = yield* newRecord("current", now)
      const publishedUntil = DateTime.makeUnsafe(DateTime.toEpochMillis(now) + maxLifetime + grace) as DateTime.Utc
      const result = yield* repo.rotate({ now, publishedUntil, next, fallback })
      invalidate()
      return result
    })

    return { ensureCurrent, verificationKeys, publicKeyFor, sign, rotate } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
