/**
 * The SQL query operation over /v1 (docs/sql-query.md) on a real server, each backend: results,
 * the constructs the documentation lists (DISTINCT, window functions with PARTITION BY / ORDER BY /
 * frames, named windows, named arguments, FILTER and WITHIN GROUP) answered with their values over
 * ingested message facts, the schema document, the backfill state, 422 with the parser's position
 * and the construct named in SQL words, 422 QUERY_RESOURCE_LIMIT, and `events:read`.
 */
import { testBackends } from "@switchboard/sql-adapter"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { expectProblem, httpClient } from "../support/HttpClient.js"
import { factsOf, messagesPath, newMessageId } from "../support/MessagesHttp.js"
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

    it("names each refusal in SQL words, with its position in the detail", async () => {
      const refusals: ReadonlyArray<readonly [string, string, string, number]> = [
        ["select * from message_events, lateral generate_series(1, 3)", "function in FROM", "LATERAL functions in FROM are not allowed (generate_series)", 39],
        ["select * from message_events for update", "FOR UPDATE", "FOR UPDATE is not allowed: it locks rows; only reading is allowed", 30],
        ["select pg_sleep(1)", "function", "the function pg_sleep is not allowed", 8],
        ["insert into message_events values (1)", "INSERT", "INSERT statements are not allowed; send one SELECT (or WITH … SELECT)", 1],
        ["select status collate \"C\" from message_events", "COLLATE", "COLLATE is not allowed", 15]
      ]
      for (const [sql, construct, message, position] of refusals) {
        const r = await call(`${path()}/query`, { method: "POST", json: { sql } })
        expectProblem(r, 422, "VALIDATION_FAILED")
        expect(r.body, sql).toMatchObject({ construct, position, detail: `${message} (at character ${position})` })
        expect(r.body.issues, sql).toEqual([{ code: "invalid_sql", location: "json", message, path: "/sql" }])
      }
    })

    it("answers DISTINCT, DISTINCT ON, window functions, frames, named windows and named arguments with their values", async () => {
      const project = await newProject(s, call)
      // sms: dispatched 0 s, accepted 1 s, delivered 2 s; telegram: dispatched 10 s, failed 11 s; imessage: received 20 s.
      const [m1, m2, m3] = [newMessageId(), newMessageId(), newMessageId()]
      const [f1, f2, f3] = [factsOf(m1), factsOf(m2), factsOf(m3)]
      const facts = [f1.dispatched(0), f1.accepted(1), f1.delivered(2), f2.dispatched(10, "telegram"), f2.failed(11), f3.received(20)]
      const ingested = await call(`${messagesPath(project)}/facts`, { method: "POST", json: { facts } })
      expect(ingested.res.status, ingested.text).toBe(200)
      const rows = async (sql: string, parameters: Record<string, string> = {}) => {
        const r = await call(`/v1/projects/${project}/metrics/query`, { method: "POST", json: { sql, parameters } })
        expect(r.res.status, `${sql}: ${JSON.stringify(r.body)}`).toBe(200)
        return r.body.rows
      }
      expect(await rows("select distinct platform from message_events order by platform")).toEqual([["imessage"], ["sms"], ["telegram"]])
      expect(await rows("select distinct on (platform) platform, event_type from message_events order by platform, occurred_at desc"))
        .toEqual([["imessage", "received"], ["sms", "delivered"], ["telegram", "failed"]])
      expect(await rows("select platform, event_type, row_number() over (partition by platform order by occurred_at) as step from message_events order by occurred_at"))
        .toEqual([
          ["sms", "dispatched", 1], ["sms", "accepted", 2], ["sms", "delivered", 3],
          ["telegram", "dispatched", 1], ["telegram", "failed", 2], ["imessage", "received", 1]
        ])
      expect(await rows(
        "select event_type, lag(event_type) over w as before, lead(event_type, 1, 'none') over w as after, first_value(event_type) over w as first " +
          "from message_events where platform = 'sms' window w as (order by occurred_at) order by occurred_at"
      )).toEqual([
        ["dispatched", null, "accepted", "dispatched"],
        ["accepted", "dispatched", "delivered", "dispatched"],
        ["delivered", "accepted", "none", "dispatched"]
      ])
      expect(await rows("select event_type, count(*) over () as total from message_events where platform = 'telegram' order by occurred_at"))
        .toEqual([["dispatched", 2], ["failed", 2]])
      expect(await rows(
        "select count(*) over (order by occurred_at rows between 1 preceding and current row) as pair, " +
          "count(*) over (order by occurred_at range between interval '5 seconds' preceding and current row) as recent, " +
          "count(*) over (order by occurred_at groups between unbounded preceding and current row) as so_far " +
          "from message_events order by occurred_at"
      )).toEqual([[1, 1, 1], [2, 2, 2], [2, 3, 3], [2, 1, 4], [2, 2, 5], [2, 1, 6]])
      expect(await rows(
        "select platform, count(*) over w as events, rank() over (w order by occurred_at) as step " +
          "from message_events window w as (partition by platform) order by occurred_at"
      )).toEqual([["sms", 3, 1], ["sms", 3, 2], ["sms", 3, 3], ["telegram", 2, 1], ["telegram", 2, 2], ["imessage", 1, 1]])
      expect(await rows("select extract(epoch from make_interval(hours => 1, mins => :m::int))::int as secs", { m: "30" })).toEqual([[5400]])
      expect(await rows(
        "select count(*) filter (where platform = 'sms') as sms, mode() within group (order by platform) as top, " +
          "count(distinct message_id) as messages from message_events"
      )).toEqual([[3, "sms", 3]])
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
      expect(schema.body.functions).toEqual(expect.arrayContaining(["date_trunc", "row_number", "lag", "first_value", "make_interval", "extract (SQL syntax)"]))
      expect(schema.body.capabilities).toEqual({
        arrayJoin: false, ctes: true, joins: true, parameters: true, selectWithoutFrom: true, subqueries: true, unions: true
      })
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
