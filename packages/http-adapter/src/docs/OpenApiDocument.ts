/**
 * `GET /openapi.json`: OpenAPI 3.1 generated from the HttpApi declaration
 * and its schemas, with every error response described as what it is on the wire — a problem
 * document — and the Idempotency-Key header on the operations that require it.
 */
import { HttpApi, OpenApi } from "effect/http-api"
import { type ProblemCode, problemCodes, problemEntry } from "../http/ProblemCatalog.js"
import { Schema } from "effect"
import { V1Api } from "../Features.js"
import { declaredProblems, documentedSchema, isIdempotent } from "../v1/Declare.js"
import { deviceOperations, OAuthErrorResponse as OAuthErrorSchema, type RawV1Operation } from "../routes/OAuthDeviceOperations.js"
import { lifecycles } from "../v1/Lifecycle.js"
import { exampleOf } from "./Examples.js"
import { withoutBuiltinIds } from "./JsonSchemaIds.js"
import { asPublished, componentSchemas } from "../http/JsonSchemaComponents.js"
import { problemExample } from "./ProblemExamples.js"
import { v1BearerDescription } from "./AuthDescriptions.js"
import { documentLicense } from "./PackageVersion.js"

/**
 * The schemas of one /v1 operation: its request bodies by media type, its successes by status, and
 * (raw routes answering RFC 6749 JSON rather than problems) its error bodies by status.
 */
export interface V1OperationSchemas {
  readonly payloads: ReadonlyMap<string, Schema.Top>
  readonly successes: ReadonlyMap<number, Schema.Top>
  readonly errors?: ReadonlyMap<number, Schema.Top>
}

/** What each /v1 operation declares beside its schemas: the problems it can answer, whether it needs an Idempotency-Key. */
export const v1OperationFacts = (): ReadonlyMap<string, { readonly problems: ReadonlyArray<ProblemCode>; readonly idempotent: boolean }> => {
  const out = new Map<string, { readonly problems: ReadonlyArray<ProblemCode>; readonly idempotent: boolean }>()
  HttpApi.reflect(V1Api, {
    onGroup: () => {},
    onEndpoint: ({ endpoint, group }) => {
      const id = `${group.identifier}.${endpoint.identifier}`
      out.set(id, { problems: declaredProblems(endpoint), idempotent: isIdempotent(endpoint) })
    }
  })
  return out
}

/** The /v1 operations served by raw routes rather than the HttpApi declaration (documented from their tables). */
const rawOperations: ReadonlyArray<RawV1Operation> = deviceOperations

const FORM = "application/x-www-form-urlencoded"

/** operationId → the schemas the versioned API decodes and encodes with (examples are made from them). */
export const v1OperationSchemas = (): ReadonlyMap<string, V1OperationSchemas> => {
  const out = new Map<string, V1OperationSchemas>()
  HttpApi.reflect(V1Api, {
    onGroup: () => {},
    onEndpoint: ({ endpoint, group, successes }) => {
      const oneOf = (schemas: readonly [Schema.Top, ...Array<Schema.Top>]): Schema.Top =>
        schemas.length === 1 ? schemas[0] : Schema.Union(schemas)
      const success = new Map<number, Schema.Top>()
      for (const [status, schemas] of successes) success.set(status, oneOf(schemas))
      const payload = new Map<string, Schema.Top>()
      if (endpoint.method !== "GET" && endpoint.method !== "HEAD") {
        for (const [contentType, p] of endpoint.payload) payload.set(contentType, oneOf(p.schemas.map(documentedSchema) as [Schema.Top, ...Array<Schema.Top>]))
      }
      out.set(`${group.identifier}.${endpoint.identifier}`, { payloads: payload, successes: success })
    }
  })
  for (const o of rawOperations) {
    out.set(o.operationId, {
      payloads: new Map([["application/json", o.payload], [FORM, o.payload]]),
      successes: new Map([[200, o.success]]),
      errors: new Map(Object.keys(o.errors).map((status) => [Number(status), OAuthErrorSchema]))
    })
  }
  return out
}

const problemSchema = {
  type: "object",
  description: "RFC 9457 problem document. Extension members are allowed; `remediation` never appears.",
  required: ["type", "code", "title", "status"],
  properties: {
    type: { type: "string", format: "uri", description: "{DOCS_URL}/problems/<slug>; resolves to an HTML page." },
    code: { type: "string", enum: [...problemCodes] },
    title: { type: "string", minLength: 1 },
    status: { type: "integer" },
    detail: { type: "string", minLength: 1 },
    instance: { type: "string", minLength: 1 },
    requestId: { type: "string", minLength: 1 },
    issues: {
      type: "array",
      items: {
        type: "object",
        required: ["code", "location", "message", "path"],
        additionalProperties: false,
        properties: {
          code: { type: "string", minLength: 1 },
          location: { type: "string", enum: ["body", "cookie", "form", "header", "json", "param", "query"] },
          message: { type: "string", minLength: 1 },
          path: { type: "string", description: "JSON pointer" }
        }
      }
    }
  },
  additionalProperties: true
}

type Json = Record<string, any>

/** A raw operation's path item: JSON and form bodies, its success, and its RFC 6749 error JSON. */
const rawPathItem = (o: RawV1Operation, schemaOf: (schema: Schema.Top) => Json): Json => {
  const body = schemaOf(o.payload)
  const error = schemaOf(OAuthErrorSchema)
  return {
    [o.method]: {
      tags: [o.tag],
      operationId: o.operationId,
      summary: o.summary,
      description: o.description,
      security: [],
      requestBody: {
        required: o.payloadRequired,
        content: { "application/json": { schema: body, example: o.requestExample }, [FORM]: { schema: body } }
      },
      responses: {
        200: { description: "Success", content: { "application/json": { schema: schemaOf(o.success), example: o.successExample } } },
        ...Object.fromEntries(Object.entries(o.errors).map(([status, e]) => [status, {
          description: e.description,
          content: { "application/json": { schema: error, example: e.example } }
        }]))
      }
    }
  }
}

/**
 * A success with a status of its own (201 Created, 202 Accepted, 204 No Content) as the document
 * has always described it: "Success", its schema written out in the response rather than named
 * (a schema with an identifier is a component, referred to by that name).
 */
const ownStatusResponse = (response: Json, components: Json): Json => ({
  ...response,
  description: "Success",
  ...(response.content === undefined ? {} : {
    content: Object.fromEntries(Object.entries<Json>(response.content).map(([contentType, media]) => {
      const name = typeof media.schema?.$ref === "string" ? media.schema.$ref.replace("#/components/schemas/", "") : undefined
      return [contentType, name === undefined || !(name in components) ? media : { ...media, schema: structuredClone(components[name]) }]
    }))
  })
})

/**
 * Writes each JSON request body's and success response's schema and example from the operation's
 * schemas. The /v1 routes decode a parsed body and encode a success with the schema itself
 * (`v1/Pipeline.ts`), while `OpenApi.fromApi` describes the schema's JSON codec (`null` for an
 * optional property, the strings `"NaN"`, `"Infinity"`, `"-Infinity"` for a number), and has no
 * option for another; so each body is described again by `schemaOf` (`componentSchemas`, as the
 * Dashboard and management documents are), its named parts replacing Effect's components.
 */
const describeBodies = (op: Json, schemas: V1OperationSchemas | undefined, schemaOf: (schema: Schema.Top) => Json) => {
  if (schemas === undefined) return
  for (const [contentType, media] of Object.entries<Json>(op.requestBody?.content ?? {})) {
    const schema = schemas.payloads.get(contentType)
    if (schema !== undefined && contentType.endsWith("json")) {
      media.schema = schemaOf(schema)
      media.example = exampleOf(schema)
    }
  }
  for (const [status, response] of Object.entries<Json>(op.responses ?? {})) {
    const schema = schemas.successes.get(Number(status))
    if (schema === undefined) continue
    for (const [contentType, media] of Object.entries<Json>(response.content ?? {})) {
      if (contentType.endsWith("json")) {
        media.schema = schemaOf(schema)
        media.example = exampleOf(schema)
      }
    }
  }
}

/** The description Effect gives a number decoded from a string (a query member such as `pageSize`). */
const numberFromStringNote = "a string to be decoded into a number"

export const openApiDocument = (apiUrl: string, docsUrl: string = apiUrl): Json => {
  // A copy: `OpenApi.fromApi` keeps the description it made for the API and hands out that same
  // object, so writing into it would add the parameters and notes below again on every call (a
  // second server in one process, the HTTPS listener beside the HTTP one).
  const spec = structuredClone(OpenApi.fromApi(V1Api)) as unknown as Json
  const schemas = v1OperationSchemas()
  const facts = v1OperationFacts()
  spec.servers = [{ url: apiUrl }]
  spec.info = { ...spec.info, license: documentLicense }
  spec.components = spec.components ?? {}
  spec.components.schemas = { ...spec.components.schemas, Problem: problemSchema }
  const schemaOf = componentSchemas(spec.components.schemas)
  const rawPaths: Json = {}
  for (const o of rawOperations) rawPaths[o.path] = { ...rawPaths[o.path], ...rawPathItem(o, schemaOf) }
  for (const item of Object.values<Json>(spec.paths ?? {})) {
    for (const op of Object.values<Json>(item)) {
      if (typeof op !== "object" || op === null || typeof op.operationId !== "string") continue
      describeBodies(op, schemas.get(op.operationId), schemaOf)
      const declared = facts.get(op.operationId)?.problems ?? []
      const codes = declared.length > 0 ? declared : ["INTERNAL_ERROR" as const]
      const responses: Json = {}
      for (const [status, response] of Object.entries<Json>(op.responses ?? {})) {
        if (Number(status) < 400) responses[status] = status === "200" ? response : ownStatusResponse(response, spec.components.schemas)
      }
      const byStatus = new Map<number, Array<string>>()
      for (const code of codes) {
        const e = problemEntry(code)
        byStatus.set(e.status, [...(byStatus.get(e.status) ?? []), code])
      }
      for (const [status, list] of [...byStatus.entries()].sort(([a], [b]) => a - b)) {
        responses[String(status)] = {
          description: list.map((c) => `\`${c}\``).join(", "),
          content: {
            "application/problem+json": {
              schema: { $ref: "#/components/schemas/Problem" },
              example: problemExample(docsUrl, list[0] as ProblemCode)
            }
          }
        }
      }
      op.responses = responses
      const lifecycle = lifecycles[op.operationId]
      if (lifecycle !== undefined) {
        op.deprecated = true
        op.description = `${op.description ?? ""} Deprecated since ${lifecycle.deprecatedAt.toISOString().slice(0, 10)}; removed after ${lifecycle.sunsetAt.toISOString().slice(0, 10)}. Use ${lifecycle.replacement}.`.trim()
      }
      // A parameter is described by its schema's description (as the document always did), but
      // for the schema library's note on a number sent as a string, which tells a caller nothing.
      for (const parameter of op.parameters ?? []) {
        if (parameter.schema?.description === numberFromStringNote) delete parameter.schema.description
        if (parameter.description === undefined && typeof parameter.schema?.description === "string") {
          parameter.description = parameter.schema.description
        }
      }
      if (facts.get(op.operationId)?.idempotent === true) {
        op.parameters = [...(op.parameters ?? []), {
          name: "Idempotency-Key",
          in: "header",
          required: true,
          description: "1-255 visible ASCII characters; a replay returns the first response with Idempotent-Replayed: true.",
          schema: { type: "string", pattern: "^[\\x21-\\x7e]{1,255}$" }
        }]
      }
    }
  }
  spec.paths = { ...spec.paths, ...rawPaths }
  for (const o of rawOperations) {
    if (!(spec.tags ?? []).some((t: Json) => t.name === o.tag)) spec.tags = [...(spec.tags ?? []), { name: o.tag }]
  }
  // The bearer scheme by the name the document has always given it (HTTP scheme names are case-insensitive).
  for (const scheme of Object.values<Json>(spec.components.securitySchemes ?? {})) {
    if (scheme.type === "http" && typeof scheme.scheme === "string") scheme.scheme = scheme.scheme.toLowerCase()
    if (scheme.type === "http" && scheme.scheme === "bearer") scheme.description = v1BearerDescription
  }
  asPublished(spec)
  // Every error response is a problem now: drop every schema nothing refers to any more (the
  // platform's error schemas, their members, the components of the successes written out above).
  const schemaRefs = (value: unknown) => new Set([...JSON.stringify(value).matchAll(/"#\/components\/schemas\/([^"]+)"/g)].map((m) => m[1]!))
  const refs = new Map(Object.entries<unknown>(spec.components.schemas).map(([name, schema]) => [name, schemaRefs(schema)]))
  const fromPaths = schemaRefs(spec.paths)
  for (let pruned = true; pruned;) {
    pruned = false
    for (const name of refs.keys()) {
      if (fromPaths.has(name) || [...refs].some(([other, r]) => other !== name && r.has(name))) continue
      refs.delete(name)
      delete spec.components.schemas[name]
      pruned = true
    }
  }
  return withoutBuiltinIds(spec)
}
