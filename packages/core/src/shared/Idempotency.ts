/**
 * Idempotency records (docs/api-notes/requests.md). A record is keyed by the
 * authenticated principal (`scope`) and the client's key, remembers the request fingerprint, and —
 * once the first attempt finished with a definitive outcome — the response to replay.
 */
import { Context, Data, DateTime, type Duration, type Effect, Schema } from "effect"

/** The response stored for replay: status, the headers worth replaying, and the body bytes as text. */
export interface StoredResponse {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
}

export type BeginOutcome = Data.TaggedEnum<{
  /** No usable record: this attempt owns the key and must `complete` or `release` it. */
  Acquired: {}
  /** The first attempt finished: replay its response. */
  Replay: { readonly response: StoredResponse }
  /** The key was used with a different request. */
  Mismatch: {}
  /** The first attempt is still running. */
  InProgress: { readonly retryAfterSeconds: number }
}>
export const BeginOutcome = Data.taggedEnum<BeginOutcome>()

/**
 * An honest `Retry-After` (seconds) for a key whose first attempt has held it `lockedForMs` of at
 * most `lockForMs`: soon for a young attempt (most finish in milliseconds), longer the longer it has
 * run, never past the moment the lock lapses and a retry takes it over.
 */
export const inProgressRetryAfter = (lockedForMs: number, lockForMs: number): number =>
  Math.max(1, Math.min(Math.ceil((lockForMs - lockedForMs) / 1000), 1 + Math.floor(lockedForMs / 1000)))

/** The idempotency store cannot be reached (→ 503 `IDEMPOTENCY_UNAVAILABLE`). */
export class IdempotencyUnavailable extends Schema.TaggedError<IdempotencyUnavailable>()("IdempotencyUnavailable", {}) {}

export class IdempotencyStore extends Context.Service<IdempotencyStore, {
  /**
   * Claims `(scope, key)` for a request with `fingerprint`. A record older than `retainFor` counts
   * as absent; an in-flight record whose lock is older than `lockFor` (a crashed attempt) is taken over.
   */
  readonly begin: (args: {
    readonly scope: string
    readonly key: string
    readonly fingerprint: string
    readonly now: DateTime.Utc
    readonly lockFor: Duration.Duration
    readonly retainFor: Duration.Duration
  }) => Effect.Effect<BeginOutcome, IdempotencyUnavailable>
  /** Stores the definitive outcome of the attempt that acquired the key. */
  readonly complete: (args: {
    readonly scope: string
    readonly key: string
    readonly response: StoredResponse
    readonly now: DateTime.Utc
  }) => Effect.Effect<void, IdempotencyUnavailable>
  /** Forgets an in-flight record whose outcome is unknown (a 5xx or a crash), so a retry runs again. */
  readonly release: (args: { readonly scope: string; readonly key: string }) => Effect.Effect<void, IdempotencyUnavailable>
  /** Deletes records created before `before` (the retention sweeper); returns how many. */
  readonly purge: (before: DateTime.Utc) => Effect.Effect<number, IdempotencyUnavailable>
}>()("core/IdempotencyStore") {}

/** Idempotency-Key syntax: 1–255 visible ASCII; an sf-string in double quotes is accepted too. */
export const parseIdempotencyKey = (raw: string): string | undefined => {
  const unquoted = raw.length >= 2 && raw.startsWith("\"") && raw.endsWith("\"") ? raw.slice(1, -1) : raw
  return /^[\x21-\x7e]{1,255}$/.test(unquoted) ? unquoted : undefined
}

/**
 * Canonical JSON (RFC 8785-style: sorted keys, no whitespace) so that key order and spacing do not
 * change a request's fingerprint.
 */
export const canonicalJson = (value: unknown): string => {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null"
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`
}
