/**
 * The server's four HTTP surfaces and their error formats (docs/api-notes/requests.md,
 * docs/api-notes/dashboard-api.md, docs/api-notes/oauth.md, docs/api-notes/management-api.md): the
 * versioned API and the docs answer RFC 9457 problems; the Dashboard API (and its sign-in
 * component) and the management API answer the envelope `{succeed:false, message, code}`; the OAuth
 * endpoints answer RFC 6749 JSON `{error, error_description}`. Handlers of each surface fail with
 * that surface's failure class; the global middleware renders those, and renders its own generic
 * failures (404, 405, 429, 500, 503, unreadable bodies) in the format of the surface the path
 * belongs to.
 */
import { HttpServerResponse } from "effect/http"
import { type OAuthErrorCode, type OAuthProtocolError } from "@switchboard/core/oauth"
import { makeProblem } from "./Problem.js"
import { Schema } from "effect"
import type { ProblemFailure } from "../v1/ProblemFailure.js"
import type { ErrorTableOf, PartialErrorTableOf, Tagged } from "./ErrorTable.js"

export type Surface = "v1" | "dashboard" | "oauth" | "management"

/**
 * The surface a request path belongs to. The contract's device-flow endpoints (`/v1/auth/device/…`,
 * RFC 8628) answer RFC 6749 JSON, not problems: they are on the OAuth surface.
 */
export const surfaceOf = (path: string): Surface =>
  path.startsWith("/api/auth/oauth2/") || path === "/api/auth/jwks" || path.startsWith("/.well-known/") ||
    path.startsWith("/v1/auth/device/")
    ? "oauth"
    : path === "/api" || path.startsWith("/api/")
    ? "dashboard"
    : path === "/projects" || path.startsWith("/projects/")
    ? "management"
    : "v1"

/** An error of the Dashboard or management API: `{succeed:false, message, code}` with `status`. */
export class EnvelopeFailure extends Schema.TaggedError<EnvelopeFailure>()("EnvelopeFailure", {
  status: Schema.Number,
  code: Schema.String,
  message: Schema.String,
  headers: Schema.optional(Schema.Record(Schema.String, Schema.String))
}) {}

export const envelopeFailure = (status: number, code: string, message: string, headers?: Record<string, string>) =>
  new EnvelopeFailure({ status, code, message, ...(headers === undefined ? {} : { headers }) })

/** A Dashboard or management table: one envelope per tag of the core error union `E`. */
export type EnvelopeTable<E extends Tagged> = ErrorTableOf<E, EnvelopeFailure>

/** Envelope rows for some tags of `E` only (where a surface says something else than /v1). */
export type PartialEnvelopeTable<E extends Tagged> = PartialErrorTableOf<E, EnvelopeFailure>

/** An error of an OAuth endpoint (RFC 6749 §5.2): `{error, error_description?}` with `status`. */
export class OAuthFailure extends Schema.TaggedError<OAuthFailure>()("OAuthFailure", {
  status: Schema.Number,
  error: Schema.String,
  description: Schema.optional(Schema.String),
  headers: Schema.optional(Schema.Record(Schema.String, Schema.String))
}) {}

export const oauthFailure = (status: number, error: string, description?: string, headers?: Record<string, string>) =>
  new OAuthFailure({
    status,
    error,
    ...(description === undefined ? {} : { description }),
    ...(headers === undefined ? {} : { headers })
  })

/**
 * An OAuth endpoint's table: one row per protocol error code of core (`OAuthErrorCode`), each
 * giving the code's failure (its status and headers). A new code is a compile error until placed.
 */
export type OAuthErrorTable = {
  readonly [C in OAuthErrorCode]: (e: OAuthProtocolError) => OAuthFailure
}

const noStore = { "cache-control": "no-store", pragma: "no-cache" }

export const renderEnvelopeFailure = (f: EnvelopeFailure) =>
  HttpServerResponse.jsonUnsafe({ succeed: false, message: f.message, code: f.code }, {
    status: f.status,
    headers: f.headers ?? {}
  })

export const renderOAuthFailure = (f: OAuthFailure) =>
  HttpServerResponse.jsonUnsafe(
    { error: f.error, ...(f.description === undefined ? {} : { error_description: f.description }) },
    { status: f.status, headers: { ...noStore, ...f.headers } }
  )

/** A generic problem (404, 405, 429, 500, …) in the format of a non-/v1 surface. */
export const problemOnSurface = (surface: Exclude<Surface, "v1">, p: ProblemFailure, docsUrl: string) => {
  const body = makeProblem(docsUrl, p.code, {})
  const message = p.detail ?? body.title
  if (surface === "oauth") {
    const error = body.status === 503 ? "temporarily_unavailable" : body.status >= 500 ? "server_error" : "invalid_request"
    return renderOAuthFailure(oauthFailure(body.status, error, message, p.headers))
  }
  return renderEnvelopeFailure(envelopeFailure(body.status, p.code, message, p.headers))
}
