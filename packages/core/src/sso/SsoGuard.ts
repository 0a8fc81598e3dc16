/**
 * Required SSO at every door of an organization's resources (sso/SsoEnforcement.ts): the check
 * `Organizations.roleIn` (members, invitations, SSO settings) and `ProjectGate` (the organization's
 * projects and everything under them, on /v1 and the Dashboard) share. A member of an organization
 * that requires SSO is admitted only through a sign-in made by that organization's SSO — owners
 * excepted (break-glass), work without a request (no `CurrentAuthentication`) never refused.
 */
import { Effect, Option } from "effect"
import { OrganizationSsoRequired } from "../organizations/OrganizationErrors.js"
import type { OrganizationRole } from "../organizations/OrganizationsPorts.js"
import type { OrganizationId } from "../shared/Identifiers.js"
import { CurrentAuthentication, ssoAdmits } from "./SsoEnforcement.js"
import { SsoRepo } from "./SsoPorts.js"

export const makeSsoGuard = Effect.gen(function*() {
  // Optional: a store without SSO connections enforces nothing.
  const ssoRepo = yield* Effect.serviceOption(SsoRepo)

  /** Fails with `OrganizationSsoRequired` when a member with `role` may not reach the organization now. */
  const admit = (organizationId: OrganizationId, role: OrganizationRole): Effect.Effect<void, OrganizationSsoRequired> =>
    Effect.gen(function*() {
      if (role === "owner" || Option.isNone(ssoRepo)) return
      const authentication = yield* CurrentAuthentication
      if (authentication === undefined) return
      const connection = yield* ssoRepo.value.findConnection(organizationId)
      const enforced = Option.isSome(connection) && connection.value.enforced
      if (ssoAdmits({ organizationId, role, enforced, authentication })) return
      // The session's SSO sign-ins, asked only now (enforced, not an owner).
      const viaSession = authentication.sessionId === undefined ? [] : yield* ssoRepo.value.sessionOrganizations(authentication.sessionId)
      if (!viaSession.includes(organizationId)) return yield* new OrganizationSsoRequired({ organizationId })
    })

  return { admit } as const
})
