/**
 * The URL checks: what the URL of a request says before a handler runs.
 * - Text no parameter can hold (U+0000, lone surrogates, broken percent-encoding) in a path segment
 *   or a query parameter is refused with 422, for every route of every surface, before a handler
 *   or the database sees it (`checkUrl`). So is a path segment no identifier can be: `.` or `..`
 *   (raw or percent-encoded — a client that does not normalise them sends them as written) and
 *   one over 100 characters (no route's literal segment is that long). One rule for every path
 *   parameter, checked before routing, so no route answers 404 after a lookup, or 405, instead.
 * - A URL no route takes answers 404, or 405 with `Allow` when the path is known for other methods,
 *   or 422 when the path has a route's shape for this very method but a parameter is unusable
 *   (`routeNotFound`, from the route table of every surface).
 */
import type { HttpServerRequest, HttpServerResponse } from "effect/http"
import { Effect } from "effect"
import { illFormedText } from "../Body.js"
import { problem, type ProblemFailure, validationFailed } from "../../v1/ProblemFailure.js"
import type { Served } from "./Served.js"

/** Known routes as (method, pattern) so an unknown method on a known path answers 405 with Allow. */
export interface RouteTable {
  readonly routes: ReadonlyArray<{ readonly method: string; readonly pattern: RegExp; readonly path?: string; readonly operationId?: string }>
}

export const routePattern = (path: string) =>
  new RegExp(`^${path.split("/").map((seg) => (seg.startsWith(":") ? "[^/]+" : seg.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))).join("/")}/?$`)

const allowedMethods = (table: RouteTable, pathname: string) => {
  const methods = new Set<string>()
  for (const r of table.routes) if (r.pattern.test(pathname)) methods.add(r.method)
  if (methods.has("GET")) methods.add("HEAD")
  return [...methods].sort()
}

/** The longest path segment: a parameter over it cannot be an identifier (the router's own limit too). */
const MAX_SEGMENT = 100

/** The first unusable part of a request URL: a path segment or query parameter. */
export const urlIssue = (url: string): { code: string; location: "param" | "query"; message: string; path: string } | undefined => {
  const q = url.indexOf("?")
  const path = q === -1 ? url : url.slice(0, q)
  if (path.includes("%") || path.includes("/.") || path.length > MAX_SEGMENT) {
    for (const segment of path.split("/")) {
      let decoded: string
      try {
        decoded = decodeURIComponent(segment)
      } catch {
        return { code: "invalid_value", location: "param", message: "A path segment is not valid percent-encoded UTF-8.", path: "" }
      }
      const why = illFormedText(decoded)
      if (why !== undefined) return { code: "invalid_text", location: "param", message: `A path segment ${why}.`, path: "" }
      if (decoded === "." || decoded === "..") {
        return { code: "invalid_value", location: "param", message: `A path parameter cannot be ${JSON.stringify(decoded)}.`, path: "" }
      }
      if (decoded.length > MAX_SEGMENT) {
        return { code: "invalid_value", location: "param", message: `A path parameter is at most ${MAX_SEGMENT} characters; got ${decoded.length}.`, path: "" }
      }
    }
  }
  if (q !== -1 && q < url.length - 1) {
    for (const [key, value] of new URLSearchParams(url.slice(q + 1))) {
      const why = illFormedText(key) ?? illFormedText(value)
      if (why !== undefined) {
        return { code: "invalid_text", location: "query", message: `The query parameter ${why}.`, path: `/${key.replace(/[\u0000-\u001f]/g, "?").slice(0, 64)}` }
      }
    }
  }
  return undefined
}

/**
 * The URL-check step: `app`, or a 422 when the URL holds an unusable part. Only a URL with a `%`, a
 * query, a segment starting with `.` or a path over 100 characters is looked at (the others cannot
 * hold one).
 */
export const checkUrl = <E, R>(
  served: Served,
  app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
): Effect.Effect<HttpServerResponse.HttpServerResponse, E | ProblemFailure, R> => {
  const url = served.request.url
  const urlProblem = url.includes("%") || url.includes("/.") || served.path.length !== url.length || url.length > MAX_SEGMENT
    ? urlIssue(url)
    : undefined
  return urlProblem === undefined
    ? app
    : Effect.fail(validationFailed([urlProblem], urlProblem.location === "param" ? "A path parameter is not valid." : "A request parameter is not valid."))
}

/** The answer to a URL the router did not take: 422 (an unusable parameter), 405 with `Allow`, or 404. */
export const routeNotFound = (table: RouteTable, request: HttpServerRequest.HttpServerRequest): ProblemFailure => {
  const url = new URL(request.url, "http://localhost")
  const allow = allowedMethods(table, url.pathname)
  // The path has a route's shape for this very method, yet the router refused it: a
  // parameter is unusable (over 100 characters, `..`, undecodable) → 422, not 405.
  if (allow.includes(request.method)) {
    return validationFailed([{
      code: "invalid_value",
      location: "param",
      message: "A path parameter is not valid: at most 100 characters, percent-encoded UTF-8, not . or ..",
      path: ""
    }], "A path parameter is not valid.")
  }
  return allow.length > 0
    ? problem("METHOD_NOT_ALLOWED", `${request.method} is not allowed here; use ${allow.join(", ")}.`, {
      headers: { allow: allow.join(", ") }
    })
    : problem("RESOURCE_NOT_FOUND", `No route for ${request.method} ${url.pathname}.`)
}
