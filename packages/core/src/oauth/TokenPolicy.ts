/**
 * The OAuth provider's token policy (docs/api-notes/credentials.md; docs/api-notes/oauth.md) as
 * pure functions over the granted scopes:
 *
 * - access-token lifetime: 1 hour by default, 15 minutes with any `:write` scope, 5 minutes with
 *   `billing:write`; with several scopes the shortest lifetime wins;
 * - refresh tokens: only with `offline_access`; each lives 30 days and is rotated on every use;
 * - an `id_token` only with `openid`; its profile claims (`name`, `picture`) only with `profile`,
 *   its email claims (`email`, `email_verified`) only with `email`;
 * - authorization codes live 60 seconds.
 */

/** Milliseconds. */
export const MINUTE = 60_000
export const HOUR = 60 * MINUTE
export const DAY = 24 * HOUR

export const DEFAULT_ACCESS_TOKEN_LIFETIME = HOUR
export const WRITE_ACCESS_TOKEN_LIFETIME = 15 * MINUTE
export const BILLING_WRITE_ACCESS_TOKEN_LIFETIME = 5 * MINUTE
export const REFRESH_TOKEN_LIFETIME = 30 * DAY
export const AUTHORIZATION_CODE_LIFETIME = MINUTE
/** ID tokens are signed with the JWT keys, whose retirement covers tokens of at most one hour. */
export const ID_TOKEN_LIFETIME = HOUR

/** The lifetime one scope allows an access token (ms). */
export const scopeLifetime = (scope: string): number =>
  scope === "billing:write"
    ? BILLING_WRITE_ACCESS_TOKEN_LIFETIME
    : scope.endsWith(":write")
    ? WRITE_ACCESS_TOKEN_LIFETIME
    : DEFAULT_ACCESS_TOKEN_LIFETIME

/** The lifetime of an access token with these scopes (ms): the shortest any of them allows. */
export const accessTokenLifetime = (scopes: ReadonlyArray<string>): number =>
  scopes.reduce((shortest, scope) => Math.min(shortest, scopeLifetime(scope)), DEFAULT_ACCESS_TOKEN_LIFETIME)

/** Whether a refresh token is issued: only when `offline_access` was granted. */
export const issuesRefreshToken = (scopes: ReadonlyArray<string>): boolean => scopes.includes("offline_access")

/** Whether an `id_token` is issued (and userinfo answers): only with `openid`. */
export const issuesIdToken = (scopes: ReadonlyArray<string>): boolean => scopes.includes("openid")

/** The account data user claims are made of. */
export interface ClaimsSource {
  readonly accountId: string
  readonly email: string
  readonly emailVerified: boolean
  readonly firstName: string | null
  readonly lastName: string | null
  /** The account's picture, or the default picture's URL. */
  readonly picture: string
}

/** The user claims (OIDC Core §5.1) the scopes allow: `sub` always, the rest gated by `profile` and `email`. */
export const userClaims = (source: ClaimsSource, scopes: ReadonlyArray<string>): Record<string, string | boolean> => {
  const claims: Record<string, string | boolean> = { sub: source.accountId }
  if (scopes.includes("profile")) {
    const name = [source.firstName, source.lastName].filter((p): p is string => p !== null && p !== "").join(" ")
    if (name !== "") claims.name = name
    claims.picture = source.picture
  }
  if (scopes.includes("email")) {
    claims.email = source.email
    claims.email_verified = source.emailVerified
  }
  return claims
}
