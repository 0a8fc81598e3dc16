/**
 * The lifecycle step: a request to a deprecated operation (v1/Lifecycle.ts) gets its `Deprecation`,
 * `Sunset` and `Link` headers, whatever it answers. Only the deprecated operations' routes are
 * matched on each request, so the others pay one loop over a short list.
 */
import { lifecycleHeaders, lifecycles } from "../../v1/Lifecycle.js"
import { addHeader, type Served } from "./Served.js"
import type { RouteTable } from "./UrlChecks.js"

/** The step for `table`'s deprecated operations (their headers made once, with `docsUrl`). */
export const makeLifecycleHeaders = (table: RouteTable, docsUrl: string): (served: Served) => void => {
  const deprecated = table.routes.flatMap((r) => {
    const lifecycle = r.operationId === undefined ? undefined : lifecycles[r.operationId]
    return lifecycle === undefined ? [] : [{ ...r, headers: lifecycleHeaders(lifecycle, docsUrl, r.operationId!) }]
  })
  return (served) => {
    for (const d of deprecated) {
      if (d.method === served.request.method && d.pattern.test(served.path)) {
        for (const [name, value] of Object.entries(d.headers)) addHeader(served, name, value)
      }
    }
  }
}
