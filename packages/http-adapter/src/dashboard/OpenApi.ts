/**
 * `GET /api/openapi.json`: the OpenAPI 3.1 document of the Dashboard API, from `OpenApi.fromApi`
 * over its declaration (dashboard/DashboardApi.ts), each operation then described as it is on the
 * wire: its path parameters, the callers it admits (`security`, `x-required-scope`), its success
 * envelope and failure envelopes with examples, and its body in the three content types it is
 * read from (routes/DashboardBody.ts). The schemas are described as the handlers encode and decode
 * them (`componentSchemas`, as the /v1 and management documents are), not as their JSON codecs.
 */
import { OpenApi } from "effect/http-api"
import { Schema } from "effect"
import { exampleOf } from "../docs/Examples.js"
import { withoutBuiltinIds } from "../docs/JsonSchemaIds.js"
import { asPublished, componentSchemas } from "../http/JsonSchemaComponents.js"
import { DashboardApi, type DashboardEndpoint, dashboardEndpoints } from "./DashboardApi.js"
import type { FailureStatus } from "./Declare.js"
import { dashboardAuthDescription } from "../docs/AuthDescriptions.js"
import { documentLicense } from "../docs/PackageVersion.js"

type Json = Record<string, any>

const scopes: Record<string, string> = {
  openid: "identify the user", profile: "name and profile picture", email: "email address", offline_access: "refresh token",
  "projects:read": "view projects", "projects:write": "create, edit, delete projects", "members:read": "see collaborators",
  "members:write": "invite and remove collaborators", "webhooks:read": "view project webhooks",
  "webhooks:write": "create and delete project webhooks", "billing:read": "view subscription and billing",
  "billing:write": "manage subscription, start checkout", "spectrum:read": "view platform configuration",
  "spectrum:write": "edit platform configuration", "payments:read": "view payment provider setup",
  "payments:write": "enable and manage payment providers"
}

const errorCodes: Record<FailureStatus, string> = { 401: "NOT_AUTHENTICATED", 403: "FORBIDDEN", 404: "NOT_FOUND", 422: "VALIDATION_FAILED", 500: "INTERNAL_ERROR" }

const failureDescription = (o: DashboardEndpoint, status: FailureStatus): string => {
  switch (status) {
    case 401:
      return "Missing, expired or revoked session or token"
    case 403:
      return o.access._tag === "Scope"
        ? `The token lacks the scope (message contains insufficient_scope: ${o.access.scope})`
        : o.access._tag === "Session"
        ? "Needs a signed-in session; OAuth tokens are refused"
        : "Forbidden"
    case 404:
      return "Not found, or not visible to the caller"
    case 422:
      return "The body failed schema validation"
    case 500:
      return "Service-side error, safe to retry with backoff"
  }
}

const failureResponse = (o: DashboardEndpoint, status: FailureStatus) => {
  const description = failureDescription(o, status)
  return {
    description,
    content: {
      "application/json": {
        schema: { $ref: "#/components/schemas/ErrorEnvelope" },
        example: { succeed: false, message: description, code: errorCodes[status] }
      }
    }
  }
}

const successResponse = (o: DashboardEndpoint, schemaOf: (schema: Schema.Top) => Json): Json => {
  if (o.data === undefined) return { description: "OpenAPI 3.1 document", content: { "application/json": { schema: { type: "object" } } } }
  const { list, schema } = o.data
  return {
    description: "Success",
    content: {
      "application/json": {
        schema: {
          type: "object",
          required: ["succeed", "data"],
          properties: { succeed: { type: "boolean", const: true }, data: list ? { type: "array", items: schemaOf(schema) } : schemaOf(schema) }
        },
        example: { succeed: true, data: exampleOf((list ? Schema.Array(schema) : schema) as Schema.Codec<any, any, never>) }
      }
    }
  }
}

/** An operation of `OpenApi.fromApi`'s document as the Dashboard API answers it. */
const describe = (generated: Json, o: DashboardEndpoint, schemaOf: (schema: Schema.Top) => Json): Json => {
  const params = [...o.path.matchAll(/:([A-Za-z]+)/g)].map((m) => ({ name: m[1], in: "path", required: true, schema: { type: "string", maxLength: 100 } }))
  const responses: Json = { "200": successResponse(o, schemaOf) }
  for (const status of [...o.failures].sort((a, b) => a - b)) responses[String(status)] = failureResponse(o, status)
  const security = o.access._tag === "Public"
    ? []
    : o.access._tag === "Session"
    ? [{ session: [] }]
    : [{ session: [] }, { oauth2: o.access._tag === "Scope" ? [o.access.scope] : [] }]
  const entry: Json = {
    operationId: generated.operationId,
    tags: generated.tags,
    summary: generated.summary,
    description: generated.description,
    ...(params.length > 0 ? { parameters: params } : {}),
    security,
    responses
  }
  if (o.access._tag === "Scope") entry["x-required-scope"] = o.access.scope
  if (o.body !== undefined) {
    const body = schemaOf(o.body)
    entry.requestBody = {
      required: true,
      description: "The same schema in all three content types; form fields are coerced (booleans, numbers, lists).",
      content: {
        "application/json": { schema: body, example: exampleOf(o.body as Schema.Codec<any, any, never>) },
        "application/x-www-form-urlencoded": { schema: body },
        "multipart/form-data": { schema: body }
      }
    }
  }
  return entry
}

/** The OpenAPI 3.1 document of the Dashboard API. */
export const dashboardOpenApi = (dashboardUrl: string): Json => {
  // A copy: `OpenApi.fromApi` hands out the description it keeps for the API.
  const generated = structuredClone(OpenApi.fromApi(DashboardApi)) as unknown as Json
  const definitions: Record<string, any> = {}
  const schemaOf = componentSchemas(definitions)
  const paths: Json = {}
  for (const o of dashboardEndpoints) {
    const path = o.path.replace(/:([A-Za-z]+)/g, "{$1}")
    const method = o.method.toLowerCase()
    const operation = generated.paths?.[path]?.[method]
    if (operation === undefined) throw new Error(`OpenApi.fromApi left out ${o.method} ${o.path}`)
    paths[path] = { ...paths[path], [method]: describe(operation, o, schemaOf) }
  }
  return withoutBuiltinIds(asPublished({
    openapi: "3.1.0",
    info: {
      title: generated.info.title,
      version: generated.info.version,
      description: dashboardAuthDescription,
      license: documentLicense
    },
    servers: [{ url: dashboardUrl }],
    tags: (generated.tags as Array<Json>).map(({ description, name }) => ({ name, description })),
    paths,
    components: {
      schemas: {
        ...definitions,
        ErrorEnvelope: {
          type: "object",
          required: ["succeed", "message"],
          properties: {
            succeed: { type: "boolean", const: false },
            message: { type: "string" },
            code: { type: "string", minLength: 1 }
          }
        }
      },
      securitySchemes: {
        session: {
          type: "apiKey",
          in: "cookie",
          name: "sb_session",
          description: "A signed-in session (sign in at `/sign-in`): every scope. State-changing requests also need `X-CSRF-Token`, a same-origin `Origin` or `X-Requested-With`."
        },
        oauth2: {
          type: "oauth2",
          description: "An access token from this server's OAuth 2.0 provider, sent as `Authorization: Bearer <token>`: the scopes the person granted the app.",
          flows: {
            authorizationCode: {
              authorizationUrl: `${dashboardUrl}/api/auth/oauth2/authorize`,
              tokenUrl: `${dashboardUrl}/api/auth/oauth2/token`,
              refreshUrl: `${dashboardUrl}/api/auth/oauth2/token`,
              scopes
            }
          }
        }
      }
    }
  }))
}
