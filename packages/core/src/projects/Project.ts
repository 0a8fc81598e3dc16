/**
 * The project resource on the wire (docs/api-notes/accounts-and-projects.md) and the requests of
 * its operations. We send the fields docs/api-notes/accounts-and-projects.md names; the public
 * contract's `createdByActorId`, `createdByActorKind` and `billingInitialization` are left out (no
 * service identities and no billing initialisation here).
 */
import { Schema } from "effect"
import { BoundedString, NonNegativeSafeInt } from "../shared/Bounds.js"
import { AccountId, OrganizationId, ProjectId } from "../shared/Identifiers.js"
import { PageSize } from "../shared/PageToken.js"
import { NullableTimestamp, Timestamp } from "../shared/Timestamp.js"
import type { ProjectRecord } from "./Ports.js"
import { type AgentProfile as AgentProfileType, AgentProfile, ProjectSlug, ProjectSlugQuery } from "./Schema.js"
import { noExcessKeys } from "../internal/ExcessKeys.js"

/** Project names: 1..256 characters. */
export const ProjectName = BoundedString(1, 256).annotate({ identifier: "ProjectName" })

/** A project (no extra properties). */
export const Project = Schema.Struct({
  projectId: ProjectId,
  organizationId: OrganizationId,
  name: Schema.String,
  slug: ProjectSlug,
  agentProfile: AgentProfile,
  createdAt: Timestamp,
  updatedAt: Timestamp,
  deletedAt: NullableTimestamp,
  createdByAccountId: AccountId
}).annotate({ identifier: "Project" }).pipe(noExcessKeys)
export type Project = typeof Project.Type

/** `POST /v1/organizations/{organizationId}/projects`. */
export const CreateProjectRequest = Schema.Struct({
  name: ProjectName,
  slug: ProjectSlug
}).annotate({ identifier: "CreateProjectRequest" }).pipe(noExcessKeys)
export type CreateProjectRequest = typeof CreateProjectRequest.Type

/** `PATCH /v1/projects/{projectId}`: the name only (the slug is immutable). */
export const UpdateProjectRequest = Schema.Struct({
  name: ProjectName
}).annotate({ identifier: "UpdateProjectRequest" }).pipe(noExcessKeys)
export type UpdateProjectRequest = typeof UpdateProjectRequest.Type

/** One page of projects; `nextPageToken` is absent on the last page. */
export const ProjectPage = Schema.Struct({
  projects: Schema.Array(Project),
  nextPageToken: Schema.optionalKey(Schema.String)
}).annotate({ identifier: "ProjectPage" })
export type ProjectPage = typeof ProjectPage.Type

/** `POST /v1/projects/{projectId}/secret-rotations`: the new management secret, shown once. */
export const RotateProjectSecretResponse = Schema.Struct({
  projectSecret: Schema.String
}).annotate({ identifier: "RotateProjectSecretResponse" })

/** The filters of `GET …/projects` and `GET …/projects/count`. */
const projectFilterFields = {
  query: Schema.optionalKey(BoundedString(1, 256)),
  createdAfter: Schema.optionalKey(Timestamp),
  createdBefore: Schema.optionalKey(Timestamp)
}

/** The query of `GET …/projects` (every parameter optional; timestamps strict RFC 3339 UTC). */
export const ListProjectsQuery = Schema.Struct({
  pageSize: Schema.optionalKey(PageSize),
  pageToken: Schema.optionalKey(BoundedString(1, 2048)),
  ...projectFilterFields
}).annotate({ identifier: "ListProjectsQuery" })
export type ListProjectsQuery = typeof ListProjectsQuery.Type

/** The query of `GET …/projects/count` (the public contract's `countProjects`): the list's filters. */
export const CountProjectsQuery = Schema.Struct(projectFilterFields).annotate({ identifier: "CountProjectsQuery" })
export type CountProjectsQuery = typeof CountProjectsQuery.Type

/** `countProjects`: how many live projects match the filters (the public contract's `ProjectCount`). */
export const ProjectCount = Schema.Struct({
  count: NonNegativeSafeInt
}).annotate({ identifier: "ProjectCount" })
export type ProjectCount = typeof ProjectCount.Type

/** A domain of a project's closure (the public contract's `GetProjectClosureStatusResponse.domains`). */
export const ClosureDomain = Schema.Literals(["projects", "billing", "platforms", "call_registry"]).annotate({ identifier: "ProjectClosureDomain" })
export type ClosureDomain = typeof ClosureDomain.Type

/** What keeps a domain from being closed, in words a client can switch on (snake_case). */
export const ClosureBlocker = Schema.String.pipe(Schema.check(Schema.isPattern(/^[a-z][a-z0-9_]{0,63}$/u))).annotate({
  identifier: "ProjectClosureBlocker",
  examples: ["closure_in_progress"]
})

export const ProjectClosureDomainStatus = Schema.Struct({
  domain: ClosureDomain,
  ready: Schema.Boolean,
  blockers: Schema.Array(ClosureBlocker)
}).annotate({ identifier: "ProjectClosureDomainStatus" })

/**
 * `getProjectClosureStatus`: how far a project's closure is, per domain; `ready` when no domain
 * has a blocker. `deletionOperationId` is always null: a deletion is not an operation here (the
 * project is `closing`, then `deleted` by the closure job).
 */
export const ProjectClosureStatusResponse = Schema.Struct({
  deletionOperationId: Schema.Null,
  domains: Schema.Array(ProjectClosureDomainStatus),
  organizationId: OrganizationId,
  projectId: ProjectId,
  ready: Schema.Boolean
}).annotate({ identifier: "GetProjectClosureStatusResponse" })
export type ProjectClosureStatusResponse = typeof ProjectClosureStatusResponse.Type

/** The query of `GET …/projects/closure-status`: the project (required). */
export const ProjectClosureStatusQuery = Schema.Struct({
  projectId: ProjectId
}).annotate({ identifier: "ProjectClosureStatusQuery" })

/** The query of `GET …/projects/slug-availability`. */
export const SlugAvailabilityQuery = Schema.Struct({
  slug: ProjectSlugQuery
}).annotate({ identifier: "SlugAvailabilityQuery" })

/** The agent profile of a stored project: the first name defaults to the project's name. */
export const toAgentProfile = (record: ProjectRecord, defaultAvatarUrl: string): AgentProfileType => ({
  avatarUrl: record.agentAvatarUrl ?? defaultAvatarUrl,
  firstName: record.agentFirstName ?? record.name,
  lastName: record.agentLastName
})

/** The wire project of a stored one; `defaultAvatarUrl` stands in while no avatar was committed. */
export const toProject = (record: ProjectRecord, defaultAvatarUrl: string): Project => ({
  projectId: record.projectId,
  organizationId: record.organizationId,
  name: record.name,
  slug: record.slug,
  agentProfile: toAgentProfile(record, defaultAvatarUrl),
  createdAt: record.createdAt,
  updatedAt: record.updatedAt,
  deletedAt: record.deletedAt,
  createdByAccountId: record.createdByAccountId
})
