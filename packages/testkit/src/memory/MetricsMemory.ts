/**
 * The metrics query engine over the in-memory store: there is no SQL to run, so every query is
 * answered `MetricsQueryUnavailable` (503 on /v1) and nothing runs. The engine's behaviour is
 * specified by `metricsQueryContract`, run on PGlite and PostgreSQL.
 */
import { MetricsQueryEngine, MetricsQueryUnavailable } from "@switchboard/core/metrics"
import { Effect, Layer } from "effect"

const unavailable = new MetricsQueryUnavailable({
  message: "the in-memory store cannot run SQL; use PGlite or PostgreSQL"
})

export const MetricsMemory = Layer.succeed(MetricsQueryEngine, MetricsQueryEngine.of({
  run: () => Effect.fail(unavailable),
  counts: () => Effect.fail(unavailable)
}))
