/**
 * The access log (ACCESS_LOG, LOG_FORMAT): one line per request — method, path template, status,
 * duration in ms, request id — written to stdout as JSON or as a readable line, at the level
 * ACCESS_LOG names. Decided once when the middleware is built: with ACCESS_LOG=off, or a level below
 * LOG_LEVEL, there is no writer, so a request pays nothing.
 */
import type { RouteTable } from "./pipeline/UrlChecks.js"
import type { AccessLogLevel, LogLevelSetting } from "./ServerConfig.js"

const severity: Record<LogLevelSetting, number> = { debug: 0, info: 1, warning: 2, error: 3 }

export type AccessLogWriter = (method: string, path: string, status: number, requestId: string, startedMs: number) => void

/** The route a request matched, as declared (`/v1/projects/:projectId`); `-` when none did. */
export const templateOf = (table: RouteTable, method: string, path: string) => {
  let best: string | undefined
  for (const r of table.routes) {
    if (r.path === undefined || (r.method !== method && !(method === "HEAD" && r.method === "GET")) || !r.pattern.test(path)) continue
    // A literal segment wins over a parameter (`/v1/account/service-keys` over `/v1/account/:x`).
    if (best === undefined || r.path.split(":").length < best.split(":").length) best = r.path
  }
  return best ?? "-"
}

/**
 * `templateOf`, remembered per (method, path): a path seen before costs one Map lookup. Bounded: past
 * 10 000 paths the memory starts afresh (made-up paths cannot grow it).
 */
export const makeRouteOf = (table: RouteTable) => {
  let routes = new Map<string, string>()
  return (method: string, path: string): string => {
    const key = `${method} ${path}`
    let route = routes.get(key)
    if (route === undefined) {
      route = templateOf(table, method, path)
      if (routes.size >= 10_000) routes = new Map()
      routes.set(key, route)
    }
    return route
  }
}

export const makeAccessLog = (
  settings: { readonly accessLog: "off" | AccessLogLevel; readonly logLevel: LogLevelSetting; readonly logFormat: "json" | "pretty" },
  table: RouteTable,
  write: (line: string) => void = (line) => void process.stdout.write(line)
): AccessLogWriter | undefined => {
  const level = settings.accessLog
  if (level === "off" || severity[level] < severity[settings.logLevel]) return undefined
  const label = level.toUpperCase()
  const routeOf = makeRouteOf(table)
  return (method, path, status, requestId, startedMs) => {
    const durationMs = Math.round((performance.now() - startedMs) * 10) / 10
    const template = routeOf(method, path)
    const time = new Date().toISOString()
    write(settings.logFormat === "json"
      ? `${JSON.stringify({ time, level, message: "request", method, path: template, status, durationMs, requestId })}\n`
      : `${time} ${label} ${method} ${template} ${status} ${durationMs}ms ${requestId}\n`)
  }
}
