/** The oauth context's repository ports: `Context.Tag`s with no implementation (docs/architecture.md#rules-of-the-road). */
import { Context, DateTime, type Effect } from "effect"

/**
 * A signing key's place in its life: `next` is published but does not sign yet (so verifiers and
 * relying parties already hold it when it starts signing), `current` signs (at most one), `retired`
 * stopped signing and stays published until `publishedUntil` — after its last token expired.
 */
export type SigningKeyState = "next" | "current" | "retired"

/** The public half of an Ed25519 signing key as the JWKS publishes it (RFC 8037); never `d`. */
export interface PublicSigningJwk {
  readonly kty: "OKP"
  readonly crv: "Ed25519"
  readonly x: string
  readonly kid: string
  readonly alg: "EdDSA"
  readonly use: "sig"
}

/** A signing key as stored. */
export interface SigningKeyRecord {
  /** The RFC 7638 thumbprint of the public key. */
  readonly kid: string
  readonly state: SigningKeyState
  readonly publicJwk: PublicSigningJwk
  /** The private JWK, sealed under the server secret (`seal("signing-key", …)`); never stored plain. */
  readonly privateKeySealed: Uint8Array
  readonly createdAt: DateTime.Utc
  /** When the key started signing; null while `next`. */
  readonly activatedAt: DateTime.Utc | null
  /** When the key stopped signing; null unless `retired`. */
  readonly retiredAt: DateTime.Utc | null
  /** A retired key is published until then, then dropped; null unless `retired`. */
  readonly publishedUntil: DateTime.Utc | null
}

export class SigningKeysRepo extends Context.Service<SigningKeysRepo, {
  /**
   * The key set at `now`: the current key, the next key, and retired keys whose `publishedUntil`
   * is later than `now`; current first, then next, then retired newest first.
   */
  readonly listPublished: (now: DateTime.Utc) => Effect.Effect<ReadonlyArray<SigningKeyRecord>>
  /**
   * Atomically stores `current` (state `current`) unless a current key exists, and `next` (state
   * `next`) unless a next key exists. Concurrent calls, from any process, leave exactly one of each.
   */
  readonly ensure: (args: {
    readonly current: SigningKeyRecord
    readonly next: SigningKeyRecord
  }) => Effect.Effect<{ readonly storedCurrent: boolean; readonly storedNext: boolean }>
  /**
   * One rotation, atomically and serialised with other rotations: retired keys whose
   * `publishedUntil` is not later than `now` are deleted; the current key (if any) becomes
   * `retired` with `retiredAt = now` and `publishedUntil`; the next key becomes `current` with
   * `activatedAt = now` — or `fallback` (state `current`) is stored when there is no next key; and
   * `next` is stored as the new next key.
   */
  readonly rotate: (args: {
    readonly now: DateTime.Utc
    readonly publishedUntil: DateTime.Utc
    readonly next: SigningKeyRecord
    readonly fallback: SigningKeyRecord
  }) => Effect.Effect<{ readonly retired: string | null; readonly current: string; readonly next: string }>
}>()("core/SigningKeysRepo") {}
