/**
 * A heavy query on the embedded database does not stop the server (docs/sql-query.md): PGlite runs
 * on its own thread, so while a statement that passes the planner's cost cap runs (a 4-way join
 * with 30 nested md5() per row), requests that need no database keep being answered; at the
 * statement timeout the caller gets 504 REQUEST_TIMEOUT at once, the statement is stopped (the
 * database reopened on a new thread) and the store answers again with everything committed intact.
 *
 * No timing threshold: the test counts health answers that arrive while the query is outstanding
 * (with the database on the server's thread, none can), and prints the slowest for the record.
 */
import { DatabaseConfig, StoreSql } from "@switchboard/sql-adapter"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { httpClient } from "../support/HttpClient.js"
import { startTestServer, type TestServer } from "../support/TestServer.js"
import { newProject } from "../support/VoiceHttp.js"

const values = (n: number, name: string) => `(values ${Array.from({ length: n }, (_, i) => `('${name}${i}')`).join(", ")}) ${name}(v)`
const nestedMd5 = (expression: string, depth: number): string => depth === 0 ? expression : `md5(${nestedMd5(expression, depth - 1)})`
/** 30⁴ = 810 000 joined rows, each through 30 nested md5(): well under the cost cap, tens of seconds of work. */
const heavySql = `select count(*) as n from ${values(30, "a")}, ${values(30, "b")}, ${values(30, "c")}, ${values(30, "d")} ` +
  `where ${nestedMd5("a.v || b.v || c.v || d.v", 30)} like 'zz%'`

describe("a heavy query on the embedded database (pglite, data directory)", () => {
  let s: TestServer
  let projectId: string
  let dir: string
  const call = httpClient(() => s)

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "sb-heavy-"))
    // A template shared by the test files that open a data directory: initdb runs once.
    const templateDir = join(tmpdir(), "switchboard-test-pglite-templates")
    s = await startTestServer("pglite", {}, undefined, StoreSql(DatabaseConfig.Pglite({ dataDir: join(dir, "data"), templateDir })))
    projectId = await newProject(s, call)
  })
  afterAll(async () => {
    await s?.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it("answers 504 at the statement timeout while the server keeps answering, then serves the store again", async () => {
    let outstanding = true
    const started = performance.now()
    const query = call(`/v1/projects/${projectId}/metrics/query`, { method: "POST", json: { sql: heavySql } }).then((r) => {
      outstanding = false
      return { ...r, elapsedMs: performance.now() - started }
    })
    // Health answers received while the query is outstanding, and how long each took.
    const latencies: Array<number> = []
    while (outstanding) {
      const t = performance.now()
      const health = await fetch(`${s.baseUrl}/api/health`)
      await health.text()
      if (outstanding) latencies.push(performance.now() - t)
      await new Promise((r) => setTimeout(r, 50))
    }
    const answer = await query
    expect(answer.res.status, JSON.stringify(answer.body)).toBe(504)
    expect(answer.body.code).toBe("REQUEST_TIMEOUT")
    console.log(
      `heavy query answered ${answer.res.status} after ${Math.round(answer.elapsedMs)} ms; ` +
        `${latencies.length} health answers meanwhile, slowest ${Math.round(Math.max(...latencies))} ms`
    )
    expect(latencies.length).toBeGreaterThanOrEqual(10)

    // The statement was stopped: the store answers again, with what was committed before.
    const project = await call(`/v1/projects/${projectId}`)
    expect(project.res.status, JSON.stringify(project.body)).toBe(200)
    const light = await call(`/v1/projects/${projectId}/metrics/query`, { method: "POST", json: { sql: "select count(*) as n from message_events" } })
    expect(light.res.status, JSON.stringify(light.body)).toBe(200)
  })
})
