/**
 * The SSO feature's part of the repository contract suite (docs/sso.md): connections written by
 * compare-and-set on their version, found by a verified domain, deleted by version; pending
 * sign-ins consumed once and never after they expire; identities linked once; SSO sessions.
 */
import type { Vitest } from "@effect/vitest"
import { type StorePorts } from "@switchboard/core"
import { SessionsRepo } from "@switchboard/core/dashboard"
import { type SsoConnectionRecord, type SsoLoginRecord, SsoRepo } from "@switchboard/core/sso"
import { DateTime, Effect, Option } from "effect"
import { expect } from "vitest"
import { ownerAndOrganization } from "./ProjectsContract.js"

const T0 = DateTime.makeUnsafe("2030-01-01T00:00:00.000Z") as DateTime.Utc
const plus = (t: DateTime.Utc, ms: number) => DateTime.makeUnsafe(DateTime.toEpochMillis(t) + ms) as DateTime.Utc
let counter = 0
const unique = (what: string) => `${what}-${Date.now().toString(36)}-${++counter}-${Math.random().toString(36).slice(2, 8)}`

const connectionFixture = (organizationId: SsoConnectionRecord["organizationId"], overrides: Partial<SsoConnectionRecord> = {}): SsoConnectionRecord => ({
  organizationId,
  issuer: "https://idp.example.com",
  clientId: "client-1",
  clientSecretSealed: "c2VhbGVk",
  domains: [{ domain: `${unique("d")}.example.com`, state: "pending", verificationToken: "sb-sso=abc" }],
  jitEnabled: false,
  desiredEnforced: false,
  enforced: false,
  state: "configuring",
  lastError: null,
  generation: 1,
  version: 1,
  changedAt: T0,
  ...overrides
})

const loginFixture = (organizationId: SsoLoginRecord["organizationId"], overrides: Partial<SsoLoginRecord> = {}): SsoLoginRecord => ({
  stateHash: unique("state"),
  organizationId,
  purpose: "sign_in",
  generation: 1,
  codeVerifier: "v".repeat(43),
  nonce: "n".repeat(43),
  returnTo: "http://localhost:3000/",
  invitationTokenHash: null,
  accountId: null,
  createdAt: T0,
  expiresAt: plus(T0, 600_000),
  ...overrides
})

export const ssoContract = (it: Vitest.MethodsNonLive<StorePorts>): void => {
  it.effect("sso connections: created once, changed only at the expected version, found by a verified domain, deleted by version", () =>
    Effect.gen(function*() {
      const repo = yield* SsoRepo
      const { organizationId } = yield* ownerAndOrganization
      const first = connectionFixture(organizationId)
      expect(yield* repo.saveConnection(first, null)).toBe(true)
      expect(yield* repo.saveConnection({ ...first, version: 5 }, null)).toBe(false)
      expect(Option.getOrThrow(yield* repo.findConnection(organizationId))).toEqual(first)
      const domain = first.domains[0]!.domain
      expect(Option.isNone(yield* repo.findConnectionByVerifiedDomain(domain))).toBe(true)
      const verified: SsoConnectionRecord = {
        ...first,
        version: 2,
        enforced: true,
        desiredEnforced: true,
        state: "ready",
        domains: [{ ...first.domains[0]!, state: "verified" }]
      }
      expect(yield* repo.saveConnection(verified, 7)).toBe(false)
      expect(yield* repo.saveConnection(verified, 1)).toBe(true)
      expect(Option.getOrThrow(yield* repo.findConnectionByVerifiedDomain(domain))).toEqual(verified)
      expect(yield* repo.deleteConnection(organizationId, 1)).toBe(false)
      expect(yield* repo.deleteConnection(organizationId, 2)).toBe(true)
      expect(Option.isNone(yield* repo.findConnection(organizationId))).toBe(true)
      expect(Option.isNone(yield* repo.findConnectionByVerifiedDomain(domain))).toBe(true)
    }))

  it.effect("sso sign-ins: consumed once, and an expired one is gone without being returned", () =>
    Effect.gen(function*() {
      const repo = yield* SsoRepo
      const { accountId, organizationId } = yield* ownerAndOrganization
      const login = loginFixture(organizationId, { purpose: "admission", accountId, invitationTokenHash: "h".repeat(64) })
      yield* repo.insertLogin(login)
      expect(Option.getOrThrow(yield* repo.consumeLogin(login.stateHash, plus(T0, 1000)))).toEqual(login)
      expect(Option.isNone(yield* repo.consumeLogin(login.stateHash, plus(T0, 1000)))).toBe(true)
      const expired = loginFixture(organizationId)
      yield* repo.insertLogin(expired)
      expect(Option.isNone(yield* repo.consumeLogin(expired.stateHash, plus(T0, 600_000)))).toBe(true)
      expect(Option.isNone(yield* repo.consumeLogin(expired.stateHash, T0))).toBe(true)
    }))

  it.effect("sso identities and sessions: linked once; a session lists the organizations it signed in through", () =>
    Effect.gen(function*() {
      const repo = yield* SsoRepo
      const a = yield* ownerAndOrganization
      const b = yield* ownerAndOrganization
      const subject = unique("sub")
      const key = { organizationId: a.organizationId, issuer: "https://idp.example.com", subject }
      expect(Option.isNone(yield* repo.findIdentity(key))).toBe(true)
      yield* repo.insertIdentity({ ...key, accountId: a.accountId, createdAt: T0 })
      yield* repo.insertIdentity({ ...key, accountId: b.accountId, createdAt: plus(T0, 1) })
      expect(Option.getOrThrow(yield* repo.findIdentity(key)).accountId).toBe(a.accountId)
      expect(Option.isNone(yield* repo.findIdentity({ ...key, organizationId: b.organizationId }))).toBe(true)
      const sessionId = unique("sb_ses")
      yield* (yield* SessionsRepo).insert({
        sessionId,
        tokenHash: unique("hash"),
        accountId: a.accountId,
        createdAt: T0,
        expiresAt: plus(T0, 1000),
        authenticatedAt: T0
      })
      expect(yield* repo.sessionOrganizations(sessionId)).toEqual([])
      yield* repo.markSession({ sessionId, organizationId: a.organizationId, expiresAt: plus(T0, 1000) })
      yield* repo.markSession({ sessionId, organizationId: b.organizationId, expiresAt: plus(T0, 1000) })
      yield* repo.markSession({ sessionId, organizationId: a.organizationId, expiresAt: plus(T0, 1000) })
      expect([...(yield* repo.sessionOrganizations(sessionId))].sort()).toEqual([a.organizationId, b.organizationId].sort())
      expect(yield* repo.planCodesOf(a.organizationId)).toEqual([])
      yield* (yield* SessionsRepo).deleteForAccount(a.accountId)
      expect(yield* repo.sessionOrganizations(sessionId)).toEqual([])
    }))
}
