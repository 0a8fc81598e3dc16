/**
 * Operation lifecycle (docs/api-notes/requests.md): an operation declared deprecated sends
 * `Deprecation: @<unix seconds>` (RFC 9745), `Sunset: <IMF-fixdate>` (RFC 8594) and
 * `Link: <…>; rel="deprecation"` on every response (the global middleware matches its route, so
 * errors carry them too), and is marked `deprecated` in OpenAPI.
 */

export interface Lifecycle {
  /** When the operation was deprecated. */
  readonly deprecatedAt: Date
  /** When it stops being served. */
  readonly sunsetAt: Date
  /** What to use instead (shown on the deprecations page). */
  readonly replacement: string
}

/** operationId → lifecycle: the declarations. */
export const lifecycles: Readonly<Record<string, Lifecycle>> = {
  "account.getMe": {
    deprecatedAt: new Date(Date.UTC(2026, 9, 1)),
    sunsetAt: new Date(Date.UTC(2027, 5, 30)),
    replacement: "GET /v1/account"
  }
}

export const lifecycleHeaders = (lifecycle: Lifecycle, docsUrl: string, operationId: string): Record<string, string> => ({
  deprecation: `@${Math.floor(lifecycle.deprecatedAt.getTime() / 1000)}`,
  sunset: lifecycle.sunsetAt.toUTCString(),
  link: `<${docsUrl}/deprecations#${operationId}>; rel="deprecation"; type="text/html"`
})
