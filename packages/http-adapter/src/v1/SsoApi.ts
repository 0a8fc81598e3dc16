/**
 * The SSO feature's /v1 routes (issue 17; reference contract §1 "auth" and §3.11): the public
 * sign-in starters (`startEnterpriseLogin`, `beginOrganizationAuthentication`, `beginInvitationSso`
 * — no credential, the Authorization header is ignored) and the organization's SSO settings and
 * the starters bound to a signed-in account (admission, closure inspection), which need an account
 * credential. `configureOrganizationSso` is ours (the contract configures through a hosted portal).
 */
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { OrganizationId, type ProblemCode } from "@switchboard/core/shared"
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
import { Authn } from "./Authn.js"
import { commonProblems as common, idempotencyProblems as idempotency } from "./CommonProblems.js"
import { ProblemFailure } from "./ProblemFailure.js"

const OrgPath = Schema.Struct({ orgId: OrganizationId })
const base = "/v1/auth/organizations/:orgId"

export const SsoPublicGroup = HttpApiGroup.make("ssoPublic")
  .add(
    HttpApiEndpoint.post("startEnterpriseLogin", "/v1/auth/login/enrollment")
      .setPayload(StartEnterpriseLoginRequest)
      .addSuccess(StartEnterpriseLoginResponse)
      .annotate(OpenApi.Summary, "A sign-in URL: the organization's SSO when it is ready, else the ordinary sign-in")
  )
  .add(
    HttpApiEndpoint.post("beginOrganizationAuthentication", `${base}/sso/authenticate`)
      .setPath(OrgPath)
      .setPayload(OrganizationAuthenticationRequest)
      .addSuccess(OrganizationAuthenticationRedirect)
      .annotate(OpenApi.Summary, "The identity provider's URL to sign in through the organization's SSO")
  )
  .add(
    HttpApiEndpoint.post("beginInvitationSso", `${base}/sso/invitation`)
      .setPath(OrgPath)
      .setPayload(BeginInvitationSsoRequest)
      .addSuccess(OrganizationAuthenticationRedirect)
      .annotate(OpenApi.Summary, "The identity provider's URL to accept an invitation through the organization's SSO")
  )
  .addError(ProblemFailure)
  .annotateContext(OpenApi.annotations({
    title: "Organization SSO sign-in",
    description: "Public: starting a sign-in through an organization's OpenID Connect provider. The URL alone grants nothing."
  }))

export const SsoGroup = HttpApiGroup.make("sso")
  .add(
    HttpApiEndpoint.get("getOrganizationSsoConfiguration", `${base}/sso`)
      .setPath(OrgPath)
      .addSuccess(OrganizationSsoConfiguration)
  )
  .add(
    HttpApiEndpoint.put("configureOrganizationSso", `${base}/sso`)
      .setPath(OrgPath)
      .setPayload(ConfigureOrganizationSsoRequest)
      .addSuccess(OrganizationSsoConfiguration)
      .annotate(OpenApi.Summary, "Sets the OpenID provider, the claimed domains and the policy (owners)")
  )
  .add(
    HttpApiEndpoint.patch("updateOrganizationSsoPolicy", `${base}/sso`)
      .setPath(OrgPath)
      .setPayload(UpdateOrganizationSsoPolicyRequest)
      .addSuccess(OrganizationSsoConfiguration)
  )
  .add(
    HttpApiEndpoint.post("refreshOrganizationSsoConnection", `${base}/sso/refresh`)
      .setPath(OrgPath)
      .addSuccess(OrganizationSsoConfiguration)
  )
  .add(
    HttpApiEndpoint.post("disableOrganizationSso", `${base}/sso/disable`)
      .setPath(OrgPath)
      .setPayload(DisableOrganizationSsoRequest)
      .addSuccess(OrganizationSsoConfiguration)
  )
  .add(
    HttpApiEndpoint.post("createOrganizationSsoPortalLink", `${base}/sso/portal`)
      .setPath(OrgPath)
      .setPayload(CreateOrganizationSsoPortalLinkRequest)
      .addSuccess(CreateOrganizationSsoPortalLinkResponse)
  )
  .add(
    HttpApiEndpoint.post("beginOrganizationSsoAdmission", `${base}/sso/admission`)
      .setPath(OrgPath)
      .setPayload(OrganizationAuthenticationRequest)
      .addSuccess(OrganizationAuthenticationRedirect)
  )
  .add(
    HttpApiEndpoint.post("beginOrganizationClosureAuthentication", `${base}/sso/closure-authenticate`)
      .setPath(OrgPath)
      .setPayload(OrganizationAuthenticationRequest)
      .addSuccess(OrganizationAuthenticationRedirect)
  )
  .add(
    HttpApiEndpoint.get("getOrganizationConnectionStatus", `${base}/connection-status`)
      .setPath(OrgPath)
      .addSuccess(OrganizationConnectionStatus)
  )
  .add(
    HttpApiEndpoint.post("retryOrganizationConnectionSync", `${base}/connection-sync/retry`)
      .setPath(OrgPath)
      .addSuccess(OrganizationConnectionStatus)
  )
  .middleware(Authn)
  .annotateContext(OpenApi.annotations({
    title: "Organization SSO",
    description: "An organization's OpenID Connect connection, claimed domains, JIT provisioning and required SSO."
  }))

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

/** operationId → problem codes (OpenAPI). */
export const ssoProblemsByOperation: Record<string, ReadonlyArray<ProblemCode>> = {
  "ssoPublic.startEnterpriseLogin": ["VALIDATION_FAILED", "INVALID_RETURN_TO", "RATE_LIMITED", "INTERNAL_ERROR"],
  "ssoPublic.beginOrganizationAuthentication": publicProblems,
  "ssoPublic.beginInvitationSso": publicProblems,
  "sso.getOrganizationSsoConfiguration": ssoProblems,
  "sso.configureOrganizationSso": ssoProblems,
  "sso.updateOrganizationSsoPolicy": ssoProblems,
  "sso.refreshOrganizationSsoConnection": ssoProblems,
  "sso.disableOrganizationSso": [...ssoProblems, ...idempotency],
  "sso.createOrganizationSsoPortalLink": ssoProblems,
  "sso.beginOrganizationSsoAdmission": ssoProblems,
  "sso.beginOrganizationClosureAuthentication": ssoProblems,
  "sso.getOrganizationConnectionStatus": [...ssoProblems, "ORGANIZATION_CONNECTION_NOT_FOUND"],
  "sso.retryOrganizationConnectionSync": [...ssoProblems, "ORGANIZATION_CONNECTION_NOT_FOUND"]
}

/** operationIds that need an Idempotency-Key (the contract's `disableOrganizationSso`). */
export const ssoIdempotent: ReadonlyArray<string> = ["sso.disableOrganizationSso"]
