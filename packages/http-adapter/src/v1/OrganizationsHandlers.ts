/**
 * The Organizations feature's /v1 handlers (docs/api-notes/accounts-and-projects.md): each states
 * its access requirement (`members:read` for reads, `members:write` for writes; project API keys
 * are refused), reads the query strictly (the platform decodes path and body by the declaration),
 * calls core, and answers the result by its schema.
 */
import { HttpApiBuilder } from "effect/http-api"
import type { HttpServerRequest } from "effect/http"
import { Requirement } from "@switchboard/core/credentials"
import {
  CreateInvitationResponse,
  Invitations,
  type OrganizationMember,
  Organizations,
  toInvitation
} from "@switchboard/core/organizations"
import { InvitationToken, PageSize } from "@switchboard/core/shared"
import { Effect, Result, Redacted, Schema } from "effect"
import { actingAccount } from "./Access.js"
import { v1Group } from "./V1Group.js"
import { OrganizationsGroup } from "./OrganizationsApi.js"
import { domain, issuesOf, rendered, toResponse } from "./Pipeline.js"
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
      .handle("createOrganization", ({ payload }) =>
        Effect.gen(function*() {
          const accountId = yield* actingAccount(write)
          return yield* domain(organizations.create({ accountId, name: payload.name }))
        }))
      .handle("listOrganizations", ({ request }) =>
        Effect.gen(function*() {
          const accountId = yield* actingAccount(read)
          const query = yield* pageQuery(request)
          const page = yield* domain(organizations.list(accountId, query))
          return { organizations: page.items, ...withNext(page.nextPageToken) }
        }))
      .handle("listMembers", ({ params: path, request }) =>
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
          return { members, ...withNext(page.nextPageToken) }
        }))
      .handle("removeMember", ({ params: path }) =>
        Effect.gen(function*() {
          const actorId = yield* actingAccount(write)
          yield* domain(organizations.removeMember({
            actorId,
            organizationId: path.organizationId,
            accountId: path.accountId
          }))
        }))
      .handle("createInvitation", ({ params: path, payload }) =>
        Effect.gen(function*() {
          const actorId = yield* actingAccount(write)
          const created = yield* domain(invitations.create({
            actorId,
            organizationId: path.organizationId,
            email: payload.email,
            role: payload.role
          }))
          // The token is in this answer only: no cache may keep it.
          return toResponse(yield* rendered(
            CreateInvitationResponse,
            { invitation: toInvitation(created.invitation), token: InvitationToken.make(Redacted.value(created.token)) },
            201,
            { "cache-control": "no-store" }
          ))
        }))
      .handle("listInvitations", ({ params: path, request }) =>
        Effect.gen(function*() {
          const actorId = yield* actingAccount(read)
          const query = yield* pageQuery(request)
          const page = yield* domain(invitations.listPending({ actorId, organizationId: path.organizationId, ...query }))
          return { invitations: page.items.map(toInvitation), ...withNext(page.nextPageToken) }
        }))
      .handle("revokeInvitation", ({ params: path }) =>
        Effect.gen(function*() {
          const actorId = yield* actingAccount(write)
          const invitation = yield* domain(invitations.revoke({
            actorId,
            organizationId: path.organizationId,
            invitationId: path.invitationId
          }))
          return { invitation: toInvitation(invitation) }
        }))
      .handle("acceptInvitation", ({ params: path }) =>
        Effect.gen(function*() {
          const accountId = yield* actingAccount(write)
          return yield* domain(invitations.accept({ accountId, token: Redacted.make(path.token) }))
        }))
  }))
