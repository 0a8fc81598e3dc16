/**
 * Organizations, members and invitations on the wire (API.md §1.3). Responses are encoded by these
 * schemas; requests are decoded by them (unknown members refused).
 */
import { Schema } from "effect"
import { BoundedString, Email } from "../shared/Bounds.js"
import { AccountId, IdKinds, InvitationToken, OrganizationId, TypeId } from "../shared/Identifiers.js"
import { NullableTimestamp, Timestamp } from "../shared/Timestamp.js"
import { OrganizationRole } from "./OrganizationsPorts.js"

/** Invitation ids: `sb_inv_` + 26 (DESIGN.md D4). */
export const InvitationId = TypeId(IdKinds.invitation, "InvitationId").annotations({ identifier: "InvitationId" })
export type InvitationId = typeof InvitationId.Type

/** Organization names: 1..256 characters. */
export const OrganizationName = BoundedString(1, 256).annotations({ identifier: "OrganizationName" })

export const Organization = Schema.Struct({
  organizationId: OrganizationId,
  name: Schema.String,
  createdAt: Timestamp,
  updatedAt: Timestamp
}).annotations({ identifier: "Organization", parseOptions: { onExcessProperty: "error" } })
export type Organization = typeof Organization.Type

export const CreateOrganizationRequest = Schema.Struct({
  name: OrganizationName
}).annotations({ identifier: "CreateOrganizationRequest", parseOptions: { onExcessProperty: "error" } })

export const ListOrganizationsResponse = Schema.Struct({
  organizations: Schema.Array(Organization),
  nextPageToken: Schema.optionalWith(Schema.String, { exact: true })
}).annotations({ identifier: "ListOrganizationsResponse" })

/** One member of an organization, as listed. */
export const OrganizationMember = Schema.Struct({
  accountId: AccountId,
  email: Schema.String,
  role: OrganizationRole,
  joinedAt: Timestamp
}).annotations({ identifier: "OrganizationMember", parseOptions: { onExcessProperty: "error" } })
export type OrganizationMember = typeof OrganizationMember.Type

export const ListMembersResponse = Schema.Struct({
  members: Schema.Array(OrganizationMember),
  nextPageToken: Schema.optionalWith(Schema.String, { exact: true })
}).annotations({ identifier: "ListMembersResponse" })

/** A membership: the member and the organization (the result of accepting an invitation). */
export const Membership = Schema.Struct({
  organizationId: OrganizationId,
  accountId: AccountId,
  email: Schema.String,
  role: OrganizationRole,
  joinedAt: Timestamp
}).annotations({ identifier: "Membership", parseOptions: { onExcessProperty: "error" } })
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
}).annotations({ identifier: "Invitation", parseOptions: { onExcessProperty: "error" } })
export type Invitation = typeof Invitation.Type

export const CreateInvitationRequest = Schema.Struct({
  email: Email,
  role: OrganizationRole
}).annotations({ identifier: "CreateInvitationRequest", parseOptions: { onExcessProperty: "error" } })

/** The invitation and its token: shown once (only its SHA-256 is stored). */
export const CreateInvitationResponse = Schema.Struct({
  invitation: Invitation,
  token: InvitationToken
}).annotations({ identifier: "CreateInvitationResponse" })

export const RevokeInvitationResponse = Schema.Struct({
  invitation: Invitation
}).annotations({ identifier: "RevokeInvitationResponse" })

export const ListInvitationsResponse = Schema.Struct({
  invitations: Schema.Array(Invitation),
  nextPageToken: Schema.optionalWith(Schema.String, { exact: true })
}).annotations({ identifier: "ListInvitationsResponse" })
