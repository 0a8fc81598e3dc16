/** The Projects group's handlers (dashboard/ProjectsApi.ts). */
import { HttpApiBuilder } from "effect/http-api"
import { DashboardProjects } from "@switchboard/core/dashboard"
import { ManagementWebhooks } from "@switchboard/core/events"
import { toInvitation } from "@switchboard/core/organizations"
import { Platforms, ProjectIntegrations, ProjectsService } from "@switchboard/core/projects"
import { Effect, Option, Redacted } from "effect"
import { envelopeFailure } from "../http/Surfaces.js"
import { principalOf } from "../routes/DashboardAccess.js"
import * as S from "../routes/DashboardSchemas.js"
import { dashboardGroup } from "./DashboardApi.js"
import { currentCaller } from "./Middleware.js"
import { ProjectsGroup } from "./ProjectsApi.js"
import { answer, ok, okList, projectIdOf, toProject } from "./Render.js"

export const ProjectsGroupLive = HttpApiBuilder.group(dashboardGroup(ProjectsGroup), "dashboard-projects", (handlers) =>
  Effect.gen(function*() {
    const projects = yield* DashboardProjects
    const projectsService = yield* ProjectsService
    const integrations = yield* ProjectIntegrations
    const platforms = yield* Platforms
    const webhooks = yield* ManagementWebhooks
    /** The caller as core's principal, and the path's project. */
    const onProject = (id: string) => Effect.all({ principal: Effect.map(currentCaller, principalOf), projectId: projectIdOf(id) })
    return handlers
      .handle("listProjects", () =>
        answer(Effect.gen(function*() {
          const caller = yield* currentCaller
          return yield* okList(S.DashboardProject, (yield* projects.list(caller.accountId)).map(toProject))
        })))
      .handle("createProject", ({ payload }) =>
        answer(Effect.gen(function*() {
          const caller = yield* currentCaller
          const p = yield* projects.create({ accountId: caller.accountId, name: payload.name, organizationId: payload.organizationId })
          return yield* ok(S.DashboardProject, toProject(p))
        })))
      .handle("getProject", ({ params }) =>
        answer(Effect.gen(function*() {
          const { principal, projectId } = yield* onProject(params.id)
          return yield* ok(S.DashboardProject, toProject(yield* projects.get(projectId, principal)))
        })))
      .handle("getIMessageAutoScale", ({ params }) =>
        answer(Effect.gen(function*() {
          const { principal, projectId } = yield* onProject(params.id)
          return yield* ok(S.AutoScale, yield* integrations.getAutoScale(projectId, principal))
        })))
      .handle("setIMessageAutoScale", ({ params, payload }) =>
        answer(Effect.gen(function*() {
          const { principal, projectId } = yield* onProject(params.id)
          return yield* ok(S.AutoScale, yield* integrations.setAutoScale(projectId, principal, payload.autoScale))
        })))
      .handle("getSlackIntegration", ({ params }) =>
        answer(Effect.gen(function*() {
          const { principal, projectId } = yield* onProject(params.id)
          const found = yield* integrations.getSlack(projectId, principal)
          if (Option.isNone(found)) return yield* envelopeFailure(404, "SLACK_NOT_CONFIGURED", "This project has no Slack integration.")
          return yield* ok(S.SlackIntegration, found.value)
        })))
      .handle("putSlackIntegration", ({ params, payload }) =>
        answer(Effect.gen(function*() {
          const { principal, projectId } = yield* onProject(params.id)
          return yield* ok(S.SlackIntegration, yield* integrations.putSlack(projectId, principal, payload))
        })))
      .handle("getPlatforms", ({ params }) =>
        answer(Effect.gen(function*() {
          const { principal, projectId } = yield* onProject(params.id)
          yield* projects.open(projectId, principal, "read")
          return yield* ok(S.PlatformStates, yield* platforms.get(projectId))
        })))
      .handle("togglePlatform", ({ params, payload }) =>
        answer(Effect.gen(function*() {
          const { principal, projectId } = yield* onProject(params.id)
          yield* projects.open(projectId, principal, "write")
          return yield* ok(S.PlatformStates, yield* platforms.set({ projectId, platform: payload.platformId, enabled: payload.enabled }))
        })))
      .handle("regenerateProjectSecret", ({ params }) =>
        answer(Effect.gen(function*() {
          const { principal, projectId } = yield* onProject(params.id)
          const secret = yield* projectsService.rotateSecret(projectId, principal)
          return yield* ok(S.ProjectSecret, { projectSecret: Redacted.value(secret) })
        })))
      // The project's webhooks are the management API's.
      .handle("listProjectWebhooks", ({ params }) =>
        answer(Effect.gen(function*() {
          const { principal, projectId } = yield* onProject(params.id)
          yield* projects.open(projectId, principal, "read")
          const list = yield* webhooks.list(projectId)
          return yield* okList(S.ProjectWebhook, list.map((w) => ({ id: w.id, webhookUrl: w.webhookUrl, createdAt: w.createdAt, updatedAt: w.updatedAt })))
        })))
      .handle("createProjectWebhook", ({ params, payload }) =>
        answer(Effect.gen(function*() {
          const { principal, projectId } = yield* onProject(params.id)
          yield* projects.open(projectId, principal, "write")
          const { signingSecret, webhook } = yield* webhooks.create({ projectId, webhookUrl: payload.webhookUrl })
          return yield* ok(S.CreatedProjectWebhook, {
            id: webhook.id,
            webhookUrl: webhook.webhookUrl,
            createdAt: webhook.createdAt,
            updatedAt: webhook.updatedAt,
            signingSecret: Redacted.value(signingSecret)
          })
        })))
      .handle("deleteProjectWebhook", ({ params }) =>
        answer(Effect.gen(function*() {
          const { principal, projectId } = yield* onProject(params.id)
          yield* projects.open(projectId, principal, "revoke")
          const removed = yield* webhooks.remove({ projectId, webhookId: params.webhookId })
          return yield* ok(S.DeletedProjectWebhook, { id: removed.id })
        })))
      .handle("listProjectMembers", ({ params }) =>
        answer(Effect.gen(function*() {
          const { principal, projectId } = yield* onProject(params.id)
          const members = yield* projects.members(projectId, principal)
          return yield* okList(S.ProjectMember, members.map((m) => ({ accountId: m.accountId, email: m.email, role: m.role, joinedAt: m.joinedAt })))
        })))
      .handle("inviteProjectMember", ({ params, payload }) =>
        answer(Effect.gen(function*() {
          const { principal, projectId } = yield* onProject(params.id)
          const created = yield* projects.invite(projectId, principal, { email: payload.email, role: payload.role ?? "member" })
          return yield* ok(S.CreatedInvitation, { invitation: toInvitation(created.invitation), token: Redacted.value(created.token) })
        })))
  }))
