/**
 * The steps every /v1 operation shares (API.md §0): reading and validating a JSON body, the
 * Idempotency-Key protocol, and rendering a success. Each step fails only with `ProblemFailure`.
 */
import { HttpServerRequest, HttpServerResponse } from "effect/http"
import { principalScope } from "@switchboard/core/credentials"
import { sha256Hex } from "@switchboard/core/internal"
import {
  canonicalJson,
  IdempotencyStore,
  issueLines,
  parseIdempotencyKey,
  seal,
  type StoredResponse,
  Transactor,
  unseal
} from "@switchboard/core/shared"
import { type ValidationIssue } from "../http/Problem.js"
import { DateTime, Duration, Effect, Result, Schema, type SchemaIssue } from "effect"
import { isJsonType, parseJsonBody, readBodyText } from "../http/Body.js"
import { RequestContext } from "../http/RequestContext.js"
import { ServerConfig } from "../http/ServerConfig.js"
import { CurrentPrincipal } from "./Authn.js"
import { problem, ProblemFailure, problemOfDomainError, renderProblem, type V1DomainError, validationFailed } from "./Problems.js"

/** A response as data: what is sent, and what an idempotent replay sends again. */
export type Rendered = StoredResponse

const pointer = (path: ReadonlyArray<PropertyKey>) =>
  path.map((p) => `/${String(p).replace(/~/g, "~0").replace(/\//g, "~1")}`).join("")

const issueCode = (tag: string) =>
  tag === "Missing" ? "missing" : tag === "Unexpected" ? "unexpected_property" : tag === "Type" ? "invalid_type" : "invalid_value"

/** Schema issues as the problem's `issues` (`path` a JSON pointer), in Effect 3's words (core `issueLines`). */
export const issuesOf = (error: Schema.SchemaError | SchemaIssue.Issue, location: ValidationIssue["location"]): Array<ValidationIssue> =>
  issueLines(error).map((i) => ({
    code: issueCode(i._tag),
    location,
    message: i.message,
    path: pointer(i.path)
  }))

/** Reads the body as JSON and decodes it with `schema`: 413 over the limit, 422 for anything malformed. */
export const decodeJsonBody = <A, I>(schema: Schema.Codec<A, I, never, never>) =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const config = yield* ServerConfig
    const contentType = request.headers["content-type"]
    if (!isJsonType(contentType)) {
      return yield* validationFailed([{
        code: "unsupported_media_type",
        location: "header",
        message: `Expected Content-Type application/json, got ${contentType === undefined ? "none" : JSON.stringify(contentType)}.`,
        path: "/content-type"
      }], "The request body must be JSON.")
    }
    const text = yield* readBodyText(config.maxBodyBytes).pipe(
      Effect.mapError((e) =>
        e._tag === "BodyTooLarge"
          ? problem("PAYLOAD_TOO_LARGE", `The request body exceeds ${config.maxBodyBytes} bytes.`)
          : validationFailed([{
            code: e.status === 415 ? "unsupported_encoding" : "unreadable_body",
            location: e.location,
            message: e.message,
            path: e.location === "header" ? "/content-encoding" : ""
          }], e.message)
      )
    )
    const parsed = parseJsonBody(text)
    if ("refused" in parsed) {
      return yield* validationFailed([{ ...parsed.refused, location: "body" }], parsed.refused.code === "malformed_json"
        ? "The request body is not valid JSON."
        : parsed.refused.message)
    }
    const json = parsed.ok
    const decoded = Schema.decodeUnknownResult(schema, { errors: "all", onExcessProperty: "error", reportInput: true })(json)
    if (Result.isFailure(decoded)) return yield* validationFailed(issuesOf(decoded.failure, "json"))
    return { value: decoded.success, json }
  })

/** A success as data, encoded by the operation's schema. */
export const rendered = <A, I>(schema: Schema.Codec<A, I, never, never>, value: A, status = 200, headers: Record<string, string> = {}) =>
  Effect.map(Effect.orDie(Schema.encodeEffect(schema)(value)), (encoded): Rendered => ({
    status,
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(encoded)
  }))

/**
 * Renders records of one kind with `schema`, remembering each record's body: a cached record
 * (`RecordCache`, the credential caches) is the same object on every read, so it is encoded — and
 * checked by the schema — once, not per request. Make one per handler group (its `toValue` may use
 * the server's configuration); records are immutable, so a changed record is a new object.
 */
export const renderedOnce = <A, I, K extends object>(schema: Schema.Codec<A, I, never, never>, toValue: (record: K) => A) => {
  const memo = new WeakMap<K, Rendered>()
  return (record: K, status = 200): Effect.Effect<Rendered> => {
    const hit = status === 200 ? memo.get(record) : undefined
    if (hit !== undefined) return Effect.succeed(hit)
    return Effect.map(rendered(schema, toValue(record), status), (r) => {
      if (status === 200) memo.set(record, r)
      return r
    })
  }
}

export const toResponse = (r: Rendered, extraHeaders?: Record<string, string>) => {
  const contentType = r.headers["content-type"] ?? "application/json"
  // Most responses name nothing but their type: no header records copied for them (issue 12).
  let headers: Record<string, string> | undefined
  for (const name in r.headers) if (name !== "content-type") (headers ??= {})[name] = r.headers[name]!
  if (extraHeaders !== undefined) headers = headers === undefined ? extraHeaders : { ...headers, ...extraHeaders }
  return HttpServerResponse.text(r.body, headers === undefined ? { status: r.status, contentType } : { status: r.status, contentType, headers })
}

/**
 * Runs a core effect, turning its domain errors into problems through the one table. Its errors
 * must be ones the table has rows for (`V1DomainError`), so a new core error cannot silently 500.
 */
export const domain = <A, E extends V1DomainError | ProblemFailure, R>(self: Effect.Effect<A, E, R>) =>
  Effect.mapError(self, (e): ProblemFailure => e._tag === "ProblemFailure" ? e : problemOfDomainError(e))

/**
 * The Idempotency-Key protocol (API.md §0) around one operation: the key is required and scoped
 * to the principal; the fingerprint covers method, route, path parameters and the canonical body.
 * The operation and the stored outcome commit in one transaction, so a crash cannot leave a done
 * operation without its record. Definitive outcomes (2xx, 4xx) are stored; 5xx and defects
 * release the key so a retry runs again.
 */
export const idempotent = <R>(
  op: { readonly route: string; readonly path?: Record<string, string>; readonly body?: unknown },
  run: Effect.Effect<Rendered, ProblemFailure, R>
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
 * must return (API.md §0) but the store must not keep in plain text (DESIGN.md §7): the body is
 * sealed under the server secret and opened on replay.
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
