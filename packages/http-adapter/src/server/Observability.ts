/**
 * Observability of the standalone server (docs/operations.md#observability), off unless
 * configured:
 *
 * - OpenTelemetry over OTLP/HTTP, through Effect's own exporters (`effect/observability`), when
 *   `OTEL_EXPORTER_OTLP_ENDPOINT` (or a per-signal endpoint) is set: traces (a server span per
 *   request, the spans of core services, SQL statements, webhook attempts, outbound HTTP calls),
 *   the metrics of `Metrics.ts`, and the server's log lines. Without an endpoint no tracer is
 *   installed and the request pipeline is the untraced one.
 * - The Prometheus text format on a listener of its own (`METRICS_PORT`), from the same registry.
 *
 * `makeObservability` builds what is on and gives the context the application is built with
 * (tracer, loggers, `Telemetry` for the request pipeline, `WebhookAttemptObserver` for the sender).
 */
import { DeliveryStats } from "@switchboard/core/dashboard"
import { activePlatformOperationCounts } from "@switchboard/sql-adapter"
import { Config, Context, Effect, Exit, Layer, Option, References, Scope, Tracer } from "effect"
import { FetchHttpClient } from "effect/http"
import { OtlpLogger, OtlpMetrics, OtlpSerialization, OtlpTracer } from "effect/observability"
import { createServer, type Server } from "node:http"
import type { AttemptOutcome, ServerMetrics } from "./Metrics.js"
import { makeServerMetrics } from "./Metrics.js"
import { configsOf, observabilitySettings } from "../http/Settings.js"
import { Telemetry } from "../http/Telemetry.js"
import type { RouteTable } from "../http/pipeline/UrlChecks.js"

export const observabilityConfig = Config.all(configsOf(observabilitySettings))
export type ObservabilitySettings = Config.Success<typeof observabilityConfig>

/** The URL a signal is posted to: its own endpoint, else `/v1/<signal>` below the base one. */
const endpointOf = (s: ObservabilitySettings, signal: "traces" | "metrics" | "logs"): string | undefined => {
  const own = signal === "traces" ? s.otlpTracesEndpoint : signal === "metrics" ? s.otlpMetricsEndpoint : s.otlpLogsEndpoint
  const exporter = signal === "traces" ? s.tracesExporter : signal === "metrics" ? s.metricsExporter : s.logsExporter
  if (s.sdkDisabled || exporter === "none") return undefined
  if (Option.isSome(own)) return own.value
  if (Option.isNone(s.otlpEndpoint)) return undefined
  const base = s.otlpEndpoint.value
  return `${base}${base.endsWith("/") ? "" : "/"}v1/${signal}`
}

/** `name=value,name=value` (values URL-encoded), as OTEL_EXPORTER_OTLP_HEADERS and OTEL_RESOURCE_ATTRIBUTES write them. */
export const parseKeyValues = (text: string): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const part of text.split(",")) {
    const i = part.indexOf("=")
    if (i <= 0) continue
    const key = part.slice(0, i).trim()
    let value = part.slice(i + 1).trim()
    try {
      value = decodeURIComponent(value)
    } catch {
      // kept as written
    }
    if (key !== "") out[key] = value
  }
  return out
}

/** The names of root spans that are recorded without a sampled parent (besides the server's request spans). */
const rootSpanNames = new Set(["webhook.attempt"])

/**
 * The tracer with OTEL_TRACES_SAMPLER applied. A trace starts at a request (the platform's server
 * span) or a webhook attempt; the rest of the background work (polling loops and their statements)
 * is not recorded on its own, so the traces are the ones an operator asks about. A child follows
 * its parent, and a request with a `traceparent` follows its sampled flag under `parentbased_…`.
 */
export const sampledTracer = (inner: Tracer.Tracer, sampler: ObservabilitySettings["tracesSampler"], ratio: number): Tracer.Tracer => {
  const decide = () =>
    sampler === "always_off" || sampler === "parentbased_always_off"
      ? false
      : sampler === "traceidratio" || sampler === "parentbased_traceidratio"
      ? Math.random() < ratio
      : true
  const parentBased = sampler.startsWith("parentbased_")
  return Tracer.make({
    span(options) {
      const parent = Option.getOrUndefined(options.parent)
      let sampled: boolean
      if (parent === undefined || options.root) {
        sampled = (options.kind === "server" || rootSpanNames.has(options.name)) && decide()
      } else if (parent._tag === "ExternalSpan") {
        sampled = parentBased ? parent.sampled : decide()
      } else {
        sampled = parent.sampled
      }
      return inner.span({ ...options, sampled })
    },
    ...(inner.context === undefined ? {} : { context: inner.context })
  })
}

/** Told of each webhook attempt by the server's sender (WebhooksAdapters.ts), when observability is on. */
export interface WebhookAttemptObserverShape {
  /** Called as an attempt starts; the function it returns is called with its outcome. */
  readonly start: (url: string) => (outcome: AttemptOutcome, status: number | undefined) => void
}
export class WebhookAttemptObserver extends Context.Service<WebhookAttemptObserver, WebhookAttemptObserverShape>()(
  "server/WebhookAttemptObserver"
) {}

const nanosNow = () => BigInt(Date.now()) * 1_000_000n

/** The observer of webhook attempts: a `webhook.attempt` span (when tracing) and the attempt metrics (when metrics are on). */
export const makeAttemptObserver = (tracer: Tracer.Tracer | undefined, metrics: ServerMetrics | undefined): WebhookAttemptObserverShape => ({
  start: (url) => {
    const started = performance.now()
    const span = tracer?.span({
      name: "webhook.attempt",
      parent: Option.none(),
      annotations: Context.empty(),
      links: [],
      startTime: nanosNow(),
      kind: "client",
      root: true,
      sampled: true
    })
    if (span !== undefined && span.sampled) {
      try {
        const u = new URL(url)
        // The host and path only: a query may carry a receiver's token.
        span.attribute("server.address", u.hostname)
        span.attribute("url.path", u.pathname)
      } catch {
        // not a URL: the guard refuses it
      }
      span.attribute("http.request.method", "POST")
    }
    return (outcome, status) => {
      metrics?.webhookAttempt(outcome, (performance.now() - started) / 1000)
      if (span === undefined) return
      if (span.sampled) {
        span.attribute("webhook.outcome", outcome)
        if (status !== undefined) span.attribute("http.response.status_code", status)
      }
      span.end(nanosNow(), outcome === "delivered" ? Exit.void : Exit.fail(outcome))
    }
  }
})

export interface Observability {
  /** Spans are exported (the HTTP layer is the traced one). */
  readonly tracing: boolean
  readonly metrics: ServerMetrics | undefined
  /** What the application is built with (empty when everything is off). */
  readonly context: Context.Context<never>
  /** Where OTLP goes and where `/metrics` listens, for the start banner (empty when off). */
  readonly banner: ReadonlyArray<string>
  /** Starts what needs the built application: the database gauges, the Prometheus listener. */
  readonly start: (app: Context.Context<never>) => Effect.Effect<void, never, Scope.Scope>
}

/** The database gauges (webhook backlog, provisioning), each bounded to 2 s and left as they were on failure. */
const refreshGauges = (metrics: ServerMetrics, app: Context.Context<never>) =>
  Effect.gen(function*() {
    const stats = Context.getOption(app, DeliveryStats)
    const deliveries = Option.isSome(stats)
      ? yield* Effect.all([stats.value.counts, stats.value.oldestPendingDueMillis]).pipe(
        Effect.map(([counts, due]) => ({ ...counts, oldestDueMillis: due })),
        Effect.timeout("2 seconds"),
        Effect.option
      )
      : Option.none()
    const operations = yield* activePlatformOperationCounts.pipe(Effect.timeout("2 seconds"), Effect.option)
    metrics.setDatabaseGauges({ deliveries: Option.getOrUndefined(deliveries), operations: Option.getOrUndefined(operations) })
  }).pipe(Effect.provide(app), Effect.catchCause(() => Effect.void)) as Effect.Effect<void>

/** The Prometheus listener: `GET /metrics` (HEAD too); anything else 404, a wrong method 405. */
const listen = (metrics: ServerMetrics, app: Context.Context<never>, host: string, port: number) =>
  Effect.acquireRelease(
    Effect.callback<Server>((resume) => {
      const server = createServer((req, res) => {
        const path = (req.url ?? "/").split("?")[0]
        if (path !== "/metrics") {
          res.writeHead(404, { "content-type": "text/plain; charset=utf-8" }).end("Not found: the metrics are at /metrics\n")
          return
        }
        if (req.method !== "GET" && req.method !== "HEAD") {
          res.writeHead(405, { allow: "GET, HEAD", "content-type": "text/plain; charset=utf-8" }).end("Method not allowed\n")
          return
        }
        void Effect.runPromise(refreshGauges(metrics, app)).then(() => {
          const body = metrics.render()
          res.writeHead(200, { "content-type": "text/plain; version=0.0.4; charset=utf-8", "cache-control": "no-store" })
          res.end(req.method === "HEAD" ? undefined : body)
        })
      })
      const failed = (error: Error) => resume(Effect.die(new Error(`METRICS_PORT ${port}: ${error.message}`)))
      server.once("error", failed)
      server.listen(port, host, () => {
        server.off("error", failed)
        resume(Effect.succeed(server))
      })
    }),
    (server) => Effect.callback<void>((resume) => void server.close(() => resume(Effect.void)))
  )

/**
 * Builds what `settings` turn on, in the current scope. Off (no endpoint, no METRICS_PORT): no
 * tracer, no metrics, an empty context — the server is exactly the unobserved one.
 */
export const makeObservability = (settings: ObservabilitySettings, table: RouteTable, version: string) =>
  Effect.gen(function*() {
    const traces = endpointOf(settings, "traces")
    const metricsUrl = endpointOf(settings, "metrics")
    const logs = endpointOf(settings, "logs")
    const prometheus = settings.metricsPort !== 0
    const metrics = metricsUrl !== undefined || prometheus ? makeServerMetrics(table) : undefined
    if (metrics !== undefined) yield* Effect.addFinalizer(() => Effect.sync(metrics.close))
    const banner: Array<string> = []
    let context = Context.empty() as Context.Context<never>

    if (traces !== undefined || metricsUrl !== undefined || logs !== undefined) {
      const headers = Option.match(settings.otlpHeaders, { onNone: () => undefined, onSome: parseKeyValues })
      const resource = {
        serviceName: settings.serviceName,
        serviceVersion: version,
        attributes: Option.match(settings.resourceAttributes, { onNone: () => ({}), onSome: parseKeyValues })
      }
      const signals = Layer.mergeAll(
        traces === undefined ? Layer.empty : OtlpTracer.layer({ url: traces, resource, headers, exportInterval: settings.tracesExportDelayMs }),
        metricsUrl === undefined || metrics === undefined
          ? Layer.empty
          : OtlpMetrics.layer({ url: metricsUrl, resource, headers, exportInterval: settings.metricsExportIntervalMs }).pipe(
            Layer.provide(Layer.succeedContext(metrics.registry))
          ),
        logs === undefined ? Layer.empty : OtlpLogger.layer({ url: logs, resource, headers, mergeWithExisting: true })
      ).pipe(
        Layer.provide(settings.otlpProtocol === "http/json" ? OtlpSerialization.layerJson : OtlpSerialization.layerProtobuf),
        Layer.provide(FetchHttpClient.layer)
      )
      // Built in the caller's scope: closing it flushes what is buffered (bounded by the exporters' timeout).
      const built = yield* Layer.build(signals)
      context = Context.merge(context, Context.omit(Tracer.Tracer)(built) as Context.Context<never>)
      if (traces !== undefined) {
        const tracer = sampledTracer(Context.get(built, Tracer.Tracer), settings.tracesSampler, settings.tracesSamplerArg)
        context = context.pipe(Context.add(Tracer.Tracer, tracer), Context.add(References.TracerEnabled, true))
      }
      banner.push(`  OpenTelemetry   ${[traces && "traces", metricsUrl && "metrics", logs && "logs"].filter(Boolean).join(", ")} to ${Option.getOrElse(settings.otlpEndpoint, () => traces ?? metricsUrl ?? logs ?? "")} (${settings.otlpProtocol})`)
    }

    const tracer = traces === undefined ? undefined : Context.get(context, Tracer.Tracer)
    if (tracer !== undefined || metrics !== undefined) {
      context = context.pipe(
        Context.add(Telemetry, { tracer, requests: metrics?.request }),
        Context.add(WebhookAttemptObserver, makeAttemptObserver(tracer, metrics))
      )
    }
    if (prometheus) {
      const host = settings.metricsHost.includes(":") ? `[${settings.metricsHost}]` : settings.metricsHost
      banner.push(`  metrics         http://${host}:${settings.metricsPort}/metrics   (Prometheus)`)
    }

    const start = (app: Context.Context<never>): Effect.Effect<void, never, Scope.Scope> =>
      Effect.gen(function*() {
        if (metrics === undefined) return
        yield* refreshGauges(metrics, app)
        // Exported metrics carry database gauges as fresh as the export interval.
        if (metricsUrl !== undefined) {
          yield* refreshGauges(metrics, app).pipe(
            Effect.delay(Math.max(1_000, settings.metricsExportIntervalMs)),
            Effect.forever,
            Effect.forkScoped
          )
        }
        if (prometheus) yield* listen(metrics, app, settings.metricsHost, settings.metricsPort)
      })

    return { tracing: tracer !== undefined, metrics, context, banner, start } satisfies Observability
  })
