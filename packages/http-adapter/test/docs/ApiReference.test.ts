/**
 * The API reference: every operation of the three OpenAPI documents has a summary,
 * a description, its error responses, and an example for each JSON request body and response;
 * each example decodes with the schema the server decodes or encodes that body with. A new
 * endpoint without `OpenApi.annotations({ summary, description })` (v1), a Dashboard declaration
 * without a description, or a management endpoint without `OpenApi.annotations({ summary, description })` fails here. The
 * reference pages and the bundle they load are served by a real server, with a CSP that allows
 * nothing from another origin.
 */
import { Problem } from "../../src/http/Problem.js"
import { Result, Schema } from "effect"
import { readFileSync } from "node:fs"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { openApiDocuments } from "../../src/docs/Documents.js"
import { v1OperationSchemas } from "../../src/docs/OpenApiDocument.js"
import { dashboardEndpoints } from "../../src/dashboard/DashboardApi.js"
import { managementEndpoints, payloadSchema, successData } from "../../src/docs/ManagementOpenApi.js"
import { managementRouteTable } from "../../src/routes/ManagementRoutes.js"
import { startTestServer, type TestServer } from "../support/TestServer.js"

type Json = Record<string, any>

const documents = openApiDocuments()

describe("the documents are made the same way every time", () => {
  it("a second making (another server in the same process) gives the same three documents", () => {
    // The versioned API's is written over a copy of what OpenApi.fromApi keeps: no parameter or
    // note is added twice. (Compared as text made at once: a document sharing objects with the
    // next one would change under a later comparison.)
    const first = JSON.stringify(openApiDocuments())
    const second = JSON.stringify(openApiDocuments())
    expect(second).toBe(first)
  })
})

const operationsOf = (doc: Json): Array<{ readonly id: string; readonly op: Json }> =>
  Object.values<Json>(doc.paths).flatMap((item) =>
    Object.entries<Json>(item)
      .filter(([method]) => ["get", "post", "put", "patch", "delete"].includes(method))
      .map(([, op]) => ({ id: String(op.operationId), op }))
  )

// The declarations' schemas (typed `Schema.Top`) decode without services.
const decodes = (schema: Schema.Top, value: unknown) => Result.isSuccess(Schema.decodeUnknownResult(schema as Schema.Codec<unknown, unknown>)(value))

const EnvelopeError = Schema.Struct({ succeed: Schema.Literal(false), message: Schema.String, code: Schema.String.pipe(Schema.check(Schema.isMinLength(1))) })
const envelopeOf = (data: Schema.Codec<any, any, never>) => Schema.Struct({ succeed: Schema.Literal(true), data })

/** Every `$id` in a document, with how often it occurs. */
const idsOf = (value: unknown, out = new Map<string, number>()): Map<string, number> => {
  if (typeof value === "object" && value !== null) {
    const id = (value as Json).$id
    if (typeof id === "string") out.set(id, (out.get(id) ?? 0) + 1)
    for (const child of Object.values(value)) idsOf(child, out)
  }
  return out
}

describe("OpenAPI documents", () => {
  it("state the package's version and licence, and how to authenticate, in their info and security schemes", () => {
    const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string; license: string }
    for (const [name, doc] of Object.entries(documents)) {
      expect(doc.info.version, name).toBe(pkg.version)
      expect(doc.info.license, name).toEqual({ name: pkg.license, identifier: pkg.license })
      expect(doc.info.description, name).toContain("## Authentication")
      for (const [scheme, value] of Object.entries<Json>(doc.components.securitySchemes)) expect(value.description, `${name} ${scheme}`).toMatch(/\S/)
    }
    // Where a service key comes from, and the three credentials of the versioned API.
    expect(documents.v1.info.description).toContain("switchboard admin create-account")
    expect(documents.v1.info.description).toContain("/console/account/keys")
    expect(documents.v1.info.description).toMatch(/Authorization: Bearer[^]*Project API key[^]*OAuth access token/)
    // The management API: HTTP Basic, project id and secret, HTTPS only.
    expect(documents.management.info.description).toMatch(/HTTP Basic[^]*over HTTPS only[^]*project id as user name/)
    expect(documents.dashboard.info.description).toContain("sb_session")
  })

  it("every component schema is used (Redocly's no-unused-components)", () => {
    for (const [name, doc] of Object.entries(documents)) {
      const schemas: Json = doc.components?.schemas ?? {}
      const unused = Object.keys(schemas).filter((s) => {
        const { [s]: _self, ...others } = schemas
        const ref = `"#/components/schemas/${s}"`
        return !JSON.stringify(doc.paths).includes(ref) && !JSON.stringify(others).includes(ref)
      })
      expect([name, unused]).toEqual([name, []])
    }
  })

  it("no schema `$id` occurs twice in a document (a repeated one cannot be resolved, and its examples go unchecked)", () => {
    for (const [name, doc] of Object.entries(documents)) {
      expect([name, [...idsOf(doc)].filter(([, n]) => n > 1)]).toEqual([name, []])
    }
  })

  for (const [name, doc] of Object.entries(documents)) {
    it(`${name}: every operation has a summary, a description and error responses`, () => {
      const missing: Array<string> = []
      for (const { id, op } of operationsOf(doc)) {
        if (typeof op.summary !== "string" || op.summary.trim() === "") missing.push(`${id}: summary`)
        if (typeof op.description !== "string" || op.description.trim() === "") missing.push(`${id}: description`)
        if (!Object.keys(op.responses ?? {}).some((s) => Number(s) >= 400)) missing.push(`${id}: error responses`)
      }
      expect(missing).toEqual([])
    })

    it(`${name}: every JSON request body and response has an example`, () => {
      const missing: Array<string> = []
      for (const { id, op } of operationsOf(doc)) {
        for (const [type, media] of Object.entries<Json>(op.requestBody?.content ?? {})) {
          if (type.endsWith("json") && media.example === undefined) missing.push(`${id} request ${type}`)
        }
        for (const [status, response] of Object.entries<Json>(op.responses ?? {})) {
          for (const [type, media] of Object.entries<Json>(response.content ?? {})) {
            if (type.endsWith("json") && media.example === undefined && id !== "getOpenApi") missing.push(`${id} ${status} ${type}`)
          }
        }
      }
      expect(missing).toEqual([])
    })
  }

  it("v1: each example decodes with the operation's schemas, each problem example with the problem schema (an OAuth error example with its own)", () => {
    const schemas = v1OperationSchemas()
    const bad: Array<string> = []
    let checked = 0
    for (const { id, op } of operationsOf(documents.v1)) {
      const own = schemas.get(id)
      expect(own, id).toBeDefined()
      for (const [type, media] of Object.entries<Json>(op.requestBody?.content ?? {})) {
        const schema = own!.payloads.get(type)
        if (!type.endsWith("json") || schema === undefined) continue
        checked++
        if (!decodes(schema, media.example)) bad.push(`${id} request`)
      }
      for (const [status, response] of Object.entries<Json>(op.responses ?? {})) {
        for (const [type, media] of Object.entries<Json>(response.content ?? {})) {
          // Raw routes (the device flow) answer RFC 6749 error JSON, the rest problem documents.
          const schema = Number(status) >= 400 ? own!.errors?.get(Number(status)) ?? Problem : own!.successes.get(Number(status))
          if (!type.endsWith("json") || schema === undefined) continue
          checked++
          if (!decodes(schema, media.example)) bad.push(`${id} ${status}`)
        }
      }
    }
    expect(bad).toEqual([])
    expect(checked).toBeGreaterThan(200)
  })

  it("dashboard: each example decodes with the operation's body and data schemas", () => {
    const bad: Array<string> = []
    for (const o of dashboardEndpoints) {
      const op = documents.dashboard.paths[o.path.replace(/:([A-Za-z]+)/g, "{$1}")][o.method.toLowerCase()]
      if (o.body !== undefined && !decodes(o.body as Schema.Codec<any, any, never>, op.requestBody.content["application/json"].example)) {
        bad.push(`${o.operationId} request`)
      }
      if (o.data !== undefined) {
        const data = (o.data.list ? Schema.Array(o.data.schema) : o.data.schema) as Schema.Codec<any, any, never>
        if (!decodes(envelopeOf(data), op.responses["200"].content["application/json"].example)) bad.push(`${o.operationId} 200`)
      }
      for (const [status, response] of Object.entries<Json>(op.responses)) {
        if (Number(status) >= 400 && !decodes(EnvelopeError, response.content["application/json"].example)) bad.push(`${o.operationId} ${status}`)
      }
    }
    expect(bad).toEqual([])
  })

  it("management: one operation per declared endpoint, and each example decodes with the endpoint's schemas", () => {
    const endpoints = [...managementEndpoints().values()]
    expect(endpoints.map((e) => `${e.method} ${e.path}`).sort())
      .toEqual(managementRouteTable.map(([method, path]) => `${method} ${path}`).sort())
    const bad: Array<string> = []
    for (const e of endpoints) {
      const op = documents.management.paths[e.path.replace(/:([A-Za-z]+)/g, "{$1}")][e.method.toLowerCase()]
      if (typeof op.summary !== "string" || typeof op.description !== "string") bad.push(`${e.identifier} summary/description`)
      const body = payloadSchema(e)
      if (body !== undefined && !decodes(body as Schema.Codec<any, any, never>, op.requestBody.content["application/json"].example)) {
        bad.push(`${e.identifier} request`)
      }
      if (!decodes(envelopeOf(successData(e) as Schema.Codec<any, any, never>), op.responses["200"].content["application/json"].example)) {
        bad.push(`${e.identifier} 200`)
      }
      for (const [status, response] of Object.entries<Json>(op.responses)) {
        if (Number(status) >= 400 && !decodes(EnvelopeError, response.content["application/json"].example)) bad.push(`${e.identifier} ${status}`)
      }
    }
    expect(bad).toEqual([])
  })
})

describe("reference pages", () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer("pglite")
  }, 60_000)
  afterAll(() => server.close())

  it("serves one page per API, loading only this origin's scripts", async () => {
    // Relative URLs, so that the pages work under a base path too (docs/embedding.md).
    for (const [path, spec] of [["/docs", "openapi.json"], ["/docs/dashboard", "../api/openapi.json"], ["/docs/management", "../projects/openapi.json"]] as const) {
      const response = await fetch(`${server.baseUrl}${path}`)
      expect(response.status).toBe(200)
      const csp = response.headers.get("content-security-policy") ?? ""
      expect(csp).toContain("script-src 'self';")
      expect(csp).toContain("default-src 'none'")
      const html = await response.text()
      expect(html).toContain(`data-document="${spec}"`)
      // Every script and stylesheet the page names is one of ours.
      for (const [, src] of html.matchAll(/(?:src|href)="([^"]+)"/g)) {
        expect(new URL(src!, `${server.baseUrl}${path}`).origin).toBe(server.baseUrl)
      }
      expect(new URL(spec, `${server.baseUrl}${path}`).pathname).toBe(path === "/docs" ? "/openapi.json" : path === "/docs/dashboard" ? "/api/openapi.json" : "/projects/openapi.json")
    }
    const bundle = await fetch(`${server.baseUrl}/docs/assets/scalar.js`)
    expect(bundle.status).toBe(200)
    expect(bundle.headers.get("content-type")).toContain("javascript")
    expect((await bundle.text()).length).toBeGreaterThan(100_000)
    const init = await (await fetch(`${server.baseUrl}/docs/assets/reference.js`)).text()
    expect(init).toContain("withDefaultFonts: false")
    expect(init).toContain("telemetry: false")
  })

  it("serves the management API's document without credentials", async () => {
    const response = await fetch(`${server.baseUrl}/projects/openapi.json`)
    expect(response.status).toBe(200)
    const doc = await response.json() as Json
    expect(doc.info.title).toBe("Switchboard management API")
    expect(Object.keys(doc.paths)).toContain("/projects/{projectId}/webhooks")
  })
})
