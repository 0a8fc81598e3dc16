/**
 * The project management API's one raw route: the answer to anything under `/projects` that no
 * endpoint of its HttpApi takes (management/ManagementApi.ts, mounted beside the versioned API in
 * `Http.ts`): refused over plaintext, else counted against the client and answered 404, or 405
 * with `Allow`, by the global middleware.
 *
 * | endpoint | data |
 * |---|---|
 * | GET /projects/{projectId}/ | `{id, name, slug, profile}` |
 * | GET, POST /projects/{projectId}/webhooks/ | webhooks oldest first; `{webhookUrl}` → webhook with `signingSecret` (once) |
 * | DELETE /projects/{projectId}/webhooks/{webhookId}/ | `{id}` |
 * | GET /projects/{projectId}/webhooks/{webhookId}/deliveries | `{deliveries, nextPageToken?}` newest first (`?status=`, `?pageSize=`, `?pageToken=`) |
 * | POST /projects/{projectId}/webhooks/{webhookId}/deliveries/{eventId}/retry | `{expectedAttemptCount?}` → the delivery, due now |
 * | GET /projects/{projectId}/webhooks/egress-ips | `{addresses}` (EGRESS_IPS) |
 * | GET, PATCH /projects/{projectId}/platforms/ | all seven platforms; `{platform, enabled}` |
 * | GET, POST /projects/{projectId}/lines/, DELETE …/lines/{lineId}/ | `{lines}`; `{platform}` → `{line}`; `{id}` |
 * | GET, POST /projects/{projectId}/users/, GET, DELETE …/users/{userId}/ | `{users}` (`?type=`, `?id=`…); user; user; `{id}` |
 * | POST /projects/{projectId}/fusor/token | `{token, expiresIn}`: a stream token for the event channel (docs/event-channel.md) |
 *
 * HEAD answers as GET does (Node sends no body), as the `Allow` of 405 answers promises: the
 * router answers a HEAD no route takes with the GET route of its path, so the fallback below is
 * registered for every method but HEAD (with HEAD it would take a HEAD before the GET endpoint).
 */
import { HttpMethod, HttpRouter, HttpServerError, HttpServerRequest } from "effect/http"
import { Effect } from "effect"
import { makeManagementGuard } from "./ManagementPipeline.js"

export { managementRouteTable } from "../management/ManagementApi.js"

/** The router's limit on one path parameter (its default), in decoded characters. */
const MAX_PARAM_LENGTH = 100

/** Whether a segment of `url`'s path is longer than a path parameter may be. */
const overParamLimit = (url: string) => {
  const q = url.indexOf("?")
  return (q === -1 ? url : url.slice(0, q)).split("/").some((segment) => {
    if (segment.length <= MAX_PARAM_LENGTH) return false
    try {
      return decodeURIComponent(segment).length > MAX_PARAM_LENGTH
    } catch {
      return true
    }
  })
}

/**
 * Every method the router knows (`"*"` registers a route for each) but HEAD. Its list is not
 * exported; these are the methods Node's parser accepts, which are the router's.
 */
const fallbackMethods: ReadonlyArray<string> = [
  "ACL", "BIND", "CHECKOUT", "CONNECT", "COPY", "DELETE", "GET", "LINK", "LOCK", "M-SEARCH", "MERGE", "MKACTIVITY",
  "MKCALENDAR", "MKCOL", "MOVE", "NOTIFY", "OPTIONS", "PATCH", "POST", "PROPFIND", "PROPPATCH", "PURGE", "PUT", "QUERY",
  "REBIND", "REPORT", "SEARCH", "SOURCE", "SUBSCRIBE", "TRACE", "UNBIND", "UNLINK", "UNLOCK", "UNSUBSCRIBE"
]

/** Anything else under `/projects` (every method but HEAD). */
export const ManagementRoutes = HttpRouter.use((router) =>
  Effect.gen(function*() {
    const { unmatched } = yield* makeManagementGuard
    // A path with a segment over the router's parameter limit is no route of the API, this one
    // included: it is answered as it is (422, the global middleware), with no HTTPS check or count.
    const fallback = Effect.gen(function*() {
      const plain = yield* HttpServerRequest.HttpServerRequest
      const request = overParamLimit(plain.url) ? plain : yield* unmatched
      return yield* new HttpServerError.HttpServerError({ reason: new HttpServerError.RouteNotFound({ request }) })
    })
    // `/projects/*` takes `/projects` too.
    for (const method of fallbackMethods) {
      yield* router.add(method as HttpMethod.HttpMethod as "GET", "/projects/*", fallback)
    }
  }))
