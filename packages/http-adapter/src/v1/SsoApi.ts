/**
 * The SSO feature's /v1 routes (docs/sso.md): the public
 * sign-in starters (`startEnterpriseLogin`, `beginOrganizationAuthentication`, `beginInvitationSso`
 * — no credential, the Authorization header is ignored) and the organization's SSO settings and
 * the starters bound to a signed-in account (admission, closure inspection), which need an account
 * credential. `configureOrganizationSso` is ours (the contract configures through a hosted portal).
 */
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { OrganizationId } from "@switchboard/core/shared"
import { type ProblemCode } from "../http/ProblemCatalog.js"
import {
  BeginInvitationSsoRequest,
  ConfigureOrganizationSsoRequest,
  CreateOrganizationSsoPortalLinkRequest,
  CreateOrganizationSsoPortalLinkResponse,
  DisableOrganizationSsoRequest,
  OrganizationAuthenticationRedirect,
  OrganizationAuthenticationRequest,
  OrganizationConnectionStatus,
  OrganizationSsoConfiguration,
  StartEnterpriseLoginRequest,
  StartEnterpriseLoginResponse,
  UpdateOrganizationSsoPolicyRequest
} from "@switchboard/core/sso"
import { Schema } from "effect"
import { commonProblems as common, idempotencyProblems as idempotency } from "./CommonProblems.js"
import { accountAccess } from "./Access.js"
import { Requirement } from "@switchboard/core/credentials"
import { Idempotent, Requires, problems } from "./Declare.js"
import { JsonBody } from "./JsonBody.js"
import { authenticated } from "./V1Group.js"

const OrgPath = Schema.Struct({ orgId: OrganizationId })
const base = "/v1/auth/organizations/:orgId"

const ssoProblems: ReadonlyArray<ProblemCode> = [
  ...common,
  "RESOURCE_NOT_FOUND",
  "ORGANIZATION_SSO_REQUIRED",
  "ORGANIZATION_SSO_NOT_FOUND",
  "ORGANIZATION_SSO_CONFLICT",
  "ORGANIZATION_SSO_PRECONDITION_FAILED",
  "SSO_SUBSCRIPTION_REQUIRED",
  "INVALID_RETURN_TO",
  "INVALID_AUTH_CONTEXT"
]
const publicProblems: ReadonlyArray<ProblemCode> = [
  "VALIDATION_FAILED", "RATE_LIMITED", "INTERNAL_ERROR", "UPSTREAM_UNAVAILABLE", "UPSTREAM_TIMEOUT", "INVALID_RETURN_TO",
  "ORGANIZATION_SSO_NOT_FOUND", "ORGANIZATION_SSO_PRECONDITION_FAILED", "SSO_SUBSCRIPTION_REQUIRED"
]

export const SsoPublicGroup = HttpApiGroup.make("ssoPublic")
  .add(
    HttpApiEndpoint.post("startEnterpriseLogin", "/v1/auth/login/enrollment", {
      payload: StartEnterpriseLoginRequest,
      success: StartEnterpriseLoginResponse,
      error: problems("VALIDATION_FAILED", "INVALID_RETURN_TO", "RATE_LIMITED", "INTERNAL_ERROR")
    }).annotateMerge(OpenApi.annotations({
      summary: "Start an enterprise sign-in",
      description: "Public, no credential: finds the organization by id, invitation token or the email's verified domain and answers its identity provider's sign-in URL; without usable SSO there (not configured or ready, not in the plan, provider down) it answers the Dashboard's ordinary sign-in URL. A returnTo outside the allowed origins is 400 INVALID_RETURN_TO."
    }))
  )
  .add(
    HttpApiEndpoint.post("beginOrganizationAuthentication", `${base}/sso/authenticate`, {
      params: OrgPath,
      payload: OrganizationAuthenticationRequest,
      success: OrganizationAuthenticationRedirect,
      error: problems(publicProblems)
    }).annotateMerge(OpenApi.annotations({
      summary: "Begin an SSO sign-in",
      description: "Public, no credential: stores a pending sign-in (state, PKCE, nonce; 10 minutes) and answers the identity provider's authorization URL, which grants nothing by itself. 404 ORGANIZATION_SSO_NOT_FOUND without a connection, 412 when it is not ready or the plan lacks SSO (SSO_SUBSCRIPTION_REQUIRED), 503/504 when the provider cannot be reached."
    }))
  )
  .add(
    HttpApiEndpoint.post("beginInvitationSso", `${base}/sso/invitation`, {
      params: OrgPath,
      payload: BeginInvitationSsoRequest,
      success: OrganizationAuthenticationRedirect,
      error: problems(publicProblems)
    }).annotateMerge(OpenApi.annotations({
      summary: "Accept an invitation through SSO",
      description: "Public, no credential: like beginOrganizationAuthentication, for an invitation token; the callback accepts the invitation (same email) with its role. Same problems as a sign-in."
    }))
  )
  // No credential: only the body is read and checked before the platform decodes it.
  .middleware(JsonBody)
  .annotateMerge(OpenApi.annotations({
    title: "Organization SSO sign-in",
    description: "Public: starting a sign-in through an organization's OpenID Connect provider. The URL alone grants nothing."
  }))

export const SsoGroup = HttpApiGroup.make("sso")
  .add(
    HttpApiEndpoint.get("getOrganizationSsoConfiguration", `${base}/sso`, {
      params: OrgPath,
      success: OrganizationSsoConfiguration,
      error: problems(ssoProblems)
    }).annotate(Requires, accountAccess(Requirement.Organizations({ scope: "members:read" }))).annotateMerge(OpenApi.annotations({
      summary: "Get the SSO configuration",
      description: "The organization's OpenID Connect connection, claimed domains (with their TXT verification records) and policy, without the client secret. An organization without a connection answers an unconfigured state. Needs `members:read` and the owner or admin role."
    }))
  )
  .add(
    HttpApiEndpoint.put("configureOrganizationSso", `${base}/sso`, {
      params: OrgPath,
      payload: ConfigureOrganizationSsoRequest,
      success: OrganizationSsoConfiguration,
      error: problems(ssoProblems)
    }).annotate(Requires, accountAccess(Requirement.Organizations({ scope: "members:write" }))).annotateMerge(OpenApi.annotations({
      summary: "Configure SSO",
      description: "Sets the OpenID provider, the claimed domains, JIT provisioning and required SSO; saving probes the issuer's discovery document (connectionState ready or error). Owners only, with `members:write`; a change after the first needs expectedVersion (409 ORGANIZATION_SSO_CONFLICT when stale), and 412 SSO_SUBSCRIPTION_REQUIRED without an entitled plan."
    }))
  )
  .add(
    HttpApiEndpoint.patch("updateOrganizationSsoPolicy", `${base}/sso`, {
      params: OrgPath,
      payload: UpdateOrganizationSsoPolicyRequest,
      success: OrganizationSsoConfiguration,
      error: problems(ssoProblems)
    }).annotate(Requires, accountAccess(Requirement.Organizations({ scope: "members:write" }))).annotateMerge(OpenApi.annotations({
      summary: "Update the SSO policy",
      description: "Turns just-in-time provisioning of members on or off on an existing connection, at expectedVersion. Owners only, with `members:write`; 404 ORGANIZATION_SSO_NOT_FOUND without a connection, 409 ORGANIZATION_SSO_CONFLICT when the version is stale."
    }))
  )
  .add(
    HttpApiEndpoint.post("refreshOrganizationSsoConnection", `${base}/sso/refresh`, {
      params: OrgPath,
      success: OrganizationSsoConfiguration,
      error: problems(ssoProblems)
    }).annotate(Requires, accountAccess(Requirement.Organizations({ scope: "members:write" }))).annotateMerge(OpenApi.annotations({
      summary: "Refresh the SSO connection",
      description: "Re-probes the identity provider and re-checks the pending domains' TXT records, then answers the configuration. Owners only, with `members:write`; 404 ORGANIZATION_SSO_NOT_FOUND without a connection."
    }))
  )
  .add(
    HttpApiEndpoint.post("disableOrganizationSso", `${base}/sso/disable`, {
      params: OrgPath,
      payload: DisableOrganizationSsoRequest,
      success: OrganizationSsoConfiguration,
      error: problems(ssoProblems, idempotency)
    }).annotate(Requires, accountAccess(Requirement.Organizations({ scope: "members:write" }))).annotate(Idempotent, true).annotateMerge(OpenApi.annotations({
      summary: "Disable SSO",
      description: "Deletes the connection at expectedVersion and lifts required SSO. Owners only, with `members:write` and an Idempotency-Key; 409 ORGANIZATION_SSO_CONFLICT when the version is stale."
    }))
  )
  .add(
    HttpApiEndpoint.post("createOrganizationSsoPortalLink", `${base}/sso/portal`, {
      params: OrgPath,
      payload: CreateOrganizationSsoPortalLinkRequest,
      success: CreateOrganizationSsoPortalLinkResponse,
      error: problems(ssoProblems)
    }).annotate(Requires, accountAccess(Requirement.Organizations({ scope: "members:write" }))).annotateMerge(OpenApi.annotations({
      summary: "Create an SSO settings link",
      description: "Answers the console page for these SSO settings, `{DASHBOARD_URL}/console/organizations/{orgId}/sso?intent=…&returnTo=…` (intent `domain_verification` opens it at the domains), whose \"Back\" link returns to returnTo. Owners only, with `members:write`; a returnTo outside the allowed origins is 400 INVALID_RETURN_TO."
    }))
  )
  .add(
    HttpApiEndpoint.post("beginOrganizationSsoAdmission", `${base}/sso/admission`, {
      params: OrgPath,
      payload: OrganizationAuthenticationRequest,
      success: OrganizationAuthenticationRedirect,
      error: problems(ssoProblems)
    }).annotate(Requires, accountAccess(Requirement.Organizations({ scope: "members:read" }))).annotateMerge(OpenApi.annotations({
      summary: "Begin SSO admission",
      description: "For the signed-in account: answers the identity provider's URL; the callback makes this account a member when the provider signs in the same person (refused otherwise). Needs an account credential with `members:read`; the connection must be ready (412) on an entitled plan."
    }))
  )
  .add(
    HttpApiEndpoint.post("beginOrganizationClosureAuthentication", `${base}/sso/closure-authenticate`, {
      params: OrgPath,
      payload: OrganizationAuthenticationRequest,
      success: OrganizationAuthenticationRedirect,
      error: problems(ssoProblems)
    }).annotate(Requires, accountAccess(Requirement.Organizations({ scope: "members:read" }))).annotateMerge(OpenApi.annotations({
      summary: "Begin SSO closure authentication",
      description: "For an owner inspecting the organization's closure: answers the identity provider's URL; the callback admits only the owner who asked. Needs an account credential with `members:read`; the connection must be ready (412) on an entitled plan."
    }))
  )
  .add(
    HttpApiEndpoint.get("getOrganizationConnectionStatus", `${base}/connection-status`, {
      params: OrgPath,
      success: OrganizationConnectionStatus,
      error: problems(ssoProblems, "ORGANIZATION_CONNECTION_NOT_FOUND")
    }).annotate(Requires, accountAccess(Requirement.Organizations({ scope: "members:read" }))).annotateMerge(OpenApi.annotations({
      summary: "Get the connection status",
      description: "The state of the SSO connection and its policy sync (ready, error with lastError, manual_required). Needs `members:read` and the owner or admin role; 404 ORGANIZATION_CONNECTION_NOT_FOUND without a connection."
    }))
  )
  .add(
    HttpApiEndpoint.post("retryOrganizationConnectionSync", `${base}/connection-sync/retry`, {
      params: OrgPath,
      success: OrganizationConnectionStatus,
      error: problems(ssoProblems, "ORGANIZATION_CONNECTION_NOT_FOUND")
    }).annotate(Requires, accountAccess(Requirement.Organizations({ scope: "members:write" }))).annotateMerge(OpenApi.annotations({
      summary: "Retry the connection sync",
      description: "Re-probes the identity provider and the pending domains, then answers the connection status. Owners only, with `members:write`; 404 ORGANIZATION_CONNECTION_NOT_FOUND without a connection."
    }))
  )
  .pipe(authenticated)
  .annotateMerge(OpenApi.annotations({
    title: "Organization SSO",
    description: "An organization's OpenID Connect connection, claimed domains, JIT provisioning and required SSO."
  }))
