/**
 * The Dashboard feature's part of the repository contract suite: sessions by token hash, sign-in
 * failure windows, privacy requests (claimed one at a time, completed without their email), the
 * audit log, per-project settings, onboarding answers, the account erasure write and the store's
 * health. Every case leaves no received privacy request behind (the queue is shared by the store).
 */
import type { Vitest } from "@effect/vitest"
import { type StorePorts } from "@switchboard/core"
import { AccountsRepo } from "@switchboard/core/accounts"
import {
  OnboardingRepo,
  type SessionRecord,
  SessionsRepo,
  SignInThrottleRepo,
  StoreHealth
} from "@switchboard/core/dashboard"
import { AccountErasureRepo, AuditLog, type PrivacyRequestRecord, PrivacyRequestsRepo } from "@switchboard/core/privacy"
import { ProjectSettingsRepo } from "@switchboard/core/projects"
import { Transactor } from "@switchboard/core/shared"
import { DateTime, Effect, Option } from "effect"
import { expect } from "vitest"
import { accountFixture } from "../Fixtures.js"
import { ownerAndOrganization, storedProject } from "./ProjectsContract.js"

let counter = 0
const T0 = DateTime.makeUnsafe("2030-01-01T00:00:00.000Z") as DateTime.Utc
const plus = (t: DateTime.Utc, ms: number) => DateTime.makeUnsafe(DateTime.toEpochMillis(t) + ms) as DateTime.Utc
const unique = (what: string) => `${what}-${Date.now().toString(36)}-${++counter}-${Math.random().toString(36).slice(2, 8)}`

const storedAccount = Effect.gen(function*() {
  const account = accountFixture()
  yield* (yield* AccountsRepo).insert(account)
  return account
})

const sessionFixture = (accountId: SessionRecord["accountId"], overrides: Partial<SessionRecord> = {}): SessionRecord => ({
  sessionId: unique("sb_ses"),
  tokenHash: unique("hash"),
  accountId,
  createdAt: T0,
  expiresAt: plus(T0, 60_000),
  authenticatedAt: T0,
  ...overrides
})

const requestFixture = (overrides: Partial<PrivacyRequestRecord> = {}): PrivacyRequestRecord => ({
  requestId: unique("sb_prq"),
  email: `${unique("subject")}@example.com`,
  emailHash: "e".repeat(64),
  requestedByAccountId: null,
  status: "received",
  outcome: null,
  createdAt: T0,
  processedAt: null,
  ...overrides
})

export const dashboardContract = (it: Vitest.MethodsNonLive<StorePorts>): void => {
  it.effect("dashboard sessions: found by token hash, deleted once, per account, and when expired", () =>
    Effect.gen(function*() {
      const repo = yield* SessionsRepo
      const account = yield* storedAccount
      const other = yield* storedAccount
      const a = sessionFixture(account.accountId)
      const b = sessionFixture(account.accountId, { expiresAt: plus(T0, 1000) })
      const c = sessionFixture(other.accountId, { expiresAt: plus(T0, 10_000_000) })
      for (const s of [a, b, c]) yield* repo.insert(s)
      expect(Option.getOrThrow(yield* repo.findByTokenHash(a.tokenHash))).toEqual(a)
      expect(Option.isNone(yield* repo.findByTokenHash(unique("nope")))).toBe(true)

      expect(Option.getOrThrow(yield* repo.deleteByTokenHash(a.tokenHash))).toEqual(a)
      expect(Option.isNone(yield* repo.deleteByTokenHash(a.tokenHash))).toBe(true)
      expect(Option.isNone(yield* repo.findByTokenHash(a.tokenHash))).toBe(true)

      // b expired at T0+1s; c lives on.
      yield* repo.deleteExpired({ now: plus(T0, 5000), limit: 10_000 })
      expect(Option.isNone(yield* repo.findByTokenHash(b.tokenHash))).toBe(true)
      expect(Option.isSome(yield* repo.findByTokenHash(c.tokenHash))).toBe(true)

      const d = sessionFixture(account.accountId, { expiresAt: plus(T0, 10_000_000) })
      const e = sessionFixture(account.accountId, { expiresAt: plus(T0, 10_000_000) })
      yield* repo.insert(d)
      yield* repo.insert(e)
      expect(yield* repo.deleteForAccount(account.accountId)).toBe(2)
      expect(Option.isNone(yield* repo.findByTokenHash(d.tokenHash))).toBe(true)
      expect(Option.isSome(yield* repo.findByTokenHash(c.tokenHash))).toBe(true)
      expect(yield* repo.deleteForAccount(account.accountId)).toBe(0)
    }))

  it.effect("dashboard sessions: expired deletion honours its limit", () =>
    Effect.gen(function*() {
      const repo = yield* SessionsRepo
      const account = yield* storedAccount
      // Long expired: before anything another case stores.
      const old = DateTime.makeUnsafe("2001-01-01T00:00:00.000Z") as DateTime.Utc
      for (let i = 0; i < 3; i++) yield* repo.insert(sessionFixture(account.accountId, { createdAt: old, authenticatedAt: old, expiresAt: old }))
      expect(yield* repo.deleteExpired({ now: plus(old, 1), limit: 2 })).toBe(2)
      expect(yield* repo.deleteExpired({ now: plus(old, 1), limit: 2 })).toBe(1)
      expect(yield* repo.deleteExpired({ now: plus(old, 1), limit: 2 })).toBe(0)
    }))

  it.effect("sign-in failures: counted in a window, a new window after it, cleared, purged", () =>
    Effect.gen(function*() {
      const repo = yield* SignInThrottleRepo
      const subject = unique("email")
      expect(Option.isNone(yield* repo.get(subject))).toBe(true)
      const first = yield* repo.recordFailure({ subject, now: T0, windowStart: plus(T0, -60_000) })
      expect(first.failures).toBe(1)
      expect(DateTime.toEpochMillis(first.windowStartedAt)).toBe(DateTime.toEpochMillis(T0))
      const second = yield* repo.recordFailure({ subject, now: plus(T0, 1000), windowStart: plus(T0, -59_000) })
      expect(second).toEqual({ failures: 2, windowStartedAt: T0 })
      // The window started at T0; a failure whose window starts after T0 opens a new one.
      const later = plus(T0, 120_000)
      const third = yield* repo.recordFailure({ subject, now: later, windowStart: plus(later, -60_000) })
      expect(third).toEqual({ failures: 1, windowStartedAt: later })
      expect(Option.getOrThrow(yield* repo.get(subject))).toEqual(third)
      yield* repo.clear(subject)
      expect(Option.isNone(yield* repo.get(subject))).toBe(true)

      yield* repo.recordFailure({ subject, now: T0, windowStart: plus(T0, -1) })
      yield* repo.purge(T0)
      expect(Option.isNone(yield* repo.get(subject))).toBe(true)
    }))

  it.effect("sign-in failures: concurrent failures all count", () =>
    Effect.gen(function*() {
      const repo = yield* SignInThrottleRepo
      const subject = unique("email")
      yield* Effect.all(
        Array.from({ length: 8 }, () => repo.recordFailure({ subject, now: T0, windowStart: plus(T0, -60_000) })),
        { concurrency: "unbounded" }
      )
      expect(Option.getOrThrow(yield* repo.get(subject)).failures).toBe(8)
    }))

  it.effect("privacy requests: stored, claimed oldest first, completed without the email", () =>
    Effect.gen(function*() {
      const repo = yield* PrivacyRequestsRepo
      const tx = yield* Transactor
      const account = yield* storedAccount
      const older = requestFixture({ createdAt: plus(T0, -2000), requestedByAccountId: account.accountId })
      const newer = requestFixture({ createdAt: plus(T0, -1000) })
      yield* repo.insert(newer)
      yield* repo.insert(older)
      expect(Option.getOrThrow(yield* repo.find(older.requestId))).toEqual(older)

      const claimed = yield* tx.withTransaction(Effect.gen(function*() {
        const next = Option.getOrThrow(yield* repo.claimNext)
        yield* repo.complete({ requestId: next.requestId, outcome: "erased", now: T0 })
        return next
      }))
      expect(claimed.requestId).toBe(older.requestId)
      expect(Option.getOrThrow(yield* repo.find(older.requestId))).toEqual({
        ...older,
        email: null,
        status: "completed",
        outcome: "erased",
        processedAt: T0
      })

      const second = yield* tx.withTransaction(Effect.gen(function*() {
        const next = Option.getOrThrow(yield* repo.claimNext)
        yield* repo.complete({ requestId: next.requestId, outcome: "no_account", now: T0 })
        return next
      }))
      expect(second.requestId).toBe(newer.requestId)
      expect(Option.isNone(yield* tx.withTransaction(repo.claimNext))).toBe(true)
    }))

  it.effect("privacy requests: concurrent claims take different requests", () =>
    Effect.gen(function*() {
      const repo = yield* PrivacyRequestsRepo
      const tx = yield* Transactor
      const requests = [requestFixture({ createdAt: plus(T0, -500) }), requestFixture({ createdAt: plus(T0, -400) })]
      for (const r of requests) yield* repo.insert(r)
      const claimOne = tx.withTransaction(Effect.gen(function*() {
        const next = yield* repo.claimNext
        if (Option.isSome(next)) yield* repo.complete({ requestId: next.value.requestId, outcome: "no_account", now: T0 })
        return Option.map(next, (r) => r.requestId)
      }))
      const [a, b] = yield* Effect.all([claimOne, claimOne], { concurrency: "unbounded" })
      expect(Option.isSome(a) && Option.isSome(b) && a.value !== b.value).toBe(true)
      expect(new Set([Option.getOrThrow(a), Option.getOrThrow(b)])).toEqual(new Set(requests.map((r) => r.requestId)))
    }))

  it.effect("audit log: appended records listed newest first, by subject, detail kept", () =>
    Effect.gen(function*() {
      const log = yield* AuditLog
      const subjectId = unique("subject")
      const account = yield* storedAccount
      const base = { action: "privacy_request.processed", actorAccountId: account.accountId, subjectType: "account", subjectId }
      yield* log.append({ ...base, auditId: unique("sb_aud"), detail: { outcome: "erased" }, createdAt: T0 })
      yield* log.append({ ...base, auditId: unique("sb_aud"), detail: { outcome: "no_account" }, createdAt: plus(T0, 1) })
      yield* log.append({ ...base, subjectId: unique("other"), auditId: unique("sb_aud"), detail: {}, createdAt: plus(T0, 2) })
      const listed = yield* log.list({ subjectId, limit: 10 })
      expect(listed.map((r) => r.detail)).toEqual([{ outcome: "no_account" }, { outcome: "erased" }])
      expect(listed[0]).toMatchObject({ ...base, createdAt: plus(T0, 1) })
      expect((yield* log.list({ subjectId, limit: 1 })).length).toBe(1)
      expect((yield* log.list({ limit: 2 })).length).toBe(2)
    }))

  it.effect("project settings: auto-scale and the Slack integration, replaced in place", () =>
    Effect.gen(function*() {
      const repo = yield* ProjectSettingsRepo
      const project = yield* storedProject(yield* ownerAndOrganization)
      expect(Option.isNone(yield* repo.getAutoScale(project.projectId))).toBe(true)
      yield* repo.putAutoScale({ projectId: project.projectId, autoScale: true, now: T0 })
      expect(Option.getOrThrow(yield* repo.getAutoScale(project.projectId))).toEqual({ autoScale: true, updatedAt: T0 })
      yield* repo.putAutoScale({ projectId: project.projectId, autoScale: false, now: plus(T0, 1) })
      expect(Option.getOrThrow(yield* repo.getAutoScale(project.projectId))).toEqual({ autoScale: false, updatedAt: plus(T0, 1) })

      expect(Option.isNone(yield* repo.getSlack(project.projectId))).toBe(true)
      const slack = {
        projectId: project.projectId,
        enabledFeatures: [] as ReadonlyArray<string>,
        clientId: "123.456",
        appId: "A0123",
        clientSecretSealed: new Uint8Array([1, 2, 3]),
        signingSecretSealed: new Uint8Array([4, 5, 6]),
        createdAt: T0,
        updatedAt: T0
      }
      expect(yield* repo.putSlack(slack)).toEqual(slack)
      const replaced = { ...slack, enabledFeatures: ["events"], clientId: "789", createdAt: plus(T0, 5), updatedAt: plus(T0, 5) }
      // The first creation time is kept.
      expect(yield* repo.putSlack(replaced)).toEqual({ ...replaced, createdAt: T0 })
      expect(Option.getOrThrow(yield* repo.getSlack(project.projectId))).toEqual({ ...replaced, createdAt: T0 })
    }))

  it.effect("onboarding answers: stored, replaced keeping the creation time, removed", () =>
    Effect.gen(function*() {
      const repo = yield* OnboardingRepo
      const account = yield* storedAccount
      const answers = {
        accountId: account.accountId,
        companyName: "Acme",
        role: null,
        useCase: "support",
        teamSize: 12,
        createdAt: T0,
        updatedAt: T0
      }
      expect(Option.isNone(yield* repo.get(account.accountId))).toBe(true)
      expect(yield* repo.put(answers)).toEqual(answers)
      const next = { ...answers, role: "cto", teamSize: null, createdAt: plus(T0, 9), updatedAt: plus(T0, 9) }
      expect(yield* repo.put(next)).toEqual({ ...next, createdAt: T0 })
      expect(Option.getOrThrow(yield* repo.get(account.accountId))).toEqual({ ...next, createdAt: T0 })
      yield* repo.remove(account.accountId)
      expect(Option.isNone(yield* repo.get(account.accountId))).toBe(true)
    }))

  it.effect("account erasure: personal data overwritten, the old email no longer finds it", () =>
    Effect.gen(function*() {
      const erasure = yield* AccountErasureRepo
      const accounts = yield* AccountsRepo
      const account = accountFixture({ firstName: "Ada", lastName: "L", phoneNumber: "+15550100", passwordHash: "scrypt$x" })
      yield* accounts.insert(account)
      const placeholder = `${unique("erased")}@erased.invalid`
      const erased = Option.getOrThrow(yield* erasure.anonymise({ accountId: account.accountId, placeholderEmail: placeholder, now: plus(T0, 7) }))
      expect(erased).toEqual({
        ...account,
        email: placeholder,
        firstName: null,
        lastName: null,
        phoneNumber: null,
        phoneVerifiedAt: null,
        pictureUrl: null,
        passwordHash: null,
        updatedAt: plus(T0, 7)
      })
      expect(Option.isNone(yield* accounts.findByEmail(account.email))).toBe(true)
      expect(Option.getOrThrow(yield* accounts.findByEmail(placeholder)).accountId).toBe(account.accountId)
      expect(Option.isNone(yield* erasure.anonymise({ accountId: accountFixture().accountId, placeholderEmail: unique("x"), now: T0 }))).toBe(true)
    }))

  it.effect("store health: reachable, with its applied migrations", () =>
    Effect.gen(function*() {
      const report = yield* (yield* StoreHealth).check
      expect(report.ok).toBe(true)
      expect(report.latencyMs).toBeGreaterThanOrEqual(0)
      expect(Array.isArray(report.migrations)).toBe(true)
      for (const m of report.migrations) expect(m).toMatch(/^\d{4}_[A-Za-z0-9_]+$/)
    }))
}
