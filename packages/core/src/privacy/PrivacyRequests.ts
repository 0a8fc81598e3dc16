/**
 * Privacy (data subject) requests of the Dashboard API (docs/api-notes/dashboard-api.md):
 * `submit` records an erasure request and answers `received`; `processPending` — run by the
 * server's job, or called directly — handles each in one transaction and writes an audit record.
 *
 * Who can be erased: the request is a data subject's, so the account of the email is erased only
 * when the caller was that account (signed in as it, or holding its token). A request for someone
 * else's email is recorded and audited as `not_verified` and changes nothing — otherwise any user
 * could erase any other.
 *
 * Erasure: sessions end, service keys are revoked, OAuth grants withdrawn, TOTP factors and
 * pending phone verifications dropped, onboarding answers dropped; the account is deleted through `AccountProfile.delete`
 * (tombstone; memberships left) and its personal data overwritten. An account that still owns an
 * organization cannot be deleted without orphaning it: it is anonymised instead — the same
 * overwrite and revocations, so nobody can sign in as it, but the row stays as the owner.
 * Afterwards the request keeps only a hash of the email.
 */
import { Context, DateTime, Effect, Layer, Option } from "effect"
import { AccountProfile } from "../accounts/AccountProfile.js"
import { PhoneVerificationsRepo, TotpFactorsRepo } from "../accounts/AccountSecurityPorts.js"
import { AccountServiceKeys } from "../credentials/AccountServiceKeys.js"
import { AccountsRepo } from "../accounts/Ports.js"
import { OAuthGrants } from "../oauth/OAuthGrants.js"
import { sha256Hex } from "../internal/Crypto.js"
import type { AccountId } from "../shared/Identifiers.js"
import { Transactor } from "../shared/Ports.js"
import { RecordCache } from "../shared/RecordCache.js"
import { Secrets } from "../shared/Secrets.js"
import { OnboardingRepo } from "../dashboard/DashboardPorts.js"
import {
  AccountErasureRepo,
  AuditLog,
  type PrivacyRequestOutcome,
  type PrivacyRequestRecord,
  PrivacyRequestsRepo
} from "./Ports.js"
import { dashboardId, Sessions } from "../dashboard/Sessions.js"
import { fn } from "../internal/Traced.js"

/** The placeholder address an erased account is left with (unique, never deliverable: RFC 2606 `.invalid`). */
export const erasedEmail = (accountId: string) => `erased-${accountId.slice(-26)}@erased.invalid`

/** A hook other features add to an erasure (e.g. withdrawing OAuth grants), run in its transaction. */
export type ErasureHook = (accountId: AccountId) => Effect.Effect<void>

export class PrivacyRequests extends Context.Service<PrivacyRequests>()("core/PrivacyRequests", {
  make: Effect.gen(function*() {
    const requests = yield* PrivacyRequestsRepo
    const audit = yield* AuditLog
    const accounts = yield* AccountsRepo
    const erasure = yield* AccountErasureRepo
    const onboarding = yield* OnboardingRepo
    const profiles = yield* AccountProfile
    const keys = yield* AccountServiceKeys
    const sessions = yield* Sessions
    const grants = yield* OAuthGrants
    const phones = yield* PhoneVerificationsRepo
    const factors = yield* TotpFactorsRepo
    const tx = yield* Transactor
    const records = yield* RecordCache
    const secrets = yield* Secrets
    const newId = (kind: "prq" | "aud") => Effect.provideService(dashboardId(kind), Secrets, secrets)

    const record = (entry: {
      readonly action: string
      readonly actorAccountId: AccountId | null
      readonly subjectType: string
      readonly subjectId: string | null
      readonly detail: Record<string, string>
    }) =>
      Effect.gen(function*() {
        yield* audit.append({ auditId: yield* newId("aud"), createdAt: yield* DateTime.now, ...entry })
      })

    /** Records an erasure request for `email` from the caller `requestedBy`. */
    const submit = fn("PrivacyRequests.submit")(function*(input: {
      readonly email: string
      readonly requestedBy: AccountId | null
    }) {
      const now = yield* DateTime.now
      const request: PrivacyRequestRecord = {
        requestId: yield* newId("prq"),
        email: input.email.trim(),
        emailHash: yield* sha256Hex(input.email.trim().toLowerCase()),
        requestedByAccountId: input.requestedBy,
        status: "received",
        outcome: null,
        createdAt: now,
        processedAt: null
      }
      yield* tx.withTransaction(Effect.gen(function*() {
        yield* requests.insert(request)
        yield* record({
          action: "privacy_request.received",
          actorAccountId: input.requestedBy,
          subjectType: "privacy_request",
          subjectId: request.requestId,
          detail: { emailHash: request.emailHash }
        })
      }))
      return { requestId: request.requestId, status: "received" as const }
    })

    const find = fn("PrivacyRequests.find")(function*(requestId: string) {
      return yield* requests.find(requestId)
    })

    /** Erases (or, when it owns organizations, anonymises) one account. */
    const erase = (accountId: AccountId, hooks: ReadonlyArray<ErasureHook>) =>
      Effect.gen(function*() {
        const now = yield* DateTime.now
        yield* sessions.revokeAll(accountId)
        for (const key of yield* keys.list(accountId)) {
          yield* keys.revoke(accountId, key.serviceKeyId).pipe(Effect.catchTag("AccountServiceKeyNotFound", () => Effect.void))
        }
        // Every OAuth grant withdrawn: consents, codes and tokens (docs/api-notes/oauth.md).
        for (const grant of yield* grants.listForAccount(accountId)) yield* grants.revokeGrant(grant.grantId)
        for (const hook of hooks) yield* hook(accountId)
        yield* onboarding.remove(accountId)
        yield* phones.remove(accountId)
        yield* factors.softDeleteAll({ accountId, now })
        const outcome: PrivacyRequestOutcome = yield* profiles.delete(accountId).pipe(
          Effect.as("erased" as const),
          Effect.catchTags({
            AccountOwnsOrganizations: () => Effect.succeed("anonymised" as const),
            AccountNotFound: () => Effect.succeed("erased" as const)
          })
        )
        yield* erasure.anonymise({ accountId, placeholderEmail: erasedEmail(accountId), now })
        yield* records.changed("account", accountId)
        return outcome
      })

    /** Processes the next received request, if any; its id and outcome. */
    const processNext = (hooks: ReadonlyArray<ErasureHook>) =>
      tx.withTransaction(Effect.gen(function*() {
        const claimed = yield* requests.claimNext
        if (Option.isNone(claimed)) return Option.none<{ readonly requestId: string; readonly outcome: PrivacyRequestOutcome }>()
        const request = claimed.value
        const found = request.email === null ? Option.none() : yield* accounts.findByEmail(request.email)
        const account = Option.filter(found, (a) => a.deletedAt === null)
        let outcome: PrivacyRequestOutcome
        if (Option.isNone(account)) outcome = "no_account"
        else if (account.value.accountId !== request.requestedByAccountId) outcome = "not_verified"
        else outcome = yield* erase(account.value.accountId, hooks)
        const now = yield* DateTime.now
        yield* requests.complete({ requestId: request.requestId, outcome, now })
        yield* record({
          action: "privacy_request.processed",
          actorAccountId: request.requestedByAccountId,
          subjectType: "account",
          subjectId: Option.isSome(account) ? account.value.accountId : null,
          detail: { requestId: request.requestId, outcome, emailHash: request.emailHash }
        })
        return Option.some({ requestId: request.requestId, outcome })
      }))

    /**
     * Processes up to `limit` received requests, oldest first, each in its own transaction; what
     * was done. Safe to run in several processes at once (claimed requests are skipped).
     */
    const processPending = fn("PrivacyRequests.processPending")(function*(
      options: { readonly limit?: number; readonly hooks?: ReadonlyArray<ErasureHook> } = {}
    ) {
      const limit = options.limit ?? 100
      const done: Array<{ readonly requestId: string; readonly outcome: PrivacyRequestOutcome }> = []
      while (done.length < limit) {
        const next = yield* processNext(options.hooks ?? [])
        if (Option.isNone(next)) break
        done.push(next.value)
      }
      return done
    })

    return { submit, find, processPending } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
