/**
 * What a Dashboard API endpoint declares beside its method, path, path parameters and payload
 * (docs/architecture.md, "One declaration per endpoint"):
 * - `success: envelope(data)` (`envelope(data, "list")` for a list): the `{succeed: true, data}`
 *   envelope around the data schema, which remembers that schema for the documents;
 * - `error: failures(...statuses)`: the `{succeed: false, message, code}` envelopes it answers,
 *   with their statuses;
 * - `declared({ access, summary, description })`: who may call it (`Public`, `scope(s)`,
 *   `SessionOnly`, `AnyCaller`), read by the `DashboardAccess` middleware (dashboard/Middleware.ts),
 *   and what it does, for `/api/openapi.json` and the reference (`/docs/dashboard`).
 * They are read back with `accessOf`, `dataOf`, `failureStatuses`.
 */
import { type HttpApiEndpoint, HttpApiSchema, OpenApi } from "effect/http-api"
import { Context, Schema } from "effect"

/** Who may call an operation. */
export type Access =
  /** Anyone, without a credential. */
  | { readonly _tag: "Public" }
  /** A session (every scope) or an OAuth access token holding `scope`. */
  | { readonly _tag: "Scope"; readonly scope: string }
  /** A signed-in session only: OAuth tokens are refused (403). */
  | { readonly _tag: "Session" }
  /** Any valid caller: a session, or an OAuth access token with any scope. */
  | { readonly _tag: "Caller" }

export const Public: Access = { _tag: "Public" }
export const SessionOnly: Access = { _tag: "Session" }
export const AnyCaller: Access = { _tag: "Caller" }
export const scope = (s: string): Access => ({ _tag: "Scope", scope: s })

/** The declared access of an endpoint (`declared` sets it on every Dashboard endpoint). */
export class DashboardAccessRule extends Context.Service<DashboardAccessRule, Access>()("switchboard/dashboard/Access") {}

/** Who may call an endpoint, as declared (`dashboardEndpoints` refuses an API with an endpoint that does not say). */
export const declaredAccess = (endpoint: HttpApiEndpoint.Top): Access | undefined => Context.getOrUndefined(endpoint.annotations, DashboardAccessRule)

/** Who may call an endpoint: as declared, else sessions only (the narrowest). */
export const accessOf = (endpoint: HttpApiEndpoint.Top): Access => declaredAccess(endpoint) ?? SessionOnly

/** The access, summary and description of an endpoint (its operationId is its name). */
export const declared = (d: { readonly name: string; readonly access: Access; readonly summary: string; readonly description: string }) =>
  Context.merge(
    OpenApi.annotations({ identifier: d.name, summary: d.summary, description: d.description }),
    Context.make(DashboardAccessRule, d.access)
  )

const DATA = "switchboard/dashboard/data"

/** What the envelope of a success holds: the data schema, a list of it or not. */
export interface Data {
  readonly schema: Schema.Top
  readonly list: boolean
}

/** The success envelope `{succeed: true, data}` around `data` (a list of `data` with `"list"`). */
export const envelope = <S extends Schema.Top>(data: S, list?: "list") =>
  Schema.Struct({ succeed: Schema.Literal(true), data: list === "list" ? Schema.Array(data) : data })
    .annotate({ [DATA]: { schema: data, list: list === "list" } satisfies Data })

/** The success of an answer that is not an envelope (`/api/openapi.json`: the document itself). */
export const document = Schema.Record(Schema.String, Schema.Unknown)

/** The data schema of an endpoint's success envelope (none for `document`). */
export const dataOf = (successes: ReadonlyMap<number, ReadonlyArray<Schema.Top>>): Data | undefined => {
  for (const schemas of successes.values()) {
    for (const s of schemas) {
      const data = s.ast.annotations?.[DATA] as Data | undefined
      if (data !== undefined) return data
    }
  }
  return undefined
}

/** The failure envelope, as every Dashboard failure answers it. */
export const EnvelopeError = Schema.Struct({
  succeed: Schema.Literal(false),
  message: Schema.String,
  code: Schema.optionalKey(Schema.String)
})

export type FailureStatus = 401 | 403 | 404 | 422 | 500

const STATUS = "switchboard/dashboard/status"

const failure = (status: FailureStatus) => EnvelopeError.annotate({ [STATUS]: status }).pipe(HttpApiSchema.status(status))

/** The failure envelopes an endpoint answers, by status (each once, in the order given). */
export const failures = (...statuses: ReadonlyArray<FailureStatus>) => [...new Set(statuses)].map(failure)

/** The failure statuses an endpoint declares, in declaration order. */
export const failureStatuses = (endpoint: HttpApiEndpoint.Top): ReadonlyArray<FailureStatus> => {
  const out: Array<FailureStatus> = []
  for (const s of endpoint.error) {
    const status = s.ast.annotations?.[STATUS]
    if (typeof status === "number") out.push(status as FailureStatus)
  }
  return out
}
