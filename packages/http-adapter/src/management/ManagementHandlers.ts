/**
 * The management API's handlers (management/ManagementApi.ts), each on its decoded declaration:
 * path parameters, query and body as declared, the project from `ManagementGuard`. A success is
 * `{succeed: true, data}` with the data encoded by its schema (`envelope`, as the raw routes
 * answered it, `Cache-Control: no-store`); core errors leave through the one table
 * (routes/ManagementErrors.ts).
 */
import { HttpApiBuilder } from "effect/http-api"
import { ManagementWebhooks, StreamTokens, WebhookDelivery, WebhookDeliveryPage } from "@switchboard/core/events"
import { PlatformStatesSchema, Platforms, ProjectUser, ProjectUsers, toAgentProfile } from "@switchboard/core/projects"
import { Lines } from "@switchboard/core/voice"
import { Effect, Layer, Redacted, Schema } from "effect"
import { ServerConfig } from "../http/ServerConfig.js"
import { envelopeErrors } from "../routes/ManagementErrors.js"
import { envelope } from "../routes/ManagementPipeline.js"
import { defaultPictureUrl } from "../v1/DefaultPicture.js"
import { ManagementApi } from "./ManagementApi.js"
import { leanGroup } from "../v1/LeanGroup.js"
import { ManagedProject, ManagementFailures, ManagementGuard, ManagementJsonBody } from "./ManagementMiddleware.js"
import {
  AllocatedLine,
  CreatedManagementWebhook,
  EgressAddresses,
  LineList,
  ManagementDeleted,
  ManagementProject,
  ManagementWebhookSchema,
  StreamToken,
  toLine,
  UserList,
  userOf
} from "./ManagementSchemas.js"

const ProjectLive = HttpApiBuilder.group(ManagementApi, "Project", (handlers) =>
  Effect.gen(function*() {
    const config = yield* ServerConfig
    const avatar = defaultPictureUrl(config.apiUrl)
    return handlers.handle("getManagedProject", () =>
      Effect.flatMap(ManagedProject, (project) =>
        envelope(ManagementProject, {
          id: project.projectId,
          name: project.name,
          slug: project.slug,
          profile: toAgentProfile(project, avatar)
        })))
  }))

const WebhooksLive = HttpApiBuilder.group(ManagementApi, "Webhooks", (handlers) =>
  Effect.gen(function*() {
    const config = yield* ServerConfig
    const webhooks = yield* ManagementWebhooks
    return handlers
      .handle("listManagementWebhooks", () =>
        Effect.gen(function*() {
          const project = yield* ManagedProject
          const list = yield* envelopeErrors(webhooks.list(project.projectId))
          return yield* envelope(Schema.Array(ManagementWebhookSchema), [...list])
        }))
      .handle("createManagementWebhook", ({ payload }) =>
        Effect.gen(function*() {
          const project = yield* ManagedProject
          const { signingSecret, webhook } = yield* envelopeErrors(webhooks.create({ projectId: project.projectId, webhookUrl: payload.webhookUrl }))
          return yield* envelope(CreatedManagementWebhook, {
            id: webhook.id,
            webhookUrl: webhook.webhookUrl,
            signingSecret: Redacted.value(signingSecret),
            createdAt: webhook.createdAt,
            updatedAt: webhook.updatedAt
          })
        }))
      .handle("getWebhookEgressAddresses", () => envelope(EgressAddresses, { addresses: [...config.egressIps] }))
      .handle("deleteManagementWebhook", ({ params }) =>
        Effect.gen(function*() {
          const project = yield* ManagedProject
          const webhook = yield* envelopeErrors(webhooks.remove({ projectId: project.projectId, webhookId: params.webhookId }))
          return yield* envelope(ManagementDeleted, { id: webhook.id })
        }))
      // Deliveries of a webhook: dead letters stay visible and can be retried.
      .handle("listWebhookDeliveries", ({ params, query }) =>
        Effect.gen(function*() {
          const project = yield* ManagedProject
          const page = yield* envelopeErrors(webhooks.listDeliveries({ projectId: project.projectId, webhookId: params.webhookId, ...query }))
          return yield* envelope(WebhookDeliveryPage, {
            deliveries: page.deliveries,
            ...(page.nextPageToken === undefined ? {} : { nextPageToken: page.nextPageToken })
          })
        }))
      .handle("retryWebhookDelivery", ({ params, payload }) =>
        Effect.gen(function*() {
          const project = yield* ManagedProject
          const delivery = yield* envelopeErrors(webhooks.retryDelivery({
            projectId: project.projectId,
            webhookId: params.webhookId,
            eventId: params.eventId,
            expectedAttemptCount: payload.expectedAttemptCount
          }))
          return yield* envelope(WebhookDelivery, delivery)
        }))
  }))

const PlatformsLive = HttpApiBuilder.group(ManagementApi, "Platforms", (handlers) =>
  Effect.gen(function*() {
    const platforms = yield* Platforms
    return handlers
      .handle("getManagedPlatforms", () =>
        Effect.gen(function*() {
          const project = yield* ManagedProject
          return yield* envelope(PlatformStatesSchema, yield* envelopeErrors(platforms.get(project.projectId)))
        }))
      .handle("toggleManagedPlatform", ({ payload }) =>
        Effect.gen(function*() {
          const project = yield* ManagedProject
          const states = yield* envelopeErrors(platforms.set({ projectId: project.projectId, platform: payload.platform, enabled: payload.enabled }))
          return yield* envelope(PlatformStatesSchema, states)
        }))
  }))

const LinesLive = HttpApiBuilder.group(ManagementApi, "Lines", (handlers) =>
  Effect.gen(function*() {
    const lines = yield* Lines
    return handlers
      .handle("listLines", () =>
        Effect.gen(function*() {
          const project = yield* ManagedProject
          const list = yield* envelopeErrors(lines.list(project.projectId))
          return yield* envelope(LineList, { lines: list.map(toLine) })
        }))
      .handle("allocateLine", ({ payload }) =>
        Effect.gen(function*() {
          const project = yield* ManagedProject
          const line = yield* envelopeErrors(lines.allocate({ projectId: project.projectId, platform: payload.platform }))
          return yield* envelope(AllocatedLine, { line: toLine(line) })
        }))
      .handle("releaseLine", ({ params }) =>
        Effect.gen(function*() {
          const project = yield* ManagedProject
          const line = yield* envelopeErrors(lines.release({ projectId: project.projectId, lineId: params.lineId }))
          return yield* envelope(ManagementDeleted, { id: line.lineId })
        }))
  }))

const UsersLive = HttpApiBuilder.group(ManagementApi, "Users", (handlers) =>
  Effect.gen(function*() {
    const users = yield* ProjectUsers
    const lines = yield* Lines
    return handlers
      .handle("listProjectUsers", ({ query }) =>
        Effect.gen(function*() {
          const project = yield* ManagedProject
          const list = yield* envelopeErrors(users.list({ projectId: project.projectId, type: query.type, ids: query.id }))
          return yield* envelope(UserList, { users: list.map(userOf) })
        }))
      .handle("createProjectUser", ({ payload }) =>
        Effect.gen(function*() {
          const project = yield* ManagedProject
          // A dedicated user's number must be one of the project's lines (read through the `Lines`
          // port).
          const assigned = payload.assignedPhoneNumber ?? null
          const lineNumbers = assigned === null ? [] : (yield* envelopeErrors(lines.list(project.projectId))).map((l) => l.phoneNumber)
          const { user } = yield* envelopeErrors(users.create({
            projectId: project.projectId,
            phoneNumber: payload.phoneNumber,
            firstName: payload.firstName,
            lastName: payload.lastName,
            email: payload.email,
            assignedPhoneNumber: assigned
          }, lineNumbers))
          return yield* envelope(ProjectUser, userOf(user))
        }))
      .handle("getProjectUser", ({ params }) =>
        Effect.gen(function*() {
          const project = yield* ManagedProject
          return yield* envelope(ProjectUser, userOf(yield* envelopeErrors(users.get(project.projectId, params.userId))))
        }))
      .handle("deleteProjectUser", ({ params }) =>
        Effect.gen(function*() {
          const project = yield* ManagedProject
          const user = yield* envelopeErrors(users.remove(project.projectId, params.userId))
          return yield* envelope(ManagementDeleted, { id: user.id })
        }))
  }))

const FusorLive = HttpApiBuilder.group(ManagementApi, "Fusor", (handlers) =>
  Effect.gen(function*() {
    const streamTokens = yield* StreamTokens
    // The event channel's stream token (docs/event-channel.md).
    return handlers.handle("issueStreamToken", () =>
      Effect.gen(function*() {
        const project = yield* ManagedProject
        return yield* envelope(StreamToken, yield* envelopeErrors(streamTokens.mint(project.projectId)))
      }))
  }))

/**
 * Every group's handlers (`HttpApiBuilder.layer(ManagementApi)` needs one per group), each request
 * carrying only the services they and the middleware use (v1/LeanGroup.ts).
 */
export const ManagementGroupsLive = leanGroup(
  ManagementFailures,
  ManagementGuard,
  ManagementJsonBody,
  ServerConfig,
  ManagementWebhooks,
  Platforms,
  ProjectUsers,
  Lines,
  StreamTokens
)(Layer.mergeAll(ProjectLive, WebhooksLive, PlatformsLive, LinesLive, UsersLive, FusorLive))
