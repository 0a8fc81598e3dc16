/**
 * The OAuthProvider feature's ports in memory: apps, grants, codes, token families and tokens as
 * tables of the shared `MemoryState` (so transactions roll back). Each operation is one synchronous
 * step, so "consume once", "one live grant per account and app" and "revoke everything of a grant"
 * are atomic, as in the SQL layer.
 */
import { type AccountRecord } from "@switchboard/core/accounts"
import {
  type AuthorizationCodeRecord,
  type DeviceCodesRepo,
  catalogOrder,
  type OAuthApp,
  OAuthAppsRepo,
  type OAuthGrant,
  OAuthGrantsRepo,
  type OAuthTokenRecord,
  OAuthTokensRepo,
  type StoredOAuthApp,
  type TokenContext,
  type TokenWithAccountState,
  type TokenFamilyRecord
} from "@switchboard/core/oauth"
import { DateTime, Effect, Layer, Option } from "effect"
import { DeviceCodesMemory } from "./DeviceCodesMemory.js"
import { MemoryState } from "./MemoryState.js"

interface AppRow {
  readonly stored: StoredOAuthApp
  readonly deletedAt: DateTime.Utc | null
}

const newestAppFirst = (a: OAuthApp, b: OAuthApp) =>
  DateTime.toEpochMillis(b.createdAt) - DateTime.toEpochMillis(a.createdAt) || (a.clientId < b.clientId ? 1 : a.clientId > b.clientId ? -1 : 0)

const make = Effect.gen(function*() {
  const state = yield* MemoryState
  const apps = state.table<string, AppRow>("oauth_apps")
  const grants = state.table<string, OAuthGrant>("oauth_grants")
  const codes = state.table<string, AuthorizationCodeRecord>("oauth_codes")
  const families = state.table<string, TokenFamilyRecord>("oauth_families")
  const tokens = state.table<string, OAuthTokenRecord>("oauth_tokens")
  // The identity slice's table (AccountsMemory.ts): the token context joins it, as SQL does.
  const accounts = state.table<string, AccountRecord>("accounts")

  const liveApp = (clientId: string) => {
    const row = apps.get(clientId)
    return row === undefined || row.deletedAt !== null ? Option.none<StoredOAuthApp>() : Option.some(row.stored)
  }
  const liveGrant = (accountId: string, clientId: string) =>
    [...grants.values()].find((g) => g.accountId === accountId && g.clientId === clientId && g.revokedAt === null)

  const appsRepo = OAuthAppsRepo.of({
    insert: (stored) => Effect.sync(() => void apps.set(stored.app.clientId, { stored, deletedAt: null })),
    listByOwner: (owner) =>
      Effect.sync(() =>
        [...apps.values()]
          .filter((r) => r.deletedAt === null && r.stored.app.ownerAccountId === owner)
          .map((r) => r.stored.app)
          .sort(newestAppFirst)
      ),
    find: (clientId) => Effect.sync(() => liveApp(clientId)),
    lock: (clientId) => Effect.sync(() => liveApp(clientId)),
    update: (app) =>
      Effect.sync(() => {
        const row = apps.get(app.clientId)
        if (row !== undefined) apps.set(app.clientId, { ...row, stored: { ...row.stored, app } })
      }),
    setSecretHash: ({ clientId, secretHash, updatedAt }) =>
      Effect.sync(() => {
        const row = apps.get(clientId)
        if (row !== undefined) {
          apps.set(clientId, { ...row, stored: { app: { ...row.stored.app, updatedAt }, secretHash } })
        }
      }),
    remove: ({ clientId, now }) =>
      Effect.sync(() => {
        const row = apps.get(clientId)
        if (row !== undefined && row.deletedAt === null) apps.set(clientId, { ...row, deletedAt: now })
      })
  })

  const revokeFamilyNow = (familyId: string, now: DateTime.Utc) => {
    const family = families.get(familyId)
    if (family !== undefined && family.revokedAt === null) families.set(familyId, { ...family, revokedAt: now })
    for (const [hash, t] of tokens) if (t.familyId === familyId && t.revokedAt === null) tokens.set(hash, { ...t, revokedAt: now })
  }

  const grantsRepo = OAuthGrantsRepo.of({
    findLive: (accountId, clientId) => Effect.sync(() => Option.fromNullishOr(liveGrant(accountId, clientId))),
    findById: (grantId) => Effect.sync(() => Option.fromNullishOr(grants.get(grantId))),
    upsertLive: ({ accountId, clientId, grantId, now, scopes }) =>
      Effect.sync(() => {
        const live = liveGrant(accountId, clientId)
        const grant: OAuthGrant = live === undefined
          ? { grantId, accountId, clientId, scopes: catalogOrder(scopes), createdAt: now, updatedAt: now, revokedAt: null }
          : { ...live, scopes: catalogOrder([...live.scopes, ...scopes]), updatedAt: now }
        grants.set(grant.grantId, grant)
        return grant
      }),
    listLiveForAccount: (accountId) =>
      Effect.sync(() =>
        [...grants.values()]
          .filter((g) => g.accountId === accountId && g.revokedAt === null)
          .flatMap((grant) => Option.match(liveApp(grant.clientId), { onNone: () => [], onSome: (s) => [{ grant, app: s.app }] }))
          .sort((a, b) =>
            DateTime.toEpochMillis(b.grant.createdAt) - DateTime.toEpochMillis(a.grant.createdAt) ||
            (a.grant.grantId < b.grant.grantId ? 1 : a.grant.grantId > b.grant.grantId ? -1 : 0)
          )
      ),
    listLiveIdsForClient: (clientId) =>
      Effect.sync(() => [...grants.values()].filter((g) => g.clientId === clientId && g.revokedAt === null).map((g) => g.grantId)),
    revoke: ({ grantId, now }) =>
      Effect.sync(() => {
        const grant = grants.get(grantId)
        if (grant === undefined || grant.revokedAt !== null) return false
        grants.set(grantId, { ...grant, revokedAt: now, updatedAt: now })
        for (const [hash, c] of codes) if (c.grantId === grantId && c.consumedAt === null) codes.set(hash, { ...c, consumedAt: now })
        for (const f of families.values()) if (f.grantId === grantId) revokeFamilyNow(f.familyId, now)
        for (const [hash, t] of tokens) if (t.grantId === grantId && t.revokedAt === null) tokens.set(hash, { ...t, revokedAt: now })
        return true
      })
  })

  const tokensRepo = OAuthTokensRepo.of({
    insertCode: (code) => Effect.sync(() => void codes.set(code.codeHash, code)),
    consumeCode: ({ codeHash, now }) =>
      Effect.sync(() => {
        const code = codes.get(codeHash)
        if (code === undefined) return { _tag: "Unknown" } as const
        if (code.consumedAt !== null) return { _tag: "Replayed", code } as const
        const consumed = { ...code, consumedAt: now }
        codes.set(codeHash, consumed)
        return { _tag: "Consumed", code: consumed } as const
      }),
    insertFamily: (family) => Effect.sync(() => void families.set(family.familyId, family)),
    findFamily: (familyId) => Effect.sync(() => Option.fromNullishOr(families.get(familyId))),
    insertToken: (token) => Effect.sync(() => void tokens.set(token.tokenHash, token)),
    findToken: (tokenHash) => Effect.sync(() => Option.fromNullishOr(tokens.get(tokenHash))),
    lockToken: (tokenHash) => Effect.sync(() => Option.fromNullishOr(tokens.get(tokenHash))),
    findTokenContext: (tokenHash) =>
      Effect.sync(() => {
        const token = tokens.get(tokenHash)
        if (token === undefined) return Option.none<TokenContext>()
        const family = families.get(token.familyId)
        const account = accounts.get(token.accountId)
        return Option.some<TokenContext>({
          token,
          family: family === undefined
            ? Option.none()
            : Option.some({ familyId: family.familyId, resource: family.resource, authTime: family.authTime, revokedAt: family.revokedAt }),
          account: account === undefined ? Option.none() : Option.some({
            accountId: account.accountId,
            email: account.email,
            firstName: account.firstName,
            lastName: account.lastName,
            pictureUrl: account.pictureUrl,
            deletedAt: account.deletedAt
          })
        })
      }),
    findTokenWithAccountState: (tokenHash) =>
      Effect.sync(() => {
        const token = tokens.get(tokenHash)
        if (token === undefined) return Option.none<TokenWithAccountState>()
        const account = accounts.get(token.accountId)
        return Option.some<TokenWithAccountState>({
          token,
          account: account === undefined ? Option.none() : Option.some({ deletedAt: account.deletedAt })
        })
      }),
    rotateRefreshToken: ({ expectAccount, issue, now, tokenHash }) =>
      Effect.sync(() => {
        const t = tokens.get(tokenHash)
        const family = t === undefined ? undefined : families.get(t.familyId)
        if (t === undefined || t.kind !== "refresh" || t.rotatedAt !== null || t.revokedAt !== null || family === undefined || family.revokedAt !== null) {
          return "NotRotated" as const
        }
        if (expectAccount !== undefined) {
          const a = accounts.get(t.accountId)
          if (
            a === undefined || a.deletedAt !== null || a.email !== expectAccount.email || a.firstName !== expectAccount.firstName ||
            a.lastName !== expectAccount.lastName || a.pictureUrl !== expectAccount.pictureUrl
          ) return "NotRotated" as const
        }
        tokens.set(tokenHash, { ...t, rotatedAt: now })
        for (const issued of issue) tokens.set(issued.tokenHash, issued)
        return "Rotated" as const
      }),
    markRotated: ({ now, tokenHash }) =>
      Effect.sync(() => {
        const t = tokens.get(tokenHash)
        if (t !== undefined && t.rotatedAt === null) tokens.set(tokenHash, { ...t, rotatedAt: now })
      }),
    revokeToken: ({ now, tokenHash }) =>
      Effect.sync(() => {
        const t = tokens.get(tokenHash)
        if (t !== undefined && t.revokedAt === null) tokens.set(tokenHash, { ...t, revokedAt: now })
      }),
    revokeFamily: ({ familyId, now }) => Effect.sync(() => revokeFamilyNow(familyId, now)),
    sweep: ({ before }) =>
      Effect.sync(() => {
        let n = 0
        for (const [hash, c] of codes) {
          if (!DateTime.isGreaterThan(c.expiresAt, before)) {
            codes.delete(hash)
            n++
          }
        }
        for (const [hash, t] of tokens) {
          if (!DateTime.isGreaterThan(t.expiresAt, before)) {
            tokens.delete(hash)
            n++
          }
        }
        const used = new Set([...tokens.values()].map((t) => t.familyId))
        for (const [id, f] of families) {
          if (!used.has(id) && !DateTime.isGreaterThan(f.createdAt, before)) {
            families.delete(id)
            n++
          }
        }
        return n
      })
  })

  return Layer.mergeAll(
    Layer.succeed(OAuthAppsRepo, appsRepo),
    Layer.succeed(OAuthGrantsRepo, grantsRepo),
    Layer.succeed(OAuthTokensRepo, tokensRepo)
  )
})

/** Every port of the feature, device codes (DeviceCodesMemory.ts) included. */
export const OAuthProviderMemory: Layer.Layer<OAuthAppsRepo | OAuthGrantsRepo | OAuthTokensRepo | DeviceCodesRepo, never, MemoryState> = Layer
  .merge(Layer.unwrap(make), DeviceCodesMemory)
