/**
 * The refresh-token grant (docs/api-notes/oauth.md): a refresh token is rotated on every use; the
 * reuse of a rotated-out one revokes its whole family (RFC 9700 §4.14.2); `scope` may narrow, never
 * widen, and access tokens never exceed the app's current maximum scope set.
 */
import { DateTime, Effect, Option } from "effect"
import { sha256Hex } from "../internal/Crypto.js"
import { fn } from "../internal/Traced.js"
import { parseScopeParam } from "./AuthorizationRequest.js"
import { oauthError, type OAuthProtocolError } from "./OAuthErrors.js"
import { MAX_OPAQUE_TOKEN_LENGTH, OAuthGrants } from "./OAuthGrants.js"
import { type OAuthTokenRecord, OAuthTokensRepo, type TokenAccount, type TokenFamilyRecord } from "./OAuthProviderPorts.js"
import { catalogOrder, covers, type OAuthApp } from "./OAuthSchema.js"
import { type IssuedTokens, isAccountId, type OAuthTokenMinting, type TokenResponse } from "./OAuthTokenMinting.js"

/** A refresh token this process issued, with what minting its successors needs. */
interface RefreshHint {
  readonly token: OAuthTokenRecord
  readonly family: Pick<TokenFamilyRecord, "resource" | "authTime">
  readonly account: TokenAccount
}

/** At most this many remembered refresh tokens (the oldest go first; a forgotten one is read instead). */
const MAX_HINTS = 4096

type RefreshOutcome =
  | { readonly _tag: "Issued"; readonly response: TokenResponse; readonly account: TokenAccount }
  | { readonly _tag: "Reused"; readonly familyId: string }
  | { readonly _tag: "Refused"; readonly error: OAuthProtocolError }

export const makeOAuthRefreshGrant = (minting: OAuthTokenMinting) =>
  Effect.gen(function*() {
    const tokens = yield* OAuthTokensRepo
    const grants = yield* OAuthGrants
    const { mintTokens } = minting

    /** Refresh tokens this process issued, by hash, with what rotating them needs (a bounded hint: the store decides). */
    const hints = new Map<string, RefreshHint>()
    const remember = (records: ReadonlyArray<OAuthTokenRecord>, family: RefreshHint["family"], account: TokenAccount) => {
      for (const token of records) {
        if (token.kind !== "refresh") continue
        if (hints.size >= MAX_HINTS) hints.delete(hints.keys().next().value!)
        hints.set(token.tokenHash, { token, family: { resource: family.resource, authTime: family.authTime }, account })
      }
    }

    /** The tokens replacing `rt`: its scopes (or the narrower `requested`), within the app's current maximum. */
    const mintFor = (
      client: OAuthApp,
      rt: OAuthTokenRecord,
      family: RefreshHint["family"],
      account: TokenAccount,
      requested: ReadonlyArray<string> | undefined
    ) => {
      // The app's maximum scope set may have shrunk since: access tokens never exceed it.
      const scopes = catalogOrder((requested ?? rt.scopes).filter((s) => client.scopes.includes(s)))
      // The family's ids are its tokens' (a token is always issued with its family's grant and account).
      const tokenFamily = { familyId: rt.familyId, grantId: rt.grantId, accountId: rt.accountId, resource: family.resource, authTime: family.authTime }
      return mintTokens({ client, account, family: tokenFamily, scopes, refreshScopes: rt.scopes, nonce: null })
    }

    /** `grant_type=refresh_token` for an authenticated client: rotation, reuse detection, narrowing. */
    const refresh = fn("OAuthProvider.refresh")(function*(args: {
      readonly client: OAuthApp
      readonly refreshToken: string
      readonly scope?: string | undefined
      readonly resource?: string | undefined
    }) {
      const { client } = args
      const invalid = (description: string): RefreshOutcome => ({ _tag: "Refused", error: oauthError("invalid_grant", description) })
      let requested: ReadonlyArray<string> | undefined
      if (args.scope !== undefined) {
        requested = parseScopeParam(args.scope)
        if (requested === undefined) return yield* oauthError("invalid_scope", "scope is not a list of scopes.")
      }
      if (args.refreshToken.length === 0 || args.refreshToken.length > MAX_OPAQUE_TOKEN_LENGTH) {
        return yield* oauthError("invalid_grant", "The refresh token is not valid.")
      }
      const tokenHash = yield* sha256Hex(args.refreshToken)
      const now = yield* DateTime.now
      // The one-statement path: a refresh token this process issued is remembered with what its
      // rotation needs (its record, its family's resource and auth time, the account's claims), so
      // the new tokens are minted and signed from memory and one conditional write rotates it —
      // only if the token is still live, its family unrevoked, and its account live with exactly
      // the claims just signed. Anything else (not remembered, a check fails here, the write finds
      // something changed) takes the read-check-write path below, which decides every refusal,
      // reuse included, from the store alone.
      const hint = hints.get(tokenHash)
      if (hint !== undefined) {
        hints.delete(tokenHash)
        const rt = hint.token
        if (
          rt.clientId === client.clientId && DateTime.isGreaterThan(rt.expiresAt, now) &&
          (requested === undefined || covers(rt.scopes, requested)) &&
          (args.resource === undefined || args.resource === hint.family.resource)
        ) {
          const minted = yield* mintFor(client, rt, hint.family, hint.account, requested)
          if ((yield* tokens.rotateRefreshToken({ tokenHash, now, issue: minted.records, expectAccount: hint.account })) === "Rotated") {
            remember(minted.records, hint.family, hint.account)
            return { ...minted.response, account: hint.account } satisfies IssuedTokens
          }
        }
      }
      // One read (the token, its family and account together), the checks, the new tokens minted
      // and signed in memory, then one atomic write: rotate the old token and store the new ones,
      // only if nobody rotated or revoked it meanwhile.
      const outcome: RefreshOutcome = yield* Effect.gen(function*() {
        const found = yield* tokens.findTokenContext(tokenHash)
        if (Option.isNone(found) || found.value.token.kind !== "refresh") return invalid("The refresh token is not valid.")
        const { account, family } = found.value
        const rt = found.value.token
        if (rt.clientId !== client.clientId) return invalid("The refresh token was issued to another client.")
        if (rt.rotatedAt !== null) return { _tag: "Reused", familyId: rt.familyId } satisfies RefreshOutcome
        if (rt.revokedAt !== null) return invalid("The refresh token was revoked.")
        if (!DateTime.isGreaterThan(rt.expiresAt, now)) return invalid("The refresh token has expired.")
        if (requested !== undefined && !covers(rt.scopes, requested)) {
          return { _tag: "Refused", error: oauthError("invalid_scope", "scope exceeds the scopes originally granted.") } satisfies RefreshOutcome
        }
        if (Option.isNone(family) || family.value.revokedAt !== null) return invalid("The refresh token was revoked.")
        if (args.resource !== undefined && args.resource !== family.value.resource) {
          return { _tag: "Refused", error: oauthError("invalid_target", "resource differs from the authorization request's.") } satisfies RefreshOutcome
        }
        const live = Option.filter(account, (a) => isAccountId(a.accountId) && a.deletedAt === null)
        if (Option.isNone(live)) return invalid("The account no longer exists.")
        const minted = yield* mintFor(client, rt, family.value, live.value, requested)
        const rotated = yield* tokens.rotateRefreshToken({ tokenHash, now, issue: minted.records })
        if (rotated === "Rotated") {
          remember(minted.records, family.value, live.value)
          return { _tag: "Issued", response: minted.response, account: live.value } satisfies RefreshOutcome
        }
        // Someone got there first: a concurrent use of the same token (a reuse), or a revocation.
        const again = yield* tokens.findTokenContext(tokenHash)
        if (Option.isSome(again) && again.value.token.rotatedAt !== null) {
          return { _tag: "Reused", familyId: again.value.token.familyId } satisfies RefreshOutcome
        }
        return invalid("The refresh token was revoked.")
      })
      switch (outcome._tag) {
        case "Issued":
          // With the account they are for (the /v1 device token endpoint answers its `user`).
          return { ...outcome.response, account: outcome.account } satisfies IssuedTokens
        case "Refused":
          return yield* outcome.error
        case "Reused":
          // A rotated-out token came back: it leaked. Revoke the whole family (RFC 9700 §4.14.2).
          yield* grants.revokeFamily(outcome.familyId)
          return yield* oauthError("invalid_grant", "The refresh token was already used; its token family is revoked.")
      }
    })

    return { refresh } as const
  })
