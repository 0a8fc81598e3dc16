/**
 * Problem responses of the versioned API (RFC 9457, docs/api-notes/requests.md): everything that
 * goes wrong on /v1 leaves as a `ProblemFailure` and is rendered by the global middleware.
 */
import { HttpServerResponse } from "effect/http"
import { makeProblem, ProblemCodeSchema, type ValidationIssue } from "../http/Problem.js"
import { type ProblemCode } from "../http/ProblemCatalog.js"
import { Schema } from "effect"
import type { ErrorTableOf, Tagged } from "../http/ErrorTable.js"

/** A problem to send: its code, a detail, extra members and extra headers. */
export class ProblemFailure extends Schema.TaggedError<ProblemFailure>()("ProblemFailure", {
  code: ProblemCodeSchema,
  detail: Schema.optional(Schema.String),
  extra: Schema.optional(Schema.Record(Schema.String, Schema.Unknown)),
  headers: Schema.optional(Schema.Record(Schema.String, Schema.String))
}) {}

export const problem = (
  code: ProblemCode,
  detail?: string,
  options: { readonly extra?: Record<string, unknown>; readonly headers?: Record<string, string> } = {}
) => new ProblemFailure({ code, ...(detail === undefined ? {} : { detail }), ...options })

export const validationFailed = (issues: ReadonlyArray<ValidationIssue>, detail = "The request is not valid.") =>
  problem("VALIDATION_FAILED", detail, { extra: { issues } })

/**
 * A feature's rows of the /v1 table (`v1/<Feature>Errors.ts`): one per tag of the core error
 * union `E`, each receiving its own error type. `Problems.ts` assembles them.
 */
export type ErrorTable<E extends Tagged> = ErrorTableOf<E, ProblemFailure>

/** Renders a problem as `application/problem+json` with `requestId`. */
export const renderProblem = (p: ProblemFailure, docsUrl: string, requestId: string) => {
  const body = makeProblem(docsUrl, p.code, {
    ...(p.detail === undefined ? {} : { detail: p.detail }),
    requestId,
    ...p.extra
  })
  return HttpServerResponse.jsonUnsafe(body, {
    status: body.status,
    contentType: "application/problem+json",
    headers: p.headers ?? {}
  })
}
