/**
 * `GET /projects/openapi.json`: the management API's OpenAPI 3.1 document, from its declaration
 * (`OpenApi.fromApi(ManagementApi)`, management/ManagementApi.ts) and its schemas, written the way
 * the document has always read: each operation by its own id, the path parameters described by
 * name, each query member by its schema's type side (what the handler receives), the success as
 * the envelope around the data (schema and example from the data schema, as `envelope` encodes
 * it), and every error response as an `ErrorEnvelope`, grouped by status, from the endpoint's
 * declared failures (management/ManagementDeclare.ts).
 */
import { HttpApi, type HttpApiEndpoint, OpenApi } from "effect/http-api"
import { Schema, SchemaAST } from "effect"
import { asPublished, componentSchemas } from "../http/JsonSchemaComponents.js"
import { ManagementApi } from "../management/ManagementApi.js"
import { bodyIsOptional, declaredFailures, envelopeData } from "../management/ManagementDeclare.js"
import { exampleOf } from "./Examples.js"
import { withoutBuiltinIds } from "./JsonSchemaIds.js"
import { managementAuthDescription } from "./AuthDescriptions.js"
import { documentLicense } from "./PackageVersion.js"

type Json = Record<string, any>

/** What the common codes stand for (every endpoint declares them, ManagementDeclare.ts `commonCodes`). */
const why: Record<string, string> = {
  NOT_AUTHENTICATED: "Missing or wrong `projectId:projectSecret` Basic credentials",
  HTTPS_REQUIRED: "The request came over plain HTTP",
  PROJECT_NOT_FOUND: "No such project, or it was deleted (`PROJECT_DELETED`)",
  RATE_LIMITED: "Too many requests; retry after `Retry-After` seconds",
  INTERNAL_ERROR: "Service-side error, safe to retry with backoff"
}

const errorEnvelope = (code: string, message: string) => ({ succeed: false, message, code })

/** A member of a struct schema's type side, by name. */
const member = (schema: Schema.Top, name: string): SchemaAST.AST | undefined => {
  const ast = SchemaAST.toType(schema.ast)
  return SchemaAST.isObjects(ast) ? ast.propertySignatures.find((p) => p.name === name)?.type : undefined
}

/** The data schema of an endpoint's success (`enveloped`, management/ManagementDeclare.ts). */
export const successData = envelopeData

/** The one JSON payload schema an endpoint declares, if any. */
export const payloadSchema = (endpoint: HttpApiEndpoint.Top): Schema.Top | undefined =>
  endpoint.payload.get("application/json")?.schemas[0]

/** A schema written out in place, every component it names inlined (a query member's are short). */
const inline = (schema: unknown, definitions: Json): any => {
  if (Array.isArray(schema)) return schema.map((s) => inline(s, definitions))
  if (typeof schema !== "object" || schema === null) return schema
  const ref = (schema as Json).$ref
  const name = typeof ref === "string" ? ref.replace("#/components/schemas/", "") : undefined
  if (name !== undefined && definitions[name] !== undefined) return inline(definitions[name], definitions)
  return Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, inline(v, definitions)]))
}

/** Every endpoint of the management API by its document id (`group.endpoint`). */
export const managementEndpoints = (): ReadonlyMap<string, HttpApiEndpoint.Top> => {
  const out = new Map<string, HttpApiEndpoint.Top>()
  HttpApi.reflect(ManagementApi, { onGroup: () => {}, onEndpoint: ({ endpoint, group }) => out.set(`${group.identifier}.${endpoint.identifier}`, endpoint) })
  return out
}

const operation = (endpoint: HttpApiEndpoint.Top, generated: Json, schemaOf: (s: Schema.Top) => Json): Json => {
  const parameters = (generated.parameters ?? []).map((p: Json) => {
    if (p.in === "path") {
      return {
        name: p.name,
        in: "path",
        required: true,
        description: p.name === "projectId" ? "The project's id (the Basic user name)" : `The ${String(p.name).replace(/Id$/, "")}'s id`,
        schema: { type: "string", minLength: 1, maxLength: 100 }
      }
    }
    const type = endpoint.query === undefined ? undefined : member(endpoint.query, p.name)
    // Written out whole, apart from the components (which name what the bodies refer to).
    const scratch: Json = {}
    const schema = type === undefined ? p.schema : inline(componentSchemas(scratch)(Schema.make(type)), scratch)
    const { description, ...rest } = schema
    return { name: p.name, description: description ?? p.description, schema: rest, in: "query", required: false }
  })
  const data = successData(endpoint)
  const responses: Json = {
    "200": {
      description: "Success",
      content: {
        "application/json": {
          schema: { type: "object", required: ["succeed", "data"], properties: { succeed: { type: "boolean", const: true }, data: schemaOf(data) } },
          example: { succeed: true, data: exampleOf(data as Schema.Codec<any, any, never>) }
        }
      }
    }
  }
  const byStatus = new Map<number, Array<string>>()
  for (const [status, code] of declaredFailures(endpoint)) byStatus.set(status, [...(byStatus.get(status) ?? []), code])
  for (const [status, codes] of [...byStatus.entries()].sort(([a], [b]) => a - b)) {
    responses[String(status)] = {
      description: codes.map((code) => why[code] === undefined ? `\`${code}\`` : `\`${code}\`: ${why[code]}`).join("; "),
      content: {
        "application/json": {
          schema: { $ref: "#/components/schemas/ErrorEnvelope" },
          example: errorEnvelope(codes[0]!, why[codes[0]!] ?? codes[0]!)
        }
      }
    }
  }
  const entry: Json = {
    operationId: endpoint.identifier,
    tags: generated.tags,
    summary: generated.summary,
    description: generated.description,
    parameters,
    responses
  }
  const payload = payloadSchema(endpoint)
  if (payload !== undefined) {
    entry.requestBody = {
      required: !bodyIsOptional(endpoint),
      content: { "application/json": { schema: schemaOf(payload), example: exampleOf(payload as Schema.Codec<any, any, never>) } }
    }
  }
  return entry
}

/** The OpenAPI 3.1 document of the management API (`GET /projects/openapi.json`). */
export const managementOpenApi = (managementUrl: string): Json => {
  // A copy: `OpenApi.fromApi` hands out the document it keeps.
  const spec = structuredClone(OpenApi.fromApi(ManagementApi)) as unknown as Json
  const endpoints = managementEndpoints()
  const definitions: Record<string, any> = {}
  const schemaOf = componentSchemas(definitions)
  const paths: Json = {}
  for (const [path, item] of Object.entries<Json>(spec.paths ?? {})) {
    for (const [method, generated] of Object.entries<Json>(item)) {
      const endpoint = endpoints.get(String(generated?.operationId))
      if (endpoint === undefined) continue
      paths[path] = { ...paths[path], [method]: operation(endpoint, generated, schemaOf) }
    }
  }
  return withoutBuiltinIds(asPublished({
    openapi: "3.1.0",
    info: {
      title: spec.info.title,
      version: spec.info.version,
      description: managementAuthDescription,
      license: documentLicense
    },
    servers: [{ url: managementUrl }],
    tags: spec.tags,
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
        basic: {
          type: "http",
          scheme: "basic",
          description: "HTTPS only. User name: the project id. Password: the project's management secret (rotated on the project's Settings page in the console)."
        }
      }
    }
  }))
}
