/**
 * Organization SSO on the wire: configuration, the `Begin…` requests and
 * their redirect, the connection status, enterprise login. `ConfigureOrganizationSsoRequest` is
 * ours (the contract configures connections through a hosted portal; we take the settings directly).
 */
import { Schema } from "effect"
import { BoundedString } from "../shared/Bounds.js"
import { InvitationToken, OrganizationId } from "../shared/Identifiers.js"
import { NullableTimestamp } from "../shared/Timestamp.js"
import { noExcessKeys } from "../internal/ExcessKeys.js"

/** `returnTo`: an absolute URL of an allowed origin, or a path of the Dashboard. */
export const ReturnTo = BoundedString(1, 2048).annotate({ identifier: "ReturnTo" })

/** A decimal version string (`expectedVersion`). */
export const VersionString = Schema.String.pipe(
  Schema.check(Schema.isPattern(/^(0|[1-9][0-9]{0,14})$/u, { message: "must be a decimal version number" }))
).annotate({ identifier: "VersionString" })

/** A DNS name claimed by a connection: lower-case labels, at most 253 characters. */
export const SsoDomain = Schema.String.pipe(
  Schema.check(Schema.isMinLength(1)),
  Schema.check(Schema.isMaxLength(253)),
  Schema.check(Schema.isPattern(/^(?=.{1,253}$)([a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?\.)+[a-zA-Z][a-zA-Z0-9-]{0,61}[a-zA-Z0-9]$/u, {
    message: "must be a domain name such as example.com"
  }))
).annotate({ identifier: "SsoDomain" })

export const OrganizationSsoDomain = Schema.Struct({
  domain: Schema.String,
  state: Schema.Literals(["verified", "pending", "failed"]),
  /** Publish this value as a TXT record at `_switchboard-sso.<domain>`, then refresh. */
  verificationRecord: Schema.optionalKey(Schema.Struct({ name: Schema.String, value: Schema.String }))
}).annotate({ identifier: "OrganizationSsoDomain" })

export const OrganizationSsoConfiguration = Schema.Struct({
  organizationId: OrganizationId,
  connectionState: Schema.Literals(["not_configured", "configuring", "ready", "error"]),
  connectionGeneration: Schema.String,
  connectionChangedAt: NullableTimestamp,
  version: Schema.String,
  ssoEnforced: Schema.Boolean,
  desiredSsoEnforced: Schema.Boolean,
  ssoJitEnabled: Schema.Boolean,
  policySyncStatus: Schema.Literals(["synced", "manual_required"]),
  connectionType: Schema.optionalKey(Schema.Literal("oidc")),
  domains: Schema.optionalKey(Schema.Array(OrganizationSsoDomain)),
  providerAvailable: Schema.optionalKey(Schema.Boolean),
  issuer: Schema.optionalKey(Schema.String),
  clientId: Schema.optionalKey(Schema.String),
  lastError: Schema.optionalKey(Schema.NullOr(Schema.String))
}).annotate({ identifier: "OrganizationSsoConfiguration" })
export type OrganizationSsoConfiguration = typeof OrganizationSsoConfiguration.Type

/** Ours: the provider settings and the policy, in one write (`expectedVersion` absent for the first). */
export const ConfigureOrganizationSsoRequest = Schema.Struct({
  expectedVersion: Schema.optionalKey(VersionString),
  issuer: BoundedString(1, 2048),
  clientId: BoundedString(1, 512),
  /** Kept as it is when omitted on a change of an existing connection. */
  clientSecret: Schema.optionalKey(BoundedString(1, 4096)),
  domains: Schema.Array(SsoDomain).pipe(Schema.check(Schema.isMaxLength(100))),
  ssoJitEnabled: Schema.optionalKey(Schema.Boolean),
  requireSso: Schema.optionalKey(Schema.Boolean)
}).annotate({ identifier: "ConfigureOrganizationSsoRequest" }).pipe(noExcessKeys)
export type ConfigureOrganizationSsoRequest = typeof ConfigureOrganizationSsoRequest.Type

export const UpdateOrganizationSsoPolicyRequest = Schema.Struct({
  expectedVersion: VersionString,
  ssoJitEnabled: Schema.Boolean
}).annotate({ identifier: "UpdateOrganizationSsoPolicyRequest" }).pipe(noExcessKeys)

export const DisableOrganizationSsoRequest = Schema.Struct({
  expectedVersion: VersionString,
  domains: Schema.optionalKey(Schema.Array(BoundedString(1, 253)).pipe(Schema.check(Schema.isMaxLength(100))))
}).annotate({ identifier: "DisableOrganizationSsoRequest" }).pipe(noExcessKeys)

export const OrganizationAuthenticationRequest = Schema.Struct({
  returnTo: ReturnTo
}).annotate({ identifier: "OrganizationAuthenticationRequest" }).pipe(noExcessKeys)

export const BeginInvitationSsoRequest = Schema.Struct({
  token: InvitationToken,
  returnTo: ReturnTo
}).annotate({ identifier: "BeginInvitationSsoRequest" }).pipe(noExcessKeys)

export const OrganizationAuthenticationRedirect = Schema.Struct({
  url: Schema.String
}).annotate({ identifier: "OrganizationAuthenticationRedirect" })

export const CreateOrganizationSsoPortalLinkRequest = Schema.Struct({
  returnTo: ReturnTo,
  intent: Schema.optionalKey(Schema.Literals(["sso", "domain_verification"]))
}).annotate({ identifier: "CreateOrganizationSsoPortalLinkRequest" }).pipe(noExcessKeys)

export const CreateOrganizationSsoPortalLinkResponse = Schema.Struct({
  url: Schema.String
}).annotate({ identifier: "CreateOrganizationSsoPortalLinkResponse" })

const SyncStatus = Schema.Literals(["pending", "syncing", "ready", "error", "blocked"])

export const OrganizationConnectionStatus = Schema.Struct({
  organizationId: OrganizationId,
  organization: Schema.Struct({ status: SyncStatus, errorCode: Schema.NullOr(Schema.String) }),
  membership: Schema.Struct({ status: SyncStatus, errorCode: Schema.NullOr(Schema.String), retryAt: NullableTimestamp }),
  synchronized: Schema.Boolean
}).annotate({ identifier: "OrganizationConnectionStatus" })

export const StartEnterpriseLoginRequest = Schema.Union([Schema.Struct({
  organizationId: OrganizationId,
  returnTo: ReturnTo,
  invitationToken: Schema.optionalKey(InvitationToken)
}).pipe(noExcessKeys), Schema.Struct({ invitationToken: InvitationToken, returnTo: ReturnTo }).pipe(noExcessKeys), /** Ours (the contract's third form needs a retry cookie): route by the email's domain. */
Schema.Struct({ email: BoundedString(3, 254), returnTo: ReturnTo }).pipe(noExcessKeys)]).annotate({ identifier: "StartEnterpriseLoginRequest" })
export type StartEnterpriseLoginRequest = typeof StartEnterpriseLoginRequest.Type

export const StartEnterpriseLoginResponse = Schema.Struct({
  url: Schema.String
}).annotate({ identifier: "StartEnterpriseLoginResponse" })
