/**
 * The steps every management API route shares (docs/api-notes/requests.md,
 * docs/api-notes/management-api.md), in this order:
 *
 * 1. HTTPS only: a plaintext request is refused with 403 `HTTPS_REQUIRED` before its credentials
 *    are read (and it is not counted against any rate limit).
 * 2. HTTP Basic `projectId:projectSecret`; the username must be the path's project. Missing or
 *    wrong → 401 with `WWW-Authenticate: Basic`.
 * 3. Rate limit per project (`MANAGEMENT_RATE_LIMIT` per `MANAGEMENT_RATE_LIMIT_WINDOW_SECONDS`,
 *    default 5 per second), counted in the store so every server process shares it. Requests whose
 *    credentials fail count against their client address instead, so that nobody can spend a
 *    project's budget without its secret. Every counted response carries `RateLimit` and
 *    `RateLimit-Policy`; over the limit → 429 `RATE_LIMITED` with `Retry-After`.
 * 4. A closing project (deleted, closure not finished) answers reads and refuses changes with 409
 *    `PROJECT_CLOSING`; a deleted project's credentials open nothing (401).
 *
 * Then the endpoint (management/ManagementApi.ts, whose middleware runs these steps): JSON bodies
 * decoded strictly (413 over the size limit, 422 for anything else that is wrong), domain errors
 * mapped by one table, success as `{succeed: true, data}`.
 */
import { HttpEffect, HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { ManagementAccess } from "@switchboard/core/management"
import { type ProjectRecord } from "@switchboard/core/projects"
import { issueLines, RateLimiter, type RateLimitPolicy } from "@switchboard/core/shared"
import { successEnvelope } from "../http/Envelope.js"
import { policyHeader, stateHeader } from "../http/RateLimitHeaders.js"
import { DateTime, Effect, Option, Redacted, Result, Schema, type SchemaIssue } from "effect"
import { isJsonType, parseJsonBody, readBodyText } from "../http/Body.js"
import { ServerConfig } from "../http/ServerConfig.js"
import { type EnvelopeFailure, envelopeFailure } from "../http/Surfaces.js"
import { clientAddressOf, isHttpsRequest } from "./ManagementTransport.js"

export const WWW_AUTHENTICATE = `Basic realm="management", charset="UTF-8"`

/** `Authorization: Basic <base64(username:password)>` (RFC 7617), or none when absent or unreadable. */
export const basicCredentials = (header: string | undefined): Option.Option<{ username: string; password: string }> => {
  const m = /^Basic[ ]+([A-Za-z0-9+/]{1,1024}={0,2})[ ]*$/i.exec(header ?? "")
  if (m === null) return Option.none()
  try {
    const bytes = Uint8Array.from(atob(m[1]!), (c) => c.charCodeAt(0))
    const decoded = new TextDecoder("utf-8", { fatal: true }).decode(bytes)
    const colon = decoded.indexOf(":")
    return colon < 0 ? Option.none() : Option.some({ username: decoded.slice(0, colon), password: decoded.slice(colon + 1) })
  } catch {
    return Option.none()
  }
}

/** Whether a route reads or changes the project: a closing project allows reads only. */
export type ManagementUse = "read" | "write"

/** The success envelope with `data` encoded by its schema. */
export const envelope = <A, I>(schema: Schema.Codec<A, I>, value: A, status = 200) =>
  Effect.map(Effect.orDie(Schema.encodeEffect(schema)(value)), (data) =>
    HttpServerResponse.jsonUnsafe(successEnvelope(data), { status, headers: { "cache-control": "no-store" } }))

/** A readable message naming each wrong field: `phoneNumber: must be an E.164 phone number`. */
export const issuesMessage = (error: Schema.SchemaError | SchemaIssue.Issue) =>
  issueLines(error)
    .slice(0, 10)
    .map((i) => (i.path.length === 0 ? i.message : `${i.path.join(".")}: ${i.message}`))
    .join("; ")

const invalid = (message: string) => envelopeFailure(422, "VALIDATION_FAILED", message)

/**
 * Reads the JSON body by the rules every surface shares (http/Body.ts): 413 over the size limit,
 * 415 for an encoding it cannot read, 422 for anything else malformed. The text and its value.
 */
export const readJsonBody = (maxBodyBytes: number) =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const contentType = request.headers["content-type"]
    if (!isJsonType(contentType)) {
      return yield* invalid(`The request body must be JSON (Content-Type application/json), not ${contentType ?? "none"}.`)
    }
    const text = yield* readBodyText(maxBodyBytes).pipe(
      Effect.mapError((e) =>
        e._tag === "BodyTooLarge"
          ? envelopeFailure(413, "PAYLOAD_TOO_LARGE", `The request body exceeds ${maxBodyBytes} bytes.`)
          : e.status === 415
          ? envelopeFailure(415, "UNSUPPORTED_MEDIA_TYPE", e.message)
          : invalid(e.message)
      )
    )
    const parsed = parseJsonBody(text)
    if ("refused" in parsed) {
      return yield* invalid(parsed.refused.code === "malformed_json"
        ? (text.trim() === "" ? "The request body is empty." : "The request body is not valid JSON.")
        : `${parsed.refused.path === "" ? "The body" : parsed.refused.path}: ${parsed.refused.message}`)
    }
    return { request, text, json: parsed.ok as unknown }
  })

/** Builds the route guard once (at router construction) from the server's config and services. */
export const makeManagementGuard = Effect.gen(function*() {
  const config = yield* ServerConfig
  const access = yield* ManagementAccess
  const limiter = yield* RateLimiter
  const policy: RateLimitPolicy = {
    name: "management",
    quota: config.managementRateLimitQuota,
    windowSeconds: config.managementRateLimitWindowSeconds
  }
  const policyValue = policyHeader(policy)

  /** Counts the request under `key`, puts the state on the response, and refuses it over the quota. */
  const limit = (key: string) =>
    Effect.gen(function*() {
      const state = yield* limiter.hit(key, policy, yield* DateTime.now)
      yield* HttpEffect.appendPreResponseHandler((_req, res) =>
        Effect.succeed(HttpServerResponse.setHeaders(res, { "ratelimit-policy": policyValue, ratelimit: stateHeader(policy, state) })))
      if (!state.allowed) {
        return yield* envelopeFailure(
          429,
          "RATE_LIMITED",
          `At most ${policy.quota} requests per ${policy.windowSeconds} s for this project; retry after ${state.resetSeconds} s.`,
          { "retry-after": String(state.resetSeconds) }
        )
      }
    })

  /** Step 1: plaintext is refused before anything else is looked at. */
  const requireHttps = Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    if (!isHttpsRequest(request, config.trustProxy)) {
      yield* HttpEffect.appendPreResponseHandler((_req, res) =>
        Effect.succeed(HttpServerResponse.setHeader(res, "ratelimit-policy", policyValue)))
      return yield* envelopeFailure(403, "HTTPS_REQUIRED", "The management API is served over HTTPS only; retry with https://.")
    }
    return request
  })

  /** Steps 1–4: the project the request may act on. */
  const guard = (use: ManagementUse): Effect.Effect<ProjectRecord, EnvelopeFailure, HttpServerRequest.HttpServerRequest | HttpRouter.RouteContext> =>
    Effect.gen(function*() {
      const request = yield* requireHttps
      const { projectId = "" } = yield* HttpRouter.params
      const credentials = basicCredentials(request.headers["authorization"])
      const authenticated = Option.isNone(credentials)
        ? Result.fail("Project credentials are required: HTTP Basic with the project id and the project secret.")
        : yield* Effect.result(Effect.mapError(access.authenticate({
          pathProjectId: projectId,
          username: credentials.value.username,
          password: Redacted.make(credentials.value.password)
        }), (e) => e.message))
      if (Result.isFailure(authenticated)) {
        yield* limit(`management:client:${clientAddressOf(request, config.trustProxy)}`)
        return yield* envelopeFailure(401, "NOT_AUTHENTICATED", authenticated.failure, { "www-authenticate": WWW_AUTHENTICATE })
      }
      const project = authenticated.success
      yield* limit(`management:project:${project.projectId}`)
      if (use === "write" && project.state === "closing") {
        return yield* envelopeFailure(409, "PROJECT_CLOSING", "The project is being deleted: it can be read but not changed.")
      }
      return project
    })

  /**
   * Requests under `/projects/` that match no route: refused over plaintext like the others, else
   * counted against the client and answered 404 (or 405 with `Allow`) by the global middleware.
   */
  const unmatched = Effect.gen(function*() {
    const request = yield* requireHttps
    yield* limit(`management:client:${clientAddressOf(request, config.trustProxy)}`)
    return request
  })

  return { guard, unmatched, policy } as const
})
