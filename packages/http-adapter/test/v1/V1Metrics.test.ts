/**
 * The SQL query operation over /v1 (issue 15; contract.md §3.10) on a real server, each backend:
 * results, the schema document, the backfill state, 422 with the parser's position and the
 * construct named, 422 QUERY_RESOURCE_LIMIT, and `events:read`.
 */
import { testBackends } from "@switchboard/sql-adapter"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { expectProblem, httpClient } from "../support/HttpClient.js"
import { startTestServer, type TestServer } from "../support/TestServer.js"
import { newProject, projectKey } from "../support/VoiceHttp.js"

for (const backend of testBackends()) {
  describe(`metrics query over /v1 (${backend})`, () => {
    let s: TestServer
    let projectId: string
    const call = httpClient(() => s)
    const path = () => `/v1/projects/${projectId}/metrics`
    beforeAll(async () => {
      s = await startTestServer(backend)
      projectId = await newProject(s, call)
    })
    afterAll(() => s.close())

    it("runs a query: columns with types, rows, statistics", async () => {
      const r = await call(`${path()}/query`, {
        method: "POST",
        json: { sql: "select count(*) as n, :label as label, 9007199254740993::bigint as big from message_events", parameters: { label: "x" } }
      })
      expect(r.res.status, JSON.stringify(r.body)).toBe(200)
      expect(r.body.columns).toEqual([{ name: "n", type: "bigint" }, { name: "label", type: "text" }, { name: "big", type: "bigint" }])
      expect(r.body.rows).toEqual([[0, "x", "9007199254740993"]])
      expect(r.body.statistics).toMatchObject({ rowsRead: 1 })
    })

    it("refuses bad SQL with 422 VALIDATION_FAILED, the position and the construct", async () => {
      const syntax = await call(`${path()}/query`, { method: "POST", json: { sql: "select * frm message_events" } })
      expectProblem(syntax, 422, "VALIDATION_FAILED")
      expect(syntax.body).toMatchObject({ position: 10, construct: "syntax" })
      const refused = await call(`${path()}/query`, { method: "POST", json: { sql: "select pg_sleep(10)" } })
      expectProblem(refused, 422, "VALIDATION_FAILED")
      expect(refused.body).toMatchObject({ position: 8, construct: "function" })
      const write = await call(`${path()}/query`, { method: "POST", json: { sql: "delete from message_events" } })
      expectProblem(write, 422, "VALIDATION_FAILED")
      const badName = await call(`${path()}/query`, { method: "POST", json: { sql: "select 1", parameters: { "1x": "a" } } })
      expectProblem(badName, 422, "VALIDATION_FAILED")
      const empty = await call(`${path()}/query`, { method: "POST", json: { sql: "" } })
      expectProblem(empty, 422, "VALIDATION_FAILED")
    })

    it("answers 422 QUERY_RESOURCE_LIMIT past the row cap", async () => {
      const r = await call(`${path()}/query`, {
        method: "POST",
        json: { sql: "select 1 as x from message_events right join (values (1)) v(y) on true, (values (1),(2),(3),(4),(5),(6),(7),(8),(9),(10)) a(a), (values (1),(2),(3),(4),(5),(6),(7),(8),(9),(10)) b(b), (values (1),(2),(3),(4),(5),(6),(7),(8),(9),(10)) c(c), (values (1),(2),(3),(4),(5),(6),(7),(8),(9),(10)) d(d), (values (1),(2)) e(e)" }
      })
      expectProblem(r, 422, "QUERY_RESOURCE_LIMIT")
      expect(r.body.limit).toBe("rows")
    })

    it("serves the SQL schema document and the backfill state", async () => {
      const schema = await call(`${path()}/query`)
      expect(schema.res.status).toBe(200)
      expect(schema.body.projectScoped).toBe(true)
      expect(schema.body.tables.map((t: { name: string }) => t.name)).toEqual(["message_events", "call_events"])
      expect(schema.body.functions).toContain("date_trunc")
      const backfill = await call(`${path()}/backfill`)
      expect(backfill.res.status).toBe(200)
      expect(backfill.body).toMatchObject({ state: "completed", processedWrites: 0, failedWrites: 0 })
    })

    it("needs events:read", async () => {
      const key = await projectKey(call, projectId, ["platforms:read"])
      const denied = await call(`${path()}/query`, { method: "POST", key: key, json: { sql: "select 1 as x" } })
      expect(denied.res.status).toBe(403)
      const reader = await projectKey(call, projectId, ["events:read"])
      const ok = await call(`${path()}/query`, { method: "POST", key: reader, json: { sql: "select 1 as x" } })
      expect(ok.res.status, JSON.stringify(ok.body)).toBe(200)
    })
  })
}
