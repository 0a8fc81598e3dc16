/**
 * What a /v1 endpoint declares beside its params, query, payload and success (docs/architecture.md,
 * "One declaration per endpoint"):
 * - `problems(...codes)`: the problem types it can answer, as its `error` schemas — each a problem
 *   document of that code, its status the catalog's (`ProblemCatalog`, the one status per problem).
 *   The OpenAPI document lists them, and a test checks every problem the HTTP suite saw answered
 *   against them.
 * - `Idempotent`: the endpoint requires an Idempotency-Key; the `Idempotency` middleware
 *   (v1/Idempotency.ts) runs the protocol around it — or, annotated `"in handler"`, the handler
 *   runs it itself (`idempotent`), where the fingerprint or the transaction's extent differ: a
 *   query member in the fingerprint, the bytes of an upload, work that must follow the commit.
 * - `RefusedBodyAs`: the problem a refused body is answered with instead of VALIDATION_FAILED.
 * - `Requires`: who may call it, checked before its body is read (v1/Access.ts, `RouteAccess`).
 * - `documentedAs(decoder, schema)`: a payload decoded by `decoder` that the documents describe
 *   (and examples are made) from `schema`, which it must answer exactly as.
 * They are read back from the declaration with `declaredProblems`, `isIdempotent`, `refusedBody`.
 */
import { type HttpApiEndpoint, HttpApiSchema } from "effect/http-api"
import { Context, type Effect, Schema } from "effect"
import type { CurrentPrincipal } from "./Authn.js"
import { ProblemCatalog, type ProblemCode, problemEntry } from "../http/ProblemCatalog.js"
import { declaredCode } from "../http/DeclaredCode.js"
import { problem, type ProblemFailure } from "./ProblemFailure.js"

/** One entry of a problem's `issues` (a validation failure). */
const Issue = Schema.Struct({
  code: Schema.String,
  location: Schema.String,
  message: Schema.String,
  path: Schema.String
})

/** A problem document (RFC 9457) as a /v1 endpoint answers it, `code` one of the catalog's. */
export interface ProblemDocument {
  readonly type: string
  readonly code: ProblemCode
  readonly title: string
  readonly status: number
  readonly detail?: string
  readonly instance?: string
  readonly requestId?: string
  readonly issues?: ReadonlyArray<typeof Issue.Type>
}

/** The schema of one problem type: what `problems` declares. */
export type ProblemType = Schema.Codec<ProblemDocument, ProblemDocument>

const byCode = new Map<ProblemCode, ProblemType>()

const problemType = (code: ProblemCode): ProblemType => {
  const known = byCode.get(code)
  if (known !== undefined) return known
  const { status } = problemEntry(code)
  const schema = Schema.Struct({
    type: Schema.String,
    code: Schema.Literal(code),
    title: Schema.String,
    status: Schema.Literal(status),
    detail: Schema.optionalKey(Schema.String),
    instance: Schema.optionalKey(Schema.String),
    requestId: Schema.optionalKey(Schema.String),
    issues: Schema.optionalKey(Schema.Array(Issue))
  }).pipe(HttpApiSchema.status(status)) as unknown as ProblemType
  byCode.set(code, schema)
  return schema
}

/** The problem types an endpoint can answer, for its `error` (each code once, in the order given). */
export const problems = (...list: ReadonlyArray<ProblemCode | ReadonlyArray<ProblemCode>>): ReadonlyArray<ProblemType> =>
  [...new Set(list.flat())].map(problemType)

/** The problem code a declared error schema stands for (`declaredCode`). */
const codeOf = (schema: Schema.Top): ProblemCode | undefined => declaredCode(schema, ProblemCatalog)

/** The problem codes an endpoint declares (its `error` schemas made by `problems`), in declaration order. */
export const declaredProblems = (endpoint: HttpApiEndpoint.Top): ReadonlyArray<ProblemCode> => {
  const out: Array<ProblemCode> = []
  for (const schema of endpoint.error) {
    const code = codeOf(schema)
    if (code !== undefined) out.push(code)
  }
  return out
}

/**
 * Marks an endpoint that requires an Idempotency-Key: `.annotate(Idempotent, true)` (the
 * middleware runs the protocol), or `.annotate(Idempotent, "in handler")` (its handler does).
 */
export class Idempotent extends Context.Service<Idempotent, true | "in handler">()("switchboard/v1/Idempotent") {}

/** Whether an endpoint requires an Idempotency-Key. */
export const isIdempotent = (endpoint: HttpApiEndpoint.Top): boolean =>
  Context.getOrUndefined(endpoint.annotations, Idempotent) !== undefined

/** Whether the `Idempotency` middleware runs the protocol for an endpoint (its handler does not). */
export const middlewareIdempotent = (endpoint: HttpApiEndpoint.Top): boolean =>
  Context.getOrUndefined(endpoint.annotations, Idempotent) === true

/**
 * The problem an endpoint answers a body it refuses with — not JSON, not its content type, or
 * refused by its payload schema — instead of VALIDATION_FAILED: the same detail and issues under
 * the endpoint's own code (`.annotate(RefusedBodyAs, "SMS_CAMPAIGN_INVALID_REQUEST")`).
 */
export class RefusedBodyAs extends Context.Service<RefusedBodyAs, ProblemCode>()("switchboard/v1/RefusedBodyAs") {}

/** A refusal of the request's body as the endpoint declares it answered (VALIDATION_FAILED unless `RefusedBodyAs`). */
export const refusedBody = (endpoint: HttpApiEndpoint.Top, failure: ProblemFailure): ProblemFailure => {
  const code = Context.getOrUndefined(endpoint.annotations, RefusedBodyAs)
  return code === undefined || failure.code !== "VALIDATION_FAILED"
    ? failure
    : problem(code, failure.detail ?? "The request is not valid.", failure.extra === undefined ? {} : { extra: failure.extra })
}

/**
 * Who may call an endpoint, from its path parameters: the same check its handler makes first
 * (`accountAccess`, `projectAccess` in v1/Access.ts), made by `RouteAccess` before the query and body are
 * read, so that a caller that may not use the endpoint is refused whatever it sent. Every
 * authenticated endpoint declares it.
 */
export class Requires extends Context.Service<
  Requires,
  (params: Readonly<Record<string, string | undefined>>) => Effect.Effect<unknown, ProblemFailure, CurrentPrincipal>
>()("switchboard/v1/Requires") {}

/** The annotation `documentedAs` leaves on the decoder (kept on the codecs the platform derives from it). */
const DOCUMENTED_AS = "switchboard/documentedAs"

/**
 * A payload declared as `decoder` — a faster decoding of `schema`, with its values and its
 * refusals (core's signal batch decoder) — and documented as `schema`: the OpenAPI document and the
 * examples describe `schema`, the platform decodes with `decoder`.
 */
export const documentedAs = <S extends Schema.Top>(decoder: S, schema: Schema.Top): S["Rebuild"] =>
  decoder.annotate({ [DOCUMENTED_AS]: schema })

/** The schema a declared payload is documented as (itself, unless `documentedAs`). */
export const documentedSchema = (schema: Schema.Top): Schema.Top => {
  const documented = schema.ast.annotations?.[DOCUMENTED_AS]
  return Schema.isSchema(documented) ? documented : schema
}
