/**
 * A sick database, on a PostgreSQL cluster this test owns:
 * - stopped: /v1 answers 503 problem+json with Retry-After (and the rate-limit headers it knows),
 *   the other surfaces 503 in their format, readiness 503 while liveness stays 200, and each
 *   failure is logged once as one line with its request id (no stack at info level);
 * - frozen (SIGSTOP on the postmaster and every backend): requests end with 503/504 instead of
 *   hanging, within the configured statement, connect and request bounds.
 */
import { DatabaseConfig, StoreSql } from "@switchboard/sql-adapter"
import { Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import { postgresBin, startOwnPostgres, type OwnPostgres } from "../support/OwnPostgres.js"
import { startTestServer, type TestServer } from "../support/TestServer.js"

/** A request that must answer: a hang fails the test here (not a timing threshold: 30 s is "never"). */
const call = (url: string, init: RequestInit = {}) => fetch(url, { ...init, signal: AbortSignal.timeout(30_000) })

describe.runIf(postgresBin !== undefined)("a sick database", () => {
  let pg: OwnPostgres
  let s: TestServer
  const WINDOW_SECONDS = 3600
  let project = ""
  let sessionCookie = ""

  beforeAll(async () => {
    pg = await startOwnPostgres()
    const store = StoreSql(DatabaseConfig.Postgres({
      url: Redacted.make(pg.url),
      maxConnections: 4,
      statementTimeoutMs: 1000,
      connectTimeoutMs: 1000
    }))
    s = await startTestServer("postgres", {
      // One window for the whole file: the outage test's warm-up hit and its request must share it.
      rateLimitWindowSeconds: WINDOW_SECONDS,
      credentialCacheSeconds: 0,
      requestTimeoutMs: 4000,
      webhookDeliveryEnabled: false,
      billingSchedulerEnabled: false,
      privacyJobEnabled: false,
      oauthSweepIntervalSeconds: 0
    }, undefined, store)
    const org = await (await call(`${s.baseUrl}/v1/organizations`, {
      method: "POST",
      headers: { authorization: `Bearer ${s.serviceKey}`, "content-type": "application/json", "idempotency-key": "sick-org" },
      body: JSON.stringify({ name: "Sick" })
    })).json() as { organizationId: string }
    project = (await (await call(`${s.baseUrl}/v1/organizations/${org.organizationId}/projects`, {
      method: "POST",
      headers: { authorization: `Bearer ${s.serviceKey}`, "content-type": "application/json", "idempotency-key": "sick-project" },
      body: JSON.stringify({ name: "Sick", slug: "sick-db" })
    })).json() as { projectId: string }).projectId
    expect(project).toMatch(/^[0-9a-f-]{36}$/)
    const { Sessions } = await import("@switchboard/core/dashboard")
    const { Effect } = await import("effect")
    const created = await s.run(Effect.flatMap(Sessions, (sessions) => sessions.create(s.accountId as never)))
    sessionCookie = `sb_session=${Redacted.value(created.token)}`
  }, 120_000)
  afterAll(async () => {
    pg?.thaw()
    await s?.close().catch(() => undefined)
    pg?.destroy()
  }, 60_000)

  it("healthy: liveness and readiness answer 200", async () => {
    expect((await call(`${s.baseUrl}/api/health`)).status).toBe(200)
    const ready = await call(`${s.baseUrl}/api/health/ready`)
    expect(ready.status).toBe(200)
    const body = await ready.json() as { data: { status: string; database: { ok: boolean }; deliveries: { backlogAgeSeconds: number }; requestsInFlight: number } }
    expect(body.data.status).toBe("ready")
    expect(body.data.requestsInFlight).toBe(1) // this very request
    expect(body.data.database.ok).toBe(true)
    expect(body.data.deliveries.backlogAgeSeconds).toBe(0)
  })

  it("stopped: 503 in every surface's format, readiness 503, one log line per failure with its request id", async () => {
    // A first request makes the rate limiter know this credential, so its headers survive the
    // outage — within one window: a new window's first hit is counted in the (stopped) database.
    // Windows are aligned to the clock, so start well inside one.
    const intoWindow = Date.now() % (WINDOW_SECONDS * 1000)
    if (intoWindow > (WINDOW_SECONDS - 60) * 1000) await new Promise((r) => setTimeout(r, WINDOW_SECONDS * 1000 - intoWindow + 100))
    expect((await call(`${s.baseUrl}/v1/account`, { headers: { authorization: `Bearer ${s.serviceKey}` } })).status).toBe(200)
    const logged: Array<string> = []
    const spy = vi.spyOn(console, "log").mockImplementation((...args: Array<unknown>) => {
      logged.push(args.map(String).join(" "))
    })
    pg.stop()
    try {
      const v1 = await call(`${s.baseUrl}/v1/account`, { headers: { authorization: `Bearer ${s.serviceKey}` } })
      const v1Body = await v1.text()
      expect(v1.status).toBe(503)
      expect(v1.headers.get("content-type")).toBe("application/problem+json")
      expect(JSON.parse(v1Body).code).toBe("UPSTREAM_UNAVAILABLE")
      expect(Number(v1.headers.get("retry-after"))).toBeGreaterThan(0)
      expect(v1.headers.get("ratelimit")).toMatch(/^"default";r=\d+;t=\d+$/)
      const requestId = v1.headers.get("x-request-id")!
      expect(requestId).toMatch(/^sb_req_/)

      // Unauthenticated /v1 (the limiter's first hit of this address goes to the database too).
      const anonymous = await call(`${s.baseUrl}/v1/projects/${project}`, { headers: { authorization: "Bearer sb_ask_0aaaaaaaaaaaaaaaaaaaaaaaaa_x" } })
      expect(anonymous.status).toBe(503)
      expect(anonymous.headers.get("content-type")).toBe("application/problem+json")

      const dashboard = await call(`${s.baseUrl}/api/projects/`, { headers: { cookie: sessionCookie } })
      expect(dashboard.status).toBe(503)
      expect((await dashboard.json() as { succeed: boolean }).succeed).toBe(false)

      expect((await call(`${s.baseUrl}/api/health`)).status).toBe(200)
      const ready = await call(`${s.baseUrl}/api/health/ready`)
      expect(ready.status).toBe(503)
      expect((await ready.json() as { data: { status: string } }).data.status).toBe("not_ready")

      const lines = logged.filter((l) => l.includes(requestId))
      expect(lines).toHaveLength(1)
      expect(lines[0]).toContain("database unavailable")
      expect(lines[0]).toContain("status=503")
      expect(logged.join("\n")).not.toMatch(/\n\s+at /)
    } finally {
      spy.mockRestore()
      pg.start()
    }
    // Back: the pool reconnects.
    let status = 0
    for (let i = 0; i < 50 && status !== 200; i++) {
      status = (await call(`${s.baseUrl}/v1/account`, { headers: { authorization: `Bearer ${s.serviceKey}` } })).status
      if (status !== 200) await new Promise((r) => setTimeout(r, 200))
    }
    expect(status).toBe(200)
  }, 120_000)

  it("frozen: requests end with 503/504 instead of hanging; readiness says not ready", async () => {
    // A second server whose database bounds are far away: only the request deadline can answer.
    const patient = await startTestServer("postgres", {
      credentialCacheSeconds: 0,
      requestTimeoutMs: 1500,
      webhookDeliveryEnabled: false,
      billingSchedulerEnabled: false,
      privacyJobEnabled: false,
      oauthSweepIntervalSeconds: 0
    }, undefined, StoreSql(DatabaseConfig.Postgres({ url: Redacted.make(pg.url), statementTimeoutMs: 600_000, connectTimeoutMs: 120_000 })))
    expect((await call(`${patient.baseUrl}/v1/account`, { headers: { authorization: `Bearer ${patient.serviceKey}` } })).status).toBe(200)
    pg.freeze()
    try {
      const answers = await Promise.all([
        call(`${s.baseUrl}/v1/account`, { headers: { authorization: `Bearer ${s.serviceKey}` } }),
        call(`${s.baseUrl}/v1/projects/${project}`, { headers: { authorization: `Bearer ${s.serviceKey}` } }),
        call(`${s.baseUrl}/v1/organizations`, {
          method: "POST",
          headers: { authorization: `Bearer ${s.serviceKey}`, "content-type": "application/json", "idempotency-key": "frozen-org" },
          body: JSON.stringify({ name: "Frozen" })
        }),
        call(`${s.baseUrl}/api/projects/`, { headers: { cookie: sessionCookie } })
      ])
      for (const r of answers) {
        expect([503, 504]).toContain(r.status)
        const body = await r.json() as { code?: string }
        expect(["UPSTREAM_TIMEOUT", "REQUEST_TIMEOUT", "UPSTREAM_UNAVAILABLE"]).toContain(body.code)
        expect(r.headers.get("retry-after")).not.toBeNull()
        expect(r.headers.get("x-request-id")).toMatch(/^sb_req_/)
      }
      expect(answers[0]!.headers.get("content-type")).toBe("application/problem+json")
      expect((await call(`${s.baseUrl}/api/health/ready`)).status).toBe(503)

      // The deadline answers while the work is stuck (served by Node: on the Node response, with
      // the middleware's headers) and logs one line with the request id.
      const logged: Array<string> = []
      const spy = vi.spyOn(console, "log").mockImplementation((...args: Array<unknown>) => {
        logged.push(args.map(String).join(" "))
      })
      let deadline: Response
      try {
        deadline = await call(`${patient.baseUrl}/v1/account`, { headers: { authorization: `Bearer ${patient.serviceKey}` } })
        await new Promise((r) => setTimeout(r, 100))
      } finally {
        spy.mockRestore()
      }
      expect(deadline.status).toBe(504)
      expect(deadline.headers.get("content-type")).toBe("application/problem+json")
      expect(deadline.headers.get("retry-after")).toBe("1")
      const deadlineId = deadline.headers.get("x-request-id")!
      expect(deadlineId).toMatch(/^sb_req_/)
      const deadlineBody = await deadline.json() as { code: string; requestId?: string }
      expect(deadlineBody.code).toBe("REQUEST_TIMEOUT")
      expect(logged.filter((l) => l.includes(deadlineId) && l.includes("request deadline passed"))).toHaveLength(1)
    } finally {
      pg.thaw()
    }
    await patient.close()
    let status = 0
    for (let i = 0; i < 100 && status !== 200; i++) {
      status = (await call(`${s.baseUrl}/v1/account`, { headers: { authorization: `Bearer ${s.serviceKey}` } })).status
      if (status !== 200) await new Promise((r) => setTimeout(r, 200))
    }
    expect(status).toBe(200)
  }, 120_000)
})
