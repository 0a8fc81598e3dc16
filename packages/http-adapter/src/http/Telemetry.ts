/**
 * What the request pipeline does for observability (server/Observability.ts builds it; absent, it
 * does nothing): `requests` records each answered request (the Prometheus and OTLP metrics),
 * `tracer` (spans are exported) makes a span per request (pipeline/RequestSpan.ts).
 * Both are decided once when the middleware is built: with neither, a request pays nothing.
 */
import type { Tracer } from "effect"
import { Context } from "effect"
import type { AccessLogWriter } from "./AccessLog.js"

export interface TelemetryShape {
  /** Spans are exported, on this tracer: a span per request (with its request id; `X-Trace-ID` is its trace). */
  readonly tracer: Tracer.Tracer | undefined
  /** Called once per answered request, as the access log is. */
  readonly requests: AccessLogWriter | undefined
}

export class Telemetry extends Context.Service<Telemetry, TelemetryShape>()("http/Telemetry") {}
