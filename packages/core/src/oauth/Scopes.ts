/**
 * The OAuth scope catalog (docs/api-notes/oauth.md). Protocol scopes belong to OpenID
 * Connect and the refresh grant; business scopes grant access to resources and are what
 * `GET /v1/auth/oauth-scopes` lists (the public contract's `ListOauthScopesResponse`).
 */
import { Schema } from "effect"

/** OpenID Connect and refresh-token scopes: never listed as business permissions. */
export const protocolScopes = ["openid", "profile", "email", "offline_access"] as const

/** Business scopes, in the spec's order. */
export const businessScopes = [
  "projects:read",
  "projects:write",
  "members:read",
  "members:write",
  "webhooks:read",
  "webhooks:write",
  "billing:read",
  "billing:write",
  "spectrum:read",
  "spectrum:write",
  "payments:read",
  "payments:write"
] as const

export type ProtocolScope = (typeof protocolScopes)[number]
export type BusinessScope = (typeof businessScopes)[number]
export type OauthScope = ProtocolScope | BusinessScope

/** Every scope an OAuth app may request. */
export const oauthScopes: ReadonlyArray<OauthScope> = [...protocolScopes, ...businessScopes]

export const isOauthScope = (s: string): s is OauthScope => (oauthScopes as ReadonlyArray<string>).includes(s)

/** `GET /v1/auth/oauth-scopes`: the business scopes available to OAuth apps. */
export const ListOauthScopesResponse = Schema.Struct({
  scopes: Schema.Array(Schema.String)
}).annotate({ identifier: "ListOauthScopesResponse" })
export type ListOauthScopesResponse = typeof ListOauthScopesResponse.Type
