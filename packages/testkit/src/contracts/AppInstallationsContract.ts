/**
 * The app installation feature's part of the repository contract suite (docs/app-installation.md):
 * requests stored and replaced whole, found by the hash of their code, the account's pending ones
 * listed newest first without expired or decided ones; key sets replaced; an assertion jti accepted
 * once per app until it expires.
 */
import type { Vitest } from "@effect/vitest"
import { type StorePorts } from "@switchboard/core"
import { OAuthAppsRepo, type OAuthApp, AppInstallationsRepo, type InstallationRequestRecord } from "@switchboard/core/oauth"
import { ApiKeyId, formatTypeId, IdKinds, uuidv7Bytes } from "@switchboard/core/shared"
import { DateTime, Effect, Option } from "effect"
import { expect } from "vitest"
import { ownerAndOrganization, storedProject } from "./ProjectsContract.js"

const T0 = DateTime.makeUnsafe("2030-01-01T00:00:00.000Z") as DateTime.Utc
const plus = (t: DateTime.Utc, ms: number) => DateTime.makeUnsafe(DateTime.toEpochMillis(t) + ms) as DateTime.Utc
const rand = () => crypto.getRandomValues(new Uint8Array(10))
const hex = () => Array.from(crypto.getRandomValues(new Uint8Array(32)), (b) => b.toString(16).padStart(2, "0")).join("")

/** An owner, their organization, a project of it and an app they own, in the store. */
const setup = Effect.gen(function*() {
  const owner = yield* ownerAndOrganization
  const project = yield* storedProject(owner)
  const app: OAuthApp = {
    clientId: formatTypeId(IdKinds.oauthApp, uuidv7Bytes(DateTime.toEpochMillis(T0), rand())),
    ownerAccountId: owner.accountId,
    name: "Acme",
    logoUri: null,
    homepageUri: null,
    redirectUris: ["https://acme.example/installed"],
    clientType: "confidential",
    scopes: ["openid"],
    createdAt: T0,
    updatedAt: T0
  }
  yield* (yield* OAuthAppsRepo).insert({ app, secretHash: hex() })
  return { owner, project, app }
})

const requestFixture = (appId: string, createdAt: DateTime.Utc, overrides: Partial<InstallationRequestRecord> = {}): InstallationRequestRecord => ({
  requestId: formatTypeId(IdKinds.installationRequest, uuidv7Bytes(DateTime.toEpochMillis(createdAt), rand())),
  appId,
  appVersion: "1893456000000",
  redirectUri: "https://acme.example/installed",
  state: "xyz",
  createdAt,
  expiresAt: plus(createdAt, 3_600_000),
  accountId: null,
  status: "pending",
  projectId: null,
  permissions: [],
  decidedAt: null,
  codeHash: null,
  codeExpiresAt: null,
  installationId: null,
  apiKeyId: null,
  deliveredAt: null,
  ...overrides
})

export const appInstallationsContract = (it: Vitest.MethodsNonLive<StorePorts>): void => {
  it.effect("installation requests: stored and replaced whole, found by code hash, pending ones of an account listed newest first", () =>
    Effect.gen(function*() {
      const repo = yield* AppInstallationsRepo
      const { app, owner, project } = yield* setup
      const older = requestFixture(app.clientId, T0, { accountId: owner.accountId })
      const newer = requestFixture(app.clientId, plus(T0, 1000), { accountId: owner.accountId })
      const unclaimed = requestFixture(app.clientId, plus(T0, 2000))
      for (const r of [older, newer, unclaimed]) yield* repo.insertRequest(r)
      expect(Option.getOrThrow(yield* repo.findRequest(older.requestId))).toEqual(older)
      expect(Option.isNone(yield* repo.findRequest("sb_air_nope"))).toBe(true)
      const pending = yield* repo.listPending({ accountId: owner.accountId, now: plus(T0, 5000), limit: 10 })
      expect(pending.map((r) => r.requestId)).toEqual([newer.requestId, older.requestId])
      expect((yield* repo.listPending({ accountId: owner.accountId, now: plus(T0, 5000), limit: 1 })).length).toBe(1)
      // Expired ones are not listed.
      expect(yield* repo.listPending({ accountId: owner.accountId, now: plus(T0, 3_600_500), limit: 10 })).toEqual([newer])

      const codeHash = hex()
      const approved: InstallationRequestRecord = {
        ...older,
        status: "approved",
        projectId: project.projectId,
        permissions: ["project:read", "events:read"],
        decidedAt: plus(T0, 10),
        codeHash,
        codeExpiresAt: plus(T0, 600_000),
        installationId: formatTypeId(IdKinds.installation, uuidv7Bytes(DateTime.toEpochMillis(T0), rand()))
      }
      yield* repo.updateRequest(approved)
      expect(Option.getOrThrow(yield* repo.lockRequest(older.requestId))).toEqual(approved)
      expect(Option.getOrThrow(yield* repo.lockRequestByCode(codeHash))).toEqual(approved)
      expect(Option.isNone(yield* repo.lockRequestByCode(hex()))).toBe(true)
      const delivered: InstallationRequestRecord = {
        ...approved,
        status: "delivered",
        apiKeyId: ApiKeyId.make(formatTypeId(IdKinds.projectApiKey, uuidv7Bytes(DateTime.toEpochMillis(T0), rand()))),
        deliveredAt: plus(T0, 20)
      }
      yield* repo.updateRequest(delivered)
      expect(Option.getOrThrow(yield* repo.findRequest(older.requestId))).toEqual(delivered)
      expect((yield* repo.listPending({ accountId: owner.accountId, now: plus(T0, 5000), limit: 10 })).map((r) => r.requestId))
        .toEqual([newer.requestId])
    }))

  it.effect("app key sets: saved, replaced, found by app", () =>
    Effect.gen(function*() {
      const repo = yield* AppInstallationsRepo
      const { app } = yield* setup
      expect(Option.isNone(yield* repo.findKeySet(app.clientId))).toBe(true)
      const first = { appId: app.clientId, keys: [{ kty: "OKP", crv: "Ed25519", x: "a".repeat(43), kid: "one" }], updatedAt: T0 }
      yield* repo.saveKeySet(first)
      expect(Option.getOrThrow(yield* repo.findKeySet(app.clientId))).toEqual(first)
      const second = { ...first, keys: [{ kty: "OKP", crv: "Ed25519", x: "b".repeat(43), kid: "two" }], updatedAt: plus(T0, 1) }
      yield* repo.saveKeySet(second)
      expect(Option.getOrThrow(yield* repo.findKeySet(app.clientId))).toEqual(second)
    }))

  it.effect("assertion jtis: accepted once per app while live, again after they expire, independent across apps", () =>
    Effect.gen(function*() {
      const repo = yield* AppInstallationsRepo
      const a = (yield* setup).app.clientId
      const b = (yield* setup).app.clientId
      const claim = (appId: string, jti: string, now: DateTime.Utc) => repo.claimAssertion({ appId, jti, expiresAt: plus(T0, 60_000), now })
      expect(yield* claim(a, "j1", T0)).toBe(true)
      expect(yield* claim(a, "j1", plus(T0, 59_000))).toBe(false)
      expect(yield* claim(b, "j1", T0)).toBe(true)
      expect(yield* claim(a, "j2", T0)).toBe(true)
      // Expired: forgotten, so the jti is taken again (the verifier refuses the expired assertion itself).
      expect(yield* claim(a, "j1", plus(T0, 60_000))).toBe(true)
    }))
}
