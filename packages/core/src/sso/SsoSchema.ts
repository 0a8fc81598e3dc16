/**
 * Organization SSO on the wire (reference contract §3.11): configuration, the `Begin…` requests and
 * their redirect, the connection status, enterprise login. `ConfigureOrganizationSsoRequest` is
 * ours (the contract configures connections through a hosted portal; we take the settings directly).
 */
import { Schema } from "effect"
import { BoundedString } from "../shared/Bounds.js"
import { InvitationToken, OrganizationId } from "../shared/Identifiers.js"
import { NullableTimestamp } from "../shared/Timestamp.js"

const strict = { onExcessProperty: "error" } as const

/** `returnTo`: an absolute URL of an allowed origin, or a path of the Dashboard. */
export const ReturnTo = BoundedString(1, 2048).annotations({ identifier: "ReturnTo" })

/** A decimal version string (`expectedVersion`). */
export const VersionString = Schema.String.pipe(
  Schema.pattern(/^(0|[1-9][0-9]{0,14})$/, { message: () => "must be a decimal version number" })
).annotations({ identifier: "VersionString" })

/** A DNS name claimed by a connection: lower-case labels, at most 253 characters. */
export const SsoDomain = Schema.String.pipe(
  Schema.minLength(1),
  Schema.maxLength(253),
  Schema.pattern(/^(?=.{1,253}$)([a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?\.)+[a-zA-Z][a-zA-Z0-9-]{0,61}[a-zA-Z0-9]$/, {
    message: () => "must be a domain name such as example.com"
  })
).annotations({ identifier: "SsoDomain" })

export const OrganizationSsoDomain = Schema.Struct({
  domain: Schema.String,
  state: Schema.Literal("verified", "pending", "failed"),
  /** Publish this value as a TXT record at `_switchboard-sso.<domain>`, then refresh. */
  verificationRecord: Schema.optionalWith(Schema.Struct({ name: Schema.String, value: Schema.String }), { exact: true })
}).annotations({ identifier: "OrganizationSsoDomain" })

export const OrganizationSsoConfiguration = Schema.Struct({
  organizationId: OrganizationId,
  connectionState: Schema.Literal("not_configured", "configuring", "ready", "error"),
  connectionGeneration: Schema.String,
  connectionChangedAt: NullableTimestamp,
  version: Schema.String,
  ssoEnforced: Schema.Boolean,
  desiredSsoEnforced: Schema.Boolean,
  ssoJitEnabled: Schema.Boolean,
  policySyncStatus: Schema.Literal("synced", "manual_required"),
  connectionType: Schema.optionalWith(Schema.Literal("oidc"), { exact: true }),
  domains: Schema.optionalWith(Schema.Array(OrganizationSsoDomain), { exact: true }),
  providerAvailable: Schema.optionalWith(Schema.Boolean, { exact: true }),
  issuer: Schema.optionalWith(Schema.String, { exact: true }),
  clientId: Schema.optionalWith(Schema.String, { exact: true }),
  lastError: Schema.optionalWith(Schema.NullOr(Schema.String), { exact: true })
}).annotations({ identifier: "OrganizationSsoConfiguration" })
export type OrganizationSsoConfiguration = typeof OrganizationSsoConfiguration.Type

/** Ours: the provider settings and the policy, in one write (`expectedVersion` absent for the first). */
export const ConfigureOrganizationSsoRequest = Schema.Struct({
  expectedVersion: Schema.optionalWith(VersionString, { exact: true }),
  issuer: BoundedString(1, 2048),
  clientId: BoundedString(1, 512),
  /** Kept as it is when omitted on a change of an existing connection. */
  clientSecret: Schema.optionalWith(BoundedString(1, 4096), { exact: true }),
  domains: Schema.Array(SsoDomain).pipe(Schema.maxItems(100)),
  ssoJitEnabled: Schema.optionalWith(Schema.Boolean, { exact: true }),
  requireSso: Schema.optionalWith(Schema.Boolean, { exact: true })
}).annotations({ identifier: "ConfigureOrganizationSsoRequest", parseOptions: strict })
export type ConfigureOrganizationSsoRequest = typeof ConfigureOrganizationSsoRequest.Type

export const UpdateOrganizationSsoPolicyRequest = Schema.Struct({
  expectedVersion: VersionString,
  ssoJitEnabled: Schema.Boolean
}).annotations({ identifier: "UpdateOrganizationSsoPolicyRequest", parseOptions: strict })

export const DisableOrganizationSsoRequest = Schema.Struct({
  expectedVersion: VersionString,
  domains: Schema.optionalWith(Schema.Array(BoundedString(1, 253)).pipe(Schema.maxItems(100)), { exact: true })
}).annotations({ identifier: "DisableOrganizationSsoRequest", parseOptions: strict })

export const OrganizationAuthenticationRequest = Schema.Struct({
  returnTo: ReturnTo
}).annotations({ identifier: "OrganizationAuthenticationRequest", parseOptions: strict })

export const BeginInvitationSsoRequest = Schema.Struct({
  token: InvitationToken,
  returnTo: ReturnTo
}).annotations({ identifier: "BeginInvitationSsoRequest", parseOptions: strict })

export const OrganizationAuthenticationRedirect = Schema.Struct({
  url: Schema.String
}).annotations({ identifier: "OrganizationAuthenticationRedirect" })

export const CreateOrganizationSsoPortalLinkRequest = Schema.Struct({
  returnTo: ReturnTo,
  intent: Schema.optionalWith(Schema.Literal("sso", "domain_verification"), { exact: true })
}).annotations({ identifier: "CreateOrganizationSsoPortalLinkRequest", parseOptions: strict })

export const CreateOrganizationSsoPortalLinkResponse = Schema.Struct({
  url: Schema.String
}).annotations({ identifier: "CreateOrganizationSsoPortalLinkResponse" })

const SyncStatus = Schema.Literal("pending", "syncing", "ready", "error", "blocked")

export const OrganizationConnectionStatus = Schema.Struct({
  organizationId: OrganizationId,
  organization: Schema.Struct({ status: SyncStatus, errorCode: Schema.NullOr(Schema.String) }),
  membership: Schema.Struct({ status: SyncStatus, errorCode: Schema.NullOr(Schema.String), retryAt: NullableTimestamp }),
  synchronized: Schema.Boolean
}).annotations({ identifier: "OrganizationConnectionStatus" })

export const StartEnterpriseLoginRequest = Schema.Union(
  Schema.Struct({
    organizationId: OrganizationId,
    returnTo: ReturnTo,
    invitationToken: Schema.optionalWith(InvitationToken, { exact: true })
  }).annotations({ parseOptions: strict }),
  Schema.Struct({ invitationToken: InvitationToken, returnTo: ReturnTo }).annotations({ parseOptions: strict }),
  /** Ours (the contract's third form needs a retry cookie): route by the email's domain. */
  Schema.Struct({ email: BoundedString(3, 254), returnTo: ReturnTo }).annotations({ parseOptions: strict })
).annotations({ identifier: "StartEnterpriseLoginRequest" })
export type StartEnterpriseLoginRequest = typeof StartEnterpriseLoginRequest.Type

export const StartEnterpriseLoginResponse = Schema.Struct({
  url: Schema.String
}).annotations({ identifier: "StartEnterpriseLoginResponse" })
