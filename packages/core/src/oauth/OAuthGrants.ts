/**
 * Grants (docs/api-notes/oauth.md): one
 * account's consent to one app. Withdrawing it revokes, in one transaction, the consent and every
 * live code, token family, access token and refresh token issued under it; every server process
 * drops it from its caches at once (`CredentialRevocations`, `pg_notify` on PostgreSQL), and cached
 * liveness lasts at most the credential cache TTL (≤ 60 s) anyway.
 *
 * `verifyAccessToken` checks an opaque access token from the token endpoint (the Dashboard API's
 * bearer tokens): one indexed lookup by the token's SHA-256; revoked, expired, unknown tokens and
 * tokens of deleted accounts are none.
 */
import { Context, DateTime, Effect, Layer, Option } from "effect"
import { AccessTokenVerifier } from "../credentials/AccessTokenVerifier.js"
import { AccountsRepo, CredentialRevocations } from "../accounts/Ports.js"
import { sha256Hex } from "../internal/Crypto.js"
import type { AccountId } from "../shared/Identifiers.js"
import { Transactor } from "../shared/Ports.js"
import { OAuthGrantNotFound } from "./OAuthErrors.js"
import { OAuthGrantsRepo, OAuthTokensRepo } from "./OAuthProviderPorts.js"
import { catalogOrder, type OAuthApp } from "./OAuthSchema.js"
import { OAuthTokenCache } from "./OAuthTokenCache.js"
import { fn } from "../internal/Traced.js"

/** One app the account authorized, as the account's lists show it. */
export interface AuthorizedApp {
  readonly clientId: string
  readonly name: string
  readonly logoUri: string | null
  readonly homepageUri: string | null
  /** The scopes granted so far. */
  readonly scopes: ReadonlyArray<string>
  /** When the account first consented (the grant's creation). */
  readonly grantedAt: DateTime.Utc
  readonly grantId: string
  /** The app's settings. */
  readonly app: OAuthApp
}

/** A live opaque access token. */
export interface VerifiedOAuthAccessToken {
  readonly accountId: AccountId
  readonly clientId: string
  readonly grantId: string
  readonly scopes: ReadonlyArray<string>
  readonly expiresAt: DateTime.Utc
}

/** The longest opaque token looked at; anything longer is unknown without a lookup. */
export const MAX_OPAQUE_TOKEN_LENGTH = 256

export class OAuthGrants extends Context.Service<OAuthGrants>()("core/OAuthGrants", {
  make: Effect.gen(function*() {
    const repo = yield* OAuthGrantsRepo
    const tokens = yield* OAuthTokensRepo
    const accounts = yield* AccountsRepo
    const tx = yield* Transactor
    const revocations = yield* CredentialRevocations
    const verifier = yield* AccessTokenVerifier
    const tokenCache = yield* OAuthTokenCache

    /**
     * Revokes a grant and everything issued under it (one transaction), then tells every process.
     * Runs inside the caller's transaction when there is one (the announcement goes out on commit).
     */
    const revokeGrant = fn("OAuthGrants.revokeGrant")(function*(grantId: string) {
      const now = yield* DateTime.now
      const revoked = yield* tx.withTransaction(Effect.gen(function*() {
        const changed = yield* repo.revoke({ grantId, now })
        if (changed) yield* revocations.publish(grantId)
        return changed
      }))
      yield* verifier.invalidate(grantId)
      yield* tokenCache.drop(grantId)
      return revoked
    })

    /** Revokes one token family (a reused refresh token) and tells every process. */
    const revokeFamily = fn("OAuthGrants.revokeFamily")(function*(familyId: string) {
      const now = yield* DateTime.now
      yield* tx.withTransaction(Effect.andThen(tokens.revokeFamily({ familyId, now }), revocations.publish(familyId)))
      yield* verifier.invalidate(familyId)
      yield* tokenCache.drop(familyId)
    })

    const listForAccount = fn("OAuthGrants.listForAccount")(function*(accountId: AccountId) {
      const rows = yield* repo.listLiveForAccount(accountId)
      return rows.map(({ app, grant }): AuthorizedApp => ({
        clientId: app.clientId,
        name: app.name,
        logoUri: app.logoUri,
        homepageUri: app.homepageUri,
        scopes: catalogOrder(grant.scopes),
        grantedAt: grant.createdAt,
        grantId: grant.grantId,
        app
      }))
    })

    /** Withdraws the account's consent to the app: the grant and every live code and token of it. */
    const withdraw = fn("OAuthGrants.withdraw")(function*(accountId: AccountId, clientId: string) {
      const grant = yield* repo.findLive(accountId, clientId)
      if (Option.isNone(grant)) return yield* new OAuthGrantNotFound({ clientId })
      const revoked = yield* revokeGrant(grant.value.grantId)
      // Withdrawn concurrently by another request: the outcome the caller asked for holds.
      if (!revoked) return
    })

    const verifyAccessToken = fn("OAuthGrants.verifyAccessToken")(function*(token: string) {
      if (token.length === 0 || token.length > MAX_OPAQUE_TOKEN_LENGTH) return Option.none<VerifiedOAuthAccessToken>()
      const found = yield* tokens.findToken(yield* sha256Hex(token))
      if (Option.isNone(found)) return Option.none<VerifiedOAuthAccessToken>()
      const t = found.value
      const now = yield* DateTime.now
      if (t.kind !== "access" || t.revokedAt !== null || !DateTime.isGreaterThan(t.expiresAt, now)) {
        return Option.none<VerifiedOAuthAccessToken>()
      }
      const account = yield* accounts.findById(t.accountId)
      if (Option.isNone(account) || account.value.deletedAt !== null) return Option.none<VerifiedOAuthAccessToken>()
      return Option.some<VerifiedOAuthAccessToken>({
        accountId: t.accountId,
        clientId: t.clientId,
        grantId: t.grantId,
        scopes: t.scopes,
        expiresAt: t.expiresAt
      })
    })

    return { listForAccount, withdraw, verifyAccessToken, revokeGrant, revokeFamily } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
