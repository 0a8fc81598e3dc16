import { DateTime } from "effect"
/**
 * OAuth apps (clients) and grants as data, and the pure rules of their settings
 * (docs/api-notes/oauth.md): a name, logo and homepage shown on the consent screen, an exact
 * allowlist of redirect URIs, the client type (`confidential` has a secret, `public` relies on PKCE
 * alone) and the maximum scope set.
 */
import type { AccountId } from "../shared/Identifiers.js"
import { type OauthScope, oauthScopes } from "./Scopes.js"

export type OAuthClientType = "confidential" | "public"

export interface OAuthApp {
  /** `sb_app_…`; the OAuth `client_id`. */
  readonly clientId: string
  readonly ownerAccountId: AccountId
  readonly name: string
  readonly logoUri: string | null
  readonly homepageUri: string | null
  /** Compared character for character with `redirect_uri` (no normalisation). */
  readonly redirectUris: ReadonlyArray<string>
  readonly clientType: OAuthClientType
  /** The most an authorization request of this app may ask for. */
  readonly scopes: ReadonlyArray<string>
  readonly createdAt: DateTime.Utc
  readonly updatedAt: DateTime.Utc
}

/** One account's consent to one app: the scopes granted so far. Every code and token carries its id. */
export interface OAuthGrant {
  /** `sb_grt_…`. */
  readonly grantId: string
  readonly accountId: AccountId
  readonly clientId: string
  readonly scopes: ReadonlyArray<string>
  readonly createdAt: DateTime.Utc
  readonly updatedAt: DateTime.Utc
  readonly revokedAt: DateTime.Utc | null
}

/** Bounds of app settings. */
export const APP_NAME_MAX = 128
export const URI_MAX = 2048
export const REDIRECT_URIS_MAX = 10

/** A setting that is not acceptable: which field, and why. */
export interface SettingIssue {
  readonly field: string
  readonly message: string
}

const loopbackHosts = new Set(["localhost", "127.0.0.1", "[::1]"])

const parseUrl = (value: string): URL | undefined => {
  try {
    return new URL(value)
  } catch {
    return undefined
  }
}

const hasControlOrSpace = (value: string) => /[\u0000-\u0020\u007f]/.test(value)

/**
 * A logo or homepage: an absolute `https` URL (plain `http` only on a loopback host, for local
 * development), without credentials, at most 2048 characters.
 */
export const webUriIssue = (field: string, value: string): SettingIssue | undefined => {
  if (value.length === 0 || value.length > URI_MAX) return { field, message: `must be 1 to ${URI_MAX} characters` }
  if (hasControlOrSpace(value)) return { field, message: "must not contain spaces or control characters" }
  const url = parseUrl(value)
  if (url === undefined) return { field, message: "must be an absolute URL" }
  if (url.protocol !== "https:" && !(url.protocol === "http:" && loopbackHosts.has(url.hostname))) {
    return { field, message: "must be an https URL (http only on localhost)" }
  }
  if (url.username !== "" || url.password !== "") return { field, message: "must not contain credentials" }
  return undefined
}

/**
 * A redirect URI (RFC 6749 §3.1.2, RFC 8252, RFC 9700 §4.1): absolute, no fragment, no
 * credentials; `https`, `http` on a loopback host, or a private-use scheme with a dot in it
 * (`com.example.app:/callback`, RFC 8252 §7.1). Compared exactly, so stored exactly as given.
 */
export const redirectUriIssue = (field: string, value: string): SettingIssue | undefined => {
  if (value.length === 0 || value.length > URI_MAX) return { field, message: `must be 1 to ${URI_MAX} characters` }
  if (hasControlOrSpace(value)) return { field, message: "must not contain spaces or control characters" }
  const url = parseUrl(value)
  if (url === undefined) return { field, message: "must be an absolute URL" }
  if (value.includes("#")) return { field, message: "must not contain a fragment" }
  if (url.username !== "" || url.password !== "") return { field, message: "must not contain credentials" }
  const scheme = url.protocol.slice(0, -1)
  if (scheme === "https") return undefined
  if (scheme === "http") return loopbackHosts.has(url.hostname) ? undefined : { field, message: "may use http only on localhost" }
  if (/^[a-z][a-z0-9+-]*(\.[a-z0-9+-]+)+$/.test(scheme)) return undefined
  return { field, message: "must use https, http on localhost, or a private-use scheme such as com.example.app" }
}

/** The redirect URI allowlist: 1 to 10 distinct URIs, each valid. */
export const redirectUrisIssue = (uris: ReadonlyArray<string>): SettingIssue | undefined => {
  if (uris.length === 0 || uris.length > REDIRECT_URIS_MAX) {
    return { field: "redirectUris", message: `must list 1 to ${REDIRECT_URIS_MAX} URIs` }
  }
  if (new Set(uris).size !== uris.length) return { field: "redirectUris", message: "must not repeat a URI" }
  for (const [i, uri] of uris.entries()) {
    const issue = redirectUriIssue(`redirectUris/${i}`, uri)
    if (issue !== undefined) return issue
  }
  return undefined
}

/** The maximum scope set: 1 or more scopes of the catalog, none repeated. */
export const scopesIssue = (scopes: ReadonlyArray<string>): SettingIssue | undefined => {
  if (scopes.length === 0) return { field: "scopes", message: "must name at least one scope" }
  if (new Set(scopes).size !== scopes.length) return { field: "scopes", message: "must not repeat a scope" }
  const unknown = scopes.find((s) => !(oauthScopes as ReadonlyArray<string>).includes(s))
  if (unknown !== undefined) return { field: "scopes", message: `has an unknown scope ${JSON.stringify(unknown.slice(0, 64))}` }
  return undefined
}

/** The app name: 1 to 128 characters, not blank, no control characters. */
export const nameIssue = (name: string): SettingIssue | undefined => {
  if (name.trim().length === 0 || name.length > APP_NAME_MAX) return { field: "name", message: `must be 1 to ${APP_NAME_MAX} characters, not blank` }
  if (/[\u0000-\u001f\u007f]/.test(name)) return { field: "name", message: "must not contain control characters" }
  return undefined
}

/** Scopes in catalog order (so stored and displayed lists are stable), duplicates dropped. */
export const catalogOrder = (scopes: Iterable<string>): ReadonlyArray<string> => {
  const set = new Set(scopes)
  const known = (oauthScopes as ReadonlyArray<string>).filter((s) => set.has(s))
  const unknown = [...set].filter((s) => !(oauthScopes as ReadonlyArray<string>).includes(s)).sort()
  return [...known, ...unknown]
}

/** Whether `granted` covers every scope of `requested`. */
export const covers = (granted: ReadonlyArray<string>, requested: ReadonlyArray<string>): boolean => {
  const set = new Set(granted)
  return requested.every((s) => set.has(s))
}

/** What each scope lets an app do, for the consent screen (docs/api-notes/oauth.md). */
export const scopeDescriptions: Record<OauthScope, string> = {
  openid: "Know who you are",
  profile: "See your name and profile picture",
  email: "See your email address",
  offline_access: "Stay signed in (keep access when you are away)",
  "projects:read": "View your projects",
  "projects:write": "Create, edit and delete projects",
  "members:read": "See collaborators",
  "members:write": "Invite and remove collaborators",
  "webhooks:read": "View project webhooks",
  "webhooks:write": "Create and delete project webhooks",
  "billing:read": "View subscription and billing",
  "billing:write": "Manage the subscription and start checkout",
  "spectrum:read": "View platform configuration",
  "spectrum:write": "Edit platform configuration",
  "payments:read": "View payment provider setup",
  "payments:write": "Enable and manage payment providers"
}
