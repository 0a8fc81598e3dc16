/**
 * Minting OAuth tokens (docs/api-notes/oauth.md), shared by the authorization-code and
 * refresh grants: opaque access tokens (`sb_oat_…`, stored hashed) by default, an EdDSA JWT access
 * token for the API (`typ: at+jwt`, `aud` = the API's URL, naming its grant and family) when the
 * request named `resource`; lifetimes from `TokenPolicy`; a refresh token (`sb_ort_…`, 30 days)
 * only with `offline_access`; an `id_token` (EdDSA, `kid`) only with `openid`. Also the live
 * account a token is for and its user claims.
 */
import { Clock, DateTime, Effect, Option, Redacted, Schema } from "effect"
import { SECRET_BYTES } from "../credentials/Credential.js"
import { AccountsRepo } from "../accounts/Ports.js"
import { sha256Hex } from "../internal/Crypto.js"
import { type AccountId, AccountId as AccountIdSchema, encodeBase32, SVC } from "../shared/Identifiers.js"
import { Ids } from "../shared/Ids.js"
import { Secrets } from "../shared/Secrets.js"
import { ACCESS_TOKEN_TYP, accessTokenClaims, formatScope } from "./AccessTokenClaims.js"
import type { OAuthTokenRecord, TokenAccount, TokenFamilyRecord } from "./OAuthProviderPorts.js"
import type { OAuthApp } from "./OAuthSchema.js"
import { SigningKeys } from "./SigningKeys.js"
import { TokenAudience } from "./TokenAudience.js"
import {
  accessTokenLifetime,
  ID_TOKEN_LIFETIME,
  issuesIdToken,
  issuesRefreshToken,
  REFRESH_TOKEN_LIFETIME,
  userClaims
} from "./TokenPolicy.js"

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

/** A token response with the account the tokens are for (refresh and device grants). */
export interface IssuedTokens extends TokenResponse {
  readonly account: TokenAccount
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

export const isAccountId = Schema.is(AccountIdSchema)
export const seconds = (ms: number) => Math.floor(ms / 1000)

export const makeOAuthTokenMinting = Effect.gen(function*() {
  const accounts = yield* AccountsRepo
  const keys = yield* SigningKeys
  const ids = yield* Ids
  const { audience, issuer } = yield* TokenAudience
  const defaultPicture = `${audience}/assets/default-avatar.svg`

  const secrets = yield* Secrets
  // `newSecret`'s bytes and text, with the service at hand: providing it per token copied the
  // request's whole context twice per refresh.
  const opaque = (prefix: string) =>
    Effect.map(secrets.randomBytes(SECRET_BYTES), (b) => Redacted.make(`${prefix}${encodeBase32(b)}`))
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
          createdAt: DateTime.makeUnsafe(now) as DateTime.Utc,
          expiresAt: DateTime.makeUnsafe(expiresAt) as DateTime.Utc,
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
          createdAt: DateTime.makeUnsafe(now) as DateTime.Utc,
          expiresAt: DateTime.makeUnsafe(now + REFRESH_TOKEN_LIFETIME) as DateTime.Utc,
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
          auth_time: seconds(DateTime.toEpochMillis(family.authTime)),
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

  return { opaque, hashOf, liveAccount, claimsOf, mintTokens } as const
})

export type OAuthTokenMinting = Effect.Success<typeof makeOAuthTokenMinting>
