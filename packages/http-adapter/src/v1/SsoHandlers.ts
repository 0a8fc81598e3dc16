/**
 * The SSO feature's /v1 handlers (issue 17): the public sign-in starters and the organization's
 * SSO settings. Reads need `members:read`, changes `members:write` (OAuth tokens); core decides
 * the role (owners change, owners and admins read) and required SSO.
 */
import { HttpApiBuilder } from "effect/http-api"
import { Requirement } from "@switchboard/core/credentials"
import {
  BeginInvitationSsoRequest,
  ConfigureOrganizationSsoRequest,
  CreateOrganizationSsoPortalLinkRequest,
  CreateOrganizationSsoPortalLinkResponse,
  DisableOrganizationSsoRequest,
  OrganizationAuthenticationRedirect,
  OrganizationAuthenticationRequest,
  OrganizationConnectionStatus,
  OrganizationSso,
  OrganizationSsoConfiguration,
  SsoSignIn,
  StartEnterpriseLoginRequest,
  StartEnterpriseLoginResponse,
  statusOf,
  toConfiguration,
  UpdateOrganizationSsoPolicyRequest
} from "@switchboard/core/sso"
import { Effect, Option } from "effect"
import { actingAccount } from "./Access.js"
import { v1Group } from "./V1Group.js"
import { idempotent } from "./Idempotency.js"
import { decodeJsonBody, domain, rendered, toResponse } from "./Pipeline.js"
import { SsoGroup, SsoPublicGroup } from "./SsoApi.js"

const read = Requirement.Organizations({ scope: "members:read" })
const write = Requirement.Organizations({ scope: "members:write" })

export const SsoPublicGroupLive = HttpApiBuilder.group(v1Group(SsoPublicGroup), "ssoPublic", (handlers) =>
  Effect.gen(function*() {
    const signIn = yield* SsoSignIn
    return handlers
      .handleRaw("startEnterpriseLogin", () =>
        Effect.gen(function*() {
          const body = yield* decodeJsonBody(StartEnterpriseLoginRequest)
          const result = yield* domain(signIn.startEnterpriseLogin(body.value))
          return toResponse(yield* rendered(StartEnterpriseLoginResponse, result))
        }))
      .handleRaw("beginOrganizationAuthentication", ({ params: path }) =>
        Effect.gen(function*() {
          const body = yield* decodeJsonBody(OrganizationAuthenticationRequest)
          const result = yield* domain(signIn.begin({ organizationId: path.orgId, purpose: "sign_in", returnTo: body.value.returnTo }))
          return toResponse(yield* rendered(OrganizationAuthenticationRedirect, result))
        }))
      .handleRaw("beginInvitationSso", ({ params: path }) =>
        Effect.gen(function*() {
          const body = yield* decodeJsonBody(BeginInvitationSsoRequest)
          const result = yield* domain(signIn.begin({
            organizationId: path.orgId,
            purpose: "invitation",
            returnTo: body.value.returnTo,
            invitationToken: body.value.token
          }))
          return toResponse(yield* rendered(OrganizationAuthenticationRedirect, result))
        }))
  }))

export const SsoGroupLive = HttpApiBuilder.group(v1Group(SsoGroup), "sso", (handlers) =>
  Effect.gen(function*() {
    const settings = yield* OrganizationSso
    const signIn = yield* SsoSignIn
    const configuration = (c: typeof OrganizationSsoConfiguration.Type) => Effect.map(rendered(OrganizationSsoConfiguration, c), toResponse)
    return handlers
      .handleRaw("getOrganizationSsoConfiguration", ({ params: path }) =>
        Effect.gen(function*() {
          const accountId = yield* actingAccount(read)
          return yield* configuration(yield* domain(settings.get(path.orgId, accountId)))
        }))
      .handleRaw("configureOrganizationSso", ({ params: path }) =>
        Effect.gen(function*() {
          const accountId = yield* actingAccount(write)
          const body = yield* decodeJsonBody(ConfigureOrganizationSsoRequest)
          return yield* configuration(yield* domain(settings.configure(path.orgId, accountId, body.value)))
        }))
      .handleRaw("updateOrganizationSsoPolicy", ({ params: path }) =>
        Effect.gen(function*() {
          const accountId = yield* actingAccount(write)
          const body = yield* decodeJsonBody(UpdateOrganizationSsoPolicyRequest)
          return yield* configuration(yield* domain(settings.updatePolicy(path.orgId, accountId, body.value)))
        }))
      .handleRaw("refreshOrganizationSsoConnection", ({ params: path }) =>
        Effect.gen(function*() {
          const accountId = yield* actingAccount(write)
          const next = yield* domain(settings.refresh(path.orgId, accountId))
          return yield* configuration(toConfiguration(path.orgId, Option.some(next)))
        }))
      .handleRaw("disableOrganizationSso", ({ params: path }) =>
        Effect.gen(function*() {
          const accountId = yield* actingAccount(write)
          const body = yield* decodeJsonBody(DisableOrganizationSsoRequest)
          return yield* idempotent(
            { route: "/v1/auth/organizations/:orgId/sso/disable", path: { orgId: path.orgId }, body: body.json },
            Effect.flatMap(domain(settings.disable(path.orgId, accountId, body.value.expectedVersion)), (c) =>
              rendered(OrganizationSsoConfiguration, c))
          )
        }))
      .handleRaw("createOrganizationSsoPortalLink", ({ params: path }) =>
        Effect.gen(function*() {
          const accountId = yield* actingAccount(write)
          const body = yield* decodeJsonBody(CreateOrganizationSsoPortalLinkRequest)
          const link = yield* domain(settings.portalLink(path.orgId, accountId, body.value))
          return toResponse(yield* rendered(CreateOrganizationSsoPortalLinkResponse, link))
        }))
      .handleRaw("beginOrganizationSsoAdmission", ({ params: path }) =>
        Effect.gen(function*() {
          const accountId = yield* actingAccount(read)
          const body = yield* decodeJsonBody(OrganizationAuthenticationRequest)
          const result = yield* domain(signIn.begin({ organizationId: path.orgId, purpose: "admission", returnTo: body.value.returnTo, accountId }))
          return toResponse(yield* rendered(OrganizationAuthenticationRedirect, result))
        }))
      .handleRaw("beginOrganizationClosureAuthentication", ({ params: path }) =>
        Effect.gen(function*() {
          const accountId = yield* actingAccount(read)
          const body = yield* decodeJsonBody(OrganizationAuthenticationRequest)
          const result = yield* domain(signIn.begin({ organizationId: path.orgId, purpose: "closure", returnTo: body.value.returnTo, accountId }))
          return toResponse(yield* rendered(OrganizationAuthenticationRedirect, result))
        }))
      .handleRaw("getOrganizationConnectionStatus", ({ params: path }) =>
        Effect.gen(function*() {
          const accountId = yield* actingAccount(read)
          const status = yield* domain(settings.connectionStatus(path.orgId, accountId))
          return toResponse(yield* rendered(OrganizationConnectionStatus, status))
        }))
      .handleRaw("retryOrganizationConnectionSync", ({ params: path }) =>
        Effect.gen(function*() {
          const accountId = yield* actingAccount(write)
          const next = yield* domain(settings.refresh(path.orgId, accountId, "connection"))
          return toResponse(yield* rendered(OrganizationConnectionStatus, statusOf(next)))
        }))
  }))
