/**
 * The OAuthProvider feature's part of the repository contract suite (called inside
 * `repositoryContract`): apps, grants (one live grant per account and app, consent as a union,
 * revocation of everything under a grant), single-use codes under concurrency, token families and
 * tokens, a token read with its family and account, refresh rotation (atomic, conditional, one
 * winner under concurrency; with an expected account, only while it is live with those claims),
 * and the sweep of expired rows.
 *
 * Why this file is long: one contract per port of the feature, each case a sequence of writes and
 * reads against the same fixtures; split, the cases would repeat the setup and lose their order.
 */
import type { Vitest } from "@effect/vitest"
import { type StorePorts } from "@switchboard/core"
import { AccountsRepo } from "@switchboard/core/accounts"
import {
  type AuthorizationCodeRecord,
  type OAuthApp,
  OAuthAppsRepo,
  OAuthGrantsRepo,
  type OAuthTokenRecord,
  OAuthTokensRepo,
  type TokenFamilyRecord
} from "@switchboard/core/oauth"
import { formatTypeId, IdKinds, uuidv7Bytes } from "@switchboard/core/shared"
import { DateTime, Effect, Option } from "effect"
import { expect } from "vitest"
import { accountFixture } from "../Fixtures.js"

const at = (ms: number) => DateTime.makeUnsafe(ms) as DateTime.Utc
const T0 = Date.parse("2030-01-01T00:00:00.000Z")
const rand = () => crypto.getRandomValues(new Uint8Array(10))
const hex = () => Array.from(crypto.getRandomValues(new Uint8Array(32)), (b) => b.toString(16).padStart(2, "0")).join("")
const uuid = () => crypto.randomUUID()

const appFixture = (ownerAccountId: OAuthApp["ownerAccountId"], createdAt: number, overrides: Partial<OAuthApp> = {}): OAuthApp => ({
  clientId: formatTypeId(IdKinds.oauthApp, uuidv7Bytes(createdAt, rand())),
  ownerAccountId,
  name: "Acme",
  logoUri: "https://acme.example/logo.png",
  homepageUri: null,
  redirectUris: ["https://acme.example/cb", "http://127.0.0.1:9/cb?x=1"],
  clientType: "confidential",
  scopes: ["openid", "email", "projects:read"],
  createdAt: at(createdAt),
  updatedAt: at(createdAt),
  ...overrides
})

const grantId = (ms: number) => formatTypeId(IdKinds.grant, uuidv7Bytes(ms, rand()))

/** An account, and a confidential app it owns. */
const setup = Effect.gen(function*() {
  const owner = accountFixture()
  const user = accountFixture()
  yield* (yield* AccountsRepo).insert(owner)
  yield* (yield* AccountsRepo).insert(user)
  const app = appFixture(owner.accountId, T0)
  yield* (yield* OAuthAppsRepo).insert({ app, secretHash: hex() })
  return { owner, user, app }
})

const codeFixture = (c: { grantId: string; clientId: string; accountId: AuthorizationCodeRecord["accountId"] }): AuthorizationCodeRecord => ({
  codeHash: hex(),
  grantId: c.grantId,
  clientId: c.clientId,
  accountId: c.accountId,
  redirectUri: "https://acme.example/cb",
  codeChallenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
  scopes: ["openid", "projects:read"],
  nonce: "n-0S6_WzA2Mj",
  resource: null,
  authTime: at(T0 - 5000),
  createdAt: at(T0),
  expiresAt: at(T0 + 60_000),
  consumedAt: null
})

const familyFixture = (f: { grantId: string; clientId: string; accountId: TokenFamilyRecord["accountId"] }): TokenFamilyRecord => ({
  familyId: uuid(),
  grantId: f.grantId,
  clientId: f.clientId,
  accountId: f.accountId,
  resource: "https://api.example",
  authTime: at(T0 - 5000),
  createdAt: at(T0),
  revokedAt: null
})

const tokenFixture = (family: TokenFamilyRecord, kind: OAuthTokenRecord["kind"], expiresAt = T0 + 3_600_000): OAuthTokenRecord => ({
  tokenHash: hex(),
  kind,
  familyId: family.familyId,
  grantId: family.grantId,
  clientId: family.clientId,
  accountId: family.accountId,
  scopes: ["openid", "offline_access"],
  createdAt: at(T0),
  expiresAt: at(expiresAt),
  revokedAt: null,
  rotatedAt: null
})

export const oAuthProviderContract = (it: Vitest.MethodsNonLive<StorePorts>): void => {
  it.effect("oauth apps: stored as given, listed newest first, updated, secret replaced, removed", () =>
    Effect.gen(function*() {
      const repo = yield* OAuthAppsRepo
      const { app, owner } = yield* setup
      const found = yield* repo.find(app.clientId)
      expect(Option.getOrThrow(found).app).toEqual(app)
      const newer = appFixture(owner.accountId, T0 + 1000, { clientType: "public", logoUri: null, homepageUri: "https://h.example" })
      yield* repo.insert({ app: newer, secretHash: null })
      expect(Option.getOrThrow(yield* repo.lock(newer.clientId))).toEqual({ app: newer, secretHash: null })
      expect((yield* repo.listByOwner(owner.accountId)).map((a) => a.clientId)).toEqual([newer.clientId, app.clientId])

      const changed: OAuthApp = { ...app, name: "Acme 2", redirectUris: ["https://acme.example/other"], scopes: ["openid"], updatedAt: at(T0 + 5) }
      yield* repo.update(changed)
      expect(Option.getOrThrow(yield* repo.find(app.clientId)).app).toEqual(changed)
      const hash = hex()
      yield* repo.setSecretHash({ clientId: app.clientId, secretHash: hash, updatedAt: at(T0 + 9) })
      const rotated = Option.getOrThrow(yield* repo.find(app.clientId))
      expect(rotated.secretHash).toBe(hash)
      expect(rotated.app.updatedAt).toEqual(at(T0 + 9))

      yield* repo.remove({ clientId: app.clientId, now: at(T0 + 10) })
      expect(Option.isNone(yield* repo.find(app.clientId))).toBe(true)
      expect(Option.isNone(yield* repo.lock(app.clientId))).toBe(true)
      expect((yield* repo.listByOwner(owner.accountId)).map((a) => a.clientId)).toEqual([newer.clientId])
    }))

  it.effect("oauth grants: concurrent consents leave one live grant with the union of scopes; revoked grants are replaced", () =>
    Effect.gen(function*() {
      const grants = yield* OAuthGrantsRepo
      const { app, user } = yield* setup
      const results = yield* Effect.all(
        [["openid"], ["email"], ["projects:read", "openid"]].map((scopes, i) =>
          grants.upsertLive({ grantId: grantId(T0 + i), accountId: user.accountId, clientId: app.clientId, scopes, now: at(T0 + i) })
        ),
        { concurrency: "unbounded" }
      )
      expect(new Set(results.map((g) => g.grantId)).size).toBe(1)
      const live = Option.getOrThrow(yield* grants.findLive(user.accountId, app.clientId))
      expect(live.scopes).toEqual(["openid", "email", "projects:read"])
      expect(live.revokedAt).toBeNull()
      expect(Option.getOrThrow(yield* grants.findById(live.grantId))).toEqual(live)

      const listed = yield* grants.listLiveForAccount(user.accountId)
      expect(listed).toEqual([{ grant: live, app }])
      expect(yield* grants.listLiveIdsForClient(app.clientId)).toEqual([live.grantId])

      expect(yield* grants.revoke({ grantId: live.grantId, now: at(T0 + 100) })).toBe(true)
      expect(yield* grants.revoke({ grantId: live.grantId, now: at(T0 + 200) })).toBe(false)
      expect(Option.getOrThrow(yield* grants.findById(live.grantId)).revokedAt).toEqual(at(T0 + 100))
      expect(Option.isNone(yield* grants.findLive(user.accountId, app.clientId))).toBe(true)
      expect(yield* grants.listLiveForAccount(user.accountId)).toEqual([])
      expect(yield* grants.listLiveIdsForClient(app.clientId)).toEqual([])

      const again = yield* grants.upsertLive({
        grantId: grantId(T0 + 300),
        accountId: user.accountId,
        clientId: app.clientId,
        scopes: ["email"],
        now: at(T0 + 300)
      })
      expect(again.grantId).not.toBe(live.grantId)
      expect(again.scopes).toEqual(["email"])
      // A removed app's grants are not listed.
      yield* (yield* OAuthAppsRepo).remove({ clientId: app.clientId, now: at(T0 + 400) })
      expect(yield* grants.listLiveForAccount(user.accountId)).toEqual([])
    }))

  it.effect("oauth codes: of concurrent consumptions exactly one succeeds; later ones are replays; unknown codes are unknown", () =>
    Effect.gen(function*() {
      const grants = yield* OAuthGrantsRepo
      const tokens = yield* OAuthTokensRepo
      const { app, user } = yield* setup
      const grant = yield* grants.upsertLive({ grantId: grantId(T0), accountId: user.accountId, clientId: app.clientId, scopes: ["openid"], now: at(T0) })
      const code = codeFixture({ grantId: grant.grantId, clientId: app.clientId, accountId: user.accountId })
      yield* tokens.insertCode(code)
      const outcomes = yield* Effect.all(
        Array.from({ length: 5 }, () => tokens.consumeCode({ codeHash: code.codeHash, now: at(T0 + 10) })),
        { concurrency: "unbounded" }
      )
      const consumed = outcomes.filter((o) => o._tag === "Consumed")
      expect(consumed).toHaveLength(1)
      expect(consumed[0]).toEqual({ _tag: "Consumed", code: { ...code, consumedAt: at(T0 + 10) } })
      expect(outcomes.filter((o) => o._tag === "Replayed")).toHaveLength(4)
      expect(yield* tokens.consumeCode({ codeHash: hex(), now: at(T0) })).toEqual({ _tag: "Unknown" })
    }))

  it.effect("oauth tokens: stored as given; rotation, single and family revocation; revoking a grant takes its codes, families and tokens", () =>
    Effect.gen(function*() {
      const grants = yield* OAuthGrantsRepo
      const tokens = yield* OAuthTokensRepo
      const { app, user } = yield* setup
      const grant = yield* grants.upsertLive({ grantId: grantId(T0), accountId: user.accountId, clientId: app.clientId, scopes: ["openid"], now: at(T0) })
      const ids = { grantId: grant.grantId, clientId: app.clientId, accountId: user.accountId }
      const family = familyFixture(ids)
      const other = familyFixture(ids)
      yield* tokens.insertFamily(family)
      yield* tokens.insertFamily(other)
      expect(Option.getOrThrow(yield* tokens.findFamily(family.familyId))).toEqual(family)
      const access = tokenFixture(family, "access")
      const refresh = tokenFixture(family, "refresh")
      const otherAccess = tokenFixture(other, "access")
      for (const t of [access, refresh, otherAccess]) yield* tokens.insertToken(t)
      expect(Option.getOrThrow(yield* tokens.findToken(access.tokenHash))).toEqual(access)
      expect(Option.getOrThrow(yield* tokens.lockToken(refresh.tokenHash))).toEqual(refresh)
      expect(Option.isNone(yield* tokens.findToken(hex()))).toBe(true)

      yield* tokens.markRotated({ tokenHash: refresh.tokenHash, now: at(T0 + 1) })
      yield* tokens.markRotated({ tokenHash: refresh.tokenHash, now: at(T0 + 2) })
      expect(Option.getOrThrow(yield* tokens.findToken(refresh.tokenHash)).rotatedAt).toEqual(at(T0 + 1))

      yield* tokens.revokeToken({ tokenHash: access.tokenHash, now: at(T0 + 3) })
      yield* tokens.revokeToken({ tokenHash: access.tokenHash, now: at(T0 + 4) })
      expect(Option.getOrThrow(yield* tokens.findToken(access.tokenHash)).revokedAt).toEqual(at(T0 + 3))

      yield* tokens.revokeFamily({ familyId: family.familyId, now: at(T0 + 5) })
      expect(Option.getOrThrow(yield* tokens.findFamily(family.familyId)).revokedAt).toEqual(at(T0 + 5))
      expect(Option.getOrThrow(yield* tokens.findToken(refresh.tokenHash)).revokedAt).toEqual(at(T0 + 5))
      expect(Option.getOrThrow(yield* tokens.findToken(access.tokenHash)).revokedAt).toEqual(at(T0 + 3))
      expect(Option.getOrThrow(yield* tokens.findToken(otherAccess.tokenHash)).revokedAt).toBeNull()

      const code = codeFixture(ids)
      yield* tokens.insertCode(code)
      expect(yield* grants.revoke({ grantId: grant.grantId, now: at(T0 + 6) })).toBe(true)
      expect(Option.getOrThrow(yield* tokens.findFamily(other.familyId)).revokedAt).toEqual(at(T0 + 6))
      expect(Option.getOrThrow(yield* tokens.findToken(otherAccess.tokenHash)).revokedAt).toEqual(at(T0 + 6))
      expect(Option.getOrThrow(yield* tokens.findFamily(family.familyId)).revokedAt).toEqual(at(T0 + 5))
      // The pending code is spent: presenting it is a replay.
      expect((yield* tokens.consumeCode({ codeHash: code.codeHash, now: at(T0 + 7) }))._tag).toBe("Replayed")
    }))

  it.effect("oauth token context: the token with its family and account (or its account's state), equal to reading each alone; gone parts are none", () =>
    Effect.gen(function*() {
      const grants = yield* OAuthGrantsRepo
      const tokens = yield* OAuthTokensRepo
      const accounts = yield* AccountsRepo
      const { app, user } = yield* setup
      const grant = yield* grants.upsertLive({ grantId: grantId(T0), accountId: user.accountId, clientId: app.clientId, scopes: ["openid"], now: at(T0) })
      const ids = { grantId: grant.grantId, clientId: app.clientId, accountId: user.accountId }
      const family = { ...familyFixture(ids), resource: null }
      yield* tokens.insertFamily(family)
      const access = tokenFixture(family, "access")
      const refresh = { ...tokenFixture(family, "refresh"), revokedAt: at(T0 + 1), rotatedAt: at(T0 + 2) }
      for (const t of [access, refresh]) yield* tokens.insertToken(t)
      for (const t of [access, refresh]) {
        const context = Option.getOrThrow(yield* tokens.findTokenContext(t.tokenHash))
        // The joined read is exactly the three reads one at a time (the parts its callers use).
        expect(context.token).toEqual(Option.getOrThrow(yield* tokens.findToken(t.tokenHash)))
        expect(context.token).toEqual(t)
        const f = Option.getOrThrow(yield* tokens.findFamily(family.familyId))
        expect(Option.getOrThrow(context.family)).toEqual({ familyId: f.familyId, resource: f.resource, authTime: f.authTime, revokedAt: f.revokedAt })
        const a = Option.getOrThrow(yield* accounts.findById(user.accountId))
        expect(Option.getOrThrow(context.account)).toEqual({
          accountId: a.accountId,
          email: a.email,
          firstName: a.firstName,
          lastName: a.lastName,
          pictureUrl: a.pictureUrl,
          deletedAt: a.deletedAt
        })
        const state = Option.getOrThrow(yield* tokens.findTokenWithAccountState(t.tokenHash))
        expect(state.token).toEqual(t)
        expect(Option.getOrThrow(state.account)).toEqual({ deletedAt: null })
      }
      expect(Option.isNone(yield* tokens.findTokenContext(hex()))).toBe(true)
      expect(Option.isNone(yield* tokens.findTokenWithAccountState(hex()))).toBe(true)
      // A revoked family shows as revoked.
      yield* tokens.revokeFamily({ familyId: family.familyId, now: at(T0 + 9) })
      expect(Option.getOrThrow(Option.getOrThrow(yield* tokens.findTokenContext(access.tokenHash)).family).revokedAt).toEqual(at(T0 + 9))
      // A token whose account row is not there: the token, no account.
      const stranger = accountFixture()
      const orphanFamily = familyFixture({ ...ids, accountId: stranger.accountId })
      yield* tokens.insertFamily(orphanFamily)
      const orphan = tokenFixture(orphanFamily, "access")
      yield* tokens.insertToken(orphan)
      const context = Option.getOrThrow(yield* tokens.findTokenContext(orphan.tokenHash))
      expect(context.token).toEqual(orphan)
      expect(Option.isNone(context.account)).toBe(true)
      expect(Option.getOrThrow(context.family).familyId).toBe(orphanFamily.familyId)
      const state = Option.getOrThrow(yield* tokens.findTokenWithAccountState(orphan.tokenHash))
      expect(state.token).toEqual(orphan)
      expect(Option.isNone(state.account)).toBe(true)
      // A deleted account: there, with its deletion time.
      const gone = accountFixture({ deletedAt: at(T0 + 20) })
      yield* accounts.insert(gone)
      const goneFamily = familyFixture({ ...ids, accountId: gone.accountId })
      yield* tokens.insertFamily(goneFamily)
      const goneToken = tokenFixture(goneFamily, "refresh")
      yield* tokens.insertToken(goneToken)
      expect(Option.getOrThrow(Option.getOrThrow(yield* tokens.findTokenContext(goneToken.tokenHash)).account).deletedAt).toEqual(at(T0 + 20))
      expect(Option.getOrThrow(Option.getOrThrow(yield* tokens.findTokenWithAccountState(goneToken.tokenHash)).account)).toEqual({ deletedAt: at(T0 + 20) })
    }))

  it.effect("oauth refresh rotation: atomic and conditional; of concurrent rotations exactly one writes; revoked or rotated tokens and revoked families write nothing", () =>
    Effect.gen(function*() {
      const grants = yield* OAuthGrantsRepo
      const tokens = yield* OAuthTokensRepo
      const { app, user } = yield* setup
      const grant = yield* grants.upsertLive({ grantId: grantId(T0), accountId: user.accountId, clientId: app.clientId, scopes: ["openid"], now: at(T0) })
      const ids = { grantId: grant.grantId, clientId: app.clientId, accountId: user.accountId }
      const family = { ...familyFixture(ids), resource: null }
      yield* tokens.insertFamily(family)
      const refresh = tokenFixture(family, "refresh")
      yield* tokens.insertToken(refresh)

      // Concurrent rotations of one token, each with its own new tokens: one wins, the others store nothing.
      const attempts = Array.from({ length: 4 }, () => [tokenFixture(family, "access"), tokenFixture(family, "refresh")] as const)
      const results = yield* Effect.all(
        attempts.map((issue) => tokens.rotateRefreshToken({ tokenHash: refresh.tokenHash, now: at(T0 + 10), issue })),
        { concurrency: "unbounded" }
      )
      expect(results.filter((r) => r === "Rotated")).toHaveLength(1)
      const winner = attempts[results.indexOf("Rotated")]!
      for (const issued of winner) expect(Option.getOrThrow(yield* tokens.findToken(issued.tokenHash))).toEqual(issued)
      for (const [i, issue] of attempts.entries()) {
        if (results[i] === "Rotated") continue
        for (const issued of issue) expect(Option.isNone(yield* tokens.findToken(issued.tokenHash))).toBe(true)
      }
      expect(Option.getOrThrow(yield* tokens.findToken(refresh.tokenHash)).rotatedAt).toEqual(at(T0 + 10))

      // Rotated already: nothing more.
      const late = tokenFixture(family, "refresh")
      expect(yield* tokens.rotateRefreshToken({ tokenHash: refresh.tokenHash, now: at(T0 + 11), issue: [late] })).toBe("NotRotated")
      expect(Option.isNone(yield* tokens.findToken(late.tokenHash))).toBe(true)
      expect(Option.getOrThrow(yield* tokens.findToken(refresh.tokenHash)).rotatedAt).toEqual(at(T0 + 10))

      // The new refresh token rotates in turn; an access token never does; unknown tokens do not.
      const next = winner[1]
      const third = tokenFixture(family, "refresh")
      expect(yield* tokens.rotateRefreshToken({ tokenHash: next.tokenHash, now: at(T0 + 12), issue: [third] })).toBe("Rotated")
      expect(yield* tokens.rotateRefreshToken({ tokenHash: winner[0].tokenHash, now: at(T0 + 12), issue: [tokenFixture(family, "refresh")] }))
        .toBe("NotRotated")
      expect(Option.getOrThrow(yield* tokens.findToken(winner[0].tokenHash)).rotatedAt).toBeNull()
      expect(yield* tokens.rotateRefreshToken({ tokenHash: hex(), now: at(T0 + 12), issue: [] })).toBe("NotRotated")

      // A revoked token, or a live token of a revoked family: nothing written.
      const revoked = { ...tokenFixture(family, "refresh"), revokedAt: at(T0 + 5) }
      yield* tokens.insertToken(revoked)
      const blocked = tokenFixture(family, "refresh")
      expect(yield* tokens.rotateRefreshToken({ tokenHash: revoked.tokenHash, now: at(T0 + 13), issue: [blocked] })).toBe("NotRotated")
      expect(Option.isNone(yield* tokens.findToken(blocked.tokenHash))).toBe(true)
      expect(Option.getOrThrow(yield* tokens.findToken(revoked.tokenHash)).rotatedAt).toBeNull()

      const withdrawn = { ...familyFixture(ids), resource: null }
      yield* tokens.insertFamily(withdrawn)
      const inWithdrawn = tokenFixture(withdrawn, "refresh")
      yield* tokens.insertToken(inWithdrawn)
      yield* tokens.revokeFamily({ familyId: withdrawn.familyId, now: at(T0 + 14) })
      // The family is revoked but the token row is left live (as a revocation racing the rotation would):
      const liveRow = { ...tokenFixture(withdrawn, "refresh") }
      yield* tokens.insertToken(liveRow)
      const blocked2 = tokenFixture(withdrawn, "access")
      expect(yield* tokens.rotateRefreshToken({ tokenHash: liveRow.tokenHash, now: at(T0 + 15), issue: [blocked2] })).toBe("NotRotated")
      expect(Option.isNone(yield* tokens.findToken(blocked2.tokenHash))).toBe(true)
      expect(Option.getOrThrow(yield* tokens.findToken(liveRow.tokenHash)).rotatedAt).toBeNull()
    }))

  it.effect("oauth refresh rotation with an expected account: only while the account is live with exactly those email, names and picture", () =>
    Effect.gen(function*() {
      const grants = yield* OAuthGrantsRepo
      const tokens = yield* OAuthTokensRepo
      const accounts = yield* AccountsRepo
      const { app } = yield* setup
      const named = accountFixture({ firstName: "Ada", lastName: null, pictureUrl: "https://cdn.example/ada.png" })
      const gone = accountFixture({ firstName: "Ada", deletedAt: at(T0 + 1) })
      for (const a of [named, gone]) yield* accounts.insert(a)
      const refreshOf = (account: typeof named) =>
        Effect.gen(function*() {
          const grant = yield* grants.upsertLive({ grantId: grantId(T0), accountId: account.accountId, clientId: app.clientId, scopes: ["openid"], now: at(T0) })
          const family = { ...familyFixture({ grantId: grant.grantId, clientId: app.clientId, accountId: account.accountId }), resource: null }
          yield* tokens.insertFamily(family)
          const refresh = tokenFixture(family, "refresh")
          yield* tokens.insertToken(refresh)
          return { family, refresh }
        })
      const { family, refresh } = yield* refreshOf(named)
      const rotate = (expectAccount: typeof named) => {
        const issued = tokenFixture(family, "refresh")
        return Effect.map(tokens.rotateRefreshToken({ tokenHash: refresh.tokenHash, now: at(T0 + 10), issue: [issued], expectAccount }), (r) => [r, issued] as const)
      }
      // Any claim differing (a null name against a value included), or another account: nothing written.
      for (const differs of [
        { ...named, email: `x${named.email}` },
        { ...named, firstName: "Augusta" },
        { ...named, lastName: "Lovelace" },
        { ...named, firstName: null },
        { ...named, pictureUrl: null }
      ]) {
        const [result, issued] = yield* rotate(differs)
        expect(result).toBe("NotRotated")
        expect(Option.isNone(yield* tokens.findToken(issued.tokenHash))).toBe(true)
      }
      expect(Option.getOrThrow(yield* tokens.findToken(refresh.tokenHash)).rotatedAt).toBeNull()
      const [result, issued] = yield* rotate(named)
      expect(result).toBe("Rotated")
      expect(Option.getOrThrow(yield* tokens.findToken(issued.tokenHash))).toEqual(issued)
      // A deleted account, its claims exactly as expected: nothing written.
      const ofGone = yield* refreshOf(gone)
      const blocked = tokenFixture(ofGone.family, "refresh")
      expect(yield* tokens.rotateRefreshToken({ tokenHash: ofGone.refresh.tokenHash, now: at(T0 + 11), issue: [blocked], expectAccount: gone }))
        .toBe("NotRotated")
      expect(Option.isNone(yield* tokens.findToken(blocked.tokenHash))).toBe(true)
    }))

  it.effect("oauth sweep: deletes codes and tokens expired before the cutoff and families left empty, nothing else", () =>
    Effect.gen(function*() {
      const grants = yield* OAuthGrantsRepo
      const tokens = yield* OAuthTokensRepo
      const { app, user } = yield* setup
      const grant = yield* grants.upsertLive({ grantId: grantId(T0), accountId: user.accountId, clientId: app.clientId, scopes: ["openid"], now: at(T0) })
      const ids = { grantId: grant.grantId, clientId: app.clientId, accountId: user.accountId }
      const oldFamily = familyFixture(ids)
      const liveFamily = familyFixture(ids)
      yield* tokens.insertFamily(oldFamily)
      yield* tokens.insertFamily(liveFamily)
      const expired = tokenFixture(oldFamily, "access", T0 + 1000)
      const live = tokenFixture(liveFamily, "refresh", T0 + 10_000_000)
      const expiredLiveFamily = tokenFixture(liveFamily, "access", T0 + 1000)
      for (const t of [expired, live, expiredLiveFamily]) yield* tokens.insertToken(t)
      const code = codeFixture(ids)
      yield* tokens.insertCode(code)
      const swept = yield* tokens.sweep({ before: at(T0 + 100_000) })
      // Other cases' rows may be swept too (one store): count at least ours.
      expect(swept).toBeGreaterThanOrEqual(4)
      expect(Option.isNone(yield* tokens.findToken(expired.tokenHash))).toBe(true)
      expect(Option.isNone(yield* tokens.findToken(expiredLiveFamily.tokenHash))).toBe(true)
      expect(Option.isSome(yield* tokens.findToken(live.tokenHash))).toBe(true)
      expect(Option.isNone(yield* tokens.findFamily(oldFamily.familyId))).toBe(true)
      expect(Option.isSome(yield* tokens.findFamily(liveFamily.familyId))).toBe(true)
      expect(yield* tokens.consumeCode({ codeHash: code.codeHash, now: at(T0) })).toEqual({ _tag: "Unknown" })
    }))
}
