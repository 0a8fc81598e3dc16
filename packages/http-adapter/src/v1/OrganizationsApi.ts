/**
 * The Organizations feature's /v1 routes (API.md §1.3): the group, the problem codes of each
 * operation, the *Idem* ones. All need an account credential (project API keys are refused); OAuth
 * access tokens need `members:read` for reads and `members:write` for writes.
 */
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import {
  CreateInvitationRequest,
  CreateInvitationResponse,
  CreateOrganizationRequest,
  InvitationId,
  ListInvitationsResponse,
  ListMembersResponse,
  ListOrganizationsResponse,
  Membership,
  Organization,
  RevokeInvitationResponse
} from "@switchboard/core/organizations"
import { AccountId, InvitationToken, OrganizationId } from "@switchboard/core/shared"
import { type ProblemCode } from "../http/ProblemCatalog.js"
import { Schema } from "effect"
import { Authn } from "./Authn.js"
import { commonProblems as common, idempotencyProblems as idempotency } from "./CommonProblems.js"

/**
 * A query parameter declared for the OpenAPI document only. Decoding here accepts anything (a
 * repeated parameter arrives as an array): the handlers decode the query strictly themselves, so
 * that every bad value — repeats included — is a 422 with location `query`, not `param`.
 */
const queryParam = (jsonSchema: Record<string, unknown>) =>
  Schema.optional(Schema.Union(Schema.String, Schema.Array(Schema.String)).annotations({ jsonSchema }))

const PageParams = Schema.Struct({
  pageSize: queryParam({ type: "integer", minimum: 1, maximum: 100, default: 20, description: "Items per page." }),
  pageToken: queryParam({ type: "string", description: "The nextPageToken of the previous page." })
})

const OrganizationPath = Schema.Struct({ organizationId: OrganizationId })

export const OrganizationsGroup = HttpApiGroup.make("organizations")
  .add(
    HttpApiEndpoint.post("createOrganization", "/v1/organizations")
      .annotateContext(OpenApi.annotations({ summary: "Create an organization", description: "Creates an organization with the caller as its owner." }))
      .setPayload(CreateOrganizationRequest)
      .addSuccess(Organization, { status: 201 })
  )
  .add(
    HttpApiEndpoint.get("listOrganizations", "/v1/organizations")
      .annotateContext(OpenApi.annotations({ summary: "List organizations", description: "The organizations the caller is a member of, with the caller's role." }))
      .setUrlParams(PageParams)
      .addSuccess(ListOrganizationsResponse)
  )
  .add(
    HttpApiEndpoint.get("listMembers", "/v1/organizations/:organizationId/members")
      .annotateContext(OpenApi.annotations({ summary: "List members", description: "The members of the organization and their roles." }))
      .setPath(OrganizationPath)
      .setUrlParams(PageParams)
      .addSuccess(ListMembersResponse)
  )
  .add(
    HttpApiEndpoint.del("removeMember", "/v1/organizations/:organizationId/members/:accountId")
      .annotateContext(OpenApi.annotations({ summary: "Remove a member", description: "Removes a member from the organization. The last owner cannot be removed." }))
      .setPath(Schema.Struct({ organizationId: OrganizationId, accountId: AccountId }))
      .addSuccess(HttpApiSchema.NoContent)
  )
  .add(
    HttpApiEndpoint.post("createInvitation", "/v1/organizations/:organizationId/invitations")
      .annotateContext(OpenApi.annotations({ summary: "Invite a member", description: "Invites an email address with a role. The invitation token, sent to the invitee, is shown once." }))
      .setPath(OrganizationPath)
      .setPayload(CreateInvitationRequest)
      .addSuccess(CreateInvitationResponse, { status: 201 })
  )
  .add(
    HttpApiEndpoint.get("listInvitations", "/v1/organizations/:organizationId/invitations")
      .annotateContext(OpenApi.annotations({ summary: "List invitations", description: "The organization's pending invitations." }))
      .setPath(OrganizationPath)
      .setUrlParams(PageParams)
      .addSuccess(ListInvitationsResponse)
  )
  .add(
    HttpApiEndpoint.del("revokeInvitation", "/v1/organizations/:organizationId/invitations/:invitationId")
      .annotateContext(OpenApi.annotations({ summary: "Revoke an invitation", description: "Revokes a pending invitation; its token stops working." }))
      .setPath(Schema.Struct({ organizationId: OrganizationId, invitationId: InvitationId }))
      .addSuccess(RevokeInvitationResponse)
  )
  .add(
    HttpApiEndpoint.post("acceptInvitation", "/v1/invitations/:token/accept")
      .annotateContext(OpenApi.annotations({ summary: "Accept an invitation", description: "The signed-in account joins the organization with the invited role." }))
      .setPath(Schema.Struct({ token: InvitationToken }))
      .addSuccess(Membership)
  )
  .middleware(Authn)
  .annotateContext(OpenApi.annotations({
    title: "Organizations",
    description: "Organizations, their members and invitations. Non-members get 404 for an organization's routes."
  }))

/** What every route here can answer (account credential, OAuth scope, validation of path and query). */

/** operationId ("organizations.<name>") → the problem codes it can answer (for the OpenAPI document). */
export const organizationsProblems: Record<string, ReadonlyArray<ProblemCode>> = {
  "organizations.createOrganization": [...common, "PAYLOAD_TOO_LARGE"],
  "organizations.listOrganizations": common,
  "organizations.listMembers": [...common, "RESOURCE_NOT_FOUND"],
  "organizations.removeMember": [...common, "RESOURCE_NOT_FOUND", "FAILED_PRECONDITION"],
  "organizations.createInvitation": [...common, ...idempotency, "RESOURCE_NOT_FOUND", "FAILED_PRECONDITION", "PAYLOAD_TOO_LARGE"],
  "organizations.listInvitations": [...common, "RESOURCE_NOT_FOUND"],
  "organizations.revokeInvitation": [...common, "RESOURCE_NOT_FOUND", "FAILED_PRECONDITION"],
  "organizations.acceptInvitation": [...common, "ACCOUNT_NOT_FOUND", "RESOURCE_NOT_FOUND", "FAILED_PRECONDITION"]
}

/** operationIds that require an Idempotency-Key. */
export const organizationsIdempotent: ReadonlySet<string> = new Set(["organizations.createInvitation"])
