/** The Projects group of the Dashboard API: projects, their platforms, integrations, webhooks and members. */
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { Schema } from "effect"
import * as S from "../routes/DashboardSchemas.js"
import { declared, envelope, failures, scope, SessionOnly } from "./Declare.js"

const id = { id: Schema.String }

export const ProjectsGroup = HttpApiGroup.make("dashboard-projects")
  .add(HttpApiEndpoint.get("listProjects", "/api/projects", {
    success: envelope(S.DashboardProject, "list"),
    error: failures(401, 403, 500)
  }).annotateMerge(declared({ name: "listProjects", access: scope("projects:read"), summary: "The caller's projects", description: "Every project of every organization the caller is a member of." })))
  .add(HttpApiEndpoint.post("createProject", "/api/projects", {
    payload: S.CreateProjectBody,
    success: envelope(S.DashboardProject),
    error: failures(401, 403, 422, 500)
  }).annotateMerge(declared({ name: "createProject", access: scope("projects:write"), summary: "Create a project", description: "Creates a project in one of the caller's organizations. The slug must be free." })))
  .add(HttpApiEndpoint.get("getProject", "/api/projects/:id", {
    params: id,
    success: envelope(S.DashboardProject),
    error: failures(401, 403, 404, 500)
  }).annotateMerge(declared({ name: "getProject", access: scope("projects:read"), summary: "One project (404 if not a member)", description: "One project by id; 404 when it does not exist or the caller is not a member of its organization." })))
  .add(HttpApiEndpoint.get("getIMessageAutoScale", "/api/projects/:id/imessage/auto-scale", {
    params: id,
    success: envelope(S.AutoScale),
    error: failures(401, 403, 404, 500)
  }).annotateMerge(declared({ name: "getIMessageAutoScale", access: scope("spectrum:read"), summary: "iMessage auto-scale setting", description: "Whether iMessage lines are added automatically as traffic grows." })))
  .add(HttpApiEndpoint.patch("setIMessageAutoScale", "/api/projects/:id/imessage/auto-scale", {
    params: id,
    payload: S.AutoScaleBody,
    success: envelope(S.AutoScale),
    error: failures(401, 403, 404, 422, 500)
  }).annotateMerge(declared({ name: "setIMessageAutoScale", access: scope("spectrum:write"), summary: "Turn iMessage auto-scale on or off", description: "Turns iMessage auto-scale on or off and answers the new setting." })))
  .add(HttpApiEndpoint.get("getSlackIntegration", "/api/projects/:id/slack", {
    params: id,
    success: envelope(S.SlackIntegration),
    error: failures(401, 403, 404, 500)
  }).annotateMerge(declared({ name: "getSlackIntegration", access: scope("spectrum:read"), summary: "The Slack integration, secrets redacted", description: "The Slack integration's settings; secrets are never returned." })))
  .add(HttpApiEndpoint.put("putSlackIntegration", "/api/projects/:id/slack", {
    params: id,
    payload: S.SlackBody,
    success: envelope(S.SlackIntegration),
    error: failures(401, 403, 404, 422, 500)
  }).annotateMerge(declared({ name: "putSlackIntegration", access: scope("spectrum:write"), summary: "Set the Slack integration (secrets stored sealed, never shown again)", description: "Replaces the Slack integration. Secrets are stored sealed and are not shown again." })))
  .add(HttpApiEndpoint.get("getPlatforms", "/api/projects/:id/platforms", {
    params: id,
    success: envelope(S.PlatformStates),
    error: failures(401, 403, 404, 500)
  }).annotateMerge(declared({ name: "getPlatforms", access: scope("spectrum:read"), summary: "Platform states", description: "Whether each messaging platform is on for the project." })))
  .add(HttpApiEndpoint.post("togglePlatform", "/api/projects/:id/platforms/toggle", {
    params: id,
    payload: S.TogglePlatformBody,
    success: envelope(S.PlatformStates),
    error: failures(401, 403, 404, 422, 500)
  }).annotateMerge(declared({ name: "togglePlatform", access: scope("spectrum:write"), summary: "Turn a platform on or off", description: "Turns one platform on or off and answers every platform's state." })))
  .add(HttpApiEndpoint.post("regenerateProjectSecret", "/api/projects/:id/regenerate-secret", {
    params: id,
    success: envelope(S.ProjectSecret),
    error: failures(401, 403, 404, 500)
  }).annotateMerge(declared({ name: "regenerateProjectSecret", access: SessionOnly, summary: "New management secret, shown once (session only: a secret minted through an OAuth grant would outlive it)", description: "Replaces the project's management secret and shows the new one once; the old one stops working at once." })))
  .add(HttpApiEndpoint.get("listProjectWebhooks", "/api/projects/:id/webhooks", {
    params: id,
    success: envelope(S.ProjectWebhook, "list"),
    error: failures(401, 403, 404, 500)
  }).annotateMerge(declared({ name: "listProjectWebhooks", access: scope("webhooks:read"), summary: "Management webhooks", description: "The project's management webhooks, without their signing secrets." })))
  .add(HttpApiEndpoint.post("createProjectWebhook", "/api/projects/:id/webhooks", {
    params: id,
    payload: S.CreateWebhookBody,
    success: envelope(S.CreatedProjectWebhook),
    error: failures(401, 403, 404, 422, 500)
  }).annotateMerge(declared({ name: "createProjectWebhook", access: scope("webhooks:write"), summary: "Add a management webhook (signing secret shown once)", description: "Registers a webhook URL for the project's events; its signing secret is in this answer only." })))
  .add(HttpApiEndpoint.delete("deleteProjectWebhook", "/api/projects/:id/webhooks/:webhookId", {
    params: { id: Schema.String, webhookId: Schema.String },
    success: envelope(S.DeletedProjectWebhook),
    error: failures(401, 403, 404, 500)
  }).annotateMerge(declared({ name: "deleteProjectWebhook", access: scope("webhooks:write"), summary: "Remove a management webhook", description: "Removes a management webhook; its pending deliveries are cancelled." })))
  .add(HttpApiEndpoint.get("listProjectMembers", "/api/projects/:id/members", {
    params: id,
    success: envelope(S.ProjectMember, "list"),
    error: failures(401, 403, 404, 500)
  }).annotateMerge(declared({ name: "listProjectMembers", access: scope("members:read"), summary: "Members of the project's organization", description: "The members of the project's organization with their roles." })))
  .add(HttpApiEndpoint.post("inviteProjectMember", "/api/projects/:id/members/invitations", {
    params: id,
    payload: S.InvitationBody,
    success: envelope(S.CreatedInvitation),
    error: failures(401, 403, 404, 422, 500)
  }).annotateMerge(declared({ name: "inviteProjectMember", access: scope("members:write"), summary: "Invite someone to the project's organization (token shown once)", description: "Invites an email address to the project's organization with a role; the invitation token is shown once." })))
  .annotateMerge(OpenApi.annotations({ title: "Projects", description: "Projects, their platforms, integrations, webhooks and members" }))
