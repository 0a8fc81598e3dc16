/**
 * The parts of server/Observability.ts and server/Metrics.ts on their own, in-process: which
 * spans the sampler records, the webhook sender's span and outcome metrics, the identity-provider
 * call's span, the metrics registry read back through the strict exposition parser, the
 * `name=value` lists of the OTEL_* variables, and that no settings give no observability at all.
 */
import { ConfigProvider, Context, Effect, Exit, Option, Tracer } from "effect"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { describe, expect, it } from "vitest"
import type { OutboundRequest, SendOutcome } from "@switchboard/core/events"
import { DatabaseTelemetry } from "@switchboard/sql-adapter"
import { routeTable } from "../../src/Http.js"
import { makeServerMetrics } from "../../src/server/Metrics.js"
import { makeAttemptObserver, makeObservability, observabilityConfig, parseKeyValues, sampledTracer } from "../../src/server/Observability.js"
import { guardedHttp } from "../../src/server/SsoAdapters.js"
import { observedSender } from "../../src/server/WebhooksAdapters.js"
import { parsePrometheusText, samplesOf } from "../support/PrometheusText.js"
import { recordingTracer } from "../support/RecordingTracer.js"

const spanOptions = (o: Partial<Parameters<Tracer.Tracer["span"]>[0]>): Parameters<Tracer.Tracer["span"]>[0] => ({
  name: "x",
  parent: Option.none(),
  annotations: Context.empty(),
  links: [],
  startTime: 0n,
  kind: "internal",
  root: false,
  sampled: true,
  ...o
})

const settingsOf = (env: Record<string, string>) => Effect.runSync(observabilityConfig.parse(ConfigProvider.fromEnv({ env })))

describe("sampledTracer", () => {
  it("starts traces at requests and webhook attempts only; children follow their parent", () => {
    const { spans, tracer } = recordingTracer()
    const sampled = sampledTracer(tracer, "parentbased_always_on", 1)
    const request = sampled.span(spanOptions({ name: "GET /v1/account", kind: "server" }))
    sampled.span(spanOptions({ name: "WebhookDeliveryEngine.drain" }))
    sampled.span(spanOptions({ name: "pglite", kind: "client" }))
    sampled.span(spanOptions({ name: "webhook.attempt", kind: "client", root: true }))
    sampled.span(spanOptions({ name: "pglite", kind: "client", parent: Option.some(request) }))
    expect(spans.map((s) => [s.name, s.sampled])).toEqual([
      ["GET /v1/account", true],
      ["WebhookDeliveryEngine.drain", false],
      ["pglite", false],
      ["webhook.attempt", true],
      ["pglite", true]
    ])
  })

  it("honours the sampler: off, a ratio, and an incoming traceparent under parentbased_…", () => {
    const { spans, tracer } = recordingTracer()
    const external = Tracer.externalSpan({ traceId: "a".repeat(32), spanId: "b".repeat(16), sampled: false })
    sampledTracer(tracer, "always_off", 1).span(spanOptions({ kind: "server" }))
    sampledTracer(tracer, "traceidratio", 0).span(spanOptions({ kind: "server" }))
    sampledTracer(tracer, "traceidratio", 1).span(spanOptions({ kind: "server" }))
    sampledTracer(tracer, "parentbased_always_on", 1).span(spanOptions({ kind: "server", parent: Option.some(external) }))
    sampledTracer(tracer, "always_on", 1).span(spanOptions({ kind: "server", parent: Option.some(external) }))
    expect(spans.map((s) => s.sampled)).toEqual([false, false, true, false, true])
  })
})

describe("the webhook sender, observed", () => {
  it("makes a span per attempt (host and path, outcome, status) and counts the outcome", async () => {
    const { spans, tracer } = recordingTracer()
    const metrics = makeServerMetrics(routeTable)
    try {
      const outcomes: Array<SendOutcome> = [
        { _tag: "Response", status: 204, body: "" },
        { _tag: "Response", status: 503, body: "" },
        { _tag: "Timeout" }
      ]
      let i = 0
      const start = (_: OutboundRequest, onOutcome: (o: SendOutcome) => void) => {
        onOutcome(outcomes[i++]!)
        return () => {}
      }
      const observer = makeAttemptObserver(tracer, metrics)
      const sender = observedSender(start, observer)
      const req: OutboundRequest = { url: "https://hooks.example/in?token=secret", headers: {}, body: "{}", timeoutMs: 1000 }
      const seen: Array<string> = []
      sender.start!(req, (o) => seen.push(o._tag))
      expect(await Effect.runPromise(sender.send(req))).toEqual(outcomes[1])
      sender.start!(req, (o) => seen.push(o._tag))
      expect(seen).toEqual(["Response", "Timeout"])
      expect(spans.map((s) => [s.name, s.kind, s.attributes.get("webhook.outcome"), s.attributes.get("http.response.status_code"), Exit.isSuccess(s.exit!)]))
        .toEqual([
          ["webhook.attempt", "client", "delivered", 204, true],
          ["webhook.attempt", "client", "http_error", 503, false],
          ["webhook.attempt", "client", "timeout", undefined, false]
        ])
      expect([spans[0]!.attributes.get("server.address"), spans[0]!.attributes.get("url.path")]).toEqual(["hooks.example", "/in"])
      expect([...spans[0]!.attributes.values()].join(" ")).not.toContain("secret")
      const families = parsePrometheusText(metrics.render())
      expect(samplesOf(families, "webhook_delivery_attempts_total").map((s) => [s.labels.outcome, s.value]).sort())
        .toEqual([["delivered", 1], ["http_error", 1], ["timeout", 1]])
    } finally {
      metrics.close()
    }
  })
})

describe("the identity-provider call", () => {
  it("is a client span with the host, path and status (never the query)", async () => {
    const server = createServer((_, res) => res.writeHead(200, { "content-type": "application/json" }).end("{}"))
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()))
    const port = (server.address() as AddressInfo).port
    const { spans, tracer } = recordingTracer()
    try {
      const http = guardedHttp({ allowPrivate: true, timeoutMs: 5000 })
      const answer = await Effect.runPromise(http({ url: `http://127.0.0.1:${port}/.well-known/openid-configuration?x=secret`, method: "GET" }).pipe(Effect.withTracer(tracer)))
      expect(answer.status).toBe(200)
      expect(spans.map((s) => [s.name, s.kind, s.attributes.get("server.address"), s.attributes.get("url.path"), s.attributes.get("http.response.status_code")]))
        .toEqual([["sso.provider", "client", "127.0.0.1", "/.well-known/openid-configuration", 200]])
    } finally {
      server.close()
    }
  })
})

describe("the metrics registry", () => {
  it("renders requests by declared route, statements, and the gauges, in a valid exposition", () => {
    const metrics = makeServerMetrics(routeTable)
    try {
      const started = performance.now()
      metrics.request("GET", "/v1/projects/01890000-0000-7000-8000-000000000001", 200, "sb_req_x", started)
      metrics.request("GET", "/v1/projects/01890000-0000-7000-8000-000000000002", 200, "sb_req_y", started)
      metrics.request("GET", "/nowhere", 404, "sb_req_z", started)
      DatabaseTelemetry.onStatement?.(2, false)
      DatabaseTelemetry.onStatement?.(3, true)
      metrics.setChannelSessions(() => 3)
      metrics.setDatabaseGauges({ deliveries: { pending: 4, deadLettered: 1, oldestDueMillis: Date.now() - 10_000 }, operations: [{ state: "running", count: 2 }] })
      const families = parsePrometheusText(metrics.render())
      expect(samplesOf(families, "http_server_requests_total").map((s) => [s.labels.route, s.labels.status, s.value]))
        .toEqual([["/v1/projects/:projectId", "200", 2], ["-", "404", 1]])
      expect(samplesOf(families, "db_client_operation_duration_seconds", { le: "+Inf" }).map((s) => [s.labels.outcome, s.value]))
        .toEqual([["ok", 1], ["error", 1]])
      expect(samplesOf(families, "channel_sessions")[0]!.value).toBe(3)
      expect(samplesOf(families, "webhook_deliveries_pending")[0]!.value).toBe(4)
      expect(samplesOf(families, "webhook_delivery_lag_seconds")[0]!.value).toBeGreaterThanOrEqual(10)
      expect(samplesOf(families, "provisioning_operations").map((s) => [s.labels.state, s.value])).toEqual([["pending", 0], ["running", 2]])
    } finally {
      metrics.close()
    }
    // Closed: statements are no longer observed.
    expect(DatabaseTelemetry.onStatement).toBeUndefined()
  })
})

describe("the settings", () => {
  it("read OTEL_EXPORTER_OTLP_HEADERS and OTEL_RESOURCE_ATTRIBUTES lists (URL-encoded values)", () => {
    expect(parseKeyValues("api-key=a%20b, x-tenant = t1,broken,=v")).toEqual({ "api-key": "a b", "x-tenant": "t1" })
  })

  it("give no tracer, no metrics and an empty context when nothing is configured (or the SDK is disabled)", async () => {
    for (const env of [{}, { OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:1", OTEL_SDK_DISABLED: "true" }]) {
      const o = await Effect.runPromise(Effect.scoped(makeObservability(settingsOf(env), routeTable, "0")))
      expect([o.tracing, o.metrics, Context.isContext(o.context) && [...o.context.mapUnsafe.keys()], o.banner]).toEqual([false, undefined, [], []])
    }
  })
})
