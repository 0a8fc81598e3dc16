/**
 * The OAuth 2.1 / OpenID Connect provider's protocol (SPEC.md § Authorization code flow;
 * reference/oauth.md §2; API.md §3):
 *
 * - client authentication: confidential clients by secret (Basic or body, compared as SHA-256 in
 *   constant time), public clients by `client_id` alone; anything else is `invalid_client`;
 * - authorization codes: 256 bits, stored hashed, single use, 60 s, bound to the client, redirect
 *   URI, PKCE challenge, scopes, nonce, resource, account, grant and sign-in time; a replayed code
 *   revokes its grant;
 * - tokens: opaque access tokens (`sb_oat_…`, stored hashed) by default, an EdDSA JWT access token
 *   for the API (`typ: at+jwt`, `aud` = the API's URL, naming its grant and family) when the request
 *   named `resource`; lifetimes from `TokenPolicy`; a refresh token (`sb_ort_…`, 30 days) only with
 *   `offline_access`, rotated on every use, reuse of a rotated-out one revokes its family; an
 *   `id_token` (EdDSA, `kid`) only with `openid`;
 * - introspection (RFC 7662), revocation (RFC 7009) and userinfo (OIDC Core §5.3).
 */
import { Clock, DateTime, Effect, Option, Redacted, Schema } from "effect"
import { AccessTokenVerifier, type VerifiedAccessToken } from "../credentials/AccessTokenVerifier.js"
import { newSecret } from "../credentials/Credential.js"
import { AccountsRepo } from "../accounts/Ports.js"
import { constantTimeEqual, sha256Hex } from "../shared/Crypto.js"
import { type AccountId, AccountId as AccountIdSchema, IdKinds, SVC } from "../shared/Identifiers.js"
import { Ids } from "../shared/Ids.js"
import { Secrets } from "../shared/Secrets.js"
import { Transactor } from "../shared/Ports.js"
import { ACCESS_TOKEN_TYP, accessTokenClaims, formatScope } from "./AccessTokenClaims.js"
import { type AuthorizationRequest, parseScopeParam } from "./AuthorizationRequest.js"
import type { PresentedClient } from "./ClientCredentials.js"
import { oauthInsufficientScope, oauthError, OAuthProtocolError } from "./OAuthErrors.js"
import { MAX_OPAQUE_TOKEN_LENGTH, OAuthGrants } from "./OAuthGrants.js"
import {
  type AuthorizationCodeRecord,
  OAuthGrantsRepo,
  type OAuthTokenRecord,
  OAuthTokensRepo,
  type TokenAccount,
  type TokenFamilyRecord
} from "./OAuthProviderPorts.js"
import { OAuthClientCache } from "./OAuthClientCache.js"
import { catalogOrder, covers, type OAuthApp } from "./OAuthSchema.js"
import { isCodeVerifier, verifierMatches } from "./Pkce.js"
import { SigningKeys } from "./SigningKeys.js"
import { TokenAudience } from "./TokenAudience.js"
import {
  accessTokenLifetime,
  AUTHORIZATION_CODE_LIFETIME,
  DAY,
  ID_TOKEN_LIFETIME,
  issuesIdToken,
  issuesRefreshToken,
  REFRESH_TOKEN_LIFETIME,
  userClaims
} from "./TokenPolicy.js"
import { fn } from "../shared/Traced.js"

export const ACCESS_TOKEN_PREFIX = `${SVC}_oat_`
export const REFRESH_TOKEN_PREFIX = `${SVC}_ort_`
export const CODE_PREFIX = `${SVC}_oac_`

/** A token endpoint success (RFC 6749 §5.1). */
export interface TokenResponse {
  readonly accessToken: Redacted.Redacted<string>
  readonly tokenType: "Bearer"
  /** Seconds. */
  readonly expiresIn: number
  readonly scope: string
  readonly refreshToken: Option.Option<Redacted.Redacted<string>>
  readonly idToken: Option.Option<string>
}

/** The wire form of a token response. */
export const tokenResponseBody = (r: TokenResponse): Record<string, string | number> => ({
  access_token: Redacted.value(r.accessToken),
  token_type: r.tokenType,
  expires_in: r.expiresIn,
  scope: r.scope,
  ...(Option.isSome(r.refreshToken) ? { refresh_token: Redacted.value(r.refreshToken.value) } : {}),
  ...(Option.isSome(r.idToken) ? { id_token: r.idToken.value } : {})
})

/** RFC 7662 §2.2: an inactive token says nothing else. */
export const INACTIVE = { active: false } as const

const isAccountId = Schema.is(AccountIdSchema)
const looksLikeJwt = (token: string) => /^[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]*$/.test(token)
const seconds = (ms: number) => Math.floor(ms / 1000)

type RefreshOutcome =
  | { readonly _tag: "Issued"; readonly response: TokenResponse }
  | { readonly _tag: "Reused"; readonly familyId: string }
  | { readonly _tag: "Refused"; readonly error: OAuthProtocolError }

export class OAuthProvider extends Effect.Service<OAuthProvider>()("core/OAuthProvider", {
  effect: Effect.gen(function*() {
    const apps = yield* OAuthClientCache
    const grantsRepo = yield* OAuthGrantsRepo
    const tokens = yield* OAuthTokensRepo
    const accounts = yield* AccountsRepo
    const grants = yield* OAuthGrants
    const verifier = yield* AccessTokenVerifier
    const keys = yield* SigningKeys
    const ids = yield* Ids
    const tx = yield* Transactor
    const { audience, issuer } = yield* TokenAudience
    const defaultPicture = `${audience}/assets/default-avatar.svg`

    const secrets = yield* Secrets
    const opaque = (prefix: string) =>
      Effect.map(Effect.provideService(newSecret, Secrets, secrets), (s) => Redacted.make(`${prefix}${Redacted.value(s)}`))
    const hashOf = (token: Redacted.Redacted<string>) => sha256Hex(Redacted.value(token))

    /** The live account a token is for, with its claims source; none when gone or deleted. */
    const liveAccount = (accountId: string) =>
      Effect.map(isAccountId(accountId) ? accounts.findById(accountId) : Effect.succeed(Option.none()), (found) =>
        Option.filter(found, (a) => a.deletedAt === null))

    const claimsFrom = (a: TokenAccount, scopes: ReadonlyArray<string>) =>
      userClaims({
        accountId: a.accountId,
        email: a.email,
        emailVerified: false,
        firstName: a.firstName,
        lastName: a.lastName,
        picture: a.pictureUrl ?? defaultPicture
      }, scopes)

    const claimsOf = (accountId: AccountId, scopes: ReadonlyArray<string>) =>
      Effect.map(liveAccount(accountId), Option.map((a) => claimsFrom(a, scopes)))

    /** An app that exists (not removed). */
    const findClient = fn("OAuthProvider.findClient")(function*(clientId: string) {
      if (clientId.length === 0 || clientId.length > 128) return Option.none<OAuthApp>()
      return Option.map(yield* apps.find(clientId), (s) => s.app)
    })

    /**
     * Authenticates the calling client: a confidential client by its secret, a public client by its
     * id alone (sending a secret is refused). Every refusal is `invalid_client`.
     */
    const authenticateClient = fn("OAuthProvider.authenticateClient")(function*(presented: PresentedClient) {
      // Built only when refusing: constructing the error (schema check, stack) costs more than the rest.
      const refuse = () => oauthError("invalid_client", "Client authentication failed.")
      if (presented.clientId.length > 128) return yield* refuse()
      const found = yield* apps.find(presented.clientId)
      if (Option.isNone(found)) return yield* refuse()
      const { app, secretHash } = found.value
      const secret = presented.secret === null ? "" : Redacted.value(presented.secret)
      if (app.clientType === "public") {
        if (secret !== "") return yield* oauthError("invalid_client", "Public clients do not authenticate with a secret.")
        return app
      }
      if (secret === "" || secretHash === null) return yield* oauthError("invalid_client", "This client must authenticate with its secret.")
      if (secret.length > 256 || !constantTimeEqual(yield* sha256Hex(secret), secretHash)) return yield* refuse()
      return app
    })

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
          expiresAt: DateTime.unsafeMake(now.epochMillis + AUTHORIZATION_CODE_LIFETIME) as DateTime.Utc,
          consumedAt: null
        }
        yield* tokens.insertCode(record)
      }))
      return code
    })

    /**
     * Mints an access token (and a refresh token and id_token when the scopes say so) in a family:
     * the response, and the records the caller stores with it (in the same transaction). Nothing
     * is written here, so everything that can fail happens before any write.
     */
    const mintTokens = (args: {
      readonly client: OAuthApp
      /** The (live) account the tokens are for. */
      readonly account: TokenAccount
      readonly family: Pick<TokenFamilyRecord, "familyId" | "grantId" | "accountId" | "resource" | "authTime">
      readonly scopes: ReadonlyArray<string>
      /** The refresh token's scopes (those of the grant's original request). */
      readonly refreshScopes: ReadonlyArray<string>
      readonly nonce: string | null
    }) =>
      Effect.gen(function*() {
        const { client, family, scopes } = args
        const now = yield* Clock.currentTimeMillis
        const lifetime = accessTokenLifetime(scopes)
        const expiresAt = now + lifetime
        const records: Array<OAuthTokenRecord> = []
        let accessToken: Redacted.Redacted<string>
        if (family.resource !== null) {
          const claims = {
            ...accessTokenClaims({
              issuer,
              audience: family.resource,
              accountId: family.accountId,
              scopes,
              tokenId: yield* ids.uuidv7(),
              issuedAt: now,
              expiresAt,
              clientId: client.clientId
            }),
            grant_id: family.grantId,
            family_id: family.familyId
          }
          accessToken = Redacted.make(yield* keys.sign(claims, { typ: ACCESS_TOKEN_TYP }))
        } else {
          accessToken = yield* opaque(ACCESS_TOKEN_PREFIX)
          records.push({
            tokenHash: yield* hashOf(accessToken),
            kind: "access",
            familyId: family.familyId,
            grantId: family.grantId,
            clientId: client.clientId,
            accountId: family.accountId,
            scopes,
            createdAt: DateTime.unsafeMake(now) as DateTime.Utc,
            expiresAt: DateTime.unsafeMake(expiresAt) as DateTime.Utc,
            revokedAt: null,
            rotatedAt: null
          })
        }
        let refreshToken = Option.none<Redacted.Redacted<string>>()
        if (issuesRefreshToken(args.refreshScopes)) {
          const rt = yield* opaque(REFRESH_TOKEN_PREFIX)
          records.push({
            tokenHash: yield* hashOf(rt),
            kind: "refresh",
            familyId: family.familyId,
            grantId: family.grantId,
            clientId: client.clientId,
            accountId: family.accountId,
            scopes: args.refreshScopes,
            createdAt: DateTime.unsafeMake(now) as DateTime.Utc,
            expiresAt: DateTime.unsafeMake(now + REFRESH_TOKEN_LIFETIME) as DateTime.Utc,
            revokedAt: null,
            rotatedAt: null
          })
          refreshToken = Option.some(rt)
        }
        let idToken = Option.none<string>()
        if (issuesIdToken(scopes)) {
          idToken = Option.some(yield* keys.sign({
            ...claimsFrom(args.account, scopes),
            iss: issuer,
            aud: client.clientId,
            azp: client.clientId,
            iat: seconds(now),
            exp: seconds(now + ID_TOKEN_LIFETIME),
            auth_time: seconds(family.authTime.epochMillis),
            ...(args.nonce === null ? {} : { nonce: args.nonce })
          }))
        }
        const response: TokenResponse = {
          accessToken,
          tokenType: "Bearer",
          expiresIn: Math.floor(lifetime / 1000),
          scope: formatScope(scopes),
          refreshToken,
          idToken
        }
        return { response, records: records as ReadonlyArray<OAuthTokenRecord> }
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
      if (!DateTime.greaterThan(code.expiresAt, now)) return yield* oauthError("invalid_grant", "The authorization code has expired.")
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
        if (!DateTime.greaterThan(rt.expiresAt, now)) return invalid("The refresh token has expired.")
        if (requested !== undefined && !covers(rt.scopes, requested)) {
          return { _tag: "Refused", error: oauthError("invalid_scope", "scope exceeds the scopes originally granted.") } satisfies RefreshOutcome
        }
        if (Option.isNone(family) || family.value.revokedAt !== null) return invalid("The refresh token was revoked.")
        if (args.resource !== undefined && args.resource !== family.value.resource) {
          return { _tag: "Refused", error: oauthError("invalid_target", "resource differs from the authorization request's.") } satisfies RefreshOutcome
        }
        const live = Option.filter(account, (a) => isAccountId(a.accountId) && a.deletedAt === null)
        if (Option.isNone(live)) return invalid("The account no longer exists.")
        // The app's maximum scope set may have shrunk since: access tokens never exceed it.
        const scopes = catalogOrder((requested ?? rt.scopes).filter((s) => client.scopes.includes(s)))
        // The family's ids are its tokens' (a token is always issued with its family's grant and account).
        const tokenFamily = { familyId: rt.familyId, grantId: rt.grantId, accountId: rt.accountId, resource: family.value.resource, authTime: family.value.authTime }
        const minted = yield* mintTokens({ client, account: live.value, family: tokenFamily, scopes, refreshScopes: rt.scopes, nonce: null })
        const rotated = yield* tokens.rotateRefreshToken({ tokenHash, now, issue: minted.records })
        if (rotated === "Rotated") return { _tag: "Issued", response: minted.response } satisfies RefreshOutcome
        // Someone got there first: a concurrent use of the same token (a reuse), or a revocation.
        const again = yield* tokens.findTokenContext(tokenHash)
        if (Option.isSome(again) && again.value.token.rotatedAt !== null) {
          return { _tag: "Reused", familyId: again.value.token.familyId } satisfies RefreshOutcome
        }
        return invalid("The refresh token was revoked.")
      })
      switch (outcome._tag) {
        case "Issued":
          return outcome.response
        case "Refused":
          return yield* outcome.error
        case "Reused":
          // A rotated-out token came back: it leaked. Revoke the whole family (RFC 9700 §4.14.2).
          yield* grants.revokeFamily(outcome.familyId)
          return yield* oauthError("invalid_grant", "The refresh token was already used; its token family is revoked.")
      }
    })

    /** A JWT access token of ours, verified (signature, claims, grant liveness); none otherwise. */
    const verifiedJwt = (token: string) =>
      verifier.verifyToken(Redacted.make(token)).pipe(
        Effect.map(Option.some<VerifiedAccessToken>),
        Effect.catchTags({ InvalidCredential: () => Effect.succeed(Option.none()), AccountDeleted: () => Effect.succeed(Option.none()) })
      )

    /** An opaque token's live record (not revoked, rotated or expired; account live); none otherwise. */
    const liveOpaque = (token: string) =>
      Effect.gen(function*() {
        if (token.length === 0 || token.length > MAX_OPAQUE_TOKEN_LENGTH) return Option.none<OAuthTokenRecord>()
        // One lookup: the token with its account.
        const found = yield* tokens.findTokenWithAccountState(yield* sha256Hex(token))
        if (Option.isNone(found)) return Option.none<OAuthTokenRecord>()
        const t = found.value.token
        const now = yield* DateTime.now
        if (t.revokedAt !== null || t.rotatedAt !== null || !DateTime.greaterThan(t.expiresAt, now)) return Option.none<OAuthTokenRecord>()
        const account = found.value.account
        if (Option.isNone(account) || !isAccountId(t.accountId) || account.value.deletedAt !== null) return Option.none<OAuthTokenRecord>()
        return Option.some(t)
      })

    /** RFC 7662: the caller's own live tokens are described; anything else is exactly `{active:false}`. */
    const introspect = fn("OAuthProvider.introspect")(function*(args: { readonly client: OAuthApp; readonly token: string }) {
      const { client, token } = args
      if (looksLikeJwt(token)) {
        const jwt = yield* verifiedJwt(token)
        if (Option.isNone(jwt) || jwt.value.clientId !== client.clientId) return INACTIVE
        const t = jwt.value
        return {
          active: true,
          scope: formatScope(t.scopes),
          client_id: client.clientId,
          sub: t.accountId,
          exp: t.expiresAt,
          iat: t.issuedAt,
          iss: t.issuer,
          aud: t.audience,
          jti: t.tokenId,
          token_type: "Bearer"
        }
      }
      const found = yield* liveOpaque(token)
      if (Option.isNone(found) || found.value.clientId !== client.clientId) return INACTIVE
      const t = found.value
      return {
        active: true,
        scope: formatScope(t.scopes),
        client_id: t.clientId,
        sub: t.accountId,
        exp: seconds(t.expiresAt.epochMillis),
        iat: seconds(t.createdAt.epochMillis),
        iss: issuer,
        ...(t.kind === "access" ? { token_type: "Bearer" } : {})
      }
    })

    /**
     * RFC 7009: revokes the caller's token. A refresh token takes its whole family (and so the access
     * tokens issued with it); an opaque access token only itself; a JWT access token its family (it
     * cannot be revoked alone). Unknown, foreign, expired or already revoked tokens: nothing happens.
     */
    const revoke = fn("OAuthProvider.revoke")(function*(args: { readonly client: OAuthApp; readonly token: string }) {
      const { client, token } = args
      if (looksLikeJwt(token)) {
        const jwt = yield* verifiedJwt(token)
        if (Option.isSome(jwt) && jwt.value.clientId === client.clientId && jwt.value.familyId !== null) {
          yield* grants.revokeFamily(jwt.value.familyId)
        }
        return
      }
      if (token.length === 0 || token.length > MAX_OPAQUE_TOKEN_LENGTH) return
      const tokenHash = yield* sha256Hex(token)
      const found = yield* tokens.findToken(tokenHash)
      if (Option.isNone(found) || found.value.clientId !== client.clientId || found.value.revokedAt !== null) return
      if (found.value.kind === "refresh") yield* grants.revokeFamily(found.value.familyId)
      else yield* tokens.revokeToken({ tokenHash, now: yield* DateTime.now })
    })

    /** OIDC userinfo: the claims an access token with `openid` may see. */
    const userInfo = fn("OAuthProvider.userInfo")(function*(token: string) {
      let accountId: AccountId
      let scopes: ReadonlyArray<string>
      if (looksLikeJwt(token)) {
        const jwt = yield* verifiedJwt(token)
        if (Option.isNone(jwt) || jwt.value.grantId === null) {
          return yield* oauthError("invalid_token", "The access token is not valid.")
        }
        accountId = jwt.value.accountId
        scopes = jwt.value.scopes
      } else {
        const found = yield* liveOpaque(token)
        if (Option.isNone(found) || found.value.kind !== "access") return yield* oauthError("invalid_token", "The access token is not valid.")
        accountId = found.value.accountId
        scopes = found.value.scopes
      }
      if (!issuesIdToken(scopes)) return yield* oauthInsufficientScope("openid", "The access token lacks the openid scope.")
      const claims = yield* claimsOf(accountId, scopes)
      if (Option.isNone(claims)) return yield* oauthError("invalid_token", "The access token is not valid.")
      return claims.value
    })

    /** Deletes codes and tokens that expired more than a day ago. */
    const sweep = fn("OAuthProvider.sweep")(function*() {
      const now = yield* DateTime.now
      return yield* tokens.sweep({ before: DateTime.unsafeMake(now.epochMillis - DAY) as DateTime.Utc })
    })

    return {
      findClient,
      authenticateClient,
      hasConsent,
      issueCode,
      exchangeCode,
      refresh,
      introspect,
      revoke,
      userInfo,
      sweep,
      issuer,
      resourceUrl: audience
    } as const
  }),
  dependencies: [Ids.Default, SigningKeys.Default, OAuthClientCache.Default]
}) {}
