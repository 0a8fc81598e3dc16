/**
 * The project management API, declared once per endpoint (docs/architecture.md, "One declaration
 * per endpoint"): under `/projects/{projectId}`, HTTP Basic `projectId:projectSecret`,
 * envelope bodies, HTTPS only. Each endpoint declares its path parameters, query, body, the data of
 * its success (`{succeed: true, data}`), the envelope failures it answers (ManagementDeclare.ts) and
 * whether it reads or changes the project. The steps every endpoint shares are middleware
 * (ManagementMiddleware.ts), outermost first: the failures rendered as envelopes
 * (`ManagementFailures`), TLS, credentials, rate limit and closing projects (`ManagementGuard`),
 * the JSON body read (`ManagementJsonBody`). Paths take an optional trailing slash: the router
 * ignores one (`HttpRouter.layer`), for these routes as for the raw ones before them.
 *
 * The two delivery routes are ours: dead-lettered deliveries stay visible and retryable on the
 * surface the webhooks belong to.
 */
import { HttpApi, HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { WebhookDelivery, WebhookDeliveryPage } from "@switchboard/core/events"
import { CreateUserRequest, PlatformStatesSchema, ProjectUser, TogglePlatformRequest } from "@switchboard/core/projects"
import { Schema } from "effect"
import { payloadParseOptions } from "../v1/Pipeline.js"
import { enveloped, envelopeErrors, OptionalBody, QueryRefusal, removeCodes, Use, writeCodes } from "./ManagementDeclare.js"
import { ManagementFailures, ManagementGuard, ManagementJsonBody } from "./ManagementMiddleware.js"
import { packageVersion } from "../docs/PackageVersion.js"
import {
  AllocatedLine,
  AllocateLineRequest,
  CreatedManagementWebhook,
  CreateWebhookRequest,
  DeliveryListQuery,
  EgressAddresses,
  LineList,
  ManagementDeleted,
  ManagementProject,
  PathId,
  RetryDeliveryRequest,
  StreamToken,
  UserList,
  UserListQuery,
  WebhookList
} from "./ManagementSchemas.js"

const ProjectPath = Schema.Struct({ projectId: PathId })
const WebhookPath = Schema.Struct({ projectId: PathId, webhookId: PathId })
const DeliveryPath = Schema.Struct({ projectId: PathId, webhookId: PathId, eventId: PathId })
const LinePath = Schema.Struct({ projectId: PathId, lineId: PathId })
const UserPath = Schema.Struct({ projectId: PathId, userId: PathId })

const docs = (summary: string, description: string) => OpenApi.annotations({ summary, description })

/** The steps of every management endpoint inside `ManagementFailures` (applied after its endpoints). */
const guarded = <Id extends string, E extends HttpApiEndpoint.Constraint, TopLevel extends boolean>(
  group: HttpApiGroup.HttpApiGroup<Id, E, TopLevel>
): HttpApiGroup.HttpApiGroup<
  Id,
  HttpApiEndpoint.AddMiddleware<HttpApiEndpoint.AddMiddleware<E, ManagementJsonBody>, ManagementGuard>,
  TopLevel
> => group.middleware(ManagementJsonBody).middleware(ManagementGuard)

export const ProjectGroup = HttpApiGroup.make("Project")
  .add(
    HttpApiEndpoint.get("getManagedProject", "/projects/:projectId", {
      params: ProjectPath,
      success: enveloped(ManagementProject),
      error: envelopeErrors()
    }).annotate(Use, "read").annotateMerge(docs("The project", "The project the credentials belong to: its id, name, slug and agent profile."))
  )
  .pipe(guarded)
  .annotateMerge(OpenApi.annotations({ description: "The project the credentials belong to" }))

export const WebhooksGroup = HttpApiGroup.make("Webhooks")
  .add(
    HttpApiEndpoint.get("listManagementWebhooks", "/projects/:projectId/webhooks", {
      params: ProjectPath,
      success: enveloped(WebhookList),
      error: envelopeErrors()
    }).annotate(Use, "read").annotateMerge(docs(
      "List management webhooks",
      "The project's management webhooks, oldest first. Signing secrets are never shown again after creation."
    ))
  )
  .add(
    HttpApiEndpoint.post("createManagementWebhook", "/projects/:projectId/webhooks", {
      params: ProjectPath,
      payload: CreateWebhookRequest,
      success: enveloped(CreatedManagementWebhook),
      error: envelopeErrors(writeCodes, "WEBHOOK_URL_TAKEN", "WEBHOOK_LIMIT_REACHED")
    }).annotate(Use, "write").annotateMerge(docs(
      "Add a management webhook",
      "Registers an HTTPS URL that receives the project's events. The answer carries the signing secret " +
        "(Standard Webhooks) once: store it to verify deliveries."
    ))
  )
  .add(
    HttpApiEndpoint.get("getWebhookEgressAddresses", "/projects/:projectId/webhooks/egress-ips", {
      params: ProjectPath,
      success: enveloped(EgressAddresses),
      error: envelopeErrors()
    }).annotate(Use, "read").annotateMerge(docs("Webhook egress addresses", "The IP addresses deliveries are sent from, for a receiver's allow list."))
  )
  .add(
    HttpApiEndpoint.delete("deleteManagementWebhook", "/projects/:projectId/webhooks/:webhookId", {
      params: WebhookPath,
      success: enveloped(ManagementDeleted),
      error: envelopeErrors(removeCodes, "WEBHOOK_NOT_FOUND")
    }).annotate(Use, "write").annotateMerge(docs("Remove a management webhook", "Stops deliveries to the webhook; pending deliveries are cancelled."))
  )
  .add(
    HttpApiEndpoint.get("listWebhookDeliveries", "/projects/:projectId/webhooks/:webhookId/deliveries", {
      params: WebhookPath,
      query: DeliveryListQuery,
      success: enveloped(WebhookDeliveryPage),
      error: envelopeErrors("WEBHOOK_NOT_FOUND", "VALIDATION_FAILED")
    }).annotate(Use, "read")
      .annotate(
        QueryRefusal,
        "status must be pending, delivered, dead_lettered or cancelled; pageSize an integer from 1 to 100; pageToken a token from a previous page."
      )
      .annotateMerge(docs(
        "List a webhook's deliveries",
        "The delivery log, newest first: status, attempts, the last response. Dead-lettered deliveries stay here and can be retried."
      ))
  )
  .add(
    HttpApiEndpoint.post("retryWebhookDelivery", "/projects/:projectId/webhooks/:webhookId/deliveries/:eventId/retry", {
      params: DeliveryPath,
      payload: RetryDeliveryRequest,
      success: enveloped(WebhookDelivery),
      error: envelopeErrors(writeCodes, "WEBHOOK_NOT_FOUND", "DELIVERY_NOT_FOUND", "RETRY_REFUSED")
    }).annotate(Use, "write").annotate(OptionalBody, true).annotateMerge(docs(
      "Retry a delivery",
      "Makes a dead-lettered or failed delivery due now. With `expectedAttemptCount` the retry is refused (409) " +
        "if another attempt happened meanwhile. The body is optional."
    ))
  )
  .pipe(guarded)
  .annotateMerge(OpenApi.annotations({ description: "Management webhooks and their deliveries" }))

export const PlatformsGroup = HttpApiGroup.make("Platforms")
  .add(
    HttpApiEndpoint.get("getManagedPlatforms", "/projects/:projectId/platforms", {
      params: ProjectPath,
      success: enveloped(PlatformStatesSchema),
      error: envelopeErrors()
    }).annotate(Use, "read").annotateMerge(docs("Platform states", "Whether each of the seven messaging platforms is on for the project."))
  )
  .add(
    HttpApiEndpoint.patch("toggleManagedPlatform", "/projects/:projectId/platforms", {
      params: ProjectPath,
      payload: TogglePlatformRequest,
      success: enveloped(PlatformStatesSchema),
      error: envelopeErrors(writeCodes)
    }).annotate(Use, "write").annotateMerge(docs("Turn a platform on or off", "Sets one platform's state and answers all seven."))
  )
  .pipe(guarded)
  .annotateMerge(OpenApi.annotations({ description: "Messaging platforms on or off" }))

export const LinesGroup = HttpApiGroup.make("Lines")
  .add(
    HttpApiEndpoint.get("listLines", "/projects/:projectId/lines", {
      params: ProjectPath,
      success: enveloped(LineList),
      error: envelopeErrors()
    }).annotate(Use, "read").annotateMerge(docs("List lines", "The phone lines allocated to the project."))
  )
  .add(
    HttpApiEndpoint.post("allocateLine", "/projects/:projectId/lines", {
      params: ProjectPath,
      payload: AllocateLineRequest,
      success: enveloped(AllocatedLine),
      error: envelopeErrors(writeCodes, "LINE_UNAVAILABLE")
    }).annotate(Use, "write").annotateMerge(docs("Allocate a line", "Allocates a phone line on a platform to the project; 503 when none is free."))
  )
  .add(
    HttpApiEndpoint.delete("releaseLine", "/projects/:projectId/lines/:lineId", {
      params: LinePath,
      success: enveloped(ManagementDeleted),
      error: envelopeErrors(removeCodes, "LINE_NOT_FOUND")
    }).annotate(Use, "write").annotateMerge(docs("Release a line", "Gives the line back; users assigned to its number keep their record."))
  )
  .pipe(guarded)
  .annotateMerge(OpenApi.annotations({ description: "Phone lines of the project" }))

export const UsersGroup = HttpApiGroup.make("Users")
  .add(
    HttpApiEndpoint.get("listProjectUsers", "/projects/:projectId/users", {
      params: ProjectPath,
      query: UserListQuery,
      success: enveloped(UserList),
      error: envelopeErrors("VALIDATION_FAILED")
    }).annotate(Use, "read")
      .annotate(QueryRefusal, "type must be shared or dedicated; id must be up to 100 user ids.")
      .annotateMerge(docs("List users", "The project's users, filtered by type or by ids."))
  )
  .add(
    HttpApiEndpoint.post("createProjectUser", "/projects/:projectId/users", {
      params: ProjectPath,
      payload: CreateUserRequest,
      success: enveloped(ProjectUser),
      error: envelopeErrors(writeCodes, "USER_EXISTS", "USER_LIMIT_REACHED")
    }).annotate(Use, "write").annotateMerge(docs(
      "Create a user",
      "Adds a user by phone number. A dedicated user's `assignedPhoneNumber` must be one of the project's lines."
    ))
  )
  .add(
    HttpApiEndpoint.get("getProjectUser", "/projects/:projectId/users/:userId", {
      params: UserPath,
      success: enveloped(ProjectUser),
      error: envelopeErrors("USER_NOT_FOUND")
    }).annotate(Use, "read").annotateMerge(docs("One user", "A user of the project by id."))
  )
  .add(
    HttpApiEndpoint.delete("deleteProjectUser", "/projects/:projectId/users/:userId", {
      params: UserPath,
      success: enveloped(ManagementDeleted),
      error: envelopeErrors(removeCodes, "USER_NOT_FOUND")
    }).annotate(Use, "write").annotateMerge(docs("Remove a user", "Removes the user from the project."))
  )
  .pipe(guarded)
  .annotateMerge(OpenApi.annotations({ description: "Users of the project" }))

export const FusorGroup = HttpApiGroup.make("Fusor")
  .add(
    // Takes no body. A read: a closing project still mints (the guard checks the current secret,
    // so a rotated secret mints nothing from then on).
    HttpApiEndpoint.post("issueStreamToken", "/projects/:projectId/fusor/token", {
      params: ProjectPath,
      success: enveloped(StreamToken),
      error: envelopeErrors()
    }).annotate(Use, "read").annotateMerge(docs(
      "Mint an event-channel token",
      "Mints a short-lived stream token (an EdDSA JWT, `expiresIn` seconds) for the event channel's WebSocket at " +
        "`/v1/subscribe`; it is accepted nowhere else. Takes no body; the management secret must be the current one, so a " +
        "rotated secret mints nothing (401)."
    ))
  )
  .pipe(guarded)
  .annotateMerge(OpenApi.annotations({ description: "Stream tokens for the event channel (docs/event-channel.md)" }))

const managementApi = HttpApi.make("switchboard-management")
  .add(ProjectGroup)
  .add(WebhooksGroup)
  .add(PlatformsGroup)
  .add(LinesGroup)
  .add(UsersGroup)
  .add(FusorGroup)
  // Outermost on every endpoint (ManagementMiddleware.ts).
  .middleware(ManagementFailures)
  // A body is checked whole: every issue, an unknown member refused, the rejected value quoted.
  .annotate(HttpApi.PayloadParseOptions, payloadParseOptions)
  .annotate(HttpApi.QueryParseOptions, { errors: "all" })
  .annotateMerge(OpenApi.annotations({ title: "Switchboard management API", version: packageVersion }))

type ManagementGroups =
  | typeof ProjectGroup
  | typeof WebhooksGroup
  | typeof PlatformsGroup
  | typeof LinesGroup
  | typeof UsersGroup
  | typeof FusorGroup

/** The management API's declaration: every group (its type written out, as `V1Api`'s is). */
export const ManagementApi: HttpApi.HttpApi<"switchboard-management", HttpApiGroup.AddMiddleware<ManagementGroups, ManagementFailures>> =
  managementApi

/** Every endpoint as (method, router path), for 405 answers and lifecycle headers. */
export const managementRouteTable: ReadonlyArray<readonly [string, string]> = (() => {
  const out: Array<readonly [string, string]> = []
  HttpApi.reflect(ManagementApi, { onGroup: () => {}, onEndpoint: ({ endpoint }) => out.push([endpoint.method, endpoint.path]) })
  return out
})()
