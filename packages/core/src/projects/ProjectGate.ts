/**
 * Who may see a project, and in which state it may be used (docs/api-notes/credentials.md,
 * docs/api-notes/accounts-and-projects.md). Route permissions are decided before
 * (identity/Access.ts `decide`); this adds what needs the store:
 * - an account (service key or access token) must be a member of the project's organization,
 *   otherwise the project does not exist for it (404, so its existence does not leak);
 * - a project API key reaches only its own project (decide refuses others as RESOURCE_MISMATCH);
 * - a deleted project answers 410 to everything, a closing one refuses writes (409);
 * - required SSO (sso/SsoGuard.ts): a member of an organization that requires SSO reaches its
 *   projects only through that organization's SSO sign-in (`OrganizationSsoRequired`, 403; owners
 *   excepted), as for the organization itself.
 */
import { Effect, Option } from "effect"
import type { Principal } from "../credentials/Access.js"
import type { OrganizationSsoRequired } from "../organizations/OrganizationErrors.js"
import { OrganizationsRepo } from "../organizations/OrganizationsPorts.js"
import { makeSsoGuard } from "../sso/SsoGuard.js"
import type { OrganizationId, AccountId, ProjectId } from "../shared/Identifiers.js"
import { RecordCache } from "../shared/RecordCache.js"
import { ProjectClosing, ProjectDeleted, ProjectNotFound, ProjectOrganizationNotFound } from "./Errors.js"
import { type ProjectRecord, ProjectsRepo } from "./Ports.js"

/**
 * - `read`: any state but deleted;
 * - `write`: active only;
 * - `revoke`: like read — revoking a credential stays possible while the project closes.
 */
export type ProjectUse = "read" | "write" | "revoke"

export const makeProjectGate = Effect.gen(function*() {
  const projects = yield* ProjectsRepo
  const organizations = yield* OrganizationsRepo
  const records = yield* RecordCache
  const ssoGuard = yield* makeSsoGuard

  /**
   * The caller is a member of the organization (any role), else the organization is "not found";
   * under required SSO, one admitted by it.
   */
  const requireMember = (organizationId: OrganizationId, accountId: AccountId) =>
    Effect.flatMap(organizations.roleOf(organizationId, accountId), (role): Effect.Effect<void, ProjectOrganizationNotFound | OrganizationSsoRequired> =>
      Option.isSome(role) ? ssoGuard.admit(organizationId, role.value) : Effect.fail(new ProjectOrganizationNotFound({ organizationId })))

  /** Whether the principal may see the project (a member who is not admitted by required SSO fails). */
  const canSee = (record: ProjectRecord, principal: Principal): Effect.Effect<boolean, OrganizationSsoRequired> =>
    principal._tag === "ProjectKey"
      ? Effect.succeed(principal.projectId === record.projectId)
      : Effect.flatMap(organizations.roleOf(record.organizationId, principal.accountId), (role) =>
        Option.isSome(role) ? Effect.as(ssoGuard.admit(record.organizationId, role.value), true) : Effect.succeed(false))

  /**
   * The project, if `principal` may see it and it is in a state that allows `use`. With `lock`, the
   * row stays locked until the surrounding transaction ends (for a read-then-write). With `cached`
   * (a read answered as is, never before a write), the record may come from `RecordCache`;
   * membership is always checked against the store.
   */
  const open = (
    projectId: ProjectId,
    principal: Principal,
    use: ProjectUse,
    options: { readonly lock?: boolean; readonly cached?: boolean } = {}
  ): Effect.Effect<ProjectRecord, ProjectNotFound | ProjectDeleted | ProjectClosing | OrganizationSsoRequired> => {
    const found = options.lock === true
      ? projects.lock(projectId)
      : options.cached === true
      ? records.read("project", projectId, Effect.suspend(() => projects.findById(projectId))) // built on a miss only
      : projects.findById(projectId)
    // A plain chain (no generator): the cached read is the hottest path of the projects API.
    return Effect.flatMap(found, (found): Effect.Effect<ProjectRecord, ProjectNotFound | ProjectDeleted | ProjectClosing | OrganizationSsoRequired> => {
      if (Option.isNone(found)) return Effect.fail(new ProjectNotFound({ projectId }))
      const record = found.value
      if (principal._tag === "ProjectKey") {
        return principal.projectId === record.projectId ? usable(record, use, projectId) : Effect.fail(new ProjectNotFound({ projectId }))
      }
      return Effect.flatMap(
        canSee(record, principal),
        (visible): Effect.Effect<ProjectRecord, ProjectNotFound | ProjectDeleted | ProjectClosing> =>
          visible ? usable(record, use, projectId) : Effect.fail(new ProjectNotFound({ projectId }))
      )
    })
  }

  /** A visible project in a state that allows `use`. */
  const usable = (record: ProjectRecord, use: ProjectUse, projectId: ProjectId): Effect.Effect<ProjectRecord, ProjectDeleted | ProjectClosing> =>
    record.state === "deleted" ? Effect.fail(new ProjectDeleted({ projectId }))
    : record.state === "closing" && use === "write" ? Effect.fail(new ProjectClosing({ projectId }))
    : Effect.succeed(record)

  return { open, requireMember } as const
})
