/**
 * What a management endpoint declares beside its params, query, payload and success (the pattern
 * of the /v1 declarations, v1/Declare.ts; docs/architecture.md "One declaration per endpoint"):
 * - `envelopeErrors(...codes)`: the envelope failures it can answer, as its `error` schemas — each
 *   `{succeed: false, message, code}` of that code, its status the one of `managementCodes`. Every
 *   endpoint declares `commonFailures` (the shared steps' refusals) first.
 * - `Use`: whether it reads or changes the project (a closing project allows reads only), checked
 *   by the `ManagementGuard` middleware (ManagementMiddleware.ts).
 * - `QueryRefusal`: the message a refused query is answered with (422 `VALIDATION_FAILED`).
 * - `OptionalBody`: no body at all is the empty object `{}`.
 * They are read back with `declaredFailures`, `useOf`, `queryRefusal`, `bodyIsOptional`.
 */
import { type HttpApiEndpoint, HttpApiSchema } from "effect/http-api"
import { Context, Schema } from "effect"
import { SuccessEnvelope } from "../http/Envelope.js"
import { declaredCode } from "../http/DeclaredCode.js"

/** Every code the management API answers, with its one status (docs/errors.md). */
export const managementCodes = {
  NOT_AUTHENTICATED: 401,
  HTTPS_REQUIRED: 403,
  PROJECT_NOT_FOUND: 404,
  RATE_LIMITED: 429,
  INTERNAL_ERROR: 500,
  PROJECT_CLOSING: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  VALIDATION_FAILED: 422,
  WEBHOOK_URL_TAKEN: 409,
  WEBHOOK_LIMIT_REACHED: 409,
  WEBHOOK_NOT_FOUND: 404,
  DELIVERY_NOT_FOUND: 404,
  RETRY_REFUSED: 409,
  LINE_UNAVAILABLE: 503,
  LINE_NOT_FOUND: 404,
  USER_EXISTS: 409,
  USER_LIMIT_REACHED: 409,
  USER_NOT_FOUND: 404
} as const
export type ManagementCode = keyof typeof managementCodes

/** The refusals of the steps every endpoint runs (ManagementMiddleware.ts), and a service-side error. */
export const commonCodes: ReadonlyArray<ManagementCode> = ["NOT_AUTHENTICATED", "HTTPS_REQUIRED", "PROJECT_NOT_FOUND", "RATE_LIMITED", "INTERNAL_ERROR"]
/** What a change with a JSON body can also be refused with. */
export const writeCodes: ReadonlyArray<ManagementCode> = ["PROJECT_CLOSING", "PAYLOAD_TOO_LARGE", "UNSUPPORTED_MEDIA_TYPE", "VALIDATION_FAILED"]
/** What a removal can also be refused with. */
export const removeCodes: ReadonlyArray<ManagementCode> = ["PROJECT_CLOSING"]

export interface EnvelopeErrorDocument {
  readonly succeed: false
  readonly message: string
  readonly code: ManagementCode
}
export type EnvelopeErrorType = Schema.Codec<EnvelopeErrorDocument, EnvelopeErrorDocument>

const byCode = new Map<ManagementCode, EnvelopeErrorType>()

const envelopeErrorType = (code: ManagementCode): EnvelopeErrorType => {
  const known = byCode.get(code)
  if (known !== undefined) return known
  const schema = Schema.Struct({ succeed: Schema.Literal(false), message: Schema.String, code: Schema.Literal(code) })
    .pipe(HttpApiSchema.status(managementCodes[code])) as unknown as EnvelopeErrorType
  byCode.set(code, schema)
  return schema
}

/** The envelope failures an endpoint can answer, for its `error`: the common ones first, each code once. */
export const envelopeErrors = (...list: ReadonlyArray<ManagementCode | ReadonlyArray<ManagementCode>>): ReadonlyArray<EnvelopeErrorType> =>
  [...new Set([...commonCodes, ...list.flat()])].map(envelopeErrorType)

const codeOf = (schema: Schema.Top): ManagementCode | undefined => declaredCode(schema, managementCodes)

/** The envelope failures an endpoint declares, as (status, code), in declaration order. */
export const declaredFailures = (endpoint: HttpApiEndpoint.Top): ReadonlyArray<readonly [number, ManagementCode]> => {
  const out: Array<readonly [number, ManagementCode]> = []
  for (const schema of endpoint.error) {
    const code = codeOf(schema)
    if (code !== undefined) out.push([managementCodes[code], code])
  }
  return out
}

/** Whether an endpoint reads or changes the project: `.annotate(Use, "write")`. */
export class Use extends Context.Service<Use, "read" | "write">()("switchboard/management/Use") {}

/** The declared use of an endpoint (every management endpoint declares one). */
export const useOf = (endpoint: HttpApiEndpoint.Top): "read" | "write" => Context.getOrUndefined(endpoint.annotations, Use) ?? "write"

/** The message of a refused query: `.annotate(QueryRefusal, "status must be …")`. */
export class QueryRefusal extends Context.Service<QueryRefusal, string>()("switchboard/management/QueryRefusal") {}

export const queryRefusal = (endpoint: HttpApiEndpoint.Top): string =>
  Context.getOrUndefined(endpoint.annotations, QueryRefusal) ?? "A query parameter is not valid."

/** An endpoint whose JSON body may be left out (no Content-Type, no length): it is then `{}`. */
export class OptionalBody extends Context.Service<OptionalBody, true>()("switchboard/management/OptionalBody") {}

export const bodyIsOptional = (endpoint: HttpApiEndpoint.Top): boolean =>
  Context.getOrUndefined(endpoint.annotations, OptionalBody) === true

/** The annotation `enveloped` leaves on the success (kept on the JSON codec the platform derives from it). */
const ENVELOPE_DATA = "switchboard/envelopeData"

/** An endpoint's success: `{succeed: true, data}` around `data` (the data schema is kept for the documents). */
export const enveloped = <A, I, R>(data: Schema.Codec<A, I, R>) => SuccessEnvelope(data).annotate({ [ENVELOPE_DATA]: data })

/** The data schema of an endpoint's success, as `enveloped` declared it. */
export const envelopeData = (endpoint: HttpApiEndpoint.Top): Schema.Top => {
  for (const schema of endpoint.success) {
    const data = schema.ast.annotations?.[ENVELOPE_DATA]
    if (Schema.isSchema(data)) return data
  }
  throw new Error(`${endpoint.identifier}: its success is not declared with enveloped`)
}
