/**
 * The rows of the OAuth provider's tables and their decoders, shared by `OAuthProviderSql.ts`
 * (apps, grants) and `OAuthTokensSql.ts` (codes, families, tokens).
 */
import { type OAuthApp } from "@switchboard/core/oauth"
import { AccountId } from "@switchboard/core/shared"
import { Schema } from "effect"
import { DbTime, DbTimeOrNull } from "../shared/Sql.js"

export const Strings = Schema.Array(Schema.String)

export const AppRow = Schema.Struct({
  clientId: Schema.String,
  ownerAccountId: AccountId,
  name: Schema.String,
  logoUri: Schema.NullOr(Schema.String),
  homepageUri: Schema.NullOr(Schema.String),
  redirectUris: Strings,
  clientType: Schema.Literals(["confidential", "public"]),
  scopes: Strings,
  secretHash: Schema.NullOr(Schema.String),
  createdAt: DbTime,
  updatedAt: DbTime
})
export type AppRow = typeof AppRow.Type

export const GrantRow = Schema.Struct({
  grantId: Schema.String,
  accountId: AccountId,
  clientId: Schema.String,
  scopes: Strings,
  createdAt: DbTime,
  updatedAt: DbTime,
  revokedAt: DbTimeOrNull
})

export const CodeRow = Schema.Struct({
  codeHash: Schema.String,
  grantId: Schema.String,
  clientId: Schema.String,
  accountId: AccountId,
  redirectUri: Schema.String,
  codeChallenge: Schema.String,
  scopes: Strings,
  nonce: Schema.NullOr(Schema.String),
  resource: Schema.NullOr(Schema.String),
  authTime: DbTime,
  createdAt: DbTime,
  expiresAt: DbTime,
  consumedAt: DbTimeOrNull
})

export const FamilyRow = Schema.Struct({
  familyId: Schema.String,
  grantId: Schema.String,
  clientId: Schema.String,
  accountId: AccountId,
  resource: Schema.NullOr(Schema.String),
  authTime: DbTime,
  createdAt: DbTime,
  revokedAt: DbTimeOrNull
})

export const TokenRow = Schema.Struct({
  tokenHash: Schema.String,
  kind: Schema.Literals(["access", "refresh"]),
  familyId: Schema.String,
  grantId: Schema.String,
  clientId: Schema.String,
  accountId: AccountId,
  scopes: Strings,
  createdAt: DbTime,
  expiresAt: DbTime,
  revokedAt: DbTimeOrNull,
  rotatedAt: DbTimeOrNull
})

export const toApp = ({ secretHash: _, ...row }: AppRow): OAuthApp => row
export const json = (value: ReadonlyArray<string>) => JSON.stringify(value)

export const appCols = "client_id, owner_account_id, name, logo_uri, homepage_uri, redirect_uris, client_type, scopes, secret_hash, created_at, updated_at"
export const grantCols = "grant_id, account_id, client_id, scopes, created_at, updated_at, revoked_at"
export const codeCols =
  "code_hash, grant_id, client_id, account_id, redirect_uri, code_challenge, scopes, nonce, resource, auth_time, created_at, expires_at, consumed_at"
export const familyCols = "family_id, grant_id, client_id, account_id, resource, auth_time, created_at, revoked_at"
export const tokenCols = "token_hash, kind, family_id, grant_id, client_id, account_id, scopes, created_at, expires_at, revoked_at, rotated_at"

export const prefixed = (prefix: string, cols: string) => cols.split(", ").map((c) => `${prefix}.${c}`).join(", ")
