/**
 * The OAuth provider's store ports (docs/architecture.md#rules-of-the-road: `Context.Tag`s with no
 * implementation). The model is grant-centric (docs/api-notes/oauth.md): every code, token family
 * and token carries the id of the grant (one account's consent to one app) it was issued under, so
 * withdrawing the grant kills them all in one transaction. Codes and tokens are stored as the
 * SHA-256 of their value only.
 */
import { Context, DateTime, type Effect, type Option } from "effect"
import type { AccountRecord } from "../accounts/Ports.js"
import type { AccountId } from "../shared/Identifiers.js"
import type { OAuthApp, OAuthGrant } from "./OAuthSchema.js"

/** An app with the SHA-256 of its client secret (null for public clients). */
export interface StoredOAuthApp {
  readonly app: OAuthApp
  readonly secretHash: string | null
}

export class OAuthAppsRepo extends Context.Service<OAuthAppsRepo, {
  readonly insert: (stored: StoredOAuthApp) => Effect.Effect<void>
  /** The owner's apps that were not removed, newest first. */
  readonly listByOwner: (ownerAccountId: AccountId) => Effect.Effect<ReadonlyArray<OAuthApp>>
  /** An app that was not removed. */
  readonly find: (clientId: string) => Effect.Effect<Option.Option<StoredOAuthApp>>
  /** Like `find`, with the row locked until the surrounding transaction ends. */
  readonly lock: (clientId: string) => Effect.Effect<Option.Option<StoredOAuthApp>>
  /** Replaces the app's settings (name, logo, homepage, redirect URIs, scopes) and `updatedAt`. */
  readonly update: (app: OAuthApp) => Effect.Effect<void>
  readonly setSecretHash: (args: {
    readonly clientId: string
    readonly secretHash: string
    readonly updatedAt: DateTime.Utc
  }) => Effect.Effect<void>
  /** Marks the app removed: it no longer authenticates, authorizes or lists. */
  readonly remove: (args: { readonly clientId: string; readonly now: DateTime.Utc }) => Effect.Effect<void>
}>()("core/OAuthAppsRepo") {}

export class OAuthGrantsRepo extends Context.Service<OAuthGrantsRepo, {
  /** The live (unrevoked) grant of the account for the app, if any. */
  readonly findLive: (accountId: AccountId, clientId: string) => Effect.Effect<Option.Option<OAuthGrant>>
  readonly findById: (grantId: string) => Effect.Effect<Option.Option<OAuthGrant>>
  /**
   * Records consent to `scopes`, atomically: the live grant of (account, app) gains the scopes
   * (union) and `updatedAt = now`; without one, a grant `grantId` is created. Concurrent calls
   * leave exactly one live grant. Returns the grant as stored.
   */
  readonly upsertLive: (args: {
    readonly grantId: string
    readonly accountId: AccountId
    readonly clientId: string
    readonly scopes: ReadonlyArray<string>
    readonly now: DateTime.Utc
  }) => Effect.Effect<OAuthGrant>
  /** The account's live grants with their apps (removed apps left out), newest grant first. */
  readonly listLiveForAccount: (accountId: AccountId) => Effect.Effect<ReadonlyArray<{
    readonly grant: OAuthGrant
    readonly app: OAuthApp
  }>>
  /** The ids of every live grant of an app (any account). */
  readonly listLiveIdsForClient: (clientId: string) => Effect.Effect<ReadonlyArray<string>>
  /**
   * Revokes the grant and, in the same transaction, every code (consumed), token family and token
   * issued under it. False when the grant is unknown or was already revoked.
   */
  readonly revoke: (args: { readonly grantId: string; readonly now: DateTime.Utc }) => Effect.Effect<boolean>
}>()("core/OAuthGrantsRepo") {}

/** An authorization code, bound to everything the token request must match (docs/api-notes/oauth.md). */
export interface AuthorizationCodeRecord {
  readonly codeHash: string
  readonly grantId: string
  readonly clientId: string
  readonly accountId: AccountId
  readonly redirectUri: string
  readonly codeChallenge: string
  readonly scopes: ReadonlyArray<string>
  readonly nonce: string | null
  readonly resource: string | null
  /** When the user last signed in (the id_token's `auth_time`). */
  readonly authTime: DateTime.Utc
  readonly createdAt: DateTime.Utc
  readonly expiresAt: DateTime.Utc
  readonly consumedAt: DateTime.Utc | null
}

/**
 * The tokens of one code exchange and all refreshes after it. Reusing a rotated-out refresh token
 * revokes the family; JWT access tokens name their family, so they stop working too.
 */
export interface TokenFamilyRecord {
  /** A UUIDv7. */
  readonly familyId: string
  readonly grantId: string
  readonly clientId: string
  readonly accountId: AccountId
  /** The audience of the family's access tokens (RFC 8707): null for opaque tokens, the API's URL for JWTs. */
  readonly resource: string | null
  readonly authTime: DateTime.Utc
  readonly createdAt: DateTime.Utc
  readonly revokedAt: DateTime.Utc | null
}

export type OAuthTokenKind = "access" | "refresh"

export interface OAuthTokenRecord {
  readonly tokenHash: string
  readonly kind: OAuthTokenKind
  readonly familyId: string
  readonly grantId: string
  readonly clientId: string
  readonly accountId: AccountId
  readonly scopes: ReadonlyArray<string>
  readonly createdAt: DateTime.Utc
  readonly expiresAt: DateTime.Utc
  readonly revokedAt: DateTime.Utc | null
  /** A refresh token that was exchanged (rotated out); null otherwise. */
  readonly rotatedAt: DateTime.Utc | null
}

/** What consuming a code found. */
export type CodeConsumption =
  /** First use: now marked consumed. */
  | { readonly _tag: "Consumed"; readonly code: AuthorizationCodeRecord }
  /** Already consumed before: a replay. */
  | { readonly _tag: "Replayed"; readonly code: AuthorizationCodeRecord }
  | { readonly _tag: "Unknown" }

/** What the refresh grant (its checks, the id_token's claims) needs of a token's account. */
export type TokenAccount = Pick<AccountRecord, "accountId" | "email" | "firstName" | "lastName" | "pictureUrl" | "deletedAt">

/** What the refresh grant needs of a token's family. */
export type TokenFamilyState = Pick<TokenFamilyRecord, "familyId" | "resource" | "authTime" | "revokedAt">

/** A token with what a refresh depends on, read together: its family and its account (either may be gone). */
export interface TokenContext {
  readonly token: OAuthTokenRecord
  readonly family: Option.Option<TokenFamilyState>
  /** The token's account as stored (deleted accounts included: `deletedAt` says). */
  readonly account: Option.Option<TokenAccount>
}

/** A token with whether its account is there and when it was deleted (introspection, userinfo). */
export interface TokenWithAccountState {
  readonly token: OAuthTokenRecord
  readonly account: Option.Option<{ readonly deletedAt: DateTime.Utc | null }>
}

/** What a rotation found: `Rotated` wrote everything; otherwise nothing was written. */
export type RotationResult = "Rotated" | "NotRotated"

export class OAuthTokensRepo extends Context.Service<OAuthTokensRepo, {
  readonly insertCode: (code: AuthorizationCodeRecord) => Effect.Effect<void>
  /** Marks the code consumed, atomically: of concurrent calls exactly one sees `Consumed`. */
  readonly consumeCode: (args: { readonly codeHash: string; readonly now: DateTime.Utc }) => Effect.Effect<CodeConsumption>
  readonly insertFamily: (family: TokenFamilyRecord) => Effect.Effect<void>
  readonly findFamily: (familyId: string) => Effect.Effect<Option.Option<TokenFamilyRecord>>
  readonly insertToken: (token: OAuthTokenRecord) => Effect.Effect<void>
  readonly findToken: (tokenHash: string) => Effect.Effect<Option.Option<OAuthTokenRecord>>
  /** Like `findToken`, with the row locked until the surrounding transaction ends. */
  readonly lockToken: (tokenHash: string) => Effect.Effect<Option.Option<OAuthTokenRecord>>
  readonly markRotated: (args: { readonly tokenHash: string; readonly now: DateTime.Utc }) => Effect.Effect<void>
  /**
   * The token of `tokenHash` with its family and its account, in one lookup (the refresh grant's
   * read); none when no such token is stored.
   */
  readonly findTokenContext: (tokenHash: string) => Effect.Effect<Option.Option<TokenContext>>
  /**
   * The token of `tokenHash` with its account's state, in one lookup (introspection and userinfo:
   * a deleted account's tokens are dead); none when no such token is stored.
   */
  readonly findTokenWithAccountState: (tokenHash: string) => Effect.Effect<Option.Option<TokenWithAccountState>>
  /**
   * One refresh-token rotation, atomically: when the refresh token `tokenHash` is still neither
   * rotated nor revoked and its family is not revoked, marks it rotated at `now` and stores
   * `issue` (the new tokens) — `Rotated`. Otherwise (a concurrent rotation or revocation got there
   * first, or the token is unknown) nothing is written — `NotRotated`. Of concurrent rotations of
   * one token exactly one is `Rotated`.
   *
   * With `expectAccount`, also only when the token's account is there, not deleted, and its email,
   * names and picture are still exactly those given (the new id_token was signed with them): the
   * refresh grant's one-statement path, which minted from what it remembered instead of reading.
   */
  readonly rotateRefreshToken: (args: {
    readonly tokenHash: string
    readonly now: DateTime.Utc
    readonly issue: ReadonlyArray<OAuthTokenRecord>
    readonly expectAccount?: TokenAccount | undefined
  }) => Effect.Effect<RotationResult>
  /** Revokes one token (a repeat keeps the first time). */
  readonly revokeToken: (args: { readonly tokenHash: string; readonly now: DateTime.Utc }) => Effect.Effect<void>
  /** Revokes the family and every token of it. */
  readonly revokeFamily: (args: { readonly familyId: string; readonly now: DateTime.Utc }) => Effect.Effect<void>
  /**
   * Deletes codes and tokens that expired before `before`, and families left without tokens that
   * were created before it. Returns how many rows went.
   */
  readonly sweep: (args: { readonly before: DateTime.Utc }) => Effect.Effect<number>
}>()("core/OAuthTokensRepo") {}
