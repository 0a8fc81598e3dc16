/**
 * The Dashboard's view of projects and people (docs/api-notes/dashboard-api.md): the caller's
 * projects across all its organizations, a project created from a name alone (the slug derived from
 * it, the organization defaulting to the caller's first, or a new personal one), a project's
 * members and invitations, and the identity snapshot for product analytics. Built on the projects
 * and organizations services, so membership rules are theirs: a project outside the caller's
 * organizations is 404.
 */
import { Context, DateTime, Effect, Layer } from "effect"
import type { Principal } from "../credentials/Access.js"
import { Accounts } from "../accounts/Accounts.js"
import { Invitations } from "../organizations/Invitations.js"
import { Organizations } from "../organizations/Organizations.js"
import { type MembershipRecord, type OrganizationRecord, type OrganizationRole, OrganizationsRepo } from "../organizations/OrganizationsPorts.js"
import { makeProjectGate, type ProjectUse } from "../projects/ProjectGate.js"
import type { ProjectRecord } from "../projects/Ports.js"
import { ProjectSlug } from "../projects/Schema.js"
import { ProjectsService } from "../projects/ProjectsService.js"
import { isReservedSlug, SLUG_MAX_LENGTH, SLUG_MIN_LENGTH } from "../projects/Slugs.js"
import type { AccountId, OrganizationId, ProjectId } from "../shared/Identifiers.js"
import { fn } from "../internal/Traced.js"

/** How many organizations and projects a Dashboard list walks at most (the list is not paged). */
export const DASHBOARD_MAX_ORGANIZATIONS = 100
export const DASHBOARD_MAX_PROJECTS = 1000
const PAGE = 100

/**
 * A project slug from a display name: ASCII letters and digits (accents dropped) in hyphenated
 * runs, at most 50 characters (room for a `-<n>` suggestion), never shorter than 3 nor reserved.
 */
export const slugFromName = (name: string): string => {
  const base = name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 50)
    .replace(/-+$/g, "")
  if (base.length === 0) return "my-project"
  if (base.length < SLUG_MIN_LENGTH || isReservedSlug(base)) return `${base}-project`
  return base.slice(0, SLUG_MAX_LENGTH)
}

export interface IdentitySnapshot {
  readonly distinctId: AccountId
  readonly email: string
  readonly name: string
  readonly organizationIds: ReadonlyArray<OrganizationId>
  readonly projectCount: number
  readonly createdAt: DateTime.Utc
}

/** A person's display name from the account's names (the email's local part when it has none). */
export const displayName = (a: { readonly firstName: string | null; readonly lastName: string | null; readonly email: string }) => {
  const name = [a.firstName, a.lastName].filter((p): p is string => p !== null && p.length > 0).join(" ")
  return name.length > 0 ? name : (a.email.split("@")[0] ?? a.email)
}

export class DashboardProjects extends Context.Service<DashboardProjects>()("core/DashboardProjects", {
  make: Effect.gen(function*() {
    const projects = yield* ProjectsService
    const organizations = yield* Organizations
    const organizationsRepo = yield* OrganizationsRepo
    const invitations = yield* Invitations
    const accounts = yield* Accounts
    const gate = yield* makeProjectGate

    /** The caller's organizations, oldest first (at most `DASHBOARD_MAX_ORGANIZATIONS`). */
    const organizationsOf = (accountId: AccountId) =>
      Effect.gen(function*() {
        const out: Array<OrganizationRecord> = []
        while (out.length < DASHBOARD_MAX_ORGANIZATIONS) {
          const last = out[out.length - 1]
          const page = yield* organizationsRepo.listForAccount(accountId, {
            after: last === undefined ? undefined : { createdAt: last.createdAt, id: last.organizationId },
            limit: PAGE
          })
          out.push(...page)
          if (page.length < PAGE) break
        }
        return out.slice(0, DASHBOARD_MAX_ORGANIZATIONS)
      })

    /** Every live project of the caller's organizations, newest first within each organization. */
    const list = fn("DashboardProjects.list")(function*(accountId: AccountId) {
      const out: Array<ProjectRecord> = []
      for (const organization of yield* organizationsOf(accountId)) {
        let pageToken: string | undefined
        do {
          const page = yield* projects.list({ accountId, organizationId: organization.organizationId, pageSize: PAGE, pageToken }).pipe(
            // Left the organization meanwhile: it has no projects for the caller any more.
            Effect.catchTag("ProjectOrganizationNotFound", () => Effect.succeed({ projects: [], nextPageToken: undefined })),
            // Requires an SSO sign-in this caller did not make (sso/SsoGuard.ts): left out of the list.
            Effect.catchTag("OrganizationSsoRequired", () => Effect.succeed({ projects: [], nextPageToken: undefined })),
            Effect.catchTag("InvalidProjectQuery", (e) => Effect.die(e))
          )
          out.push(...page.projects)
          pageToken = page.nextPageToken
        } while (pageToken !== undefined && out.length < DASHBOARD_MAX_PROJECTS)
        if (out.length >= DASHBOARD_MAX_PROJECTS) break
      }
      return out.slice(0, DASHBOARD_MAX_PROJECTS)
    })

    /**
     * A new project named `name` in `organizationId`, or else in the caller's oldest organization,
     * or else in a new organization the caller owns. The slug comes from the name; when it is held,
     * the suggestion offered is taken.
     */
    const create = fn("DashboardProjects.create")(function*(input: {
      readonly accountId: AccountId
      readonly name: string
      readonly organizationId?: OrganizationId | undefined
    }) {
      let organizationId = input.organizationId
      if (organizationId === undefined) {
        const first = (yield* organizationsRepo.listForAccount(input.accountId, { after: undefined, limit: 1 }))[0]
        organizationId = first !== undefined
          ? first.organizationId
          : (yield* organizations.create({ accountId: input.accountId, name: "Personal" })).organizationId
      }
      const attempt = (slug: string) =>
        projects.create({ accountId: input.accountId, organizationId: organizationId!, name: input.name, slug: ProjectSlug.make(slug) })
      return yield* attempt(slugFromName(input.name)).pipe(
        Effect.catchTag("SlugUnavailable", (e) => e.suggestion === undefined ? Effect.fail(e) : attempt(e.suggestion))
      )
    })

    const get = fn("DashboardProjects.get")(function*(projectId: ProjectId, principal: Principal) {
      return yield* projects.get(projectId, principal)
    })

    /** The project if the caller may see it and it allows `use` (writes: active projects only). */
    const open = fn("DashboardProjects.open")(function*(projectId: ProjectId, principal: Principal, use: ProjectUse) {
      return yield* gate.open(projectId, principal, use)
    })

    /** The members of the project's organization, by when they joined (at most 1000). */
    const members = fn("DashboardProjects.members")(function*(projectId: ProjectId, principal: Principal & { readonly accountId: AccountId }) {
      const project = yield* projects.get(projectId, principal)
      const out: Array<MembershipRecord> = []
      let pageToken: string | undefined
      do {
        const page = yield* organizations.listMembers({
          accountId: principal.accountId,
          organizationId: project.organizationId,
          pageSize: PAGE,
          pageToken
        }).pipe(Effect.catchTag("OrganizationPageRequestInvalid", (e) => Effect.die(e)))
        out.push(...page.items)
        pageToken = page.nextPageToken
      } while (pageToken !== undefined && out.length < 1000)
      return out
    })

    /** Invites `email` to the project's organization (owners and admins; the token is shown once). */
    const invite = fn("DashboardProjects.invite")(function*(
      projectId: ProjectId,
      principal: Principal & { readonly accountId: AccountId },
      input: { readonly email: string; readonly role: OrganizationRole }
    ) {
      const project = yield* projects.get(projectId, principal)
      return yield* invitations.create({
        actorId: principal.accountId,
        organizationId: project.organizationId,
        email: input.email,
        role: input.role
      })
    })

    const identity = fn("DashboardProjects.identity")(function*(accountId: AccountId) {
      const account = yield* accounts.get(accountId)
      const orgs = yield* organizationsOf(accountId)
      const projectCount = (yield* list(accountId)).length
      return {
        distinctId: accountId,
        email: account.email,
        name: displayName(account),
        organizationIds: orgs.map((o) => o.organizationId),
        projectCount,
        createdAt: account.createdAt
      } satisfies IdentitySnapshot
    })

    /** Whether the account owns at least one organization (who may read the diagnostics). */
    const ownsAnOrganization = fn("DashboardProjects.ownsAnOrganization")(function*(accountId: AccountId) {
      return yield* organizationsRepo.ownsAny(accountId)
    })

    return { list, create, get, open, members, invite, identity, ownsAnOrganization, organizationsOf } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
