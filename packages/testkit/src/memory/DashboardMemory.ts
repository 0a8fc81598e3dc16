/**
 * The Dashboard feature's ports in memory: sessions, sign-in failure windows, privacy requests,
 * the audit log, per-project settings, onboarding answers and the account erasure write — tables
 * of the shared `MemoryState` (so they roll back with transactions; account writes go to the same
 * `"accounts"` table as `AccountsMemory`) — and a store health that is always up. Each operation
 * is one synchronous step, and memory transactions run one at a time, so there is nothing to lock.
 */
import { type AccountRecord } from "@switchboard/core/accounts"
import {
  type OnboardingRecord,
  OnboardingRepo,
  type SessionRecord,
  SessionsRepo,
  type SignInFailures,
  SignInThrottleRepo,
  StoreHealth
} from "@switchboard/core/dashboard"
import {
  AccountErasureRepo,
  type AuditRecord,
  AuditLog,
  type PrivacyRequestRecord,
  PrivacyRequestsRepo
} from "@switchboard/core/privacy"
import { ProjectSettingsRepo, type SlackIntegrationRecord } from "@switchboard/core/projects"
import { DateTime, Effect, Layer, Option } from "effect"
import { MemoryState } from "./MemoryState.js"

const byTime = <A>(time: (a: A) => DateTime.Utc, id: (a: A) => string) => (a: A, b: A) =>
  time(a).epochMilliseconds - time(b).epochMilliseconds || (id(a) < id(b) ? -1 : id(a) > id(b) ? 1 : 0)

const make = Effect.gen(function*() {
  const state = yield* MemoryState
  const sessions = state.table<string, SessionRecord>("dashboard_sessions")
  const throttle = state.table<string, SignInFailures>("dashboard_sign_in_failures")
  const requests = state.table<string, PrivacyRequestRecord>("privacy_requests")
  const audit = state.table<string, AuditRecord>("audit_records")
  const autoScale = state.table<string, { autoScale: boolean; updatedAt: DateTime.Utc }>("project_imessage_settings")
  const slack = state.table<string, SlackIntegrationRecord>("project_slack_integrations")
  const onboarding = state.table<string, OnboardingRecord>("onboarding_answers")
  const accounts = state.table<string, AccountRecord>("accounts")

  const sessionsRepo = SessionsRepo.of({
    insert: (s) => Effect.sync(() => void sessions.set(s.tokenHash, s)),
    findByTokenHash: (h) => Effect.sync(() => Option.fromNullishOr(sessions.get(h))),
    deleteByTokenHash: (h) =>
      Effect.sync(() => {
        const found = sessions.get(h)
        sessions.delete(h)
        return Option.fromNullishOr(found)
      }),
    deleteForAccount: (accountId) =>
      Effect.sync(() => {
        let n = 0
        for (const [h, s] of sessions) {
          if (s.accountId === accountId) {
            sessions.delete(h)
            n++
          }
        }
        return n
      }),
    deleteExpired: ({ limit, now }) =>
      Effect.sync(() => {
        let n = 0
        for (const [h, s] of sessions) {
          if (n >= limit) break
          if (DateTime.toEpochMillis(s.expiresAt) <= DateTime.toEpochMillis(now)) {
            sessions.delete(h)
            n++
          }
        }
        return n
      })
  })

  const throttleRepo = SignInThrottleRepo.of({
    get: (subject) => Effect.sync(() => Option.fromNullishOr(throttle.get(subject))),
    recordFailure: ({ now, subject, windowStart }) =>
      Effect.sync(() => {
        const current = throttle.get(subject)
        const next = current !== undefined && DateTime.toEpochMillis(current.windowStartedAt) > DateTime.toEpochMillis(windowStart)
          ? { failures: current.failures + 1, windowStartedAt: current.windowStartedAt }
          : { failures: 1, windowStartedAt: now }
        throttle.set(subject, next)
        return next
      }),
    clear: (subject) => Effect.sync(() => void throttle.delete(subject)),
    purge: (before) =>
      Effect.sync(() => {
        let n = 0
        for (const [k, v] of throttle) {
          if (DateTime.toEpochMillis(v.windowStartedAt) <= DateTime.toEpochMillis(before)) {
            throttle.delete(k)
            n++
          }
        }
        return n
      })
  })

  const requestsRepo = PrivacyRequestsRepo.of({
    insert: (r) => Effect.sync(() => void requests.set(r.requestId, r)),
    find: (id) => Effect.sync(() => Option.fromNullishOr(requests.get(id))),
    claimNext: Effect.sync(() =>
      Option.fromNullishOr(
        [...requests.values()]
          .filter((r) => r.status === "received")
          .sort(byTime((r) => r.createdAt, (r) => r.requestId))[0]
      )
    ),
    complete: ({ now, outcome, requestId }) =>
      Effect.sync(() => {
        const r = requests.get(requestId)
        if (r !== undefined) requests.set(requestId, { ...r, status: "completed", outcome, processedAt: now, email: null })
      })
  })

  const auditLog = AuditLog.of({
    append: (r) => Effect.sync(() => void audit.set(r.auditId, r)),
    list: ({ limit, subjectId }) =>
      Effect.sync(() =>
        [...audit.values()]
          .filter((r) => subjectId === undefined || r.subjectId === subjectId)
          .sort(byTime((r) => r.createdAt, (r) => r.auditId))
          .reverse()
          .slice(0, limit)
      )
  })

  const settings = ProjectSettingsRepo.of({
    getAutoScale: (projectId) => Effect.sync(() => Option.fromNullishOr(autoScale.get(projectId))),
    putAutoScale: ({ autoScale: value, now, projectId }) =>
      Effect.sync(() => void autoScale.set(projectId, { autoScale: value, updatedAt: now })),
    getSlack: (projectId) => Effect.sync(() => Option.fromNullishOr(slack.get(projectId))),
    putSlack: (record) =>
      Effect.sync(() => {
        const stored = { ...record, createdAt: slack.get(record.projectId)?.createdAt ?? record.createdAt }
        slack.set(record.projectId, stored)
        return stored
      })
  })

  const onboardingRepo = OnboardingRepo.of({
    get: (accountId) => Effect.sync(() => Option.fromNullishOr(onboarding.get(accountId))),
    put: (record) =>
      Effect.sync(() => {
        const stored = { ...record, createdAt: onboarding.get(record.accountId)?.createdAt ?? record.createdAt }
        onboarding.set(record.accountId, stored)
        return stored
      }),
    remove: (accountId) => Effect.sync(() => void onboarding.delete(accountId))
  })

  const erasure = AccountErasureRepo.of({
    anonymise: ({ accountId, now, placeholderEmail }) =>
      Effect.sync(() => {
        const current = accounts.get(accountId)
        if (current === undefined) return Option.none()
        const next: AccountRecord = {
          ...current,
          email: placeholderEmail,
          firstName: null,
          lastName: null,
          phoneNumber: null,
          phoneVerifiedAt: null,
          pictureUrl: null,
          passwordHash: null,
          updatedAt: now
        }
        accounts.set(accountId, next)
        return Option.some(next)
      })
  })

  return Layer.mergeAll(
    Layer.succeed(SessionsRepo, sessionsRepo),
    Layer.succeed(SignInThrottleRepo, throttleRepo),
    Layer.succeed(PrivacyRequestsRepo, requestsRepo),
    Layer.succeed(AuditLog, auditLog),
    Layer.succeed(ProjectSettingsRepo, settings),
    Layer.succeed(OnboardingRepo, onboardingRepo),
    Layer.succeed(AccountErasureRepo, erasure),
    Layer.succeed(StoreHealth, { check: Effect.succeed({ ok: true, latencyMs: 0, migrations: [] }) })
  )
})

export const DashboardMemory = Layer.unwrap(make)
