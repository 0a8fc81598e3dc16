/**
 * The Projects feature's /v1 routes (docs/api-notes/accounts-and-projects.md, except the avatar
 * rows): the group, each endpoint with the problems it can answer, whether it needs an
 * Idempotency-Key and who may call it. The platform decodes paths, queries and payloads by these
 * schemas; `queryDocs` words the query parameters of the OpenAPI document.
 */
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { Projects } from "@switchboard/core"
import {
  CountProjectsQuery,
  CreateProjectRequest,
  ListProjectsQuery,
  Project,
  ProjectClosureStatusQuery,
  ProjectPage,
  RotateProjectSecretResponse,
  SlugAvailabilityQuery,
  UpdateProjectRequest
} from "@switchboard/core/projects"
import { OrganizationId, ProjectId } from "@switchboard/core/shared"
import { type ProblemCode } from "../http/ProblemCatalog.js"
import { Schema } from "effect"
import { commonProblems as common, idempotencyProblems as idempotency } from "./CommonProblems.js"
import { accountAccess, projectAccess } from "./Access.js"
import { Requirement } from "@switchboard/core/credentials"
import { Idempotent, Requires, problems } from "./Declare.js"
import { authenticated } from "./V1Group.js"

const OrganizationPath = Schema.Struct({ organizationId: OrganizationId })
const ProjectPath = Schema.Struct({ projectId: ProjectId })

interface QueryDoc {
  readonly description: string
  readonly schema: Record<string, unknown>
  readonly required?: boolean
}

/** Rewrites the operation's query parameters in the OpenAPI document with their real schema. */
const queryDocs = (docs: Record<string, QueryDoc>) => (operation: Record<string, any>) => ({
  ...operation,
  parameters: (operation.parameters ?? []).map((p: Record<string, any>) => {
    const doc = p.in === "query" ? docs[p.name] : undefined
    return doc === undefined ? p : { ...p, required: doc.required === true, description: doc.description, schema: doc.schema }
  })
})

const timestampDoc = { type: "string", format: "date-time", pattern: "^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,9})?Z$" }
const slugDoc = { type: "string", minLength: 1, maxLength: 63, pattern: "^[a-z0-9]+(?:-[a-z0-9]+)*$" }

const filterDocs = {
  query: { description: "case-insensitive substring of the name or the slug", schema: { type: "string", minLength: 1, maxLength: 256 } },
  createdAfter: { description: "RFC 3339 UTC timestamp (upper-case T and Z); strictly after", schema: timestampDoc },
  createdBefore: { description: "RFC 3339 UTC timestamp (upper-case T and Z); strictly before", schema: timestampDoc }
}
const listProjectsDocs = queryDocs({
  pageSize: { description: "1-100, default 20", schema: { type: "integer", minimum: 1, maximum: 100, default: 20 } },
  pageToken: { description: "nextPageToken of the previous page (same filters)", schema: { type: "string", minLength: 1, maxLength: 2048 } },
  ...filterDocs
})
const countProjectsDocs = queryDocs(filterDocs)
const closureStatusDocs = queryDocs({
  projectId: { description: "the project (one of the organization's, in any state)", schema: { type: "string", format: "uuid" }, required: true }
})
const slugAvailabilityDocs = queryDocs({
  slug: { description: "the slug to check: 1-63 lower-case letters and digits separated by single hyphens", schema: slugDoc, required: true }
})

/** Routes under /v1/organizations/{organizationId}: an unknown organization, or one the caller is not in, is 404. */
const organization: ReadonlyArray<ProblemCode> = [...common, "RESOURCE_NOT_FOUND", "ORGANIZATION_SSO_REQUIRED"]
/** Routes under /v1/projects/{projectId}. */
const project: ReadonlyArray<ProblemCode> = [...common, "RESOURCE_MISMATCH", "PROJECT_NOT_FOUND", "PROJECT_DELETED", "ORGANIZATION_SSO_REQUIRED"]
const projectWrite: ReadonlyArray<ProblemCode> = [...project, ...idempotency, "PROJECT_CLOSING"]

/** Who may read the organization's project collection: an account with `projects:read`. */
const collectionAccess = accountAccess(Requirement.ProjectsCollection({ scope: "projects:read" }))

export const ProjectsGroup = HttpApiGroup.make("projects")
  .add(
    HttpApiEndpoint.post("createProject", "/v1/organizations/:organizationId/projects", {
      params: OrganizationPath,
      payload: CreateProjectRequest,
      success: Project.pipe(HttpApiSchema.status(201)),
      error: problems(organization, idempotency, "SLUG_TAKEN", "PAYLOAD_TOO_LARGE")
    }).annotate(Requires, accountAccess(Requirement.ProjectsCollection({ scope: "projects:write" }))).annotate(Idempotent, true).annotateMerge(OpenApi.annotations({ summary: "Create a project", description: "Creates a project in the organization. The slug must be free in the organization; its management secret is shown once." }))
  )
  .add(
    HttpApiEndpoint.get("listProjects", "/v1/organizations/:organizationId/projects", {
      params: OrganizationPath,
      query: ListProjectsQuery,
      success: ProjectPage,
      error: problems(organization)
    }).annotate(Requires, collectionAccess).annotateMerge(OpenApi.annotations({ summary: "List projects", description: "The organization's projects, newest first, with filters and pages." })).annotate(OpenApi.Transform, listProjectsDocs)
  )
  .add(
    HttpApiEndpoint.get("checkProjectSlugAvailability", "/v1/organizations/:organizationId/projects/slug-availability", {
      params: OrganizationPath,
      query: SlugAvailabilityQuery,
      success: Projects.ProjectSlugAvailability,
      error: problems(organization)
    }).annotate(Requires, collectionAccess).annotateMerge(OpenApi.annotations({ summary: "Check a slug", description: "Whether a project slug is free in the organization." })).annotate(OpenApi.Transform, slugAvailabilityDocs)
  )
  .add(
    HttpApiEndpoint.get("countProjects", "/v1/organizations/:organizationId/projects/count", {
      params: OrganizationPath,
      query: CountProjectsQuery,
      success: Projects.ProjectCount,
      error: problems(organization)
    }).annotate(Requires, collectionAccess).annotateMerge(OpenApi.annotations({
      summary: "Count projects",
      description: "How many of the organization's live projects match the list's filters (query, createdAfter, createdBefore), read from the primary."
    })).annotate(OpenApi.Transform, countProjectsDocs)
  )
  .add(
    HttpApiEndpoint.get("getProjectClosureStatus", "/v1/organizations/:organizationId/projects/closure-status", {
      params: OrganizationPath,
      query: ProjectClosureStatusQuery,
      success: Projects.ProjectClosureStatusResponse,
      error: problems(organization, "PROJECT_NOT_FOUND")
    }).annotate(Requires, collectionAccess).annotateMerge(OpenApi.annotations({
      summary: "Project closure status",
      description: "How far a project's closure is, per domain (projects, billing, platforms, call_registry): each domain's blockers " +
          "and whether it is ready; `ready` once none has a blocker. Read-only; works for active, closing and deleted projects."
    })).annotate(OpenApi.Transform, closureStatusDocs)
  )
  .add(HttpApiEndpoint.get("getProject", "/v1/projects/:projectId", {
    params: ProjectPath,
    success: Project,
    error: problems(project)
  }).annotate(Requires, projectAccess("project:read")).annotateMerge(OpenApi.annotations({ summary: "Get a project", description: "One project by id." })))
  .add(
    HttpApiEndpoint.patch("updateProject", "/v1/projects/:projectId", {
      params: ProjectPath,
      payload: UpdateProjectRequest,
      success: Project,
      error: problems(projectWrite, "PAYLOAD_TOO_LARGE")
    }).annotate(Requires, projectAccess("project:write", true)).annotate(Idempotent, true).annotateMerge(OpenApi.annotations({ summary: "Update a project", description: "Changes the project's name or slug." }))
  )
  .add(HttpApiEndpoint.delete("deleteProject", "/v1/projects/:projectId", {
    params: ProjectPath,
    success: Project,
    error: problems(projectWrite)
  }).annotate(Requires, projectAccess("project:write", true)).annotate(Idempotent, true).annotateMerge(OpenApi.annotations({ summary: "Delete a project", description: "Starts deleting the project: it can be read but no longer changed, and disappears once cleaned up." })))
  .add(
    HttpApiEndpoint.post("rotateProjectSecret", "/v1/projects/:projectId/secret-rotations", {
      params: ProjectPath,
      success: RotateProjectSecretResponse,
      error: problems(projectWrite)
    }).annotate(Requires, projectAccess("project:write", true, true)).annotate(Idempotent, true).annotateMerge(OpenApi.annotations({ summary: "Rotate the management secret", description: "Replaces the project's management secret (the password of the management API) and shows the new one once." }))
  )
  .add(
    HttpApiEndpoint.get("getAgentProfile", "/v1/projects/:projectId/agent-profile", {
      params: ProjectPath,
      success: Projects.AgentProfile,
      error: problems(project)
    }).annotate(Requires, projectAccess("project:read")).annotateMerge(OpenApi.annotations({ summary: "Get the agent profile", description: "The name, description and avatar the project's agent shows to people." }))
  )
  .add(
    HttpApiEndpoint.patch("updateAgentProfile", "/v1/projects/:projectId/agent-profile", {
      params: ProjectPath,
      payload: Projects.UpdateAgentProfileRequest,
      success: Projects.AgentProfile,
      error: problems(projectWrite, "PAYLOAD_TOO_LARGE")
    }).annotate(Requires, projectAccess("project:write")).annotate(Idempotent, true).annotateMerge(OpenApi.annotations({ summary: "Update the agent profile", description: "Changes the agent's name or description." }))
  )
  .pipe(authenticated)
  .annotateMerge(OpenApi.annotations({
    title: "Projects",
    description: "Projects of an organization, their agent profile and management secret."
  }))
