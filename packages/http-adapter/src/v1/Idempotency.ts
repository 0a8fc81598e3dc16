/**
 * The Idempotency-Key protocol (docs/architecture.md, "One declaration per endpoint"). An endpoint declares that it
 * requires a key with the `Idempotent` annotation (v1/Declare.ts); the `Idempotency` middleware,
 * inside authentication, runs the protocol around the endpoint — its decoding, its handler and the
 * encoding of its answer — fingerprinting the method, the declared route, the path parameters and
 * the JSON body `JsonBody` read. `idempotent` is the protocol itself, for the raw endpoints that
 * fingerprint their bytes their own way.
 */
import { HttpApiMiddleware } from "effect/http-api"
import { HttpRouter, HttpServerRequest, type HttpServerResponse } from "effect/http"
import { principalScope } from "@switchboard/core/credentials"
import { sha256Hex } from "@switchboard/core/internal"
import {
  canonicalJson,
  IdempotencyStore,
  parseIdempotencyKey,
  seal,
  Secrets,
  ServerSecret,
  Transactor,
  unseal
} from "@switchboard/core/shared"
import { Context, DateTime, Duration, Effect, Layer, Result } from "effect"
import { type ProblemCode } from "../http/ProblemCatalog.js"
import { RequestContext } from "../http/RequestContext.js"
import { ServerConfig } from "../http/ServerConfig.js"
import { CurrentPrincipal } from "./Authn.js"
import { middlewareIdempotent } from "./Declare.js"
import { requestJson } from "./JsonBody.js"
import { domain, type Rendered, toResponse } from "./Pipeline.js"
import { problem, ProblemFailure, renderProblem } from "./Problems.js"

export class Idempotency extends HttpApiMiddleware.Service<Idempotency, {
  requires: CurrentPrincipal
}>()("Idempotency", {
  error: ProblemFailure
}) {}

const utf8 = new TextDecoder()

/**
 * Refusals of the request itself — who asks, what they may do, whether the input is valid — which
 * the handler checks inside the protocol: not outcomes of the operation, so never stored (a retry
 * with the same key, once corrected, runs). Every other 4xx is the operation's answer, and kept.
 */
const refusals: ReadonlySet<ProblemCode> = new Set<ProblemCode>([
  "NOT_AUTHENTICATED",
  "FORBIDDEN",
  "INSUFFICIENT_SCOPE",
  "ACCOUNT_DELETED",
  "ORGANIZATION_SSO_REQUIRED",
  "RESOURCE_MISMATCH",
  "PROJECT_NOT_FOUND",
  "PROJECT_DELETED",
  "VALIDATION_FAILED",
  "PAYLOAD_TOO_LARGE",
  "RATE_LIMITED"
])

/** An answer as data, to store: a JSON or empty body (an idempotent endpoint streams nothing). */
const renderedOf = (response: HttpServerResponse.HttpServerResponse): Effect.Effect<Rendered> => {
  const body = response.body
  const headers: Record<string, string> = { ...response.headers }
  if (body._tag === "Empty") return Effect.succeed({ status: response.status, headers, body: "" })
  if (body._tag !== "Uint8Array") return Effect.die(new Error(`An idempotent endpoint answered a ${body._tag} body, which cannot be stored.`))
  return Effect.succeed({ status: response.status, headers: { ...headers, "content-type": body.contentType }, body: utf8.decode(body.body) })
}

export const IdempotencyLive = Layer.effect(
  Idempotency,
  Effect.gen(function*() {
    const services = yield* Effect.context<IdempotencyStore | Transactor | ServerConfig | ServerSecret | Secrets>()
    return (httpEffect, { endpoint }) => {
      if (!middlewareIdempotent(endpoint)) return httpEffect
      return Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        const { params } = yield* HttpRouter.RouteContext
        const path: Record<string, string> = {}
        for (const name in params) if (params[name] !== undefined) path[name] = params[name]
        return yield* idempotent(
          { route: endpoint.path, path, body: requestJson(request) },
          Effect.flatMap(httpEffect, renderedOf)
        ).pipe(Effect.updateContext((context: Context.Context<HttpRouter.Provided | CurrentPrincipal>) => Context.merge(context, services)))
      })
    }
  })
)

/**
 * The Idempotency-Key protocol (docs/api-notes/requests.md) around one operation: the key is
 * required and scoped to the principal; the fingerprint covers method, route, path parameters and
 * the canonical body. The operation and the stored outcome commit in one transaction, so a crash
 * cannot leave a done operation without its record. Definitive outcomes (2xx, 4xx) are stored; 5xx
 * and defects release the key so a retry runs again.
 */
export const idempotent = <E, R>(
  op: { readonly route: string; readonly path?: Readonly<Record<string, string>>; readonly body?: unknown },
  run: Effect.Effect<Rendered, ProblemFailure | E, R>
) =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const raw = request.headers["idempotency-key"]
    if (raw === undefined) {
      return yield* problem("IDEMPOTENCY_KEY_REQUIRED", "This operation requires an Idempotency-Key header.")
    }
    const key = parseIdempotencyKey(raw)
    if (key === undefined) {
      return yield* problem("IDEMPOTENCY_KEY_INVALID", "Idempotency-Key must be 1-255 visible ASCII characters.")
    }
    const principal = yield* CurrentPrincipal
    const store = yield* IdempotencyStore
    const tx = yield* Transactor
    const config = yield* ServerConfig
    const { requestId } = yield* RequestContext
    const scope = principalScope(principal)
    const fingerprint = yield* sha256Hex(canonicalJson({
      method: request.method,
      route: op.route,
      path: op.path ?? {},
      body: op.body ?? null
    }))
    const now = yield* DateTime.now
    const outcome = yield* domain(store.begin({
      scope,
      key,
      fingerprint,
      now,
      // The holder answers within the request deadline (REQUEST_TIMEOUT_MS) or is gone: past it,
      // plus a second's margin, its key is taken over.
      lockFor: Duration.millis(config.requestTimeoutMs + 1000),
      retainFor: Duration.hours(config.idempotencyRetentionHours)
    }))
    switch (outcome._tag) {
      case "Replay": {
        const response = yield* openStoredResponse(outcome.response)
        if (response === undefined) {
          return yield* problem("IDEMPOTENCY_UNAVAILABLE", "The stored outcome of this Idempotency-Key cannot be read (was SECRET_KEY changed?).", {
            headers: { "retry-after": "1" }
          })
        }
        return toResponse(response, { "idempotent-replayed": "true" })
      }
      case "Mismatch":
        return yield* problem("IDEMPOTENCY_KEY_REUSED", "This Idempotency-Key was used with a different request.")
      case "InProgress":
        return yield* problem("IDEMPOTENCY_REQUEST_IN_PROGRESS", "A request with this Idempotency-Key is still in progress.", {
          headers: { "retry-after": String(outcome.retryAfterSeconds) }
        })
      case "Acquired":
        break
    }
    const finish = (r: Rendered) =>
      Effect.flatMap(sealStoredResponse(r), (stored) => Effect.as(domain(store.complete({ scope, key, response: stored, now })), r))
    const result = yield* tx.withTransaction(Effect.gen(function*() {
      const attempt = yield* Effect.result(tx.withTransaction(run))
      if (Result.isSuccess(attempt)) return yield* finish(attempt.success)
      const failure = attempt.failure
      // Not an outcome of the operation — the platform could not decode the request, or the
      // request was refused before it ran: nothing to keep, a corrected retry runs.
      if (!(failure instanceof ProblemFailure) || refusals.has(failure.code)) return yield* Effect.fail(failure)
      const body = renderProblemData(failure, config.docsUrl, requestId)
      if (body.status >= 500) return yield* failure
      return yield* finish(body)
    })).pipe(
      Effect.onExit((exit) => exit._tag === "Failure" ? Effect.ignore(store.release({ scope, key })) : Effect.void)
    )
    return toResponse(result)
  })

/**
 * Stored outcomes can hold one-time secrets (a created key's secret, a SIP password), which a replay
 * must return (docs/api-notes/requests.md) but the store must not keep in plain text
 * (docs/architecture.md#reliability-and-security): the body is sealed under the server secret and
 * opened on replay.
 */
const SEALED_PREFIX = "sealed:v1:"
const IDEMPOTENCY_PURPOSE = "idempotency-response"

const sealStoredResponse = (r: Rendered) =>
  Effect.map(seal(IDEMPOTENCY_PURPOSE, new TextEncoder().encode(r.body)), (sealed): Rendered => ({
    ...r,
    body: SEALED_PREFIX + Buffer.from(sealed).toString("base64")
  }))

const openStoredResponse = (r: Rendered) =>
  r.body.startsWith(SEALED_PREFIX)
    ? Effect.map(
      unseal(IDEMPOTENCY_PURPOSE, new Uint8Array(Buffer.from(r.body.slice(SEALED_PREFIX.length), "base64"))),
      (plain): Rendered | undefined => plain === undefined ? undefined : { ...r, body: new TextDecoder().decode(plain) }
    )
    : Effect.succeed<Rendered | undefined>(r)

/** A problem as stored data (for replays of a 4xx outcome). */
const renderProblemData = (p: ProblemFailure, docsUrl: string, requestId: string): Rendered => {
  const res = renderProblem(p, docsUrl, requestId)
  const body = res.body._tag === "Uint8Array" ? new TextDecoder().decode(res.body.body) : ""
  return { status: res.status, headers: { ...p.headers, "content-type": "application/problem+json" }, body }
}
