/**
 * Every management API operation (API.md §4) in one table — method, path, summary, description,
 * the errors it answers, the request body and the response data — from which
 * `GET /projects/openapi.json` (OpenAPI 3.1) is written, as the Dashboard API's is from its table.
 * A route added to `ManagementRoutes.ts` without a row here fails the documentation test.
 */
import { WebhookDelivery, WebhookDeliveryPage } from "@switchboard/core/events"
import { CreateUserRequest, PlatformStatesSchema, ProjectUser, TogglePlatformRequest } from "@switchboard/core/projects"
import { Schema } from "effect"
import { componentSchemas, asPublished } from "../http/JsonSchemaComponents.js"
import { exampleOf } from "../docs/Examples.js"
import { withoutBuiltinIds } from "../docs/JsonSchemaIds.js"
import {
  AllocateLineRequest,
  CreatedManagementWebhook,
  CreateWebhookRequest,
  EgressAddresses,
  ManagementLine,
  ManagementProject,
  ManagementWebhookSchema,
  RetryDeliveryRequest,
  StreamToken
} from "./ManagementRoutes.js"

export const ManagementDeleted = Schema.Struct({ id: Schema.String }).annotate({ identifier: "DeletedResource" })
const LineList = Schema.Struct({ lines: Schema.Array(ManagementLine) }).annotate({ identifier: "ManagementLineList" })
const AllocatedLine = Schema.Struct({ line: ManagementLine }).annotate({ identifier: "AllocatedLine" })
const UserList = Schema.Struct({ users: Schema.Array(ProjectUser) }).annotate({ identifier: "ProjectUserList" })
const WebhookList = Schema.Array(ManagementWebhookSchema)

export interface ManagementOperation {
  readonly operationId: string
  readonly method: "GET" | "POST" | "PATCH" | "DELETE"
  /** Router form: `:param` segments. */
  readonly path: string
  readonly summary: string
  readonly description: string
  /** Error codes beyond the ones every route answers (401, 403 HTTPS_REQUIRED, 404 PROJECT_*, 429, 500). */
  readonly errors: ReadonlyArray<readonly [number, string]>
  readonly query?: ReadonlyArray<{ readonly name: string; readonly description: string; readonly schema: Record<string, unknown> }>
  readonly body?: Schema.Codec<any, any>
  readonly data: Schema.Codec<any, any>
}

const write: ReadonlyArray<readonly [number, string]> = [[409, "PROJECT_CLOSING"], [413, "PAYLOAD_TOO_LARGE"], [415, "UNSUPPORTED_MEDIA_TYPE"], [422, "VALIDATION_FAILED"]]
const remove: ReadonlyArray<readonly [number, string]> = [[409, "PROJECT_CLOSING"]]

export const managementOperations: ReadonlyArray<ManagementOperation> = [
  {
    operationId: "getManagedProject", method: "GET", path: "/projects/:projectId", data: ManagementProject, errors: [],
    summary: "The project",
    description: "The project the credentials belong to: its id, name, slug and agent profile."
  },
  {
    operationId: "listManagementWebhooks", method: "GET", path: "/projects/:projectId/webhooks", data: WebhookList, errors: [],
    summary: "List management webhooks",
    description: "The project's management webhooks, oldest first. Signing secrets are never shown again after creation."
  },
  {
    operationId: "createManagementWebhook", method: "POST", path: "/projects/:projectId/webhooks", body: CreateWebhookRequest,
    data: CreatedManagementWebhook, errors: [...write, [409, "WEBHOOK_URL_TAKEN"], [409, "WEBHOOK_LIMIT_REACHED"]],
    summary: "Add a management webhook",
    description: "Registers an HTTPS URL that receives the project's events. The answer carries the signing secret " +
      "(Standard Webhooks) once: store it to verify deliveries."
  },
  {
    operationId: "getWebhookEgressAddresses", method: "GET", path: "/projects/:projectId/webhooks/egress-ips", data: EgressAddresses, errors: [],
    summary: "Webhook egress addresses",
    description: "The IP addresses deliveries are sent from, for a receiver's allow list."
  },
  {
    operationId: "deleteManagementWebhook", method: "DELETE", path: "/projects/:projectId/webhooks/:webhookId", data: ManagementDeleted,
    errors: [...remove, [404, "WEBHOOK_NOT_FOUND"]],
    summary: "Remove a management webhook",
    description: "Stops deliveries to the webhook; pending deliveries are cancelled."
  },
  {
    operationId: "listWebhookDeliveries", method: "GET", path: "/projects/:projectId/webhooks/:webhookId/deliveries", data: WebhookDeliveryPage,
    errors: [[404, "WEBHOOK_NOT_FOUND"], [422, "VALIDATION_FAILED"]],
    query: [
      { name: "status", description: "only deliveries in this state", schema: { type: "string", enum: ["pending", "delivered", "dead_lettered", "cancelled"] } },
      { name: "pageSize", description: "1-100, default 20", schema: { type: "integer", minimum: 1, maximum: 100 } },
      { name: "pageToken", description: "nextPageToken of the previous page", schema: { type: "string", minLength: 1, maxLength: 2048 } }
    ],
    summary: "List a webhook's deliveries",
    description: "The delivery log, newest first: status, attempts, the last response. Dead-lettered deliveries stay here and can be retried."
  },
  {
    operationId: "retryWebhookDelivery", method: "POST", path: "/projects/:projectId/webhooks/:webhookId/deliveries/:eventId/retry",
    body: RetryDeliveryRequest, data: WebhookDelivery,
    errors: [...write, [404, "WEBHOOK_NOT_FOUND"], [404, "DELIVERY_NOT_FOUND"], [409, "RETRY_REFUSED"]],
    summary: "Retry a delivery",
    description: "Makes a dead-lettered or failed delivery due now. With `expectedAttemptCount` the retry is refused (409) " +
      "if another attempt happened meanwhile. The body is optional."
  },
  {
    operationId: "getManagedPlatforms", method: "GET", path: "/projects/:projectId/platforms", data: PlatformStatesSchema, errors: [],
    summary: "Platform states",
    description: "Whether each of the seven messaging platforms is on for the project."
  },
  {
    operationId: "toggleManagedPlatform", method: "PATCH", path: "/projects/:projectId/platforms", body: TogglePlatformRequest,
    data: PlatformStatesSchema, errors: write,
    summary: "Turn a platform on or off",
    description: "Sets one platform's state and answers all seven."
  },
  {
    operationId: "listLines", method: "GET", path: "/projects/:projectId/lines", data: LineList, errors: [],
    summary: "List lines",
    description: "The phone lines allocated to the project."
  },
  {
    operationId: "allocateLine", method: "POST", path: "/projects/:projectId/lines", body: AllocateLineRequest, data: AllocatedLine,
    errors: [...write, [503, "LINE_UNAVAILABLE"]],
    summary: "Allocate a line",
    description: "Allocates a phone line on a platform to the project; 503 when none is free."
  },
  {
    operationId: "releaseLine", method: "DELETE", path: "/projects/:projectId/lines/:lineId", data: ManagementDeleted,
    errors: [...remove, [404, "LINE_NOT_FOUND"]],
    summary: "Release a line",
    description: "Gives the line back; users assigned to its number keep their record."
  },
  {
    operationId: "listProjectUsers", method: "GET", path: "/projects/:projectId/users", data: UserList, errors: [[422, "VALIDATION_FAILED"]],
    query: [
      { name: "type", description: "shared or dedicated users only", schema: { type: "string", enum: ["shared", "dedicated"] } },
      { name: "id", description: "up to 100 user ids (repeat the parameter)", schema: { type: "string", maxLength: 100 } }
    ],
    summary: "List users",
    description: "The project's users, filtered by type or by ids."
  },
  {
    operationId: "createProjectUser", method: "POST", path: "/projects/:projectId/users", body: CreateUserRequest, data: ProjectUser,
    errors: [...write, [409, "USER_EXISTS"], [409, "USER_LIMIT_REACHED"]],
    summary: "Create a user",
    description: "Adds a user by phone number. A dedicated user's `assignedPhoneNumber` must be one of the project's lines."
  },
  {
    operationId: "getProjectUser", method: "GET", path: "/projects/:projectId/users/:userId", data: ProjectUser, errors: [[404, "USER_NOT_FOUND"]],
    summary: "One user",
    description: "A user of the project by id."
  },
  {
    operationId: "deleteProjectUser", method: "DELETE", path: "/projects/:projectId/users/:userId", data: ManagementDeleted,
    errors: [...remove, [404, "USER_NOT_FOUND"]],
    summary: "Remove a user",
    description: "Removes the user from the project."
  },
  {
    operationId: "issueStreamToken", method: "POST", path: "/projects/:projectId/fusor/token", data: StreamToken, errors: [],
    summary: "Mint an event-channel token",
    description: "Mints a short-lived stream token (an EdDSA JWT, `expiresIn` seconds) for the event channel's WebSocket at " +
      "`/v1/subscribe`; it is accepted nowhere else. Takes no body; the management secret must be the current one, so a " +
      "rotated secret mints nothing (401)."
  }
]

type Json = Record<string, any>

const common: ReadonlyArray<readonly [number, string, string]> = [
  [401, "NOT_AUTHENTICATED", "Missing or wrong `projectId:projectSecret` Basic credentials"],
  [403, "HTTPS_REQUIRED", "The request came over plain HTTP"],
  [404, "PROJECT_NOT_FOUND", "No such project, or it was deleted (`PROJECT_DELETED`)"],
  [429, "RATE_LIMITED", "Too many requests; retry after `Retry-After` seconds"],
  [500, "INTERNAL_ERROR", "Service-side error, safe to retry with backoff"]
]

const errorEnvelope = (code: string, message: string) => ({ succeed: false, message, code })

/** The OpenAPI 3.1 document of the management API (`GET /projects/openapi.json`). */
export const managementOpenApi = (managementUrl: string, version = "0.1.0"): Json => {
  const definitions: Record<string, any> = {}
  const schemaOf = componentSchemas(definitions)
  const paths: Json = {}
  for (const o of managementOperations) {
    const path = o.path.replace(/:([A-Za-z]+)/g, "{$1}")
    const parameters = [
      ...[...o.path.matchAll(/:([A-Za-z]+)/g)].map((m) => ({
        name: m[1],
        in: "path",
        required: true,
        description: m[1] === "projectId" ? "The project's id (the Basic user name)" : `The ${m[1]!.replace(/Id$/, "")}'s id`,
        schema: { type: "string", minLength: 1, maxLength: 100 }
      })),
      ...(o.query ?? []).map((q) => ({ ...q, in: "query", required: false }))
    ]
    const responses: Json = {
      "200": {
        description: "Success",
        content: {
          "application/json": {
            schema: { type: "object", required: ["succeed", "data"], properties: { succeed: { type: "boolean", const: true }, data: schemaOf(o.data) } },
            example: { succeed: true, data: exampleOf(o.data as Schema.Codec<any, any, never>) }
          }
        }
      }
    }
    const errors = new Map<number, Array<readonly [string, string]>>()
    for (const [status, code, why] of common) errors.set(status, [[code, why]])
    for (const [status, code] of o.errors) errors.set(status, [...(errors.get(status) ?? []), [code, code]])
    for (const [status, list] of [...errors.entries()].sort(([a], [b]) => a - b)) {
      responses[String(status)] = {
        description: list.map(([code, why]) => code === why ? `\`${code}\`` : `\`${code}\`: ${why}`).join("; "),
        content: {
          "application/json": {
            schema: { $ref: "#/components/schemas/ErrorEnvelope" },
            example: errorEnvelope(list[0]![0], list[0]![1])
          }
        }
      }
    }
    const entry: Json = {
      operationId: o.operationId,
      tags: [o.path.split("/")[3] === undefined ? "Project" : capitalize(o.path.split("/")[3]!)],
      summary: o.summary,
      description: o.description,
      parameters,
      responses
    }
    if (o.body !== undefined) {
      entry.requestBody = {
        required: o.operationId !== "retryWebhookDelivery",
        content: { "application/json": { schema: schemaOf(o.body), example: exampleOf(o.body as Schema.Codec<any, any, never>) } }
      }
    }
    paths[path] = { ...paths[path], [o.method.toLowerCase()]: entry }
  }
  return withoutBuiltinIds(asPublished({
    openapi: "3.1.0",
    info: {
      title: "Switchboard management API",
      version,
      description: "Manage one project with its management secret: webhooks and their delivery log, platforms, lines, " +
        "users and event-channel tokens. HTTPS only; HTTP Basic with the project id as user name and the management secret as password. Every " +
        "response is an envelope: `{succeed: true, data}` or `{succeed: false, message, code}`; the HTTP status is authoritative.",
      license: { name: "UNLICENSED", identifier: "UNLICENSED" }
    },
    servers: [{ url: managementUrl }],
    tags: [
      { name: "Project", description: "The project the credentials belong to" },
      { name: "Webhooks", description: "Management webhooks and their deliveries" },
      { name: "Platforms", description: "Messaging platforms on or off" },
      { name: "Lines", description: "Phone lines of the project" },
      { name: "Users", description: "Users of the project" },
      { name: "Fusor", description: "Stream tokens for the event channel (docs/event-channel.md)" }
    ],
    security: [{ basic: [] }],
    paths,
    components: {
      schemas: {
        ...definitions,
        ErrorEnvelope: {
          type: "object",
          required: ["succeed", "message", "code"],
          properties: { succeed: { type: "boolean", const: false }, message: { type: "string" }, code: { type: "string", minLength: 1 } }
        }
      },
      securitySchemes: {
        basic: { type: "http", scheme: "basic", description: "User name: the project id. Password: the project's management secret." }
      }
    }
  }))
}

const capitalize = (s: string) => s.charAt(0).toUpperCase() + s.slice(1)
