/**
 * `@switchboard/http-adapter/client` — a typed client for a Switchboard server's `/v1` API, derived
 * from the same `HttpApi` declaration the server routes from (`v1/V1Api.ts`), so every call's
 * request, answer and problems are the server's own types (docs/embedding.md, "A typed client").
 *
 * - `makeV1Client(options)`: for Effect hosts — an `Effect` needing an `HttpClient` (for example
 *   `FetchHttpClient.layer` from `effect/http`) that gives the client; each call is an `Effect`
 *   failing with the endpoint's declared problem documents (`ProblemDocument`), an
 *   `HttpClientError` (transport) or a `SchemaError` (an answer that does not decode).
 * - `createV1Client(options)`: for any host — the same calls returning Promises; a problem is
 *   thrown as a `SwitchboardProblem` (an `Error` carrying the document, its `status` and `code`).
 *
 * This module imports the API's declarations only: no handlers, adapters, SQL or Node modules.
 */
import { Effect, Layer } from "effect"
import { FetchHttpClient, HttpClient, HttpClientRequest } from "effect/http"
import { type HttpApi, HttpApiClient, type HttpApiEndpoint, type HttpApiGroup } from "effect/http-api"
import type { ProblemDocument } from "../v1/Declare.js"
import { V1Api } from "../v1/V1Api.js"

export type { ProblemDocument } from "../v1/Declare.js"
export { V1Api } from "../v1/V1Api.js"

/** The typed `/v1` client: one group per feature (`client.account.getAccount()`), as `V1Api` declares them. */
export type V1Client = HttpApiClient.ForApi<typeof V1Api>

/** How the client reaches the server and authenticates. */
export interface V1ClientOptions {
  /**
   * The server's public URL, with the path it is mounted under if any: `https://sb.example.com`,
   * `http://localhost:3000/switchboard`. Absolute, http or https.
   */
  readonly baseUrl: string | URL
  /** The bearer credential sent on every call: an account service key, a project key or an OAuth access token. */
  readonly token?: string | undefined
  /**
   * `"auto"` (the default) sends a fresh `Idempotency-Key` on every POST, PUT, PATCH and DELETE that
   * has none, as the endpoints that create or change records require; `"off"` sends none.
   */
  readonly idempotencyKeys?: "auto" | "off" | undefined
  /** Headers sent on every call (a `User-Agent`, a tracing header). */
  readonly headers?: Readonly<Record<string, string>> | undefined
}

/** Options a host passes that cannot work, named: thrown by `createV1Client`, a defect of `makeV1Client`. */
export class V1ClientOptionsError extends Error {
  override readonly name = "V1ClientOptionsError"
}

const unsafeMethods = new Set(["POST", "PUT", "PATCH", "DELETE"])

const checkedBaseUrl = (options: V1ClientOptions): URL => {
  let url: URL
  try {
    url = new URL(String(options.baseUrl))
  } catch {
    throw new V1ClientOptionsError(`baseUrl must be an absolute http(s) URL such as "http://localhost:8080", got ${JSON.stringify(String(options.baseUrl))}`)
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new V1ClientOptionsError(`baseUrl must use http or https, got "${url.protocol}" in ${JSON.stringify(url.href)}`)
  }
  if (url.search !== "" || url.hash !== "") {
    throw new V1ClientOptionsError(`baseUrl must not carry a query string or fragment, got ${JSON.stringify(url.href)}`)
  }
  if (options.token !== undefined && (options.token.trim() === "" || /[\s]/.test(options.token))) {
    throw new V1ClientOptionsError("token must be a non-empty credential without spaces (a service key, project key or access token)")
  }
  if (options.idempotencyKeys !== undefined && options.idempotencyKeys !== "auto" && options.idempotencyKeys !== "off") {
    throw new V1ClientOptionsError(`idempotencyKeys must be "auto" or "off", got ${JSON.stringify(options.idempotencyKeys)}`)
  }
  // The declaration's paths start with /v1: a base URL ending in "/" would make "//v1".
  url.pathname = url.pathname.replace(/\/+$/, "")
  return url
}

const withOptions = (options: V1ClientOptions) => (client: HttpClient.HttpClient): HttpClient.HttpClient =>
  HttpClient.mapRequest(client, (request) => {
    let out = request
    for (const [name, value] of Object.entries(options.headers ?? {})) out = HttpClientRequest.setHeader(out, name, value)
    if (options.token !== undefined) out = HttpClientRequest.bearerToken(out, options.token)
    if (options.idempotencyKeys !== "off" && unsafeMethods.has(out.method) && out.headers["idempotency-key"] === undefined) {
      out = HttpClientRequest.setHeader(out, "Idempotency-Key", crypto.randomUUID())
    }
    return out
  })

/**
 * The typed client, for Effect hosts: provide an `HttpClient` (`FetchHttpClient.layer`, or
 * `NodeHttpClient` from `@effect/platform-node`). Bad options are a defect naming what to fix.
 */
export const makeV1Client = (options: V1ClientOptions): Effect.Effect<V1Client, never, HttpClient.HttpClient> =>
  Effect.suspend(() => {
    const baseUrl = checkedBaseUrl(options)
    return HttpApiClient.make(V1Api, { baseUrl, transformClient: withOptions(options) })
  })

/** A problem document the server answered, thrown by the Promise client's calls. */
export class SwitchboardProblem extends Error {
  override readonly name = "SwitchboardProblem"
  constructor(readonly problem: ProblemDocument) {
    super(`${problem.status} ${problem.code}: ${problem.detail ?? problem.title}`)
  }
  /** The HTTP status of the answer. */
  get status(): number {
    return this.problem.status
  }
  /** The problem's stable code (`docs/errors.md`). */
  get code(): ProblemDocument["code"] {
    return this.problem.code
  }
}

const isProblem = (u: unknown): u is ProblemDocument =>
  typeof u === "object" && u !== null && "code" in u && "status" in u && "type" in u && "title" in u

type V1Groups = typeof V1Api extends HttpApi.HttpApi<infer _Id, infer Groups> ? Groups : never

/** One endpoint's call as a Promise: the same request as the Effect client's, its decoded answer. */
export type PromiseMethod<Endpoint extends HttpApiEndpoint.ConstraintRequest> = <
  Mode extends HttpApiEndpoint.ClientResponseMode = "decoded-only"
>(
  request: HttpApiEndpoint.ClientRequest<Endpoint["~Params"], Endpoint["~Query"], Endpoint["~Payload"], Endpoint["~Headers"], Mode>
) => Promise<HttpApiClient.Client.Response<HttpApiClient.SuccessType<Endpoint["~Success"]>, Mode>>

/** One group's calls as Promises. */
export type PromiseGroup<Group extends HttpApiGroup.Constraint> = Group["endpoints"] extends
infer Endpoints extends Readonly<Record<string, HttpApiEndpoint.ConstraintRequest>> ? { readonly [K in keyof Endpoints]: PromiseMethod<Endpoints[K]> }
  : never

/** The typed `/v1` client with Promise calls: `client.account.getAccount()`. */
export type V1PromiseClient = { readonly [Group in V1Groups as HttpApiGroup.Identifier<Group>]: PromiseGroup<Group> }

/** Options of the Promise client: the typed client's, and the `fetch` it calls (the global one by default). */
export interface PromiseV1ClientOptions extends V1ClientOptions {
  /** The `fetch` used for every call: a host's instrumented one, or a mounted handler `(request) => handler(request)`. */
  readonly fetch?: typeof globalThis.fetch | undefined
}

const promised = (value: unknown): unknown => {
  if (typeof value === "function") {
    return (...args: Array<unknown>) =>
      Effect.runPromise(
        (value as (...a: Array<unknown>) => Effect.Effect<unknown, unknown>)(...args).pipe(
          Effect.mapError((e) => (isProblem(e) ? new SwitchboardProblem(e) : e))
        )
      )
  }
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, promised(v)]))
  }
  return value
}

/**
 * The typed client with Promise calls, for hosts that do not use Effect:
 * `await createV1Client({ baseUrl, token }).account.getAccount()`. A problem answer rejects with a
 * `SwitchboardProblem`; a transport failure with the underlying error. Bad options throw a
 * `V1ClientOptionsError` here, at once.
 */
export const createV1Client = (options: PromiseV1ClientOptions): V1PromiseClient => {
  checkedBaseUrl(options)
  const http = options.fetch === undefined
    ? FetchHttpClient.layer
    : Layer.provideMerge(FetchHttpClient.layer, Layer.succeed(FetchHttpClient.Fetch, options.fetch))
  const client = Effect.runSync(makeV1Client(options).pipe(Effect.provide(http)))
  return promised(client) as V1PromiseClient
}
