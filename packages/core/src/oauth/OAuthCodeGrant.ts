/**
 * The authorization-code grant (docs/api-notes/oauth.md): codes
 * are 256 bits, stored hashed, single use, 60 s, bound to the client, redirect URI, PKCE challenge,
 * scopes, nonce, resource, account, grant and sign-in time; a replayed code revokes its grant.
 * Consent: a live grant covering the scopes lets the consent screen be skipped.
 */
import { DateTime, Effect, Option } from "effect"
import { sha256Hex } from "../internal/Crypto.js"
import { type AccountId, IdKinds } from "../shared/Identifiers.js"
import { Ids } from "../shared/Ids.js"
import { Transactor } from "../shared/Ports.js"
import { fn } from "../internal/Traced.js"
import type { AuthorizationRequest } from "./AuthorizationRequest.js"
import { oauthError } from "./OAuthErrors.js"
import { MAX_OPAQUE_TOKEN_LENGTH, OAuthGrants } from "./OAuthGrants.js"
import { type AuthorizationCodeRecord, OAuthGrantsRepo, OAuthTokensRepo, type TokenFamilyRecord } from "./OAuthProviderPorts.js"
import { covers, type OAuthApp } from "./OAuthSchema.js"
import { CODE_PREFIX, type OAuthTokenMinting } from "./OAuthTokenMinting.js"
import { isCodeVerifier, verifierMatches } from "./Pkce.js"
import { AUTHORIZATION_CODE_LIFETIME } from "./TokenPolicy.js"

export const makeOAuthCodeGrant = (minting: OAuthTokenMinting) =>
  Effect.gen(function*() {
    const grantsRepo = yield* OAuthGrantsRepo
    const tokens = yield* OAuthTokensRepo
    const grants = yield* OAuthGrants
    const ids = yield* Ids
    const tx = yield* Transactor
    const { hashOf, liveAccount, mintTokens, opaque } = minting

    /** Whether the account's live grant for the client already covers `scopes` (consent can be skipped). */
    const hasConsent = fn("OAuthProvider.hasConsent")(function*(accountId: AccountId, clientId: string, scopes: ReadonlyArray<string>) {
      const grant = yield* grantsRepo.findLive(accountId, clientId)
      return Option.isSome(grant) && covers(grant.value.scopes, scopes)
    })

    /**
     * Issues an authorization code for a validated request of a signed-in account. `consented`:
     * the user just approved the consent screen (the grant gains the scopes); otherwise the live
     * grant must already cover them (`consent_required`).
     */
    const issueCode = fn("OAuthProvider.issueCode")(function*(args: {
      readonly accountId: AccountId
      readonly request: AuthorizationRequest
      readonly authTime: DateTime.Utc
      readonly consented: boolean
    }) {
      const { accountId, request } = args
      const now = yield* DateTime.now
      const code = yield* opaque(CODE_PREFIX)
      yield* tx.withTransaction(Effect.gen(function*() {
        let grantId: string
        if (args.consented) {
          const grant = yield* grantsRepo.upsertLive({
            grantId: yield* ids.typeId(IdKinds.grant),
            accountId,
            clientId: request.clientId,
            scopes: request.scopes,
            now
          })
          grantId = grant.grantId
        } else {
          const grant = yield* grantsRepo.findLive(accountId, request.clientId)
          if (Option.isNone(grant) || !covers(grant.value.scopes, request.scopes)) {
            return yield* oauthError("consent_required", "The user has not consented to these scopes.")
          }
          grantId = grant.value.grantId
        }
        const record: AuthorizationCodeRecord = {
          codeHash: yield* hashOf(code),
          grantId,
          clientId: request.clientId,
          accountId,
          redirectUri: request.redirectUri,
          codeChallenge: request.codeChallenge,
          scopes: request.scopes,
          nonce: request.nonce,
          resource: request.resource,
          authTime: args.authTime,
          createdAt: now,
          expiresAt: DateTime.makeUnsafe(DateTime.toEpochMillis(now) + AUTHORIZATION_CODE_LIFETIME) as DateTime.Utc,
          consumedAt: null
        }
        yield* tokens.insertCode(record)
      }))
      return code
    })
    /** `grant_type=authorization_code` for an authenticated client. */
    const exchangeCode = fn("OAuthProvider.exchangeCode")(function*(args: {
      readonly client: OAuthApp
      readonly code: string
      readonly redirectUri: string
      readonly codeVerifier: string
      readonly resource?: string | undefined
    }) {
      const { client } = args
      if (!isCodeVerifier(args.codeVerifier)) {
        return yield* oauthError("invalid_request", "code_verifier must be 43 to 128 characters of [A-Za-z0-9._~-].")
      }
      if (args.code.length === 0 || args.code.length > MAX_OPAQUE_TOKEN_LENGTH) {
        return yield* oauthError("invalid_grant", "The authorization code is not valid.")
      }
      const now = yield* DateTime.now
      const consumed = yield* tokens.consumeCode({ codeHash: yield* sha256Hex(args.code), now })
      if (consumed._tag === "Unknown") return yield* oauthError("invalid_grant", "The authorization code is not valid.")
      const code = consumed.code
      if (consumed._tag === "Replayed") {
        // A code used twice was intercepted, or its grant withdrawn: nothing issued under the grant survives.
        yield* grants.revokeGrant(code.grantId)
        return yield* oauthError("invalid_grant", "The authorization code was already used; its grant is revoked.")
      }
      if (!DateTime.isGreaterThan(code.expiresAt, now)) return yield* oauthError("invalid_grant", "The authorization code has expired.")
      if (code.clientId !== client.clientId) return yield* oauthError("invalid_grant", "The authorization code was issued to another client.")
      if (code.redirectUri !== args.redirectUri) {
        return yield* oauthError("invalid_grant", "redirect_uri does not match the authorization request.")
      }
      if (!(yield* verifierMatches(args.codeVerifier, code.codeChallenge))) {
        return yield* oauthError("invalid_grant", "code_verifier does not match the code_challenge.")
      }
      if (args.resource !== undefined && args.resource !== code.resource) {
        return yield* oauthError("invalid_target", "resource differs from the authorization request's.")
      }
      const grant = yield* grantsRepo.findById(code.grantId)
      if (Option.isNone(grant) || grant.value.revokedAt !== null) return yield* oauthError("invalid_grant", "The grant was withdrawn.")
      const account = yield* liveAccount(code.accountId)
      if (Option.isNone(account)) return yield* oauthError("invalid_grant", "The account no longer exists.")
      return yield* tx.withTransaction(Effect.gen(function*() {
        const family: TokenFamilyRecord = {
          familyId: yield* ids.uuidv7(),
          grantId: code.grantId,
          clientId: client.clientId,
          accountId: code.accountId,
          resource: code.resource,
          authTime: code.authTime,
          createdAt: now,
          revokedAt: null
        }
        const minted = yield* mintTokens({ client, account: account.value, family, scopes: code.scopes, refreshScopes: code.scopes, nonce: code.nonce })
        yield* tokens.insertFamily(family)
        for (const record of minted.records) yield* tokens.insertToken(record)
        return minted.response
      }))
    })

    return { hasConsent, issueCode, exchangeCode } as const
  })
