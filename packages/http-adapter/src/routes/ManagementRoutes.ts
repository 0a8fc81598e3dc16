/**
 * The project management API (API.md §4; SPEC.md § Project management API; contract.md §5.2): raw
 * routes under `/projects/{projectId}`, HTTP Basic `projectId:projectSecret`, envelope bodies,
 * HTTPS only. Every route runs the shared steps of `ManagementPipeline.ts` first (TLS, credentials,
 * rate limit, closing projects). Paths accept an optional trailing slash.
 *
 * | route | data |
 * |---|---|
 * | GET /projects/{projectId}/ | `{id, name, slug, profile}` |
 * | GET, POST /projects/{projectId}/webhooks/ | webhooks oldest first; `{webhookUrl}` → webhook with `signingSecret` (once) |
 * | DELETE /projects/{projectId}/webhooks/{webhookId}/ | `{id}` |
 * | GET /projects/{projectId}/webhooks/{webhookId}/deliveries | `{deliveries, nextPageToken?}` newest first (`?status=`, `?pageSize=`, `?pageToken=`) |
 * | POST /projects/{projectId}/webhooks/{webhookId}/deliveries/{eventId}/retry | `{expectedAttemptCount?}` → the delivery, due now |
 * | GET /projects/{projectId}/webhooks/egress-ips | `{addresses}` (EGRESS_IPS) |
 * | GET, PATCH /projects/{projectId}/platforms/ | all seven platforms; `{platform, enabled}` |
 * | GET, POST /projects/{projectId}/lines/, DELETE …/lines/{lineId}/ | `{lines}`; `{platform}` → `{line}`; `{id}` |
 * | GET, POST /projects/{projectId}/users/, GET, DELETE …/users/{userId}/ | `{users}` (`?type=`, `?id=`…); user; user; `{id}` |
 * | POST /projects/{projectId}/fusor/token | `{token, expiresIn}`: a stream token for the event channel (issue 14) |
 *
 * The two delivery routes are ours: API.md §4 keeps dead-lettered deliveries "visible and
 * retryable", and these make them so on the surface the webhooks belong to.
 *
 * Lists of lines and users are wrapped in a named array (`data.lines`, `data.users`) and the
 * webhook list is a bare array, as in the public contract these clients were written for.
 */
import { HttpRouter, HttpServerError, HttpServerRequest, type HttpServerResponse } from "effect/http"
import { Projects } from "@switchboard/core"
import {
  ManagementWebhooks,
  StreamTokens,
  WebhookDelivery,
  WebhookDeliveryPage,
  WebhookDeliveryStatus
} from "@switchboard/core/events"
import {
  CreateUserRequest,
  PlatformStatesSchema,
  Platforms,
  type ProjectRecord,
  ProjectUser,
  ProjectUsers,
  TogglePlatformRequest,
  toAgentProfile,
  UserType
} from "@switchboard/core/projects"
import { Timestamp, UserId } from "@switchboard/core/shared"
import { type Line, LinePlatform, Lines } from "@switchboard/core/voice"
import { Effect, Redacted, Result, Schema } from "effect"
import { ServerConfig } from "../http/ServerConfig.js"
import { type EnvelopeFailure, envelopeFailure } from "../http/Surfaces.js"
import { defaultPictureUrl } from "../v1/DefaultPicture.js"
import { envelopeErrors, type ManagementDomainError } from "./ManagementErrors.js"
import { envelope, jsonBody, makeManagementGuard, type ManagementUse } from "./ManagementPipeline.js"

// ---------------------------------------------------------------------------------------------
// Wire shapes
// ---------------------------------------------------------------------------------------------

export const ManagementProject = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  slug: Schema.String,
  profile: Projects.AgentProfile
}).annotate({ identifier: "ManagementProject" })

const webhookFields = {
  id: Schema.String,
  webhookUrl: Schema.String,
  createdAt: Timestamp,
  updatedAt: Timestamp
}
export const ManagementWebhookSchema = Schema.Struct(webhookFields).annotate({ identifier: "ManagementWebhook" })
export const CreatedManagementWebhook = Schema.Struct({ ...webhookFields, signingSecret: Schema.String })
  .annotate({ identifier: "CreatedManagementWebhook" })

export const CreateWebhookRequest = Schema.Struct({
  webhookUrl: Schema.String.pipe(Schema.check(Schema.isMinLength(1)), Schema.check(Schema.isMaxLength(2048)))
}).annotate({ identifier: "CreateWebhookRequest" })

export const EgressAddresses = Schema.Struct({ addresses: Schema.Array(Schema.String) })
  .annotate({ identifier: "EgressAddresses" })

export const ManagementLine = Schema.Struct({
  id: Schema.String,
  platform: LinePlatform,
  phoneNumber: Schema.String,
  voiceCapable: Schema.Boolean,
  createdAt: Timestamp
}).annotate({ identifier: "ManagementLine" })

export const AllocateLineRequest = Schema.Struct({ platform: LinePlatform })
  .annotate({ identifier: "AllocateLineRequest" })

export const RetryDeliveryRequest = Schema.Struct({
  expectedAttemptCount: Schema.optionalKey(Schema.Int.pipe(Schema.check(Schema.isBetween({ minimum: 0, maximum: 1000 }))))
}).annotate({ identifier: "RetryDeliveryRequest" })

/** Query of the delivery list. */
const DeliveryListQuery = Schema.Struct({
  status: Schema.optionalKey(WebhookDeliveryStatus),
  pageSize: Schema.optionalKey(Schema.NumberFromString.pipe(Schema.check(Schema.isInt()), Schema.check(Schema.isBetween({ minimum: 1, maximum: 100 })))),
  pageToken: Schema.optionalKey(Schema.String.pipe(Schema.check(Schema.isMinLength(1)), Schema.check(Schema.isMaxLength(2048))))
})

const deliveryListQuery = Effect.gen(function*() {
  const request = yield* HttpServerRequest.HttpServerRequest
  const params = new URL(request.url, "http://localhost").searchParams
  const raw: Record<string, string> = {}
  for (const key of ["status", "pageSize", "pageToken"]) {
    const values = params.getAll(key)
    if (values.length > 1) return yield* envelopeFailure(422, "VALIDATION_FAILED", `${key}: send it at most once.`)
    if (values[0] !== undefined) raw[key] = values[0]
  }
  const decoded = Schema.decodeUnknownResult(DeliveryListQuery)(raw)
  if (Result.isFailure(decoded)) {
    return yield* envelopeFailure(
      422,
      "VALIDATION_FAILED",
      "status must be pending, delivered, dead_lettered or cancelled; pageSize an integer from 1 to 100; pageToken a token from a previous page."
    )
  }
  return decoded.success
})

/** The retry body is optional: no body is `{}`. */
const retryBody = Effect.gen(function*() {
  const request = yield* HttpServerRequest.HttpServerRequest
  const empty = request.headers["content-type"] === undefined &&
    (request.headers["content-length"] === undefined || request.headers["content-length"] === "0")
  return empty ? {} : yield* jsonBody(RetryDeliveryRequest)
})

export const StreamToken = Schema.Struct({ token: Schema.String, expiresIn: Schema.Number }).annotate({ identifier: "StreamToken" })

const Deleted = Schema.Struct({ id: Schema.String }).annotate({ identifier: "DeletedResource" })

const toLine = (line: Line) => ({
  id: line.lineId,
  platform: line.platform,
  phoneNumber: line.phoneNumber,
  voiceCapable: line.voiceCapable,
  createdAt: line.createdAt
})

/** Query of the user list: `?type=shared|dedicated` and up to 100 `?id=` (contract.md §5.2). */
const UserListQuery = Schema.Struct({
  type: Schema.optionalKey(UserType),
  id: Schema.optionalKey(Schema.Array(UserId).pipe(Schema.check(Schema.isMaxLength(100))))
})

const userListQuery = Effect.gen(function*() {
  const request = yield* HttpServerRequest.HttpServerRequest
  const params = new URL(request.url, "http://localhost").searchParams
  const types = params.getAll("type")
  if (types.length > 1) return yield* envelopeFailure(422, "VALIDATION_FAILED", "type: send it at most once.")
  const ids = params.getAll("id")
  const decoded = Schema.decodeUnknownResult(UserListQuery)({
    ...(types[0] === undefined ? {} : { type: types[0] }),
    ...(ids.length === 0 ? {} : { id: ids })
  })
  if (Result.isFailure(decoded)) {
    return yield* envelopeFailure(422, "VALIDATION_FAILED", "type must be shared or dedicated; id must be up to 100 user ids.")
  }
  return decoded.success
})

/** The router's limit on one path parameter (its default), in decoded characters. */
const MAX_PARAM_LENGTH = 100

/** Whether a segment of `url`'s path is longer than a path parameter may be. */
const overParamLimit = (url: string) => {
  const q = url.indexOf("?")
  return (q === -1 ? url : url.slice(0, q)).split("/").some((segment) => {
    if (segment.length <= MAX_PARAM_LENGTH) return false
    try {
      return decodeURIComponent(segment).length > MAX_PARAM_LENGTH
    } catch {
      return true
    }
  })
}

// ---------------------------------------------------------------------------------------------
// Routes
// ---------------------------------------------------------------------------------------------

type Method = "GET" | "POST" | "PATCH" | "DELETE"

/** (method, path) of each route, for 405 answers (patterns accept an optional trailing slash). */
export const managementRouteTable: ReadonlyArray<readonly [string, string]> = [
  ["GET", "/projects/:projectId"],
  ["GET", "/projects/:projectId/webhooks"],
  ["POST", "/projects/:projectId/webhooks"],
  ["GET", "/projects/:projectId/webhooks/egress-ips"],
  ["DELETE", "/projects/:projectId/webhooks/:webhookId"],
  ["GET", "/projects/:projectId/webhooks/:webhookId/deliveries"],
  ["POST", "/projects/:projectId/webhooks/:webhookId/deliveries/:eventId/retry"],
  ["GET", "/projects/:projectId/platforms"],
  ["PATCH", "/projects/:projectId/platforms"],
  ["GET", "/projects/:projectId/lines"],
  ["POST", "/projects/:projectId/lines"],
  ["DELETE", "/projects/:projectId/lines/:lineId"],
  ["GET", "/projects/:projectId/users"],
  ["POST", "/projects/:projectId/users"],
  ["GET", "/projects/:projectId/users/:userId"],
  ["DELETE", "/projects/:projectId/users/:userId"],
  ["POST", "/projects/:projectId/fusor/token"]
]

export const ManagementRoutes = HttpRouter.use((router) =>
  Effect.gen(function*() {
    const config = yield* ServerConfig
    const { guard, unmatched } = yield* makeManagementGuard
    const platforms = yield* Platforms
    const users = yield* ProjectUsers
    const webhooks = yield* ManagementWebhooks
    const lines = yield* Lines
    const streamTokens = yield* StreamTokens
    const avatar = defaultPictureUrl(config.apiUrl)

    /** Registers `path` (the router ignores a trailing slash) with the guard in front of `handler`. */
    const route = <R>(
      method: Method,
      path: string,
      use: ManagementUse,
      handler: (
        project: ProjectRecord,
        params: Readonly<Record<string, string | undefined>>
      ) => Effect.Effect<HttpServerResponse.HttpServerResponse, ManagementDomainError | EnvelopeFailure, R>
    ) => {
      const app = Effect.gen(function*() {
        const project = yield* guard(use)
        const params = yield* HttpRouter.params
        return yield* envelopeErrors(handler(project, params)).pipe(Effect.provideService(ServerConfig, config))
      })
      const at = path as HttpRouter.PathInput
      // HEAD answers as GET does (Node sends no body), as the `Allow` of 405 answers promises.
      if (method === "GET") {
        // The router's method type leaves HEAD out, though its matcher takes it; HEAD must be a
        // route here, or the `/projects/*` fallback would take it before the GET route.
        return Effect.andThen(router.add("GET", at, app), router.add("HEAD" as "GET", at, app))
      }
      return router.add(method, at, app)
    }

    yield* route("GET", "/projects/:projectId", "read", (project) =>
      envelope(ManagementProject, {
        id: project.projectId,
        name: project.name,
        slug: project.slug,
        profile: toAgentProfile(project, avatar)
      }))

    // Webhooks (interface B).
    yield* route("GET", "/projects/:projectId/webhooks", "read", (project) =>
      Effect.flatMap(webhooks.list(project.projectId), (list) => envelope(Schema.Array(ManagementWebhookSchema), [...list])))
    yield* route("POST", "/projects/:projectId/webhooks", "write", (project) =>
      Effect.gen(function*() {
        const body = yield* jsonBody(CreateWebhookRequest)
        const { signingSecret, webhook } = yield* webhooks.create({ projectId: project.projectId, webhookUrl: body.webhookUrl })
        return yield* envelope(CreatedManagementWebhook, {
          id: webhook.id,
          webhookUrl: webhook.webhookUrl,
          signingSecret: Redacted.value(signingSecret),
          createdAt: webhook.createdAt,
          updatedAt: webhook.updatedAt
        })
      }))
    yield* route("GET", "/projects/:projectId/webhooks/egress-ips", "read", () =>
      envelope(EgressAddresses, { addresses: [...config.egressIps] }))
    yield* route("DELETE", "/projects/:projectId/webhooks/:webhookId", "write", (project, params) =>
      Effect.flatMap(
        webhooks.remove({ projectId: project.projectId, webhookId: params["webhookId"] ?? "" }),
        (webhook) => envelope(Deleted, { id: webhook.id })
      ))

    // Deliveries of a webhook: dead letters stay visible and can be retried.
    yield* route("GET", "/projects/:projectId/webhooks/:webhookId/deliveries", "read", (project, params) =>
      Effect.gen(function*() {
        const query = yield* deliveryListQuery
        const page = yield* webhooks.listDeliveries({ projectId: project.projectId, webhookId: params["webhookId"] ?? "", ...query })
        return yield* envelope(WebhookDeliveryPage, {
          deliveries: page.deliveries,
          ...(page.nextPageToken === undefined ? {} : { nextPageToken: page.nextPageToken })
        })
      }))
    yield* route("POST", "/projects/:projectId/webhooks/:webhookId/deliveries/:eventId/retry", "write", (project, params) =>
      Effect.gen(function*() {
        const body = yield* retryBody
        const delivery = yield* webhooks.retryDelivery({
          projectId: project.projectId,
          webhookId: params["webhookId"] ?? "",
          eventId: params["eventId"] ?? "",
          expectedAttemptCount: body.expectedAttemptCount
        })
        return yield* envelope(WebhookDelivery, delivery)
      }))

    // Platforms (interface C).
    yield* route("GET", "/projects/:projectId/platforms", "read", (project) =>
      Effect.flatMap(platforms.get(project.projectId), (states) => envelope(PlatformStatesSchema, states)))
    yield* route("PATCH", "/projects/:projectId/platforms", "write", (project) =>
      Effect.gen(function*() {
        const body = yield* jsonBody(TogglePlatformRequest)
        const states = yield* platforms.set({ projectId: project.projectId, platform: body.platform, enabled: body.enabled })
        return yield* envelope(PlatformStatesSchema, states)
      }))

    // Lines (interface A).
    const LineList = Schema.Struct({ lines: Schema.Array(ManagementLine) })
    yield* route("GET", "/projects/:projectId/lines", "read", (project) =>
      Effect.flatMap(lines.list(project.projectId), (list) => envelope(LineList, { lines: list.map(toLine) })))
    yield* route("POST", "/projects/:projectId/lines", "write", (project) =>
      Effect.gen(function*() {
        const body = yield* jsonBody(AllocateLineRequest)
        const line = yield* lines.allocate({ projectId: project.projectId, platform: body.platform })
        return yield* envelope(Schema.Struct({ line: ManagementLine }), { line: toLine(line) })
      }))
    yield* route("DELETE", "/projects/:projectId/lines/:lineId", "write", (project, params) =>
      Effect.flatMap(
        lines.release({ projectId: project.projectId, lineId: params["lineId"] ?? "" }),
        (line) => envelope(Deleted, { id: line.lineId })
      ))

    // Users.
    const UserList = Schema.Struct({ users: Schema.Array(ProjectUser) })
    const userOf = (u: ProjectUser): ProjectUser => ({
      id: u.id,
      projectId: u.projectId,
      firstName: u.firstName,
      lastName: u.lastName,
      email: u.email,
      phoneNumber: u.phoneNumber,
      assignedPhoneNumber: u.assignedPhoneNumber,
      createdAt: u.createdAt
    })
    yield* route("GET", "/projects/:projectId/users", "read", (project) =>
      Effect.gen(function*() {
        const query = yield* userListQuery
        const list = yield* users.list({ projectId: project.projectId, type: query.type, ids: query.id })
        return yield* envelope(UserList, { users: list.map(userOf) })
      }))
    yield* route("POST", "/projects/:projectId/users", "write", (project) =>
      Effect.gen(function*() {
        const body = yield* jsonBody(CreateUserRequest)
        // A dedicated user's number must be one of the project's lines (read through interface A).
        const assigned = body.assignedPhoneNumber ?? null
        const lineNumbers = assigned === null ? [] : (yield* lines.list(project.projectId)).map((l) => l.phoneNumber)
        const { user } = yield* users.create({
          projectId: project.projectId,
          phoneNumber: body.phoneNumber,
          firstName: body.firstName,
          lastName: body.lastName,
          email: body.email,
          assignedPhoneNumber: assigned
        }, lineNumbers)
        return yield* envelope(ProjectUser, userOf(user))
      }))
    yield* route("GET", "/projects/:projectId/users/:userId", "read", (project, params) =>
      Effect.flatMap(users.get(project.projectId, params["userId"] ?? ""), (user) => envelope(ProjectUser, userOf(user))))
    yield* route("DELETE", "/projects/:projectId/users/:userId", "write", (project, params) =>
      Effect.flatMap(users.remove(project.projectId, params["userId"] ?? ""), (user) => envelope(Deleted, { id: user.id })))

    // The event channel's stream token (issue 14; spectrum-ts src/utils/cloud.ts `issueFusorToken`).
    // The guard checks the current secret, so a rotated secret mints nothing from then on.
    yield* route("POST", "/projects/:projectId/fusor/token", "read", (project) =>
      Effect.flatMap(streamTokens.mint(project.projectId), (minted) => envelope(StreamToken, minted)))

    // Anything else under /projects: refused over plaintext, else 404 or 405 (the global middleware).
    // A path with a segment over the router's parameter limit is no route of the API, this one
    // included: it is answered as it is (422, the global middleware), with no HTTPS check or count.
    const fallback = Effect.gen(function*() {
      const plain = yield* HttpServerRequest.HttpServerRequest
      const request = overParamLimit(plain.url) ? plain : yield* unmatched
      return yield* new HttpServerError.HttpServerError({ reason: new HttpServerError.RouteNotFound({ request }) })
    })
    // `/projects/*` takes `/projects` too.
    yield* router.add("*", "/projects/*", fallback)
  }))
