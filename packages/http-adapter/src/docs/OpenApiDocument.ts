/**
 * `GET /openapi.json` (SPEC.md § Versioning 6): OpenAPI 3.1 generated from the HttpApi declaration
 * and its schemas, with every error response described as what it is on the wire — a problem
 * document — and the Idempotency-Key header on the operations that require it.
 */
import { OpenApi } from "@effect/platform"
import { problemEntry, problemCodes } from "@switchboard/core/shared"
import { idempotentOperations, operationProblems, V1Api } from "../Features.js"
import { lifecycles } from "../v1/Lifecycle.js"

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

export const openApiDocument = (apiUrl: string): Json => {
  const spec = OpenApi.fromApi(V1Api) as unknown as Json
  spec.servers = [{ url: apiUrl }]
  spec.components = spec.components ?? {}
  spec.components.schemas = { ...spec.components.schemas, Problem: problemSchema }
  for (const item of Object.values<Json>(spec.paths ?? {})) {
    for (const op of Object.values<Json>(item)) {
      if (typeof op !== "object" || op === null || typeof op.operationId !== "string") continue
      const codes = operationProblems[op.operationId] ?? ["INTERNAL_ERROR"]
      const responses: Json = {}
      for (const [status, response] of Object.entries<Json>(op.responses ?? {})) {
        if (Number(status) < 400) responses[status] = response
      }
      const byStatus = new Map<number, Array<string>>()
      for (const code of codes) {
        const e = problemEntry(code)
        byStatus.set(e.status, [...(byStatus.get(e.status) ?? []), code])
      }
      for (const [status, list] of [...byStatus.entries()].sort(([a], [b]) => a - b)) {
        responses[String(status)] = {
          description: list.map((c) => `\`${c}\``).join(", "),
          content: { "application/problem+json": { schema: { $ref: "#/components/schemas/Problem" } } }
        }
      }
      op.responses = responses
      const lifecycle = lifecycles[op.operationId]
      if (lifecycle !== undefined) {
        op.deprecated = true
        op.description = `${op.description ?? ""} Deprecated since ${lifecycle.deprecatedAt.toISOString().slice(0, 10)}; removed after ${lifecycle.sunsetAt.toISOString().slice(0, 10)}. Use ${lifecycle.replacement}.`.trim()
      }
      if (idempotentOperations.has(op.operationId)) {
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
  // The platform lists its own decode error; ours are problems, so drop it.
  if (spec.components.schemas?.HttpApiDecodeError) delete spec.components.schemas.HttpApiDecodeError
  return spec
}
