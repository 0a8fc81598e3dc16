/**
 * The steps /v1 operations share that are not middleware: how a body is decoded (the options the
 * platform decodes every declared payload with, read by `JsonBody` first), rendering a success as
 * data, and running a core effect with its errors as problems.
 * The Idempotency-Key protocol is v1/Idempotency.ts. Each step fails only with `ProblemFailure`.
 */
import { HttpServerResponse } from "effect/http"
import { issueLines, type StoredResponse } from "@switchboard/core/shared"
import { type ValidationIssue } from "../http/Problem.js"
import { Effect, Schema, type SchemaIssue } from "effect"
import { ProblemFailure, problemOfDomainError, type V1DomainError } from "./Problems.js"

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

/** How a /v1 body is decoded: checked whole — every issue, an unknown member refused, the rejected value quoted. */
export const payloadParseOptions = { errors: "all", onExcessProperty: "error", reportInput: true } as const

/** How a /v1 query string is decoded: every issue, unknown parameters ignored, the rejected value quoted. */
export const queryParseOptions = { errors: "all", onExcessProperty: "ignore", reportInput: true } as const

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
  // Most responses name nothing but their type: no header records copied for them.
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
