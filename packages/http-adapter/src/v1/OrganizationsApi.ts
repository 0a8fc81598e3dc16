/**
 * The Organizations feature's /v1 routes (docs/api-notes/accounts-and-projects.md): the group, the
 * problem codes of each operation, the *Idem* ones. All need an account credential (project API
 * keys are refused); OAuth access tokens need `members:read` for reads and `members:write` for
 * writes.
 */
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
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
import { Schema } from "effect"
import { idempotencyProblems as idempotency, organizationProblems as common } from "./CommonProblems.js"
import { accountAccess } from "./Access.js"
import { Requirement } from "@switchboard/core/credentials"
import { Idempotent, Requires, problems } from "./Declare.js"
import { authenticated } from "./V1Group.js"

/**
 * Query parameters declared for the OpenAPI document only. Decoding here accepts anything (a
 * repeated parameter arrives as an array): the handlers decode the query strictly themselves, so
 * that every bad value — repeats included — is a 422 with location `query`, not `param`. The
 * document describes them as the handlers read them (`documentPage`).
 */
const queryParam = Schema.optional(Schema.Union([Schema.String, Schema.Array(Schema.String)]))

const PageParams = Schema.Struct({ pageSize: queryParam, pageToken: queryParam })

const pageDocs: Record<string, Record<string, unknown>> = {
  pageSize: { type: "integer", minimum: 1, maximum: 100, default: 20, description: "Items per page." },
  pageToken: { type: "string", description: "The nextPageToken of the previous page." }
}

/** The paging parameters of a list operation as the handlers read them. */
const documentPage = (operation: Record<string, any>) => ({
  ...operation,
  parameters: (operation.parameters ?? []).map((p: Record<string, any>) => {
    const schema = p.in === "query" ? pageDocs[p.name] : undefined
    return schema === undefined ? p : { ...p, description: schema.description, schema }
  })
})

const OrganizationPath = Schema.Struct({ organizationId: OrganizationId })

export const OrganizationsGroup = HttpApiGroup.make("organizations")
  .add(
    HttpApiEndpoint.post("createOrganization", "/v1/organizations", {
      payload: CreateOrganizationRequest,
      success: Organization.pipe(HttpApiSchema.status(201)),
      error: problems(common, "PAYLOAD_TOO_LARGE")
    }).annotate(Requires, accountAccess(Requirement.Organizations({ scope: "members:write" }))).annotateMerge(OpenApi.annotations({ summary: "Create an organization", description: "Creates an organization with the caller as its owner." }))
  )
  .add(
    HttpApiEndpoint.get("listOrganizations", "/v1/organizations", {
      query: PageParams,
      success: ListOrganizationsResponse,
      error: problems(common)
    }).annotate(Requires, accountAccess(Requirement.Organizations({ scope: "members:read" }))).annotateMerge(OpenApi.annotations({ summary: "List organizations", description: "The organizations the caller is a member of, with the caller's role." })).annotate(OpenApi.Transform, documentPage)
  )
  .add(
    HttpApiEndpoint.get("listMembers", "/v1/organizations/:organizationId/members", {
      params: OrganizationPath,
      query: PageParams,
      success: ListMembersResponse,
      error: problems(common, "RESOURCE_NOT_FOUND")
    }).annotate(Requires, accountAccess(Requirement.Organizations({ scope: "members:read" }))).annotateMerge(OpenApi.annotations({ summary: "List members", description: "The members of the organization and their roles." })).annotate(OpenApi.Transform, documentPage)
  )
  .add(
    HttpApiEndpoint.delete("removeMember", "/v1/organizations/:organizationId/members/:accountId", {
      params: Schema.Struct({ organizationId: OrganizationId, accountId: AccountId }),
      success: HttpApiSchema.NoContent,
      error: problems(common, "RESOURCE_NOT_FOUND", "FAILED_PRECONDITION")
    }).annotate(Requires, accountAccess(Requirement.Organizations({ scope: "members:write" }))).annotateMerge(OpenApi.annotations({ summary: "Remove a member", description: "Removes a member from the organization. The last owner cannot be removed." }))
  )
  .add(
    HttpApiEndpoint.post("createInvitation", "/v1/organizations/:organizationId/invitations", {
      params: OrganizationPath,
      payload: CreateInvitationRequest,
      success: CreateInvitationResponse.pipe(HttpApiSchema.status(201)),
      error: problems(common, idempotency, "RESOURCE_NOT_FOUND", "FAILED_PRECONDITION", "PAYLOAD_TOO_LARGE")
    }).annotate(Requires, accountAccess(Requirement.Organizations({ scope: "members:write" }))).annotate(Idempotent, true).annotateMerge(OpenApi.annotations({ summary: "Invite a member", description: "Invites an email address with a role. The invitation token, sent to the invitee, is shown once." }))
  )
  .add(
    HttpApiEndpoint.get("listInvitations", "/v1/organizations/:organizationId/invitations", {
      params: OrganizationPath,
      query: PageParams,
      success: ListInvitationsResponse,
      error: problems(common, "RESOURCE_NOT_FOUND")
    }).annotate(Requires, accountAccess(Requirement.Organizations({ scope: "members:read" }))).annotateMerge(OpenApi.annotations({ summary: "List invitations", description: "The organization's pending invitations." })).annotate(OpenApi.Transform, documentPage)
  )
  .add(
    HttpApiEndpoint.delete("revokeInvitation", "/v1/organizations/:organizationId/invitations/:invitationId", {
      params: Schema.Struct({ organizationId: OrganizationId, invitationId: InvitationId }),
      success: RevokeInvitationResponse,
      error: problems(common, "RESOURCE_NOT_FOUND", "FAILED_PRECONDITION")
    }).annotate(Requires, accountAccess(Requirement.Organizations({ scope: "members:write" }))).annotateMerge(OpenApi.annotations({ summary: "Revoke an invitation", description: "Revokes a pending invitation; its token stops working." }))
  )
  .add(
    HttpApiEndpoint.post("acceptInvitation", "/v1/invitations/:token/accept", {
      params: Schema.Struct({ token: InvitationToken }),
      success: Membership,
      error: problems(common, "ACCOUNT_NOT_FOUND", "RESOURCE_NOT_FOUND", "FAILED_PRECONDITION")
    }).annotate(Requires, accountAccess(Requirement.Organizations({ scope: "members:write" }))).annotateMerge(OpenApi.annotations({ summary: "Accept an invitation", description: "The signed-in account joins the organization with the invited role." }))
  )
  .pipe(authenticated)
  .annotateMerge(OpenApi.annotations({
    title: "Organizations",
    description: "Organizations, their members and invitations. Non-members get 404 for an organization's routes."
  }))

/** What every route here can answer (account credential, OAuth scope, validation of path and query). */
