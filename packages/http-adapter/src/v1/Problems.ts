/**
 * Problem responses of the versioned API (RFC 9457, API.md §0) and the ONE table that maps core
 * errors to problem codes (DESIGN.md §4). Everything that goes wrong on /v1 leaves as a
 * `ProblemFailure` and is rendered by the global middleware.
 */
import { HttpServerResponse } from "@effect/platform"
import { makeProblem, ProblemCodeSchema, type ProblemCode, type ValidationIssue } from "@switchboard/core"
import { Schema } from "effect"

/** A problem to send: its code, a detail, extra members and extra headers. */
export class ProblemFailure extends Schema.TaggedError<ProblemFailure>()("ProblemFailure", {
  code: ProblemCodeSchema,
  detail: Schema.optional(Schema.String),
  extra: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
  headers: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.String }))
}) {}

export const problem = (
  code: ProblemCode,
  detail?: string,
  options: { readonly extra?: Record<string, unknown>; readonly headers?: Record<string, string> } = {}
) => new ProblemFailure({ code, ...(detail === undefined ? {} : { detail }), ...options })

export const validationFailed = (issues: ReadonlyArray<ValidationIssue>, detail = "The request is not valid.") =>
  problem("VALIDATION_FAILED", detail, { extra: { issues } })

/** Renders a problem as `application/problem+json` with `requestId`. */
export const renderProblem = (p: ProblemFailure, docsUrl: string, requestId: string) => {
  const body = makeProblem(docsUrl, p.code, {
    ...(p.detail === undefined ? {} : { detail: p.detail }),
    requestId,
    ...p.extra
  })
  return HttpServerResponse.unsafeJson(body, {
    status: body.status,
    contentType: "application/problem+json",
    headers: p.headers ?? {}
  })
}

/** Core error tag → problem. The only place /v1 learns what a domain error means on the wire. */
export const problemOfDomainError = (e: { readonly _tag: string } & Record<string, unknown>): ProblemFailure => {
  switch (e._tag) {
    case "AccountNotFound":
      return problem("ACCOUNT_NOT_FOUND", "The account does not exist.")
    case "AccountDeleted":
      return problem("ACCOUNT_DELETED", "The account of this credential has been deleted.")
    case "EmailTaken":
      return problem("FAILED_PRECONDITION", "An account with this email already exists.")
    case "AccountServiceKeyNotFound":
      return problem("ACCOUNT_SERVICE_KEY_NOT_FOUND", `No service key ${String(e.serviceKeyId)} on this account.`)
    case "AccountServiceKeyLimitReached":
      return problem(
        "ACCOUNT_SERVICE_KEY_LIMIT_REACHED",
        `An account can have at most ${String(e.limit)} live service keys; revoke one first.`
      )
    case "InvalidInput":
      return validationFailed(
        [{ code: "invalid_value", location: "json", message: String(e.message), path: `/${String(e.field)}` }],
        `${String(e.field)} ${String(e.message)}`
      )
    case "InvalidCredential":
      return problem("NOT_AUTHENTICATED", String(e.message), {
        headers: { "www-authenticate": `Bearer realm="api", error="invalid_token"` }
      })
    case "IdempotencyUnavailable":
      return problem("IDEMPOTENCY_UNAVAILABLE", "The idempotency store is unavailable; retry shortly.", {
        headers: { "retry-after": "1" }
      })
    default:
      return problem("INTERNAL_ERROR", "An unexpected error occurred.")
  }
}
