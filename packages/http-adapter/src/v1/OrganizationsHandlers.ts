/**
 * The Organizations feature's /v1 handlers (API.md §1.3): each states its access requirement
 * (`members:read` for reads, `members:write` for writes; project API keys are refused), validates
 * path, query and body, calls core, and renders the result by its schema.
 */
import { HttpApiBuilder } from "effect/http-api"
import { type HttpServerRequest, HttpServerResponse } from "effect/http"
import { Requirement } from "@switchboard/core/credentials"
import {
  CreateInvitationRequest,
  CreateInvitationResponse,
  CreateOrganizationRequest,
  Invitations,
  ListInvitationsResponse,
  ListMembersResponse,
  ListOrganizationsResponse,
  Membership,
  Organization,
  type OrganizationMember,
  Organizations,
  RevokeInvitationResponse,
  toInvitation
} from "@switchboard/core/organizations"
import { InvitationToken, PageSize } from "@switchboard/core/shared"
import { Effect, Result, Redacted, Schema } from "effect"
import { actingAccount } from "./Access.js"
import { v1Group } from "./V1Group.js"
import { OrganizationsGroup } from "./OrganizationsApi.js"
import { idempotent } from "./Idempotency.js"
import { decodeJsonBody, domain, issuesOf, rendered, toResponse } from "./Pipeline.js"
import { validationFailed } from "./ProblemFailure.js"

const read = Requirement.Organizations({ scope: "members:read" })
const write = Requirement.Organizations({ scope: "members:write" })

const PageQuery = Schema.Struct({
  pageSize: Schema.optional(PageSize),
  pageToken: Schema.optional(Schema.String.pipe(Schema.check(Schema.isMaxLength(2048))))
})

/** `pageSize` and `pageToken` from the query string: each at most once, `pageSize` an integer 1..100. */
const pageQuery = (request: HttpServerRequest.HttpServerRequest) =>
  Effect.gen(function*() {
    const params = new URL(request.url, "http://localhost").searchParams
    const raw: Record<string, string> = {}
    for (const name of ["pageSize", "pageToken"] as const) {
      const values = params.getAll(name)
      if (values.length > 1) {
        return yield* validationFailed([{
          code: "duplicate_parameter",
          location: "query",
          message: `${name} may be given once.`,
          path: `/${name}`
        }])
      }
      if (values[0] !== undefined) raw[name] = values[0]
    }
    const decoded = Schema.decodeUnknownResult(PageQuery, { errors: "all", reportInput: true })(raw)
    if (Result.isFailure(decoded)) return yield* validationFailed(issuesOf(decoded.failure, "query"), "The query string is not valid.")
    return decoded.success
  })

const withNext = (nextPageToken: string | undefined) => (nextPageToken === undefined ? {} : { nextPageToken })

export const OrganizationsGroupLive = HttpApiBuilder.group(v1Group(OrganizationsGroup), "organizations", (handlers) =>
  Effect.gen(function*() {
    const organizations = yield* Organizations
    const invitations = yield* Invitations
    return handlers
      .handleRaw("createOrganization", () =>
        Effect.gen(function*() {
          const accountId = yield* actingAccount(write)
          const body = yield* decodeJsonBody(CreateOrganizationRequest)
          const organization = yield* domain(organizations.create({ accountId, name: body.value.name }))
          return toResponse(yield* rendered(Organization, organization, 201))
        }))
      .handleRaw("listOrganizations", ({ request }) =>
        Effect.gen(function*() {
          const accountId = yield* actingAccount(read)
          const query = yield* pageQuery(request)
          const page = yield* domain(organizations.list(accountId, query))
          return toResponse(yield* rendered(ListOrganizationsResponse, {
            organizations: page.items,
            ...withNext(page.nextPageToken)
          }))
        }))
      .handleRaw("listMembers", ({ params: path, request }) =>
        Effect.gen(function*() {
          const accountId = yield* actingAccount(read)
          const query = yield* pageQuery(request)
          const page = yield* domain(organizations.listMembers({ accountId, organizationId: path.organizationId, ...query }))
          const members = page.items.map((m): OrganizationMember => ({
            accountId: m.accountId,
            email: m.email,
            role: m.role,
            joinedAt: m.joinedAt
          }))
          return toResponse(yield* rendered(ListMembersResponse, { members, ...withNext(page.nextPageToken) }))
        }))
      .handleRaw("removeMember", ({ params: path }) =>
        Effect.gen(function*() {
          const actorId = yield* actingAccount(write)
          yield* domain(organizations.removeMember({
            actorId,
            organizationId: path.organizationId,
            accountId: path.accountId
          }))
          return HttpServerResponse.empty({ status: 204 })
        }))
      .handleRaw("createInvitation", ({ params: path }) =>
        Effect.gen(function*() {
          const actorId = yield* actingAccount(write)
          const body = yield* decodeJsonBody(CreateInvitationRequest)
          return yield* idempotent(
            {
              route: "/v1/organizations/:organizationId/invitations",
              path: { organizationId: path.organizationId },
              body: body.json
            },
            Effect.gen(function*() {
              const created = yield* domain(invitations.create({
                actorId,
                organizationId: path.organizationId,
                email: body.value.email,
                role: body.value.role
              }))
              return yield* rendered(
                CreateInvitationResponse,
                { invitation: toInvitation(created.invitation), token: InvitationToken.make(Redacted.value(created.token)) },
                201,
                { "cache-control": "no-store" }
              )
            })
          )
        }))
      .handleRaw("listInvitations", ({ params: path, request }) =>
        Effect.gen(function*() {
          const actorId = yield* actingAccount(read)
          const query = yield* pageQuery(request)
          const page = yield* domain(invitations.listPending({ actorId, organizationId: path.organizationId, ...query }))
          return toResponse(yield* rendered(ListInvitationsResponse, {
            invitations: page.items.map(toInvitation),
            ...withNext(page.nextPageToken)
          }))
        }))
      .handleRaw("revokeInvitation", ({ params: path }) =>
        Effect.gen(function*() {
          const actorId = yield* actingAccount(write)
          const invitation = yield* domain(invitations.revoke({
            actorId,
            organizationId: path.organizationId,
            invitationId: path.invitationId
          }))
          return toResponse(yield* rendered(RevokeInvitationResponse, { invitation: toInvitation(invitation) }))
        }))
      .handleRaw("acceptInvitation", ({ params: path }) =>
        Effect.gen(function*() {
          const accountId = yield* actingAccount(write)
          const membership = yield* domain(invitations.accept({ accountId, token: Redacted.make(path.token) }))
          return toResponse(yield* rendered(Membership, membership))
        }))
  }))
