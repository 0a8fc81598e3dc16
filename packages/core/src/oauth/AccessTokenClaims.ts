/**
 * The claims of a JWT access token for the versioned API (docs/api-notes/credentials.md; RFC 9068
 * profile): header `typ: at+jwt` (so an ID token or any other JWT from the same keys is never taken
 * for one), `iss` the issuer, `aud` the API, `sub` the account id, `exp`/`iat` in seconds, `jti`
 * the token id, and `scope` space-separated. Pure functions; signing is `SigningKeys.sign`.
 */
import type { JwtClaims } from "./JwtTypes.js"

/** The JWT `typ` header of access tokens (RFC 9068 §2.1). */
export const ACCESS_TOKEN_TYP = "at+jwt"

/** The claims of one access token. Times are epoch milliseconds (truncated to seconds on the wire). */
export const accessTokenClaims = (t: {
  readonly issuer: string
  readonly audience: string
  readonly accountId: string
  readonly scopes: ReadonlyArray<string>
  readonly tokenId: string
  readonly issuedAt: number
  readonly expiresAt: number
  readonly clientId?: string
}): JwtClaims => ({
  iss: t.issuer,
  aud: t.audience,
  sub: t.accountId,
  iat: Math.floor(t.issuedAt / 1000),
  exp: Math.floor(t.expiresAt / 1000),
  jti: t.tokenId,
  scope: formatScope(t.scopes),
  ...(t.clientId === undefined ? {} : { client_id: t.clientId })
})

/** Scopes as the space-separated `scope` claim (duplicates dropped, order kept). */
export const formatScope = (scopes: ReadonlyArray<string>): string => [...new Set(scopes)].join(" ")

/**
 * The `scope` claim as a list: absent means no scopes; anything but a string of space-separated
 * scope tokens (RFC 6749 §3.3) is undefined — the token is malformed.
 */
export const parseScope = (claim: unknown): ReadonlyArray<string> | undefined => {
  if (claim === undefined) return []
  if (typeof claim !== "string") return undefined
  const scopes = claim.split(" ").filter((s) => s.length > 0)
  if (scopes.some((s) => !/^[\x21\x23-\x5b\x5d-\x7e]+$/.test(s))) return undefined
  return [...new Set(scopes)]
}
