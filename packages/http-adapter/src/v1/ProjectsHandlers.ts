/**
 * The Projects feature's /v1 handlers (docs/api-notes/accounts-and-projects.md). Collection routes
 * need an account credential (`Requirement.ProjectsCollection`); project routes state their
 * permission (`Requirement.Project`), and core then checks that an account belongs to the project's
 * organization (404 otherwise) and that the project's state allows the operation (409 closing, 410
 * deleted).
 */
import { HttpApiBuilder } from "effect/http-api"
import { accountOf, Requirement } from "@switchboard/core/credentials"
import {
  Project,
  ProjectClosureStatus,
  ProjectClosureStatusResponse,
  ProjectCount,
  ProjectsService,
  RotateProjectSecretResponse,
  toAgentProfile,
  toProject
} from "@switchboard/core/projects"
import { Effect, Redacted } from "effect"
import { ServerConfig } from "../http/ServerConfig.js"
import { actingAccount, onProject } from "./Access.js"
import { v1Group } from "./V1Group.js"
import { ProjectsGroup } from "./ProjectsApi.js"
import { defaultPictureUrl } from "./DefaultPicture.js"
import { domain, rendered, renderedOnce, toResponse } from "./Pipeline.js"
import { problem } from "./Problems.js"

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
    // A read of a cached project record renders it once (`renderedOnce`).
    const projectOnce = renderedOnce(Project, (record: Parameters<typeof toProject>[0]) => toProject(record, avatar))
    const responseOf = (r: Parameters<typeof toResponse>[0]) => toResponse(r)

    return handlers
      .handle("createProject", ({ params: path, payload }) =>
        Effect.gen(function*() {
          const accountId = yield* actingAccount(Requirement.ProjectsCollection({ scope: "projects:write" }))
          const record = yield* domain(projects.create({
            accountId,
            organizationId: path.organizationId,
            name: payload.name,
            slug: payload.slug
          }))
          return toResponse(yield* rendered(Project, toProject(record, avatar), 201, {
            location: `${config.apiUrl}/v1/projects/${record.projectId}`
          }))
        }))
      .handle("listProjects", ({ params: path, query }) =>
        Effect.gen(function*() {
          const accountId = yield* actingAccount(Requirement.ProjectsCollection({ scope: "projects:read" }))
          const page = yield* domain(projects.list({ accountId, organizationId: path.organizationId, ...query }))
          return {
            projects: page.projects.map((p) => toProject(p, avatar)),
            ...(page.nextPageToken === undefined ? {} : { nextPageToken: page.nextPageToken })
          }
        }))
      .handle("countProjects", ({ params: path, query }) =>
        Effect.gen(function*() {
          const accountId = yield* actingAccount(Requirement.ProjectsCollection({ scope: "projects:read" }))
          const count = yield* domain(projects.count({ accountId, organizationId: path.organizationId, ...query }))
          return toResponse(yield* rendered(ProjectCount, count, 200, { "cache-control": "no-store" }))
        }))
      .handle("getProjectClosureStatus", ({ params: path, query }) =>
        Effect.gen(function*() {
          const accountId = yield* actingAccount(Requirement.ProjectsCollection({ scope: "projects:read" }))
          const { projectId } = query
          const status = yield* domain(closures.status({ accountId, organizationId: path.organizationId, projectId }))
          return toResponse(yield* rendered(ProjectClosureStatusResponse, status, 200, { "cache-control": "no-store" }))
        }))
      .handle("checkProjectSlugAvailability", ({ params: path, query }) =>
        Effect.gen(function*() {
          const accountId = yield* actingAccount(Requirement.ProjectsCollection({ scope: "projects:read" }))
          const { slug } = query
          return yield* domain(projects.slugAvailability({ accountId, organizationId: path.organizationId, slug }))
        }))
      // The hottest read: a plain chain, no generator per request.
      .handle("getProject", ({ params: path }) =>
        Effect.flatMap(onProject(path.projectId, "project:read"), (principal) =>
          Effect.flatMap(domain(projects.read(path.projectId, principal)), (record) => Effect.map(projectOnce(record), responseOf))))
      .handle("updateProject", ({ params: path, payload }) =>
        Effect.gen(function*() {
          const principal = yield* onProject(path.projectId, "project:write", true)
          return toProject(yield* domain(projects.rename(path.projectId, principal, payload.name)), avatar)
        }))
      .handle("deleteProject", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* onProject(path.projectId, "project:write", true)
          return toProject(yield* domain(projects.delete(path.projectId, principal)), avatar)
        }))
      .handle("rotateProjectSecret", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* onProject(path.projectId, "project:write", true, true)
          const secret = yield* domain(projects.rotateSecret(path.projectId, principal))
          // The secret is in this answer only: no cache may keep it.
          return toResponse(yield* rendered(RotateProjectSecretResponse, { projectSecret: Redacted.value(secret) }, 200, {
            "cache-control": "no-store"
          }))
        }))
      .handle("getAgentProfile", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* onProject(path.projectId, "project:read")
          return toAgentProfile(yield* domain(projects.read(path.projectId, principal)), avatar)
        }))
      .handle("updateAgentProfile", ({ params: path, payload }) =>
        Effect.gen(function*() {
          const principal = yield* onProject(path.projectId, "project:write")
          return toAgentProfile(yield* domain(projects.updateAgentProfile(path.projectId, principal, payload)), avatar)
        }))
  }))
