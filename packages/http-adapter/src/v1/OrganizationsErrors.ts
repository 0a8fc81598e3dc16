/**
 * The Organizations feature's rows of the /v1 error table: core error → problem (see Problems.ts).
 * - 404 RESOURCE_NOT_FOUND: an organization the caller does not belong to (its existence is not
 *   revealed), a member or invitation not in it, an unknown invitation token;
 * - 403 FORBIDDEN: the caller's role does not allow it, or the invitation is for another email;
 * - 409 FAILED_PRECONDITION (+ `reason`): the last owner leaving, an existing member, and an
 *   invitation already accepted, revoked or expired;
 * - 422 VALIDATION_FAILED (location `query`): a bad `pageSize` or `pageToken`.
 */
import type { InvitationState, OrganizationError } from "@switchboard/core/organizations"
import { type ErrorTable, problem, validationFailed } from "./ProblemFailure.js"

const invitationState: { readonly [S in InvitationState]: string } = {
  accepted: "This invitation has already been accepted.",
  revoked: "This invitation has been revoked.",
  expired: "This invitation has expired; ask for a new one."
}

export const organizationsErrors: ErrorTable<OrganizationError> = {
  // Required SSO (sso/SsoEnforcement.ts): the Link starts the organization's SSO sign-in in a browser.
  OrganizationSsoRequired: (e) =>
    problem("ORGANIZATION_SSO_REQUIRED", `Organization ${e.organizationId} requires signing in through its SSO.`, {
      headers: { link: `</api/auth/sso/start?organizationId=${encodeURIComponent(e.organizationId)}>; rel="sso-sign-in"` },
      extra: { organizationId: e.organizationId }
    }),
  OrganizationNotFound: (e) =>
    problem("RESOURCE_NOT_FOUND", `No organization ${e.organizationId} among the caller's organizations.`),
  OrganizationMemberNotFound: (e) =>
    problem("RESOURCE_NOT_FOUND", `Account ${e.accountId} is not a member of organization ${e.organizationId}.`),
  OrganizationActionForbidden: (e) => problem("FORBIDDEN", e.message),
  LastOwnerCannotLeave: () =>
    problem(
      "FAILED_PRECONDITION",
      "The last owner of an organization can neither leave, be removed nor take another role; make another member an owner first.",
      { extra: { reason: "last_owner" } }
    ),
  MemberAlreadyExists: (e) =>
    problem("FAILED_PRECONDITION", `Account ${e.accountId} is already a member of organization ${e.organizationId}.`, {
      extra: { reason: "already_member" }
    }),
  InvitationNotFound: (e) =>
    problem("RESOURCE_NOT_FOUND", e.invitationId === undefined ? "No such invitation." : `No invitation ${e.invitationId} in this organization.`),
  InvitationNotPending: (e) =>
    problem("FAILED_PRECONDITION", invitationState[e.state], {
      extra: { reason: `invitation_${e.state}` }
    }),
  InvitationEmailMismatch: () =>
    problem("FORBIDDEN", "This invitation was sent to another email address than this account's."),
  OrganizationPageRequestInvalid: (e) =>
    validationFailed(
      [{ code: "invalid_value", location: "query", message: e.message, path: `/${e.field}` }],
      `${e.field} ${e.message}`
    )
}
