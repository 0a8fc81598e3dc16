/**
 * What the request pipeline does for observability (server/Observability.ts builds it; absent, it
 * does nothing): `requests` records each answered request (the Prometheus and OTLP metrics),
 * `tracing` says the platform's request span is on, so the pipeline adds the request id to it.
 * Both are decided once when the middleware is built: with neither, a request pays nothing.
 */
import { Context } from "effect"
import type { AccessLogWriter } from "./AccessLog.js"

export interface TelemetryShape {
  /** Spans are exported: the request span carries the request id, and `X-Trace-ID` is its trace. */
  readonly tracing: boolean
  /** Called once per answered request, as the access log is. */
  readonly requests: AccessLogWriter | undefined
}

export class Telemetry extends Context.Service<Telemetry, TelemetryShape>()("http/Telemetry") {}
