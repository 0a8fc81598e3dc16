/**
 * The SSO feature's /v1 handlers (docs/sso.md): the public sign-in starters and the organization's
 * SSO settings. Reads need `members:read`, changes `members:write` (OAuth tokens); core decides
 * the role (owners change, owners and admins read) and required SSO.
 */
import { HttpApiBuilder } from "effect/http-api"
import { Requirement } from "@switchboard/core/credentials"
import { OrganizationSso, SsoSignIn, statusOf, toConfiguration } from "@switchboard/core/sso"
import { Effect, Option } from "effect"
import { actingAccount } from "./Access.js"
import { v1Group } from "./V1Group.js"
import { domain } from "./Pipeline.js"
import { SsoGroup, SsoPublicGroup } from "./SsoApi.js"

const read = Requirement.Organizations({ scope: "members:read" })
const write = Requirement.Organizations({ scope: "members:write" })

export const SsoPublicGroupLive = HttpApiBuilder.group(v1Group(SsoPublicGroup), "ssoPublic", (handlers) =>
  Effect.gen(function*() {
    const signIn = yield* SsoSignIn
    return handlers
      .handle("startEnterpriseLogin", ({ payload }) => domain(signIn.startEnterpriseLogin(payload)))
      .handle("beginOrganizationAuthentication", ({ params: path, payload }) =>
        domain(signIn.begin({ organizationId: path.orgId, purpose: "sign_in", returnTo: payload.returnTo })))
      .handle("beginInvitationSso", ({ params: path, payload }) =>
        domain(signIn.begin({
          organizationId: path.orgId,
          purpose: "invitation",
          returnTo: payload.returnTo,
          invitationToken: payload.token
        })))
  }))

export const SsoGroupLive = HttpApiBuilder.group(v1Group(SsoGroup), "sso", (handlers) =>
  Effect.gen(function*() {
    const settings = yield* OrganizationSso
    const signIn = yield* SsoSignIn
    return handlers
      .handle("getOrganizationSsoConfiguration", ({ params: path }) =>
        Effect.gen(function*() {
          const accountId = yield* actingAccount(read)
          return yield* domain(settings.get(path.orgId, accountId))
        }))
      .handle("configureOrganizationSso", ({ params: path, payload }) =>
        Effect.gen(function*() {
          const accountId = yield* actingAccount(write)
          return yield* domain(settings.configure(path.orgId, accountId, payload))
        }))
      .handle("updateOrganizationSsoPolicy", ({ params: path, payload }) =>
        Effect.gen(function*() {
          const accountId = yield* actingAccount(write)
          return yield* domain(settings.updatePolicy(path.orgId, accountId, payload))
        }))
      .handle("refreshOrganizationSsoConnection", ({ params: path }) =>
        Effect.gen(function*() {
          const accountId = yield* actingAccount(write)
          const next = yield* domain(settings.refresh(path.orgId, accountId))
          return toConfiguration(path.orgId, Option.some(next))
        }))
      .handle("disableOrganizationSso", ({ params: path, payload }) =>
        Effect.gen(function*() {
          const accountId = yield* actingAccount(write)
          return yield* domain(settings.disable(path.orgId, accountId, payload.expectedVersion))
        }))
      .handle("createOrganizationSsoPortalLink", ({ params: path, payload }) =>
        Effect.gen(function*() {
          const accountId = yield* actingAccount(write)
          return yield* domain(settings.portalLink(path.orgId, accountId, payload))
        }))
      .handle("beginOrganizationSsoAdmission", ({ params: path, payload }) =>
        Effect.gen(function*() {
          const accountId = yield* actingAccount(read)
          return yield* domain(signIn.begin({ organizationId: path.orgId, purpose: "admission", returnTo: payload.returnTo, accountId }))
        }))
      .handle("beginOrganizationClosureAuthentication", ({ params: path, payload }) =>
        Effect.gen(function*() {
          const accountId = yield* actingAccount(read)
          return yield* domain(signIn.begin({ organizationId: path.orgId, purpose: "closure", returnTo: payload.returnTo, accountId }))
        }))
      .handle("getOrganizationConnectionStatus", ({ params: path }) =>
        Effect.gen(function*() {
          const accountId = yield* actingAccount(read)
          return yield* domain(settings.connectionStatus(path.orgId, accountId))
        }))
      .handle("retryOrganizationConnectionSync", ({ params: path }) =>
        Effect.gen(function*() {
          const accountId = yield* actingAccount(write)
          return statusOf(yield* domain(settings.refresh(path.orgId, accountId, "connection")))
        }))
  }))
