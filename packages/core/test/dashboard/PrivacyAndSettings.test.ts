import { describe, expect, it } from "@effect/vitest"
import { SwitchboardCore } from "@switchboard/core"
import { Accounts } from "@switchboard/core/accounts"
import { AccountServiceKeys, Authenticator, Principal } from "@switchboard/core/credentials"
import { DashboardProjects, Onboarding, Sessions, SignIn, slugFromName } from "@switchboard/core/dashboard"
import { OrganizationsRepo } from "@switchboard/core/organizations"
import { AuditLog, erasedEmail, PrivacyRequests } from "@switchboard/core/privacy"
import { hasSlugShape, isReservedSlug, ProjectIntegrations } from "@switchboard/core/projects"
import { type AccountId } from "@switchboard/core/shared"
import { TestkitLive } from "@switchboard/testkit"
import { DateTime, Effect, Layer, Option, Redacted, Result } from "effect"
import { TestClock } from "effect/testing"
import * as fc from "fast-check"

const T0 = Date.parse("2030-01-01T00:00:15.000Z")
const Env = SwitchboardCore.pipe(Layer.provideMerge(TestkitLive))
let n = 0
const email = (what: string) => `${what}.${++n}@example.com`
const principal = (accountId: AccountId) => Principal.AccessToken({ accountId, scopes: [], tokenId: "test", origin: "session" })

describe("slugFromName", () => {
  it("derives readable slugs", () => {
    expect(slugFromName("My Project")).toBe("my-project")
    expect(slugFromName("  Café Olé!! ")).toBe("cafe-ole")
    expect(slugFromName("ab")).toBe("ab-project")
    expect(slugFromName("Admin")).toBe("admin-project")
    expect(slugFromName("日本語")).toBe("my-project")
  })

  it("is always a usable slug: the shape, 3..63 characters, not reserved", () => {
    fc.assert(fc.property(fc.string({ maxLength: 300 }), (name) => {
      const slug = slugFromName(name)
      expect(hasSlugShape(slug)).toBe(true)
      expect(slug.length).toBeGreaterThanOrEqual(3)
      expect(slug.length).toBeLessThanOrEqual(63)
      expect(isReservedSlug(slug)).toBe(false)
    }))
  })
})

describe("PrivacyRequests", () => {
  it.effect("a request for the caller's own email erases the account: sessions, keys, personal data; audited", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(T0)
      const address = email("subject")
      const up = yield* (yield* SignIn).signUp({ email: address, password: Redacted.make("a long enough password"), firstName: "Ada" })
      const accountId = up.account.accountId
      const key = yield* (yield* AccountServiceKeys).create({ accountId, name: "k", expiresAt: null })
      yield* (yield* Onboarding).save(accountId, { companyName: "Acme" })
      const privacy = yield* PrivacyRequests
      const received = yield* privacy.submit({ email: address, requestedBy: accountId })
      expect(received).toEqual({ requestId: expect.stringMatching(/^sb_prq_/), status: "received" })
      // Nothing happens until the job runs.
      expect((yield* (yield* Accounts).get(accountId)).email).toBe(address)

      const done = yield* privacy.processPending()
      expect(done).toEqual([{ requestId: received.requestId, outcome: "erased" }])
      const account = yield* (yield* Accounts).get(accountId)
      expect(account).toMatchObject({ email: erasedEmail(accountId), firstName: null, passwordHash: null })
      expect(account.deletedAt).not.toBeNull()
      expect(Option.isNone(yield* (yield* Sessions).resolve(Redacted.value(up.token)))).toBe(true)
      const auth = yield* Effect.result((yield* Authenticator).authenticate(key.secret))
      expect(Result.isFailure(auth)).toBe(true)
      expect(Option.isNone(yield* (yield* Onboarding).get(accountId))).toBe(true)
      const request = Option.getOrThrow(yield* privacy.find(received.requestId))
      expect(request).toMatchObject({ status: "completed", outcome: "erased", email: null })
      const audit = yield* (yield* AuditLog).list({ subjectId: accountId, limit: 10 })
      expect(audit).toHaveLength(1)
      expect(audit[0]).toMatchObject({ action: "privacy_request.processed", detail: { outcome: "erased", requestId: received.requestId } })
      expect(JSON.stringify(audit)).not.toContain(address)
      // Nothing left to do.
      expect(yield* privacy.processPending()).toEqual([])
    }).pipe(Effect.provide(Env)))

  it.effect("an organization owner is anonymised, not deleted: the organization keeps its owner", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(T0)
      const address = email("owner")
      const up = yield* (yield* SignIn).signUp({ email: address, password: Redacted.make("a long enough password") })
      const accountId = up.account.accountId
      const project = yield* (yield* DashboardProjects).create({ accountId, name: "Owned" })
      const privacy = yield* PrivacyRequests
      yield* privacy.submit({ email: address, requestedBy: accountId })
      expect((yield* privacy.processPending()).map((d) => d.outcome)).toEqual(["anonymised"])
      const account = yield* (yield* Accounts).get(accountId)
      expect(account).toMatchObject({ email: erasedEmail(accountId), passwordHash: null, deletedAt: null })
      expect(Option.getOrThrow(yield* (yield* OrganizationsRepo).roleOf(project.organizationId, accountId))).toBe("owner")
      const signIn = yield* Effect.result((yield* SignIn).signIn({ email: address, password: Redacted.make("a long enough password") }))
      expect(Result.isFailure(signIn) && signIn.failure._tag).toBe("InvalidSignIn")
    }).pipe(Effect.provide(Env)))

  it.effect("a request for someone else's email changes nothing (not_verified); an unknown email is no_account", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(T0)
      const victim = email("victim")
      const other = yield* (yield* Accounts).create({ email: victim })
      const caller = yield* (yield* Accounts).create({ email: email("caller") })
      const privacy = yield* PrivacyRequests
      yield* privacy.submit({ email: victim, requestedBy: caller.accountId })
      yield* TestClock.adjust("1 second")
      yield* privacy.submit({ email: email("nobody"), requestedBy: caller.accountId })
      expect((yield* privacy.processPending()).map((d) => d.outcome)).toEqual(["not_verified", "no_account"])
      expect((yield* (yield* Accounts).get(other.accountId))).toMatchObject({ email: victim, deletedAt: null })
      const audit = yield* (yield* AuditLog).list({ subjectId: other.accountId, limit: 10 })
      expect(audit.map((a) => a.detail.outcome)).toEqual(["not_verified"])
    }).pipe(Effect.provide(Env)))
})

describe("ProjectIntegrations", () => {
  it.effect("Slack secrets are sealed and never shown; auto-scale defaults off; non-members get ProjectNotFound", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(T0)
      const owner = yield* (yield* Accounts).create({ email: email("slack") })
      const stranger = yield* (yield* Accounts).create({ email: email("stranger") })
      const project = yield* (yield* DashboardProjects).create({ accountId: owner.accountId, name: "Slacky" })
      const integrations = yield* ProjectIntegrations
      expect(yield* integrations.getAutoScale(project.projectId, principal(owner.accountId))).toEqual({ autoScale: false })
      expect(yield* integrations.setAutoScale(project.projectId, principal(owner.accountId), true)).toEqual({ autoScale: true })
      expect(yield* integrations.getAutoScale(project.projectId, principal(owner.accountId))).toEqual({ autoScale: true })

      const view = yield* integrations.putSlack(project.projectId, principal(owner.accountId), {
        enabledFeatures: [],
        clientId: "123.456",
        clientSecret: Redacted.make("client-secret-value"),
        signingSecret: Redacted.make("signing-secret-value"),
        appId: "A01"
      })
      expect(view).toMatchObject({ clientId: "123.456", clientSecret: "[redacted]", signingSecret: "[redacted]", appId: "A01" })
      expect(JSON.stringify(view)).not.toContain("secret-value")
      const secrets = Option.getOrThrow(yield* integrations.slackSecrets(project.projectId))
      expect(Redacted.value(secrets.clientSecret)).toBe("client-secret-value")
      expect(Redacted.value(secrets.signingSecret)).toBe("signing-secret-value")

      const refused = yield* Effect.result(integrations.setAutoScale(project.projectId, principal(stranger.accountId), false))
      expect(Result.isFailure(refused) && refused.failure._tag).toBe("ProjectNotFound")
    }).pipe(Effect.provide(Env)))
})

describe("DashboardProjects and Onboarding", () => {
  it.effect("a project from a name lands in a new personal organization; the list and identity snapshot see it", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(T0)
      const account = yield* (yield* Accounts).create({ email: email("builder"), firstName: "Bo" })
      const projects = yield* DashboardProjects
      const first = yield* projects.create({ accountId: account.accountId, name: "Support Bot" })
      expect(first.slug).toMatch(/^support-bot/)
      const second = yield* projects.create({ accountId: account.accountId, name: "Support Bot" })
      // The same organization, and the slug taken: the suggestion is used.
      expect(second.organizationId).toBe(first.organizationId)
      expect(second.slug).not.toBe(first.slug)
      expect((yield* projects.list(account.accountId)).map((p) => p.projectId).sort()).toEqual([first.projectId, second.projectId].sort())
      const snapshot = yield* projects.identity(account.accountId)
      expect(snapshot).toMatchObject({ distinctId: account.accountId, name: "Bo", organizationIds: [first.organizationId], projectCount: 2 })
    }).pipe(Effect.provide(Env)))

  it.effect("onboarding answers are merged: absent keeps, null clears", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(T0)
      const account = yield* (yield* Accounts).create({ email: email("onboard") })
      const onboarding = yield* Onboarding
      yield* onboarding.save(account.accountId, { companyName: "Acme", teamSize: 5 })
      yield* TestClock.adjust("1 minute")
      const saved = yield* onboarding.save(account.accountId, { role: "cto", teamSize: null })
      expect(saved).toMatchObject({ companyName: "Acme", role: "cto", useCase: null, teamSize: null })
      expect(DateTime.toEpochMillis(saved.updatedAt) - DateTime.toEpochMillis(saved.createdAt)).toBe(60_000)
    }).pipe(Effect.provide(Env)))
})
