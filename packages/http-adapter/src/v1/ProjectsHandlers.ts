/**
 * The Projects feature's /v1 handlers (API.md §1.4). Collection routes need an account credential
 * (`Requirement.ProjectsCollection`); project routes state their permission
 * (`Requirement.Project`), and core then checks that an account belongs to the project's
 * organization (404 otherwise) and that the project's state allows the operation (409 closing,
 * 410 deleted).
 */
import { HttpApiBuilder } from "effect/http-api"
import { HttpServerRequest } from "effect/http"
import { Projects } from "@switchboard/core"
import { accountOf, type ProjectPermission, Requirement } from "@switchboard/core/credentials"
import {
  CountProjectsQuery,
  CreateProjectRequest,
  ListProjectsQuery,
  Project,
  ProjectClosureStatus,
  ProjectClosureStatusQuery,
  ProjectClosureStatusResponse,
  ProjectCount,
  ProjectPage,
  ProjectsService,
  RotateProjectSecretResponse,
  SlugAvailabilityQuery,
  toAgentProfile,
  toProject,
  UpdateProjectRequest
} from "@switchboard/core/projects"
import { Effect, Result, Redacted, Schema } from "effect"
import { ServerConfig } from "../http/ServerConfig.js"
import { actingAccount, authorize } from "./Access.js"
import { v1Group } from "./V1Group.js"
import { ProjectsGroup } from "./ProjectsApi.js"
import { defaultPictureUrl } from "./DefaultPicture.js"
import { idempotent } from "./Idempotency.js"
import { decodeJsonBody, domain, issuesOf, rendered, renderedOnce, toResponse } from "./Pipeline.js"
import { problem, validationFailed } from "./Problems.js"

/** Decodes the query string strictly; failures are 422 with location `query`. */
export const decodeQuery = <A, I>(schema: Schema.Codec<A, I, never, never>) =>
  Effect.flatMap(HttpServerRequest.ParsedSearchParams, (params) => {
    const decoded = Schema.decodeUnknownResult(schema, { errors: "all", onExcessProperty: "ignore", reportInput: true })(params)
    return Result.isFailure(decoded)
      ? Effect.fail(validationFailed(issuesOf(decoded.failure, "query"), "The query string is not valid."))
      : Effect.succeed(decoded.success)
  })

/** The caller of a route under /v1/projects/{projectId}, if allowed (see identity/Access.ts). */
export const onProject = (projectId: string, permission: ProjectPermission, accountOnly = false, mintsCredential = false) =>
  authorize(Requirement.Project({ projectId, permission, accountOnly, mintsCredential }))

/** The account behind a principal that must be one (routes with `accountOnly`). */
export const accountBehind = (principal: Parameters<typeof accountOf>[0]) => {
  const accountId = accountOf(principal)
  return accountId === undefined
    ? Effect.fail(problem("FORBIDDEN", "This operation needs an account credential, not a project API key."))
    : Effect.succeed(accountId)
}

export const ProjectsGroupLive = HttpApiBuilder.group(v1Group(ProjectsGroup), "projects", (handlers) =>
  Effect.gen(function*() {
    const projects = yield* ProjectsService
    const closures = yield* ProjectClosureStatus
    const config = yield* ServerConfig
    const avatar = defaultPictureUrl(config.apiUrl)
    const project = (record: Parameters<typeof toProject>[0]) => rendered(Project, toProject(record, avatar))
    // A read of a cached project record renders it once (`renderedOnce`).
    const projectOnce = renderedOnce(Project, (record: Parameters<typeof toProject>[0]) => toProject(record, avatar))
    const responseOf = (r: Parameters<typeof toResponse>[0]) => toResponse(r)

    return handlers
      .handleRaw("createProject", ({ params: path }) =>
        Effect.gen(function*() {
          const accountId = yield* actingAccount(Requirement.ProjectsCollection({ scope: "projects:write" }))
          const body = yield* decodeJsonBody(CreateProjectRequest)
          return yield* idempotent(
            { route: "/v1/organizations/:organizationId/projects", path: { organizationId: path.organizationId }, body: body.json },
            Effect.gen(function*() {
              const record = yield* domain(projects.create({
                accountId,
                organizationId: path.organizationId,
                name: body.value.name,
                slug: body.value.slug
              }))
              return yield* rendered(Project, toProject(record, avatar), 201, {
                location: `${config.apiUrl}/v1/projects/${record.projectId}`
              })
            })
          )
        }))
      .handleRaw("listProjects", ({ params: path }) =>
        Effect.gen(function*() {
          const accountId = yield* actingAccount(Requirement.ProjectsCollection({ scope: "projects:read" }))
          const query = yield* decodeQuery(ListProjectsQuery)
          const page = yield* domain(projects.list({ accountId, organizationId: path.organizationId, ...query }))
          return toResponse(yield* rendered(ProjectPage, {
            projects: page.projects.map((p) => toProject(p, avatar)),
            ...(page.nextPageToken === undefined ? {} : { nextPageToken: page.nextPageToken })
          }))
        }))
      .handleRaw("countProjects", ({ params: path }) =>
        Effect.gen(function*() {
          const accountId = yield* actingAccount(Requirement.ProjectsCollection({ scope: "projects:read" }))
          const query = yield* decodeQuery(CountProjectsQuery)
          const count = yield* domain(projects.count({ accountId, organizationId: path.organizationId, ...query }))
          return toResponse(yield* rendered(ProjectCount, count, 200, { "cache-control": "no-store" }))
        }))
      .handleRaw("getProjectClosureStatus", ({ params: path }) =>
        Effect.gen(function*() {
          const accountId = yield* actingAccount(Requirement.ProjectsCollection({ scope: "projects:read" }))
          const { projectId } = yield* decodeQuery(ProjectClosureStatusQuery)
          const status = yield* domain(closures.status({ accountId, organizationId: path.organizationId, projectId }))
          return toResponse(yield* rendered(ProjectClosureStatusResponse, status, 200, { "cache-control": "no-store" }))
        }))
      .handleRaw("checkProjectSlugAvailability", ({ params: path }) =>
        Effect.gen(function*() {
          const accountId = yield* actingAccount(Requirement.ProjectsCollection({ scope: "projects:read" }))
          const { slug } = yield* decodeQuery(SlugAvailabilityQuery)
          const answer = yield* domain(projects.slugAvailability({ accountId, organizationId: path.organizationId, slug }))
          return toResponse(yield* rendered(Projects.ProjectSlugAvailability, answer))
        }))
      // The hottest read (issue 12 goal 1): a plain chain, no generator per request.
      .handleRaw("getProject", ({ params: path }) =>
        Effect.flatMap(onProject(path.projectId, "project:read"), (principal) =>
          Effect.flatMap(domain(projects.read(path.projectId, principal)), (record) => Effect.map(projectOnce(record), responseOf))))
      .handleRaw("updateProject", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* onProject(path.projectId, "project:write", true)
          const body = yield* decodeJsonBody(UpdateProjectRequest)
          return yield* idempotent(
            { route: "/v1/projects/:projectId", path: { projectId: path.projectId }, body: body.json },
            Effect.flatMap(domain(projects.rename(path.projectId, principal, body.value.name)), project)
          )
        }))
      .handleRaw("deleteProject", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* onProject(path.projectId, "project:write", true)
          return yield* idempotent(
            { route: "/v1/projects/:projectId", path: { projectId: path.projectId } },
            Effect.flatMap(domain(projects.delete(path.projectId, principal)), project)
          )
        }))
      .handleRaw("rotateProjectSecret", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* onProject(path.projectId, "project:write", true, true)
          return yield* idempotent(
            { route: "/v1/projects/:projectId/secret-rotations", path: { projectId: path.projectId } },
            Effect.gen(function*() {
              const secret = yield* domain(projects.rotateSecret(path.projectId, principal))
              return yield* rendered(RotateProjectSecretResponse, { projectSecret: Redacted.value(secret) }, 200, {
                "cache-control": "no-store"
              })
            })
          )
        }))
      .handleRaw("getAgentProfile", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* onProject(path.projectId, "project:read")
          const record = yield* domain(projects.read(path.projectId, principal))
          return toResponse(yield* rendered(Projects.AgentProfile, toAgentProfile(record, avatar)))
        }))
      .handleRaw("updateAgentProfile", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* onProject(path.projectId, "project:write")
          const body = yield* decodeJsonBody(Projects.UpdateAgentProfileRequest)
          return yield* idempotent(
            { route: "/v1/projects/:projectId/agent-profile", path: { projectId: path.projectId }, body: body.json },
            Effect.gen(function*() {
              const record = yield* domain(projects.updateAgentProfile(path.projectId, principal, body.value))
              return yield* rendered(Projects.AgentProfile, toAgentProfile(record, avatar))
            })
          )
        }))
  }))
