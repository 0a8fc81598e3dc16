/**
 * Every declared route of the server, taken from the route declarations (the versioned API's
 * `HttpApi`, reflected, and the table of every other route — not a hand list), each with a request
 * that decodes: a body and a query built from the route's declared schemas (their documentation
 * examples, `docs/Examples.ts`), and a well-formed value for each path parameter. Suites that sweep
 * the routes (the reach sweep, the wire-contract recording) share these.
 */
import { HttpApi, type HttpApiEndpoint } from "effect/http-api"
import { Schema, SchemaAST } from "effect"
import { featureRouteTable, V1Api } from "../../src/Features.js"
import { exampleOf } from "../../src/docs/Examples.js"
import { surfaceOf } from "../../src/http/Surfaces.js"
import { documentedSchema } from "../../src/v1/Declare.js"
import { dashboardEndpoints } from "../../src/dashboard/DashboardApi.js"
import { managementEndpoints, payloadSchema } from "../../src/docs/ManagementOpenApi.js"

export interface Route {
  readonly method: string
  /** Router form, `:param` segments. */
  readonly path: string
  /** The surface its path belongs to (`surfaceOf`), the console's pages apart. */
  readonly surface: "v1" | "dashboard" | "management" | "oauth" | "console"
  /** `group.endpoint` for a /v1 endpoint. */
  readonly operationId?: string
  /** A request body that decodes, from the route's declared payload schema (its documentation example). */
  readonly body: unknown
  /** A query string that decodes, from the route's declared query schema. */
  readonly query?: string
  /** A body that is not JSON. */
  readonly raw?: { readonly type: string; readonly bytes: string }
}

export const projectScoped = (path: string) => /\/:projectId(\/|$)/.test(path) || /^\/api\/projects\/:id(\/|$)/.test(path)

const bodyOf = (schema: Schema.Codec<any, any, never> | undefined): unknown => {
  if (schema === undefined) return undefined
  const example = exampleOf(schema)
  if (example === undefined) throw new Error(`no example decodes for ${String(schema.ast)}`)
  return example
}

/** The required members of a query schema, each with its example (optional members are left out). */
const requiredQueryOf = (schema: Schema.Codec<any, any, never>): string => {
  const ast = schema.ast
  if (!SchemaAST.isObjects(ast)) throw new Error(`a query schema that is not a struct: ${String(schema.ast)}`)
  const params = new URLSearchParams()
  for (const p of ast.propertySignatures) {
    if (SchemaAST.isOptional(p.type)) continue
    const example = exampleOf(Schema.make(p.type))
    if (example === undefined) throw new Error(`no example for the query member ${String(p.name)}`)
    params.set(String(p.name), String(example))
  }
  return params.toString()
}

/**
 * Where a request that decodes is still not one the route goes on with — the example is refused by
 * a check past the schema, or the body is not JSON — the request sent instead.
 */
const overrides: Record<string, { readonly body?: unknown; readonly raw?: { readonly type: string; readonly bytes: string }; readonly query?: string }> = {
  // The example's area code has no coverage in the number provider's inventory.
  "POST /v1/projects/:projectId/platforms/sms/numbers": { body: { countryCode: "US" } },
  // An upload: the file's bytes, not JSON.
  "POST /v1/projects/:projectId/attachments": { raw: { type: "text/plain", bytes: "hello" } },
  // An inbound attachment's bytes: the file, not JSON.
  "PUT /v1/projects/:projectId/attachments/:attachmentId/content": { raw: { type: "application/octet-stream", bytes: "hello" } },
  // Queries a request needs that the declared query's examples do not give: a member decoded from
  // a string into a checked number (no example string is derived), or a query the handler reads
  // itself (the SMS campaign's), or a value a check past the schema needs.
  "DELETE /v1/projects/:projectId/platforms/sms/lines/:resourceId/campaign": { query: "expectedVersion=1" },
  "DELETE /v1/projects/:projectId/platforms/voice/profiles/:profileId": { query: "expectedVersion=1" },
  "DELETE /v1/projects/:projectId/platforms/voice/profiles/:profileId/outbound": { query: "expectedVersion=1" },
  "DELETE /v1/projects/:projectId/platforms/voice/profiles/:profileId/inbound": { query: "expectedVersion=1" },
  "DELETE /v1/projects/:projectId/platforms/voice/lines/:lineId/profile": { query: "expectedVersion=1" },
  "GET /v1/projects/:projectId/platforms/sms/numbers/area-codes": { query: "countryCode=US" },
  "GET /v1/projects/:projectId/platforms/whatsapp-business/numbers/:resourceId/verification-code": { query: "receivedAfter=2026-01-01T00:00:00Z" }
}

/** An endpoint's declared body: its one payload schema (several: their union), whatever the content type. */
const payloadOf = (endpoint: HttpApiEndpoint.Top): Schema.Top | undefined => {
  const schemas = [...endpoint.payload.values()].flatMap((p) => p.schemas.map(documentedSchema))
  return schemas.length <= 1 ? schemas[0] : Schema.Union(schemas)
}

/** Every endpoint of the versioned API's declaration, in declaration order. */
export const v1Routes: ReadonlyArray<Route> = (() => {
  const routes: Array<Route> = []
  HttpApi.reflect(V1Api, {
    onGroup: () => {},
    onEndpoint: ({ endpoint, group }) => {
      // The declaration's schemas are typed `Schema.Top`; a declared body or query needs no services.
      const payload = payloadOf(endpoint) as Schema.Codec<any, any, never> | undefined
      const query = endpoint.query as Schema.Codec<any, any, never> | undefined
      const override = overrides[`${endpoint.method} ${endpoint.path}`]
      routes.push({
        method: endpoint.method,
        path: endpoint.path,
        surface: surfaceOf(endpoint.path) === "oauth" ? "oauth" : "v1",
        operationId: `${group.identifier}.${endpoint.identifier}`,
        body: endpoint.method === "GET" || endpoint.method === "DELETE" ? undefined : bodyOf(payload),
        ...(query === undefined || override?.query !== undefined ? {} : { query: requiredQueryOf(query) }),
        ...override
      })
    }
  })
  return routes
})()

/** The management API's endpoints (its declaration, reflected) with their declared body. */
const managementBodies = [...managementEndpoints().values()].map((endpoint) => {
  const body = payloadSchema(endpoint) as Schema.Codec<any, any> | undefined
  return { method: endpoint.method, path: endpoint.path, ...(body === undefined ? {} : { body }) }
})

/**
 * Every route outside the HttpApi (Dashboard, OAuth, management, uploads, checkout, SSO, ingress,
 * the console), HEAD apart (the router answers it as GET), with the declared body of the
 * Dashboard and management operations.
 */
export const featureRoutes: ReadonlyArray<Route> = featureRouteTable
  .filter(([method]) => method !== "HEAD")
  .map(([method, path]) => {
    const surface = path === "/" || path.startsWith("/console/") || path === "/console" ? "console" : surfaceOf(path)
    const declared: { readonly body?: Schema.Top } | undefined = surface === "dashboard"
      ? dashboardEndpoints.find((o) => o.method === method && o.path === path)
      : surface === "management"
      ? managementBodies.find((o) => o.method === method && o.path === path)
      : undefined
    return { method, path, surface, body: bodyOf(declared?.body as Schema.Codec<any, any, never> | undefined) }
  })

export const typeId = (kind: string) => `sb_${kind}_01jdm8v6q0r5x3k2w9c7t4b1ze`

/** The TypeID kind of a path parameter, by name (and route where one name means two kinds). */
export const parameterKind = (name: string, path: string): string | undefined => {
  switch (name) {
    case "apiKeyId": return "sk"
    case "profileId": return "vpr"
    case "lineId": return "lin"
    case "callId": return "call"
    case "operationId": return path.includes("/billing/") ? "bop" : "opr"
    case "destinationId": return "whd"
    case "endpointId": return "ing"
    case "resourceId": return "res"
    case "assignmentId": return "asg"
    case "attachmentId": return "att"
    case "messageId": return "msg"
    case "eventId": return "evt"
    case "userId": return "usr"
    case "webhookId": return "whd"
  }
  return undefined
}

/**
 * A well-formed value of a project-scoped route's other path parameters, by name: a route must
 * decide reach before it looks the resource up, so these need not exist. A parameter not listed
 * here throws: add it when adding the route.
 */
export const parameterValue = (name: string, path: string): string => {
  const kind = parameterKind(name, path)
  if (kind !== undefined) return typeId(kind)
  switch (name) {
    case "eventType": return "message.received"
    case "fixedChargeCode": return "seats"
    case "kind": return "destinations"
  }
  throw new Error(`no value for the path parameter :${name} of ${path}`)
}
