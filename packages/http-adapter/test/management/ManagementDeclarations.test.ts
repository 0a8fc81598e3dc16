/**
 * The management API does what its declaration says (management/ManagementApi.ts), endpoint by
 * endpoint, read from the declaration itself (reflected, not a hand list): every endpoint refuses
 * plaintext (403 `HTTPS_REQUIRED`) and a wrong Basic credential (401 `NOT_AUTHENTICATED` with the
 * Basic challenge), each a failure it declares; a declared query refuses an invalid value of each
 * member with the endpoint's declared `QueryRefusal`, and a single-valued member sent twice by
 * name; a declared JSON body refuses a member it does not declare. A declared element the server
 * ignored (a middleware left off, a query or body not decoded strictly) fails here.
 */
import { HttpApi, type HttpApiEndpoint } from "effect/http-api"
import { testBackends } from "@switchboard/sql-adapter"
import { Context, type Schema, SchemaAST } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { exampleOf } from "../../src/docs/Examples.js"
import { ManagementApi } from "../../src/management/ManagementApi.js"
import { declaredFailures, queryRefusal, Use } from "../../src/management/ManagementDeclare.js"
import { WWW_AUTHENTICATE } from "../../src/routes/ManagementPipeline.js"
import { parameterValue } from "../support/DeclaredRoutes.js"
import { newChannelProject } from "../support/ChannelClient.js"
import { expectEnvelopeError, managementClient } from "../support/ManagementClient.js"
import { startTestServer, type TestServer } from "../support/TestServer.js"

const endpoints: Array<HttpApiEndpoint.Top> = []
HttpApi.reflect(ManagementApi, { onGroup: () => {}, onEndpoint: ({ endpoint }) => endpoints.push(endpoint) })

/** The endpoint's path for a project, every other parameter a well-formed id. */
const pathOf = (endpoint: HttpApiEndpoint.Top, projectId: string) =>
  endpoint.path.replace(/:([A-Za-z]+)/g, (_, name: string) => name === "projectId" ? projectId : parameterValue(name, endpoint.path))

const declares = (endpoint: HttpApiEndpoint.Top, status: number, code: string) =>
  declaredFailures(endpoint).some(([s, c]) => s === status && c === code)

/** The members of a declared query, and whether each takes one value. */
const queryMembers = (endpoint: HttpApiEndpoint.Top): ReadonlyArray<{ readonly name: string; readonly single: boolean }> => {
  const ast = endpoint.query === undefined ? undefined : SchemaAST.toType(endpoint.query.ast)
  return ast === undefined || !SchemaAST.isObjects(ast)
    ? []
    : ast.propertySignatures.map((p) => ({ name: String(p.name), single: p.type._tag !== "Arrays" }))
}

for (const backend of testBackends()) {
  let s: TestServer
  beforeAll(async () => {
    s = await startTestServer(backend, { managementRateLimitQuota: 100_000, webhookDeliveryEnabled: false }, undefined, undefined, { tls: true })
  }, 60_000)
  afterAll(() => s?.close())

  describe(`management API declarations (${backend})`, () => {
    const call = managementClient(() => s)

    /** A project through /v1, and its management secret from a rotation. */
    const project = async () => {
      const { projectId, secret } = await newChannelProject(s)
      return { projectId, auth: { username: projectId, password: secret } }
    }

    it("the declaration has every endpoint, each declaring its use and the shared steps' refusals", () => {
      expect(endpoints.length).toBe(17)
      for (const e of endpoints) {
        expect(Context.getOrUndefined(e.annotations, Use), `${e.identifier} declares Use`).toBeDefined()
        for (const [status, code] of [[401, "NOT_AUTHENTICATED"], [403, "HTTPS_REQUIRED"], [429, "RATE_LIMITED"]] as const) {
          expect(declares(e, status, code), `${e.identifier} declares ${code}`).toBe(true)
        }
      }
    })

    it("every endpoint refuses plaintext (403) and a wrong Basic credential (401 with the Basic challenge)", async () => {
      const p = await project()
      for (const e of endpoints) {
        const path = pathOf(e, p.projectId)
        const plain = await call(path, { method: e.method, auth: p.auth, plaintext: true })
        expectEnvelopeError(plain, 403, "HTTPS_REQUIRED")
        const wrong = await call(path, { method: e.method, auth: { username: p.projectId, password: "not-the-secret" } })
        expectEnvelopeError(wrong, 401, "NOT_AUTHENTICATED")
        expect(wrong.headers["www-authenticate"], e.identifier).toBe(WWW_AUTHENTICATE)
        // Trailing slash or not, the same endpoint.
        const slashed = await call(`${path}/`, { method: e.method, auth: null })
        expectEnvelopeError(slashed, 401, "NOT_AUTHENTICATED")
      }
    })

    it("a declared query refuses an invalid value of each member, and a single-valued member sent twice", async () => {
      const p = await project()
      const withQuery = endpoints.filter((e) => e.query !== undefined)
      expect(withQuery.map((e) => e.identifier).sort()).toEqual(["listProjectUsers", "listWebhookDeliveries"])
      for (const e of withQuery) {
        expect(declares(e, 422, "VALIDATION_FAILED"), e.identifier).toBe(true)
        // The webhook need not exist: the query is decoded before the handler looks it up.
        const path = pathOf(e, p.projectId)
        for (const { name, single } of queryMembers(e)) {
          const invalid = await call(`${path}?${name}=`, { method: e.method, auth: p.auth })
          expectEnvelopeError(invalid, 422, "VALIDATION_FAILED")
          expect(invalid.body.message, `${e.identifier} ?${name}=`).toBe(queryRefusal(e))
          if (single) {
            const twice = await call(`${path}?${name}=a&${name}=b`, { method: e.method, auth: p.auth })
            expectEnvelopeError(twice, 422, "VALIDATION_FAILED")
            expect(twice.body.message).toBe(`${name}: send it at most once.`)
          }
        }
      }
    })

    it("a declared JSON body refuses a member it does not declare", async () => {
      const p = await project()
      const withBody = endpoints.filter((e) => e.payload.has("application/json"))
      expect(withBody.length).toBeGreaterThan(0)
      for (const e of withBody) {
        expect(declares(e, 422, "VALIDATION_FAILED"), e.identifier).toBe(true)
        const schema = e.payload.get("application/json")!.schemas[0] as Schema.Codec<any, any, never>
        const example = exampleOf(schema) as Record<string, unknown>
        const r = await call(pathOf(e, p.projectId), { method: e.method, auth: p.auth, json: { ...example, notDeclared: 1 } })
        expectEnvelopeError(r, 422, "VALIDATION_FAILED")
        expect(r.body.message, e.identifier).toContain("notDeclared")
      }
    })
  })
}
