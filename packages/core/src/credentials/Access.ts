/**
 * Who may call what (docs/api-notes/credentials.md), decided in one pure function and
 * tested as a table. The HTTP adapter states each route's requirement; organization membership
 * and project visibility are checked by the services themselves (404s), not here.
 */
import { Data, Result } from "effect"
import type { AccountId, ApiKeyId, ProjectId, ServiceKeyId } from "../shared/Identifiers.js"

/** The permissions of project API keys (docs/api-notes/credentials.md). */
export type ProjectPermission =
  | "project:read" | "project:write" | "platforms:read" | "platforms:write" | "events:read" | "events:write"

/** Who is calling. */
export type Principal = Data.TaggedEnum<{
  /** An account service key: everything its account can reach. */
  Account: { readonly accountId: AccountId; readonly serviceKeyId: ServiceKeyId }
  /**
   * A JWT access token of an account, limited by its scopes. `session`: minted for a signed-in
   * Dashboard session (`GET /api/auth/token`), a first-party credential; `grant`: minted by the
   * OAuth token endpoint for a third-party app, which reaches only what its scopes grant.
   */
  AccessToken: {
    readonly accountId: AccountId
    readonly scopes: ReadonlyArray<string>
    readonly tokenId: string
    readonly origin: "session" | "grant"
    /** A session token's Dashboard session (its SSO sign-in counts for required SSO). */
    readonly sessionId?: string
  }
  /** A project API key: only its own project, only with its permissions. */
  ProjectKey: {
    readonly projectId: ProjectId
    readonly apiKeyId: ApiKeyId
    readonly permissions: ReadonlyArray<string>
  }
}>
export const Principal = Data.taggedEnum<Principal>()

/** The account acting, for account credentials. */
export const accountOf = (p: Principal): AccountId | undefined => (p._tag === "ProjectKey" ? undefined : p.accountId)

/** The idempotency and rate-limit scope of a principal: keys never collide across callers. */
export const principalScope = (p: Principal): string =>
  p._tag === "ProjectKey" ? `project-key:${p.apiKeyId}` : `account:${p.accountId}`

/** OAuth scope → project permission (docs/api-notes/credentials.md). */
export const scopeForPermission: Record<ProjectPermission, string> = {
  "project:read": "projects:read",
  "project:write": "projects:write",
  "platforms:read": "spectrum:read",
  "platforms:write": "spectrum:write",
  "events:read": "webhooks:read",
  "events:write": "webhooks:write"
}

/** What a route needs (one per route; the route table lives in the HTTP adapter). */
export type Requirement = Data.TaggedEnum<{
  /** `/v1/auth/*`: no credential needed; the Authorization header is ignored. */
  Public: {}
  /**
   * `/v1/account/*`: an account credential. `profile`: reading the caller's own profile, which an
   * OAuth token may do with `openid`, `profile` or `email`; otherwise (changing the account,
   * credentials, security factors, authorized apps, deletion) a first-party credential only.
   */
  Account: { readonly access?: "profile" }
  /** Organizations, members and invitations: an account credential; OAuth tokens need the scope. */
  Organizations: { readonly scope: "members:read" | "members:write" }
  /** The `/v1/organizations/{id}/projects` collection: an account credential with the projects scope. */
  ProjectsCollection: { readonly scope: "projects:read" | "projects:write" }
  /**
   * Under `/v1/projects/{projectId}`: the permission; `accountOnly` refuses project keys;
   * `mintsCredential` (project API keys, the management secret) refuses OAuth grant tokens too,
   * since a credential minted through a grant would outlive it.
   */
  Project: {
    readonly projectId: string
    readonly permission: ProjectPermission
    readonly accountOnly: boolean
    readonly mintsCredential?: boolean
  }
}>
export const Requirement = Data.taggedEnum<Requirement>()

/**
 * Why access is refused: no credential (`NOT_AUTHENTICATED`), a credential that may not do this
 * (`FORBIDDEN`), a project key of another project (`RESOURCE_MISMATCH`), or an access token that
 * lacks a scope (`INSUFFICIENT_SCOPE`). Each adapter decides how it answers each reason.
 */
export type AccessRefusal = "NOT_AUTHENTICATED" | "FORBIDDEN" | "RESOURCE_MISMATCH" | "INSUFFICIENT_SCOPE"

/**
 * A refusal as data: its reason, a detail for people and, for a scope refusal
 * (`INSUFFICIENT_SCOPE`, made only by `denyScope`), the scope that is missing — an adapter builds
 * its challenge (RFC 6750 `insufficient_scope`) from that field, never from the detail.
 */
export class AccessDenied extends Data.TaggedError("AccessDenied")<{
  readonly code: AccessRefusal
  readonly detail: string
  readonly scope?: string
}> {}

/** A refusal other than a missing scope (that one is `denyScope`, which names the scope). */
export const denyWith = (code: Exclude<AccessRefusal, "INSUFFICIENT_SCOPE">, detail: string) =>
  Result.fail(new AccessDenied({ code, detail }))

const deny = denyWith
const allow = Result.succeed<void>(undefined)

/** A scope refusal naming the missing scope. */
export const denyScope = (scope: string) =>
  Result.fail(new AccessDenied({ code: "INSUFFICIENT_SCOPE", detail: `The access token lacks the scope ${scope} (insufficient_scope: ${scope}).`, scope }))

const needScope = (scopes: ReadonlyArray<string>, scope: string) => (scopes.includes(scope) ? allow : denyScope(scope))

/** The scopes that let an OAuth token read its user's own profile (docs/api-notes/oauth.md). */
export const profileScopes: ReadonlyArray<string> = ["openid", "profile", "email"]

const FIRST_PARTY = "a first-party credential (an account service key or a Dashboard session's access token)"

/**
 * Decides whether `principal` (undefined: no credential) may use a route with `requirement`.
 * Credentials that fail verification never get here: they are 401 before.
 */
export const decide = (principal: Principal | undefined, requirement: Requirement): Result.Result<void, AccessDenied> => {
  if (requirement._tag === "Public") return allow
  if (principal === undefined) return deny("NOT_AUTHENTICATED", "Send Authorization: Bearer <credential>.")
  switch (principal._tag) {
    case "Account":
      return allow
    case "AccessToken": {
      if (principal.origin === "session") {
        return requirement._tag === "Account"
          ? allow
          : needScope(principal.scopes, requirement._tag === "Project" ? scopeForPermission[requirement.permission] : requirement.scope)
      }
      // A token of an OAuth grant reaches only what its scopes grant (docs/api-notes/oauth.md).
      switch (requirement._tag) {
        case "Account":
          if (requirement.access === "profile") {
            return profileScopes.some((s) => principal.scopes.includes(s)) ? allow : denyScope("profile")
          }
          return deny("FORBIDDEN", `No OAuth scope allows changing the account, its credentials or security factors: this needs ${FIRST_PARTY}.`)
        case "Project":
          if (requirement.mintsCredential === true) {
            return deny("FORBIDDEN", `A credential created through an OAuth grant would outlive it: this needs ${FIRST_PARTY}.`)
          }
          return needScope(principal.scopes, scopeForPermission[requirement.permission])
        default:
          return needScope(principal.scopes, requirement.scope)
      }
    }
    case "ProjectKey":
      if (requirement._tag !== "Project") {
        return deny("FORBIDDEN", "Project API keys reach only /v1/projects/{projectId} of their own project.")
      }
      if (requirement.projectId !== principal.projectId) {
        return deny("RESOURCE_MISMATCH", "This project API key belongs to another project.")
      }
      if (requirement.accountOnly) return deny("FORBIDDEN", "This operation needs an account credential, not a project API key.")
      return principal.permissions.includes(requirement.permission)
        ? allow
        : deny("FORBIDDEN", `The project API key lacks the permission ${requirement.permission}.`)
  }
}
