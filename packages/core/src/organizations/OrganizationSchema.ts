/**
 * Organizations, members and invitations on the wire (docs/api-notes/accounts-and-projects.md).
 * Responses are encoded by these schemas; requests are decoded by them (unknown members refused).
 */
import { Schema } from "effect"
import { BoundedString, Email } from "../shared/Bounds.js"
import { AccountId, IdKinds, InvitationToken, OrganizationId, TypeId } from "../shared/Identifiers.js"
import { NullableTimestamp, Timestamp } from "../shared/Timestamp.js"
import { OrganizationRole } from "./OrganizationsPorts.js"
import { noExcessKeys } from "../internal/ExcessKeys.js"

/** Invitation ids: `sb_inv_` + 26 (docs/architecture.md#d4-identifiers). */
export const InvitationId = TypeId(IdKinds.invitation, "InvitationId").annotate({ identifier: "InvitationId" })
export type InvitationId = typeof InvitationId.Type

/** Organization names: 1..256 characters. */
export const OrganizationName = BoundedString(1, 256).annotate({ identifier: "OrganizationName" })

export const Organization = Schema.Struct({
  organizationId: OrganizationId,
  name: Schema.String,
  createdAt: Timestamp,
  updatedAt: Timestamp
}).annotate({ identifier: "Organization" }).pipe(noExcessKeys)
export type Organization = typeof Organization.Type

export const CreateOrganizationRequest = Schema.Struct({
  name: OrganizationName
}).annotate({ identifier: "CreateOrganizationRequest" }).pipe(noExcessKeys)

export const ListOrganizationsResponse = Schema.Struct({
  organizations: Schema.Array(Organization),
  nextPageToken: Schema.optionalKey(Schema.String)
}).annotate({ identifier: "ListOrganizationsResponse" })

/** One member of an organization, as listed. */
export const OrganizationMember = Schema.Struct({
  accountId: AccountId,
  email: Schema.String,
  role: OrganizationRole,
  joinedAt: Timestamp
}).annotate({ identifier: "OrganizationMember" }).pipe(noExcessKeys)
export type OrganizationMember = typeof OrganizationMember.Type

export const ListMembersResponse = Schema.Struct({
  members: Schema.Array(OrganizationMember),
  nextPageToken: Schema.optionalKey(Schema.String)
}).annotate({ identifier: "ListMembersResponse" })

/** A membership: the member and the organization (the result of accepting an invitation). */
export const Membership = Schema.Struct({
  organizationId: OrganizationId,
  accountId: AccountId,
  email: Schema.String,
  role: OrganizationRole,
  joinedAt: Timestamp
}).annotate({ identifier: "Membership" }).pipe(noExcessKeys)
export type Membership = typeof Membership.Type

export const Invitation = Schema.Struct({
  invitationId: InvitationId,
  organizationId: OrganizationId,
  email: Schema.String,
  role: OrganizationRole,
  createdAt: Timestamp,
  expiresAt: Timestamp,
  acceptedAt: NullableTimestamp,
  revokedAt: NullableTimestamp
}).annotate({ identifier: "Invitation" }).pipe(noExcessKeys)
export type Invitation = typeof Invitation.Type

export const CreateInvitationRequest = Schema.Struct({
  email: Email,
  role: OrganizationRole
}).annotate({ identifier: "CreateInvitationRequest" }).pipe(noExcessKeys)

/** The invitation and its token: shown once (only its SHA-256 is stored). */
export const CreateInvitationResponse = Schema.Struct({
  invitation: Invitation,
  token: InvitationToken
}).annotate({ identifier: "CreateInvitationResponse" })

export const RevokeInvitationResponse = Schema.Struct({
  invitation: Invitation
}).annotate({ identifier: "RevokeInvitationResponse" })

export const ListInvitationsResponse = Schema.Struct({
  invitations: Schema.Array(Invitation),
  nextPageToken: Schema.optionalKey(Schema.String)
}).annotate({ identifier: "ListInvitationsResponse" })
