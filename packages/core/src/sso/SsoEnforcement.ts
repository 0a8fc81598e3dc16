/**
 * Required SSO (docs/sso.md): when an organization requires SSO, its members reach its resources
 * only through a sign-in made by that organization's SSO. The HTTP adapter says, per request, how
 * the caller authenticated (`CurrentAuthentication`, a context reference: a Dashboard session
 * opened by an organization's SSO carries that organization; service keys and access tokens carry
 * none); `Organizations.roleIn` asks `ssoAdmits` after it found the caller's role.
 *
 * Break-glass: owners are always admitted (with a password session or a service key), so an
 * organization whose identity provider is down or misconfigured can still be repaired or have its
 * requirement lifted. Work done by the server itself (no request) sets no authentication and is
 * never refused.
 */
import { Setting } from "../internal/Settings.js"
import type { OrganizationId } from "../shared/Identifiers.js"
import type { OrganizationRole } from "../organizations/OrganizationsPorts.js"

export interface AuthenticationFacts {
  /** How the caller proved who it is. */
  readonly method: "session" | "service_key" | "access_token"
  /** The organizations whose SSO opened the caller's session, when known. */
  readonly ssoOrganizations: ReadonlyArray<OrganizationId>
  /** The caller's Dashboard session (a cookie, or a session token's `sid`): its SSO sign-ins are looked up only when needed. */
  readonly sessionId?: string
}

/**
 * How the current request's caller authenticated; undefined outside requests. The HTTP adapter
 * provides it around the handler (`Effect.provideService(CurrentAuthentication, facts)`).
 */
export class CurrentAuthentication extends Setting<CurrentAuthentication>()("core/CurrentAuthentication", {
  defaultValue: (): AuthenticationFacts | undefined => undefined
}) {}

/** Whether a member with `role` may reach an organization that does (or does not) enforce SSO. */
export const ssoAdmits = (args: {
  readonly organizationId: OrganizationId
  readonly role: OrganizationRole
  readonly enforced: boolean
  readonly authentication: AuthenticationFacts | undefined
}): boolean =>
  !args.enforced ||
  args.authentication === undefined ||
  args.role === "owner" ||
  args.authentication.ssoOrganizations.includes(args.organizationId)
