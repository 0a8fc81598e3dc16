/**
 * One rule for every timestamp a request carries (docs/api-notes/requests.md): RFC 3339 in UTC with
 * `T` and `Z`. The test walks the served OpenAPI document for every query parameter and JSON body
 * field documented as a date-time, sends it with an offset (and a lower-case `z`), and expects 422
 * naming that field; the `Z` form of the same value is accepted. A new route taking a timestamp is
 * walked without being listed here; a new body field must be added to the table, or the test fails.
 */
import { testBackends } from "@switchboard/sql-adapter"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { expectProblem, httpClient } from "../support/HttpClient.js"
import { startTestServer, type TestServer } from "../support/TestServer.js"
import { idem, newProject } from "../support/VoiceHttp.js"

type Schema = { $ref?: string; format?: string; pattern?: string; anyOf?: Array<Schema>; oneOf?: Array<Schema>; allOf?: Array<Schema>; properties?: Record<string, Schema> }
interface Operation {
  operationId: string
  parameters?: Array<{ name: string; in: string; schema: Schema }>
  requestBody?: { content: Record<string, { schema: Schema }> }
}

// Yesterday (a time filter's window must be in the past), to the second, in each form.
const day = new Date(Date.now() - 86_400_000).toISOString().slice(0, 19)
const OFFSET = `${day}+01:00`
const ZERO_OFFSET = `${day}+00:00`
const LOWER = `${day}z`
const UTC = `${day}Z`
// A key's expiry must be in the future.
const future = new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 19)

/** Body fields documented as date-times, and a valid body for each operation with the field set to `value`. */
const bodies: Record<string, (value: string) => Record<string, unknown>> = {
  "account.createAccountServiceKey": (expiresAt) => ({ name: "ts", expiresAt }),
  "projectApiKeys.createProjectApiKey": (expiresAt) => ({ name: "ts", permissions: ["project:read"], expiresAt })
}

for (const backend of testBackends().slice(0, 1)) {
  describe(`request timestamps: one rule (${backend})`, () => {
    let s: TestServer
    let doc: { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, Schema> } }
    let projectId: string
    let organizationId: string
    beforeAll(async () => {
      s = await startTestServer(backend)
      doc = await (await fetch(`${s.baseUrl}/openapi.json`)).json() as typeof doc
      projectId = await newProject(s, call)
      organizationId = (await call(`/v1/projects/${projectId}`)).body.organizationId
    })
    afterAll(() => s.close())
    const call = httpClient(() => s)

    const resolve = (schema: Schema | undefined): Schema | undefined =>
      schema?.$ref === undefined ? schema : doc.components.schemas[schema.$ref.split("/").pop()!]
    const isTimestamp = (schema: Schema | undefined, depth = 0): boolean => {
      const s = resolve(schema)
      if (s === undefined || depth > 6) return false
      return s.format === "date-time" || [...(s.anyOf ?? []), ...(s.oneOf ?? []), ...(s.allOf ?? [])].some((x) => isTimestamp(x, depth + 1))
    }
    /** A path with its parameters filled: the test's own project and organization, a well-formed unknown id for the rest. */
    const pathOf = (template: string, op: Operation) =>
      template.replace(/\{(\w+)\}/g, (_, name: string) => {
        if (name === "projectId") return projectId
        if (name === "organizationId") return organizationId
        const pattern = resolve(op.parameters?.find((p) => p.name === name)?.schema)?.pattern ?? ""
        const prefix = /\^?(sb_[a-z]+_)/.exec(pattern)?.[1]
        return prefix === undefined ? "x1" : `${prefix}${"0".repeat(26)}`
      })
    const operations = () =>
      Object.entries(doc.paths).flatMap(([path, ops]) =>
        Object.entries(ops).flatMap(([method, op]) => typeof op === "object" && "operationId" in op ? [{ path, method, op }] : []))

    it("every query parameter documented as a date-time refuses an offset, naming the parameter", async () => {
      const walked: Array<string> = []
      for (const { method, op, path } of operations()) {
        if (method !== "get") continue
        for (const param of op.parameters ?? []) {
          if (param.in !== "query" || !isTimestamp(param.schema)) continue
          walked.push(`${op.operationId}?${param.name}`)
          const url = (value: string) => `${pathOf(path, op)}?${param.name}=${encodeURIComponent(value)}`
          for (const bad of [OFFSET, ZERO_OFFSET, LOWER]) {
            const r = await call(url(bad))
            expectProblem(r, 422, "VALIDATION_FAILED")
            expect([op.operationId, r.body.issues.some((i: any) => i.location === "query" && i.path === `/${param.name}`)]).toEqual([op.operationId, true])
          }
          const good = await call(url(UTC))
          const named = good.res.status === 422 && good.body.issues.some((i: any) => i.path === `/${param.name}`)
          expect([op.operationId, param.name, named]).toEqual([op.operationId, param.name, false])
        }
      }
      // The walk found the time filters of every list that has them (attachments and operations included).
      expect(walked).toEqual(expect.arrayContaining([
        "projects.listProjects?createdAfter", "voice.listCalls?createdBefore", "messages.listMessages?createdAfter",
        "verificationCodes.listFilteredVerificationCodes?receivedAfter", "attachments.listAttachments?createdSince",
        "attachments.listAttachments?updatedBefore", "platforms.listOperations?endedAfter"
      ]))
    })

    it("every JSON body field documented as a date-time refuses an offset, naming the field", async () => {
      const found: Array<string> = []
      for (const { method, op, path } of operations()) {
        const schema = resolve(op.requestBody?.content["application/json"]?.schema)
        for (const [field, value] of Object.entries(schema?.properties ?? {})) {
          if (!isTimestamp(value)) continue
          found.push(op.operationId)
          const body = bodies[op.operationId]
          expect(body, `${op.operationId}.${field}: add a valid body to the table`).toBeDefined()
          for (const bad of [`${future}+01:00`, `${future}z`]) {
            const r = await call(pathOf(path, op), { method: method.toUpperCase(), json: body!(bad), idem: idem() })
            expectProblem(r, 422, "VALIDATION_FAILED")
            expect(r.body.issues.some((i: any) => i.path === `/${field}`)).toBe(true)
          }
          const good = await call(pathOf(path, op), { method: method.toUpperCase(), json: body!(`${future}Z`), idem: idem() })
          expect([op.operationId, good.res.status, good.text]).toEqual([op.operationId, 201, good.text])
        }
      }
      expect(found.sort()).toEqual(Object.keys(bodies).sort())
    })
  })
}
