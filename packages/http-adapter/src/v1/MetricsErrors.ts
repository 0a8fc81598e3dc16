/** The Metrics feature's rows of the /v1 error table: core error → problem (see Problems.ts). */
import type { MetricsError } from "@switchboard/core/metrics"
import { type ErrorTable, problem } from "./ProblemFailure.js"

export const metricsErrors: ErrorTable<MetricsError> = {
  // 422 with the parser's position (1-based characters of `sql`) and the refused construct, named.
  MetricsQueryInvalid: (e) =>
    problem("VALIDATION_FAILED", `${e.message}${e.position === undefined ? "" : ` (at character ${e.position})`}`, {
      extra: {
        issues: [{ code: "invalid_sql", location: "json", message: e.message, path: "/sql" }],
        ...(e.position === undefined ? {} : { position: e.position }),
        ...(e.construct === undefined ? {} : { construct: e.construct })
      }
    }),
  MetricsQueryTimeout: (e) =>
    problem("REQUEST_TIMEOUT", `The query ran past the statement timeout of ${e.timeoutMillis} ms and was cancelled.`),
  MetricsQueryResourceLimit: (e) => problem("QUERY_RESOURCE_LIMIT", e.message, { extra: { limit: e.limit } }),
  MetricsQueryUnavailable: (e) => problem("UPSTREAM_UNAVAILABLE", e.message)
}
