/**
 * The server's metrics (docs/operations.md#observability): one registry of Effect `Metric`s that
 * the Prometheus listener renders and the OTLP exporter sends. Counters and histograms are updated
 * where things happen (a request answered, a statement run, a webhook attempt ended); the gauges
 * are read when the metrics are collected (process, event loop, pools, sessions), and the ones
 * that need the database (webhook backlog, provisioning) are refreshed by `refresh` — before each
 * scrape, and on the export interval while OTLP metrics are on. Names follow Prometheus'
 * conventions: the unit in the name, `_total` on counters, seconds and bytes.
 */
import { DatabaseTelemetry } from "@switchboard/sql-adapter"
import { Context, Metric } from "effect"
import { PrometheusMetrics } from "effect/observability"
import { monitorEventLoopDelay } from "node:perf_hooks"
import { type AccessLogWriter, makeRouteOf } from "../http/AccessLog.js"
import type { RouteTable } from "../http/pipeline/UrlChecks.js"

/** Seconds: 1 ms to 10 s, for requests and webhook attempts. */
const requestBuckets = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]
/** Seconds: 0.1 ms to 5 s, for statements. */
const statementBuckets = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5]

/** What `refresh` reads from the database (each part absent when its feature is not there). */
export interface DatabaseGauges {
  readonly deliveries?: { readonly pending: number; readonly deadLettered: number; readonly oldestDueMillis: number | null } | undefined
  readonly operations?: ReadonlyArray<{ readonly state: string; readonly count: number }> | undefined
}

/** How a webhook attempt ended, as the `outcome` label says it. */
export type AttemptOutcome = "delivered" | "http_error" | "timeout" | "network_error" | "refused" | "dns_failure"

export interface ServerMetrics {
  /** The registry, for the OTLP exporter (`Metric.MetricRegistry`). */
  readonly registry: Context.Context<never>
  /** Records one answered request (the access log's writer shape). */
  readonly request: AccessLogWriter
  readonly webhookAttempt: (outcome: AttemptOutcome, seconds: number) => void
  /** The channel's open sessions in this process, read on collection. */
  readonly setChannelSessions: (count: () => number) => void
  /** Sets the gauges read from the database. */
  readonly setDatabaseGauges: (gauges: DatabaseGauges) => void
  /** The Prometheus text exposition of every metric. */
  readonly render: () => string
  /** Stops what collection started (the event-loop monitor, the statement observer). */
  readonly close: () => void
}

const gaugeOf = (value: () => number) => ({ get: () => ({ value: value() }), update: () => {}, modify: () => {} })
const counterOf = (value: () => number) => ({ get: () => ({ count: value(), incremental: true }), update: () => {}, modify: () => {} })

export const makeServerMetrics = (table: RouteTable): ServerMetrics => {
  const registry = Context.make(Metric.MetricRegistry, new Map()) as Context.Context<never>

  // ---- Requests: by method, declared route (never the raw path) and status.
  const requests = Metric.counter("http_server_requests_total", {
    description: "HTTP requests answered, by method, declared route and status.",
    incremental: true
  })
  const requestSeconds = Metric.histogram("http_server_request_duration_seconds", {
    description: "Time from a request's arrival to its answer, by method, declared route and status.",
    boundaries: requestBuckets
  })
  // One labelled pair per (method, route, status); the route of a (method, path) remembered, bounded.
  const series = new Map<string, { readonly count: Metric.Metric<number, unknown>; readonly seconds: Metric.Metric<number, unknown> }>()
  const routeOf = makeRouteOf(table)
  const request: AccessLogWriter = (method, path, status, _requestId, startedMs) => {
    const seconds = (performance.now() - startedMs) / 1000
    const route = routeOf(method, path)
    const key = `${method} ${route} ${status}`
    let s = series.get(key)
    if (s === undefined) {
      const attributes = { method, route, status: String(status) }
      s = { count: Metric.withAttributes(requests, attributes), seconds: Metric.withAttributes(requestSeconds, attributes) }
      series.set(key, s)
    }
    s.count.updateUnsafe(1, registry)
    s.seconds.updateUnsafe(seconds, registry)
  }

  // ---- Database: statement latency (every client), the pools' use (PostgreSQL's pool; the
  // embedded database's one session, statements outside transactions waiting for it).
  const statements = Metric.histogram("db_client_operation_duration_seconds", {
    description: "Time of one SQL statement on its connection (the embedded database: its queue included), by outcome.",
    boundaries: statementBuckets
  })
  const statementOk = Metric.withAttributes(statements, { outcome: "ok" })
  const statementError = Metric.withAttributes(statements, { outcome: "error" })
  DatabaseTelemetry.onStatement = (ms, failed) => (failed ? statementError : statementOk).updateUnsafe(ms / 1000, registry)
  const poolSum = (field: "total" | "idle" | "waiting" | "max") => () => {
    let n = 0
    for (const stats of DatabaseTelemetry.pools) n += stats()[field]
    return n
  }
  const connections = Metric.gauge("db_client_connections", { description: "Database connections, by state (idle, used): the PostgreSQL pool, or the embedded database's one session." })
  Metric.registerUnsafe(Metric.withAttributes(connections, { state: "idle" }), registry, gaugeOf(poolSum("idle")))
  Metric.registerUnsafe(Metric.withAttributes(connections, { state: "used" }), registry, gaugeOf(() => poolSum("total")() - poolSum("idle")()))
  Metric.registerUnsafe(
    Metric.gauge("db_client_connections_max", { description: "The pools' maximum size (1 for the embedded database)." }),
    registry,
    gaugeOf(poolSum("max"))
  )
  Metric.registerUnsafe(
    Metric.gauge("db_client_connections_pending_requests", { description: "Statements waiting for a connection (the embedded database: for its session)." }),
    registry,
    gaugeOf(poolSum("waiting"))
  )

  // ---- Webhooks: attempts by outcome, their duration; the backlog (refreshed from the database).
  const attempts = Metric.counter("webhook_delivery_attempts_total", { description: "Webhook delivery attempts, by outcome.", incremental: true })
  const attemptSeconds = Metric.histogram("webhook_delivery_attempt_duration_seconds", {
    description: "Time of one webhook delivery attempt (request to answer), by outcome.",
    boundaries: requestBuckets
  })
  const byOutcome = new Map<AttemptOutcome, readonly [Metric.Metric<number, unknown>, Metric.Metric<number, unknown>]>()
  const webhookAttempt = (outcome: AttemptOutcome, seconds: number) => {
    let pair = byOutcome.get(outcome)
    if (pair === undefined) {
      pair = [Metric.withAttributes(attempts, { outcome }), Metric.withAttributes(attemptSeconds, { outcome })]
      byOutcome.set(outcome, pair)
    }
    pair[0].updateUnsafe(1, registry)
    pair[1].updateUnsafe(seconds, registry)
  }
  let database: DatabaseGauges = {}
  Metric.registerUnsafe(
    Metric.gauge("webhook_deliveries_pending", { description: "Webhook deliveries waiting to be attempted (all processes)." }),
    registry,
    gaugeOf(() => database.deliveries?.pending ?? 0)
  )
  Metric.registerUnsafe(
    Metric.gauge("webhook_deliveries_dead_lettered", { description: "Webhook deliveries given up on (all processes)." }),
    registry,
    gaugeOf(() => database.deliveries?.deadLettered ?? 0)
  )
  Metric.registerUnsafe(
    Metric.gauge("webhook_delivery_lag_seconds", { description: "How long the longest-waiting pending delivery has been due (0: none is late)." }),
    registry,
    gaugeOf(() => {
      const due = database.deliveries?.oldestDueMillis
      return due === null || due === undefined ? 0 : Math.max(0, (Date.now() - due) / 1000)
    })
  )
  // ---- Provisioning operations not finished yet, by state (refreshed from the database).
  const operations = Metric.gauge("provisioning_operations", { description: "Platform provisioning operations not finished yet, by state." })
  const operationStates = ["pending", "running"] as const
  for (const state of operationStates) {
    Metric.registerUnsafe(
      Metric.withAttributes(operations, { state }),
      registry,
      gaugeOf(() => database.operations?.find((o) => o.state === state)?.count ?? 0)
    )
  }

  // ---- The event channel's sessions in this process.
  let sessions = () => 0
  Metric.registerUnsafe(
    Metric.gauge("channel_sessions", { description: "Event-channel (WebSocket) sessions open in this process." }),
    registry,
    gaugeOf(() => sessions())
  )

  // ---- The process: event-loop delay, memory, CPU.
  const loop = monitorEventLoopDelay({ resolution: 20 })
  loop.enable()
  const loopSeconds = (read: () => number) => () => {
    const v = read()
    return Number.isFinite(v) ? v / 1e9 : 0
  }
  const lag = Metric.gauge("nodejs_eventloop_lag_seconds", { description: "Event-loop delay since the start (perf_hooks), by statistic." })
  Metric.registerUnsafe(Metric.withAttributes(lag, { stat: "mean" }), registry, gaugeOf(loopSeconds(() => loop.mean)))
  Metric.registerUnsafe(Metric.withAttributes(lag, { stat: "p99" }), registry, gaugeOf(loopSeconds(() => loop.percentile(99))))
  Metric.registerUnsafe(Metric.withAttributes(lag, { stat: "max" }), registry, gaugeOf(loopSeconds(() => loop.max)))
  Metric.registerUnsafe(
    Metric.gauge("process_resident_memory_bytes", { description: "Resident set size." }),
    registry,
    gaugeOf(() => process.memoryUsage.rss())
  )
  const heap = Metric.gauge("nodejs_heap_bytes", { description: "V8 heap, by state (used, total)." })
  Metric.registerUnsafe(Metric.withAttributes(heap, { state: "used" }), registry, gaugeOf(() => process.memoryUsage().heapUsed))
  Metric.registerUnsafe(Metric.withAttributes(heap, { state: "total" }), registry, gaugeOf(() => process.memoryUsage().heapTotal))
  const cpu = Metric.counter("process_cpu_seconds_total", { description: "CPU time used by the process, by mode (user, system)." })
  Metric.registerUnsafe(Metric.withAttributes(cpu, { mode: "user" }), registry, counterOf(() => process.cpuUsage().user / 1e6))
  Metric.registerUnsafe(Metric.withAttributes(cpu, { mode: "system" }), registry, counterOf(() => process.cpuUsage().system / 1e6))
  const startedSeconds = Math.floor(Date.now() / 1000 - process.uptime())
  Metric.registerUnsafe(
    Metric.gauge("process_start_time_seconds", { description: "When the process started (Unix seconds)." }),
    registry,
    gaugeOf(() => startedSeconds)
  )

  const observer = DatabaseTelemetry.onStatement
  return {
    registry,
    request,
    webhookAttempt,
    setChannelSessions: (count) => {
      sessions = count
    },
    setDatabaseGauges: (gauges) => {
      database = gauges
    },
    render: () => PrometheusMetrics.formatUnsafe(registry),
    close: () => {
      loop.disable()
      if (DatabaseTelemetry.onStatement === observer) DatabaseTelemetry.onStatement = undefined
    }
  }
}
