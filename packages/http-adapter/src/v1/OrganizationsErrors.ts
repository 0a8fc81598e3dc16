/**
 * The Organizations feature's rows of the error table: core error tag → problem (see Problems.ts).
 * - 404 RESOURCE_NOT_FOUND: an organization the caller does not belong to (its existence is not
 *   revealed), a member or invitation not in it, an unknown invitation token;
 * - 403 FORBIDDEN: the caller's role does not allow it, or the invitation is for another email;
 * - 409 FAILED_PRECONDITION (+ `reason`): the last owner leaving, an existing member, and an
 *   invitation already accepted, revoked or expired;
 * - 422 VALIDATION_FAILED (location `query`): a bad `pageSize` or `pageToken`.
 */
import { problem, validationFailed } from "./ProblemFailure.js"
import type { ErrorTable } from "./Problems.js"

const s = (v: unknown) => String(v)

const invitationState: Record<string, string> = {
  accepted: "This invitation has already been accepted.",
  revoked: "This invitation has been revoked.",
  expired: "This invitation has expired; ask for a new one."
}

export const organizationsErrors: ErrorTable = {
  OrganizationNotFound: (e) =>
    problem("RESOURCE_NOT_FOUND", `No organization ${s(e.organizationId)} among the caller's organizations.`),
  OrganizationMemberNotFound: (e) =>
    problem("RESOURCE_NOT_FOUND", `Account ${s(e.accountId)} is not a member of organization ${s(e.organizationId)}.`),
  OrganizationActionForbidden: (e) => problem("FORBIDDEN", s(e.message)),
  LastOwnerCannotLeave: () =>
    problem(
      "FAILED_PRECONDITION",
      "The last owner of an organization can neither leave nor be removed; invite another owner first.",
      { extra: { reason: "last_owner" } }
    ),
  MemberAlreadyExists: (e) =>
    problem("FAILED_PRECONDITION", `Account ${s(e.accountId)} is already a member of organization ${s(e.organizationId)}.`, {
      extra: { reason: "already_member" }
    }),
  InvitationNotFound: (e) =>
    problem("RESOURCE_NOT_FOUND", e.invitationId === undefined ? "No such invitation." : `No invitation ${s(e.invitationId)} in this organization.`),
  InvitationNotPending: (e) =>
    problem("FAILED_PRECONDITION", invitationState[s(e.state)] ?? "This invitation can no longer be used.", {
      extra: { reason: `invitation_${s(e.state)}` }
    }),
  InvitationEmailMismatch: () =>
    problem("FORBIDDEN", "This invitation was sent to another email address than this account's."),
  OrganizationPageRequestInvalid: (e) =>
    validationFailed(
      [{ code: "invalid_value", location: "query", message: s(e.message), path: `/${s(e.field)}` }],
      `${s(e.field)} ${s(e.message)}`
    )
}
