/**
 * The Organizations feature's domain errors (docs/api-notes/accounts-and-projects.md). No HTTP
 * here: the HTTP adapter maps them in `v1/OrganizationsErrors.ts`. (`MemberAlreadyExists` lives
 * with the port in OrganizationsPorts.ts.)
 */
import { Schema } from "effect"
import type { MemberAlreadyExists } from "./OrganizationsPorts.js"

/** The organization does not exist, or the caller is not a member (it is not visible to them). */
export class OrganizationNotFound extends Schema.TaggedError<OrganizationNotFound>()("OrganizationNotFound", {
  organizationId: Schema.String
}) {}

/** The account named in the path is not a member of the organization. */
export class OrganizationMemberNotFound extends Schema.TaggedError<OrganizationMemberNotFound>()(
  "OrganizationMemberNotFound",
  { organizationId: Schema.String, accountId: Schema.String }
) {}

/** The caller is a member, but their role does not allow this (e.g. an admin removing an owner). */
export class OrganizationActionForbidden extends Schema.TaggedError<OrganizationActionForbidden>()(
  "OrganizationActionForbidden",
  { message: Schema.String }
) {}

/** The last owner may neither leave, be removed nor take another role: an organization always has an owner. */
export class LastOwnerCannotLeave extends Schema.TaggedError<LastOwnerCannotLeave>()("LastOwnerCannotLeave", {
  organizationId: Schema.String,
  accountId: Schema.String
}) {}

/** No such invitation (an unknown token, or an invitation id not in that organization). */
export class InvitationNotFound extends Schema.TaggedError<InvitationNotFound>()("InvitationNotFound", {
  invitationId: Schema.optional(Schema.String)
}) {}

/** Why an invitation can no longer be used. */
export const InvitationState = Schema.Literals(["accepted", "revoked", "expired"])
export type InvitationState = typeof InvitationState.Type

/** The invitation exists but is accepted, revoked or expired. */
export class InvitationNotPending extends Schema.TaggedError<InvitationNotPending>()("InvitationNotPending", {
  invitationId: Schema.String,
  state: InvitationState
}) {}

/** Only the account whose email was invited (compared without regard to case) may accept. */
export class InvitationEmailMismatch extends Schema.TaggedError<InvitationEmailMismatch>()("InvitationEmailMismatch", {
  invitationId: Schema.String
}) {}

/** A list's `pageSize` or `pageToken` is not acceptable (a query-string problem). */
export class OrganizationPageRequestInvalid extends Schema.TaggedError<OrganizationPageRequestInvalid>()(
  "OrganizationPageRequestInvalid",
  { field: Schema.Literals(["pageSize", "pageToken"]), message: Schema.String }
) {}

/** The organization requires SSO and the caller did not sign in through it (sso/SsoEnforcement.ts). */
export class OrganizationSsoRequired extends Schema.TaggedError<OrganizationSsoRequired>()("OrganizationSsoRequired", {
  organizationId: Schema.String
}) {}

/** Every error of the Organizations feature (the adapters' tables are typed against it). */
export type OrganizationError =
  | OrganizationSsoRequired
  | OrganizationNotFound | OrganizationMemberNotFound | OrganizationActionForbidden | LastOwnerCannotLeave
  | MemberAlreadyExists | InvitationNotFound | InvitationNotPending | InvitationEmailMismatch
  | OrganizationPageRequestInvalid
