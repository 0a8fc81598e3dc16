/**
 * Observability of `switchboard serve` as an operator turns it on (docs/operations.md#observability),
 * in a real server process on an embedded database:
 *
 * - OTLP/HTTP (JSON) to a real receiver in the test: the request span carries the `X-Request-ID`
 *   the client saw and has `X-Trace-ID` as its trace, a SQL statement's span descends from it, a
 *   webhook attempt is a span of its own, and the metrics and the log lines arrive;
 * - `/metrics` on METRICS_PORT, read by the strict exposition parser (test/support/PrometheusText.ts):
 *   requests by declared route and status, a webhook outcome, the channel's session, the pool,
 *   process and event-loop families; `/metrics` on the public port is each surface's own 404;
 * - without an endpoint: a receiver on OTLP's standard local port gets nothing (OTEL_SDK_DISABLED
 *   and the rest of the switches: ObservabilityParts.test.ts); a METRICS_PORT in use stops the start.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { connect, type Frames } from "../support/ChannelClient.js"
import { createServer } from "node:net"
import { bootstrapOf, cliEnv, runCli, type Running, startServer, stopServer } from "../support/CliProcess.js"
import { parsePrometheusText, samplesOf } from "../support/PrometheusText.js"
import { freePort, type Received, type Receiver, startReceiver, waitUntil } from "../support/WebhookReceiver.js"

interface OtlpValue {
  readonly stringValue?: string
  readonly intValue?: string | number
  readonly doubleValue?: number
  readonly boolValue?: boolean
}
interface OtlpSpan {
  readonly traceId: string
  readonly spanId: string
  readonly parentSpanId?: string
  readonly name: string
  readonly kind: number
  readonly attributes: ReadonlyArray<{ readonly key: string; readonly value: OtlpValue }>
}

const spansIn = (received: ReadonlyArray<Received>): Array<OtlpSpan> =>
  received.filter((r) => r.path === "/otlp/v1/traces").flatMap((r) =>
    (JSON.parse(r.body) as { resourceSpans: Array<{ scopeSpans: Array<{ spans: Array<OtlpSpan> }> }> }).resourceSpans.flatMap((rs) =>
      rs.scopeSpans.flatMap((ss) => ss.spans)
    )
  )

const metricNamesIn = (received: ReadonlyArray<Received>): Set<string> =>
  new Set(received.filter((r) => r.path === "/otlp/v1/metrics").flatMap((r) =>
    (JSON.parse(r.body) as { resourceMetrics: Array<{ scopeMetrics: Array<{ metrics: Array<{ name: string }> }> }> }).resourceMetrics.flatMap((rm) =>
      rm.scopeMetrics.flatMap((sm) => sm.metrics.map((m) => m.name))
    )
  ))

const logsIn = (received: ReadonlyArray<Received>): Array<string> =>
  received.filter((r) => r.path === "/otlp/v1/logs").flatMap((r) =>
    (JSON.parse(r.body) as { resourceLogs: Array<{ scopeLogs: Array<{ logRecords: Array<{ body?: OtlpValue }> }> }> }).resourceLogs.flatMap((rl) =>
      rl.scopeLogs.flatMap((sl) => sl.logRecords.map((l) => JSON.stringify(l)))
    )
  )

const attribute = (span: OtlpSpan, key: string): unknown => {
  const v = span.attributes.find((a) => a.key === key)?.value
  return v === undefined ? undefined : v.stringValue ?? (v.intValue === undefined ? undefined : Number(v.intValue)) ?? v.doubleValue ?? v.boolValue
}

const dirs: Array<string> = []
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})

describe("observability of switchboard serve", { timeout: 180_000 }, () => {
  let otlp: Receiver
  let target: Receiver
  let server: Running
  let metricsPort: number
  let serviceKey: string
  let n = 0
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${server.baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${serviceKey}`, "content-type": "application/json", "idempotency-key": `obs-${++n}` },
      ...(body === undefined ? {} : { body: JSON.stringify(body) })
    })
    const text = await res.text()
    expect(res.status, text).toBeLessThan(300)
    return { res, json: JSON.parse(text) as Record<string, any> }
  }

  beforeAll(async () => {
    otlp = await startReceiver()
    otlp.answer = () => ({ status: 200, body: "{}", headers: { "content-type": "application/json" } })
    target = await startReceiver()
    target.answer = (r) => ({ status: r.path === "/dead" ? 400 : 204 })
    metricsPort = await freePort()
    const dir = mkdtempSync(join(tmpdir(), "sb-observability-"))
    dirs.push(dir)
    server = await startServer(cliEnv(dir, {
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url("/otlp"),
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_BSP_SCHEDULE_DELAY: "100",
      OTEL_METRIC_EXPORT_INTERVAL: "300",
      OTEL_SERVICE_NAME: "switchboard-test",
      METRICS_PORT: String(metricsPort),
      ALLOW_PRIVATE_WEBHOOK_TARGETS: "true",
      WEBHOOK_POLL_INTERVAL_MS: "20"
    }), 110_000) // the first start after a source change builds the CLI bundle
    serviceKey = bootstrapOf(server.output())!.serviceKey!
  }, 120_000)

  afterAll(async () => {
    if (server !== undefined) await stopServer(server)
    await otlp?.close()
    await target?.close()
  })

  it("exports a span per request with its request id, SQL spans under it, webhook attempts, the metrics and the logs", async () => {
    expect(server.output()).toContain(`OpenTelemetry   traces, metrics, logs to ${otlp.url("/otlp")}`)
    const { res } = await call("GET", "/v1/account")
    const requestId = res.headers.get("x-request-id")!
    const traceId = res.headers.get("x-trace-id")!
    await waitUntil("the request span", () => spansIn(otlp.received).some((s) => attribute(s, "http.request.id") === requestId), 30_000)
    const spans = spansIn(otlp.received)
    const request = spans.find((s) => attribute(s, "http.request.id") === requestId)!
    expect(request).toMatchObject({ name: "GET /v1/account", kind: 2, traceId })
    expect([attribute(request, "http.route"), attribute(request, "http.request.method"), attribute(request, "http.response.status_code")])
      .toEqual(["/v1/account", "GET", 200])
    // A statement of that request: a descendant of its span, with its text.
    const byId = new Map(spans.map((s) => [s.spanId, s]))
    const descends = (s: OtlpSpan): boolean => {
      for (let p = s.parentSpanId; p !== undefined && p !== ""; p = byId.get(p)?.parentSpanId) if (p === request.spanId) return true
      return false
    }
    const statement = spans.find((s) => s.traceId === traceId && typeof attribute(s, "db.query.text") === "string" && descends(s))
    expect(statement, JSON.stringify(spans.filter((s) => s.traceId === traceId).map((s) => s.name))).toBeDefined()
    expect(statement!.kind).toBe(3) // CLIENT

    // A webhook delivery attempt (a project update's event to a receiver).
    const org = await call("POST", "/v1/organizations", { name: "Obs" })
    const project = await call("POST", `/v1/organizations/${org.json.organizationId}/projects`, { name: "Obs", slug: "obs-test" })
    await call("POST", `/v1/projects/${project.json.projectId}/webhooks/destinations`, {
      apiVersion: "2026-07-01",
      enabledEvents: ["project.updated"],
      name: "receiver",
      url: target.url("/hook")
    })
    // And one whose receiver refuses it (400): dead-lettered at once, which the server logs as a warning.
    await call("POST", `/v1/projects/${project.json.projectId}/webhooks/destinations`, {
      apiVersion: "2026-07-01",
      enabledEvents: ["project.updated"],
      name: "refusing",
      url: target.url("/dead")
    })
    await call("PATCH", `/v1/projects/${project.json.projectId}`, { name: "Obs renamed" })
    await target.waitFor((rs) => rs.some((r) => r.path === "/hook") && rs.some((r) => r.path === "/dead"), 30_000)
    const attempts = () => spansIn(otlp.received).filter((s) => s.name === "webhook.attempt")
    await waitUntil("the webhook attempt spans", () => attempts().length >= 2, 30_000)
    expect(attempts().map((a) => [a.kind, attribute(a, "url.path"), attribute(a, "webhook.outcome"), attribute(a, "http.response.status_code")]).sort())
      .toEqual([[3, "/dead", "http_error", 400], [3, "/hook", "delivered", 204]])
    // The server's log lines are exported too: the dead-lettered delivery's warning.
    await waitUntil("the dead-letter warning in the exported logs", () => logsIn(otlp.received).some((l) => l.includes("dead-lettered")), 30_000)

    // The metrics: the same registry as /metrics, exported.
    await waitUntil("exported request and webhook metrics", () => {
      const names = metricNamesIn(otlp.received)
      return names.has("http_server_requests_total") && names.has("webhook_delivery_attempts_total")
    }, 30_000)
    const resource = JSON.parse(otlp.received.find((r) => r.path === "/otlp/v1/traces")!.body).resourceSpans[0].resource
    expect(resource.attributes).toContainEqual({ key: "service.name", value: { stringValue: "switchboard-test" } })
  })

  it("serves the Prometheus text format on METRICS_PORT, and /metrics on the public port is each surface's 404", async () => {
    // A channel session held open while scraping.
    const org = await call("POST", "/v1/organizations", { name: "Chan" })
    const project = await call("POST", `/v1/organizations/${org.json.organizationId}/projects`, { name: "Chan", slug: "chan-test" })
    const { json: rotated } = await call("POST", `/v1/projects/${project.json.projectId}/secret-rotations`)
    const tlsOrigin = /and (https:\/\/\S+)/.exec(server.output())![1]!
    process.env.NODE_TLS_REJECT_UNAUTHORIZED = "0" // the generated certificate is self-signed
    const minted = await fetch(`${tlsOrigin}/projects/${project.json.projectId}/fusor/token`, {
      method: "POST",
      headers: { authorization: `Basic ${Buffer.from(`${project.json.projectId}:${rotated.projectSecret}`).toString("base64")}` }
    })
    delete process.env.NODE_TLS_REJECT_UNAUTHORIZED
    expect(minted.status).toBe(200)
    const { data } = (await minted.json()) as { data: { token: string } }
    let session: Frames | undefined
    try {
      session = connect(`${server.baseUrl.replace("http", "ws")}/v1/subscribe`, "switchboard.events.v1.json")
      await session.opened
      session.send({ type: "init", startSeq: 0, token: data.token })
      await session.next((f) => f.type === "ready")
      await call("GET", `/v1/projects/${project.json.projectId}`)

      const scrape = await fetch(`http://127.0.0.1:${metricsPort}/metrics`)
      expect(scrape.status).toBe(200)
      expect(scrape.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8")
      const text = await scrape.text()
      const families = parsePrometheusText(text)
      // Requests: the declared route, never the raw path.
      expect(samplesOf(families, "http_server_requests_total", { method: "GET", route: "/v1/account", status: "200" })[0]!.value).toBeGreaterThanOrEqual(1)
      expect(samplesOf(families, "http_server_requests_total", { method: "GET", route: "/v1/projects/:projectId", status: "200" })).toHaveLength(1)
      expect(text).not.toContain(project.json.projectId)
      expect(families.get("http_server_request_duration_seconds")!.type).toBe("histogram")
      expect(samplesOf(families, "http_server_request_duration_seconds", { route: "/v1/account", le: "+Inf" })[0]!.value).toBeGreaterThanOrEqual(1)
      // Webhooks: the attempts of the first test by outcome, the backlog gauges (one dead-lettered).
      expect(samplesOf(families, "webhook_delivery_attempts_total", { outcome: "delivered" })[0]!.value).toBeGreaterThanOrEqual(1)
      expect(samplesOf(families, "webhook_delivery_attempts_total", { outcome: "http_error" })[0]!.value).toBeGreaterThanOrEqual(1)
      expect(samplesOf(families, "webhook_deliveries_dead_lettered")[0]!.value).toBeGreaterThanOrEqual(1)
      expect(families.get("webhook_delivery_attempt_duration_seconds")!.type).toBe("histogram")
      for (const gauge of ["webhook_deliveries_pending", "webhook_deliveries_dead_lettered", "webhook_delivery_lag_seconds"]) {
        expect([gauge, families.get(gauge)?.type]).toEqual([gauge, "gauge"])
        expect(samplesOf(families, gauge)[0]!.value).toBeGreaterThanOrEqual(0)
      }
      expect(samplesOf(families, "provisioning_operations").map((s) => s.labels.state).sort()).toEqual(["pending", "running"])
      // The channel: the one session open now.
      expect(samplesOf(families, "channel_sessions")[0]!.value).toBe(1)
      // Database: statements measured; the embedded database's one session is its pool.
      const statements = samplesOf(families, "db_client_operation_duration_seconds", { outcome: "ok", le: "+Inf" })[0]!.value
      expect(statements).toBeGreaterThan(0)
      expect(samplesOf(families, "db_client_connections_max")[0]!.value).toBe(1)
      const pool = samplesOf(families, "db_client_connections").map((s) => s.value)
      expect(pool.reduce((a, b) => a + b, 0)).toBe(1)
      expect(samplesOf(families, "db_client_connections_pending_requests")[0]!.value).toBeGreaterThanOrEqual(0)
      // The process.
      expect(samplesOf(families, "process_resident_memory_bytes")[0]!.value).toBeGreaterThan(1_000_000)
      expect(samplesOf(families, "process_cpu_seconds_total", { mode: "user" })[0]!.value).toBeGreaterThan(0)
      expect(samplesOf(families, "nodejs_heap_bytes", { state: "used" })[0]!.value).toBeGreaterThan(0)
      expect(samplesOf(families, "nodejs_eventloop_lag_seconds", { stat: "max" })[0]!.value).toBeGreaterThan(0)
      expect(families.get("process_cpu_seconds_total")!.type).toBe("counter")
      // A second scrape counts on.
      const again = parsePrometheusText(await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text())
      expect(samplesOf(again, "db_client_operation_duration_seconds", { outcome: "ok", le: "+Inf" })[0]!.value).toBeGreaterThanOrEqual(statements)
      // The listener answers /metrics only.
      expect((await fetch(`http://127.0.0.1:${metricsPort}/other`)).status).toBe(404)
      expect((await fetch(`http://127.0.0.1:${metricsPort}/metrics`, { method: "POST" })).status).toBe(405)
    } finally {
      session?.ws.close()
    }

    // The public port has no /metrics: each surface answers it as any unknown path of its own.
    const shape = async (path: string) => {
      const r = await fetch(`${server.baseUrl}${path}`)
      const body = await r.text()
      return { status: r.status, type: r.headers.get("content-type"), body: body.replace(/sb_req_[0-9a-zA-Z]+/g, "<id>").replaceAll(path, "<path>") }
    }
    for (const [metrics, unknown] of [["/metrics", "/zz-unknown"], ["/v1/metrics", "/v1/zz-unknown"], ["/api/metrics", "/api/zz-unknown"]] as const) {
      const [a, b] = [await shape(metrics), await shape(unknown)]
      expect([metrics, a.status]).toEqual([metrics, 404])
      expect([metrics, a.type, a.body]).toEqual([metrics, b.type, b.body])
    }
  })
})

describe("observability off", { timeout: 150_000 }, () => {
  it("without OTEL_EXPORTER_OTLP_ENDPOINT nothing is sent, not even to OTLP's standard local port, and the banner names none", async () => {
    // A receiver on 4318, the address OpenTelemetry SDKs fall back to (on another port if it is taken).
    const otlp = await startReceiver(4318).catch(() => startReceiver())
    const dir = mkdtempSync(join(tmpdir(), "sb-observability-off-"))
    dirs.push(dir)
    const server = await startServer(cliEnv(dir, {
      OTEL_EXPORTER_OTLP_ENDPOINT: undefined,
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: undefined,
      OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: undefined,
      OTEL_EXPORTER_OTLP_LOGS_ENDPOINT: undefined,
      METRICS_PORT: undefined,
      // Everything else set, as a deployment might leave it.
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_TRACES_EXPORTER: "otlp",
      OTEL_BSP_SCHEDULE_DELAY: "50",
      OTEL_METRIC_EXPORT_INTERVAL: "100",
      OTEL_SERVICE_NAME: "switchboard-off"
    }), 110_000)
    try {
      expect(server.output()).not.toContain("OpenTelemetry")
      expect(server.output()).not.toContain("/metrics")
      const serviceKey = bootstrapOf(server.output())!.serviceKey!
      for (let i = 0; i < 5; i++) {
        const r = await fetch(`${server.baseUrl}/v1/account`, { headers: { authorization: `Bearer ${serviceKey}` } })
        expect(r.status).toBe(200)
      }
      // Many export intervals pass with nothing sent.
      await new Promise((r) => setTimeout(r, 1_000))
      expect(otlp.received).toEqual([])
    } finally {
      await stopServer(server)
    }
    // Not at shutdown either (an exporter flushes then).
    expect(otlp.received).toEqual([])
    await otlp.close()
  })

  it("a METRICS_PORT in use stops the start, naming it, before any credential is made", async () => {
    const blocker = createServer()
    await new Promise<void>((r) => blocker.listen(0, "127.0.0.1", () => r()))
    const taken = (blocker.address() as { port: number }).port
    try {
      const dir = mkdtempSync(join(tmpdir(), "sb-observability-port-"))
      dirs.push(dir)
      const r = await runCli(["serve"], { ...cliEnv(dir, { METRICS_PORT: String(taken) }), PORT: String(await freePort()) })
      expect(r.code).toBe(1)
      expect(r.stderr).toContain(`could not run the server: METRICS_PORT ${taken}: listen EADDRINUSE`)
      expect(r.stderr).not.toMatch(/\n\s+at /) // no stack trace
      expect(r.stdout).not.toContain("bootstrap")
    } finally {
      blocker.close()
    }
  })
})
