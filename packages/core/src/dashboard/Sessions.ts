/**
 * Sessions of the Dashboard's sign-in component (docs/api-notes/dashboard-api.md): an opaque token
 * of 256 random bits (43 base64url characters) travels in the `sb_session` cookie; only its SHA-256
 * is stored, so a leaked table opens no session. A session lives `SessionPolicy.ttl` (7 days by
 * default) from sign-in, ends at sign-out, and stops resolving at once when its account is deleted.
 */
import { Clock, Context, DateTime, Duration, Effect, Layer, Option, Redacted } from "effect"
import { AccountsRepo } from "../accounts/Ports.js"
import { base64url, sha256Hex } from "../internal/Crypto.js"
import { type AccountId, encodeBase32Uuid, SVC, uuidv7Bytes } from "../shared/Identifiers.js"
import { Secrets } from "../shared/Secrets.js"
import { type SessionRecord, SessionsRepo } from "./DashboardPorts.js"
import { fn } from "../internal/Traced.js"
import { Setting } from "../internal/Settings.js"

export interface Session {
  readonly sessionId: string
  readonly accountId: AccountId
  readonly createdAt: DateTime.Utc
  readonly expiresAt: DateTime.Utc
  readonly authenticatedAt: DateTime.Utc
}

export interface SessionPolicyShape {
  /** How long a session lives after sign-in. */
  readonly ttl: Duration.Duration
}

export class SessionPolicy extends Setting<SessionPolicy>()("core/SessionPolicy", {
  defaultValue: (): SessionPolicyShape => ({ ttl: Duration.days(7) })
}) {}

/** Random bytes of a session token (256 bits). */
export const SESSION_TOKEN_BYTES = 32

/** The shape of a session token: anything else is refused before the store is asked. */
export const isSessionTokenShape = (token: string): boolean => /^[A-Za-z0-9_-]{43}$/.test(token)

/** A time-ordered dashboard identifier `sb_<kind>_…` (sessions, privacy requests, audit records). */
export const dashboardId = (kind: "ses" | "prq" | "aud") =>
  Effect.gen(function*() {
    const now = yield* Clock.currentTimeMillis
    const random = yield* Effect.flatMap(Secrets, (s) => s.randomBytes(10))
    return `${SVC}_${kind}_${encodeBase32Uuid(uuidv7Bytes(now, random))}`
  })

const toSession = (r: SessionRecord): Session => ({
  sessionId: r.sessionId,
  accountId: r.accountId,
  createdAt: r.createdAt,
  expiresAt: r.expiresAt,
  authenticatedAt: r.authenticatedAt
})

export interface CreatedSession {
  readonly session: Session
  /** The cookie value, shown once. */
  readonly token: Redacted.Redacted<string>
}

export class Sessions extends Context.Service<Sessions>()("core/Sessions", {
  make: Effect.gen(function*() {
    const repo = yield* SessionsRepo
    const accounts = yield* AccountsRepo
    const secrets = yield* Secrets
    const policy = yield* SessionPolicy

    /** A new session for an account that just proved who it is. */
    const create = fn("Sessions.create")(function*(accountId: AccountId) {
      const now = yield* DateTime.now
      const token = base64url(yield* secrets.randomBytes(SESSION_TOKEN_BYTES))
      const record: SessionRecord = {
        sessionId: yield* Effect.provideService(dashboardId("ses"), Secrets, secrets),
        tokenHash: yield* sha256Hex(token),
        accountId,
        createdAt: now,
        expiresAt: DateTime.addDuration(now, policy.ttl),
        authenticatedAt: now
      }
      yield* repo.insert(record)
      return { session: toSession(record), token: Redacted.make(token) } satisfies CreatedSession
    })

    /** The live session of a cookie value: unknown, expired, signed-out or of a deleted account → none. */
    const resolve = fn("Sessions.resolve")(function*(token: string) {
      if (!isSessionTokenShape(token)) return Option.none<Session>()
      const found = yield* repo.findByTokenHash(yield* sha256Hex(token))
      if (Option.isNone(found)) return Option.none<Session>()
      const now = yield* DateTime.now
      if (!DateTime.isLessThan(now, found.value.expiresAt)) return Option.none<Session>()
      const account = yield* accounts.findById(found.value.accountId)
      if (Option.isNone(account) || account.value.deletedAt !== null) return Option.none<Session>()
      return Option.some(toSession(found.value))
    })

    /** Sign-out: the session of that token ends (nothing happens for an unknown one). */
    const revoke = fn("Sessions.revoke")(function*(token: string) {
      if (!isSessionTokenShape(token)) return Option.none<Session>()
      return Option.map(yield* repo.deleteByTokenHash(yield* sha256Hex(token)), toSession)
    })

    /** Ends every session of an account (erasure). */
    const revokeAll = fn("Sessions.revokeAll")(function*(accountId: AccountId) {
      return yield* repo.deleteForAccount(accountId)
    })

    /** Housekeeping: drops expired sessions, at most `limit` per call. */
    const purgeExpired = fn("Sessions.purgeExpired")(function*(limit = 1000) {
      return yield* repo.deleteExpired({ now: yield* DateTime.now, limit })
    })

    return { create, resolve, revoke, revokeAll, purgeExpired } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
