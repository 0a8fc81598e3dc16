/**
 * The one body decoder of the Dashboard API (docs/api-notes/dashboard-api.md: "three request
 * content types with the same schema"). `application/json`, `application/x-www-form-urlencoded` and
 * `multipart/form-data` (fields only; a file part is refused) are read into one value and decoded
 * with the operation's schema. Form fields are all strings, so before decoding they are coerced by
 * what the schema expects at that field: `true`/`false` (also `1`/`0`, `on`/`off`) for booleans,
 * numerals for numbers, a repeated field (or `name[]`, or a JSON array, or an empty value for an
 * empty list) for arrays, an empty value for null where null is allowed. JSON bodies are decoded as
 * they are — no coercion. Unknown properties are refused; every failure is a 422 envelope that
 * names the field, and a body over the limit is 413.
 */
import { HttpIncomingMessage, HttpServerRequest, Multipart } from "effect/http"
import { issueLines } from "@switchboard/core/shared"
import { ByteSize, Effect, Result, Schema, SchemaAST, type SchemaIssue, Stream } from "effect"
import { declaredBodyWithin, illFormedText, parseJsonBody, readBodyText } from "../http/Body.js"
import { ServerConfig } from "../http/ServerConfig.js"
import { type EnvelopeFailure, envelopeFailure } from "../http/Surfaces.js"
import { CSRF_FIELD } from "./DashboardSession.js"

export type BodyKind = "json" | "form" | "multipart" | "none"

/** A body as read, before its schema: the value, its kind, and a CSRF token sent among form fields. */
export interface RawBody {
  readonly kind: BodyKind
  readonly value: unknown
  readonly csrf: string | undefined
}

const MAX_FORM_FIELDS = 256
const MAX_FIELD_BYTES = 64 * 1024

export const invalidBody = (message: string) => envelopeFailure(422, "VALIDATION_FAILED", message)

const mediaType = (contentType: string | undefined) => (contentType ?? "").split(";")[0]!.trim().toLowerCase()

/** The first form field whose name or value is text no field can hold (NUL, lone surrogates). */
const illFormedField = (entries: ReadonlyArray<readonly [string, string]>) => {
  for (const [k, v] of entries) {
    const why = illFormedText(k) ?? illFormedText(v)
    if (why !== undefined) return invalidBody(`${k.slice(0, 64).replace(/[\u0000-\u001f]/g, "?")}: the field ${why}.`)
  }
  return undefined
}

/** Fields into a record: a repeated name (or `name[]`) becomes a list. */
export const fieldsToRecord = (entries: Iterable<readonly [string, string]>): Record<string, string | Array<string>> => {
  const out: Record<string, string | Array<string>> = Object.create(null)
  for (const [rawKey, value] of entries) {
    const list = rawKey.endsWith("[]")
    const key = list ? rawKey.slice(0, -2) : rawKey
    const current = out[key]
    if (current === undefined) out[key] = list ? [value] : value
    else if (Array.isArray(current)) current.push(value)
    else out[key] = [current, value]
  }
  return out
}

/** Reads the request body by its Content-Type (413 over the limit, 415 for other media types, 422 unreadable). */
export const readDashboardBody: Effect.Effect<RawBody, EnvelopeFailure, HttpServerRequest.HttpServerRequest | ServerConfig> = Effect.gen(
  function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const config = yield* ServerConfig
    const tooLarge = envelopeFailure(413, "PAYLOAD_TOO_LARGE", `The request body exceeds ${config.maxBodyBytes} bytes.`)
    yield* declaredBodyWithin(config.maxBodyBytes).pipe(Effect.mapError(() => tooLarge))
    const type = mediaType(request.headers["content-type"])

    if (type === "multipart/form-data") {
      // Without a boundary the body cannot be split into parts; a compressed multipart body is not decoded.
      if (!/;\s*boundary=("[^"]+"|[^;\s]+)/i.test(request.headers["content-type"] ?? "")) {
        return yield* invalidBody("multipart/form-data needs a boundary parameter in Content-Type.")
      }
      if ((request.headers["content-encoding"] ?? "identity").trim().toLowerCase() !== "identity") {
        return yield* envelopeFailure(415, "UNSUPPORTED_MEDIA_TYPE", "A multipart/form-data body cannot use Content-Encoding.")
      }
      const fields: Array<readonly [string, string]> = []
      yield* Stream.runForEach(request.multipartStream, (part) => {
        if (part._tag === "File") return Effect.fail(invalidBody(`${part.key}: files are not accepted here; send form fields only.`))
        if (fields.length >= MAX_FORM_FIELDS) return Effect.fail(invalidBody(`The form has more than ${MAX_FORM_FIELDS} fields.`))
        fields.push([part.key, part.value])
        return Effect.void
      }).pipe(
        // Limits apply while the body streams in.
        Effect.provideService(Multipart.MaxFieldSize, ByteSize.bytes(MAX_FIELD_BYTES)),
        Effect.provideService(HttpIncomingMessage.MaxBodySize, ByteSize.bytes(config.maxBodyBytes)),
        Effect.catchTag("MultipartError", (e) =>
          Effect.fail(
            e.reason._tag === "BodyTooLarge"
              ? tooLarge
              : e.reason._tag === "FieldTooLarge"
              ? invalidBody("A form field is too long.")
              : invalidBody("The body is not a readable multipart/form-data body.")
          ))
      )
      const badField = illFormedField(fields)
      if (badField !== undefined) return yield* badField
      const record = fieldsToRecord(fields)
      const csrf = record[CSRF_FIELD]
      delete record[CSRF_FIELD]
      return { kind: "multipart", value: record, csrf: typeof csrf === "string" ? csrf : undefined }
    }

    const text = yield* readBodyText(config.maxBodyBytes).pipe(Effect.mapError((e) =>
      e._tag === "BodyTooLarge" ? tooLarge : e.status === 415 ? envelopeFailure(415, "UNSUPPORTED_MEDIA_TYPE", e.message) : invalidBody(e.message)
    ))
    if (type === "application/x-www-form-urlencoded") {
      const params = new URLSearchParams(text)
      const entries = [...params]
      if (entries.length > MAX_FORM_FIELDS) return yield* invalidBody(`The form has more than ${MAX_FORM_FIELDS} fields.`)
      if (entries.some(([k, v]) => k.length + v.length > MAX_FIELD_BYTES)) return yield* invalidBody("A form field is too long.")
      const badField = illFormedField(entries)
      if (badField !== undefined) return yield* badField
      const record = fieldsToRecord(entries)
      const csrf = record[CSRF_FIELD]
      delete record[CSRF_FIELD]
      return { kind: "form", value: record, csrf: typeof csrf === "string" ? csrf : undefined }
    }
    if (type === "application/json" || /^application\/[a-z0-9.+-]+\+json$/.test(type) || (type === "" && text.trim() !== "")) {
      const parsed = parseJsonBody(text)
      if ("refused" in parsed) {
        return yield* invalidBody(parsed.refused.path === "" ? parsed.refused.message : `${parsed.refused.path}: ${parsed.refused.message}`)
      }
      return { kind: "json", value: parsed.ok, csrf: undefined }
    }
    if (type === "" && text.trim() === "") return { kind: "none", value: {}, csrf: undefined }
    return yield* envelopeFailure(
      415,
      "UNSUPPORTED_MEDIA_TYPE",
      `Send application/json, application/x-www-form-urlencoded or multipart/form-data, not ${type}.`
    )
  }
)

// ---------------------------------------------------------------------------------------------
// Form coercion, driven by the schema
// ---------------------------------------------------------------------------------------------

interface Expected {
  boolean: boolean
  number: boolean
  nullable: boolean
  array: SchemaAST.AST | undefined
}

/** What a field's schema accepts on its encoded side (checks and transformations looked through). */
const expectedOf = (ast: SchemaAST.AST, into: Expected = { boolean: false, number: false, nullable: false, array: undefined }): Expected => {
  const encoded = SchemaAST.toEncoded(ast)
  switch (encoded._tag) {
    case "Suspend":
      return expectedOf(encoded.thunk(), into)
    case "Union":
      for (const t of encoded.types) expectedOf(t, into)
      return into
    case "Boolean":
      into.boolean = true
      return into
    case "Number":
      into.number = true
      return into
    case "Null":
      into.nullable = true
      return into
    case "Literal":
      if (typeof encoded.literal === "boolean") into.boolean = true
      if (typeof encoded.literal === "number") into.number = true
      return into
    case "Arrays":
      into.array = encoded.rest[0] ?? encoded.elements[0] ?? Schema.Unknown.ast
      return into
    default:
      return into
  }
}

const booleans: Record<string, boolean> = { true: true, false: false, "1": true, "0": false, on: true, off: false }

const NOT_SENT = Symbol("not sent")

const coerceString = (s: string, ast: SchemaAST.AST, optional: boolean): unknown => {
  const expected = expectedOf(ast)
  if (expected.array !== undefined) {
    if (s === "") return []
    if (s.trimStart().startsWith("[")) {
      try {
        const parsed: unknown = JSON.parse(s)
        if (Array.isArray(parsed)) return parsed.map((v) => (typeof v === "string" ? coerceString(v, expected.array!, false) : v))
      } catch {
        // Not JSON: one element.
      }
    }
    return [coerceString(s, expected.array, false)]
  }
  if (s === "") return expected.nullable ? null : optional ? NOT_SENT : s
  if (expected.boolean && s.toLowerCase() in booleans) return booleans[s.toLowerCase()]
  if (expected.number && /^-?\d+(\.\d+)?$/.test(s.trim())) return Number(s.trim())
  return s
}

const structOf = (ast: SchemaAST.AST): SchemaAST.Objects | undefined => {
  const encoded = SchemaAST.toEncoded(ast)
  switch (encoded._tag) {
    case "Objects":
      return encoded
    case "Suspend":
      return structOf(encoded.thunk())
    default:
      return undefined
  }
}

/** Coerces form fields to what `ast` (a struct) expects; unknown fields are left for the schema to refuse. */
export const coerceFormFields = (ast: SchemaAST.AST, record: Record<string, string | ReadonlyArray<string>>): Record<string, unknown> => {
  const struct = structOf(ast)
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(record)) {
    const field = struct?.propertySignatures.find((p) => p.name === key)
    if (field === undefined) {
      out[key] = value
      continue
    }
    if (Array.isArray(value)) {
      const expected = expectedOf(field.type)
      out[key] = expected.array === undefined ? value : value.map((v) => coerceString(v, expected.array!, false))
      continue
    }
    const coerced = coerceString(value as string, field.type, SchemaAST.isOptional(field.type))
    if (coerced !== NOT_SENT) out[key] = coerced
  }
  return out
}

const pathOf = (path: ReadonlyArray<PropertyKey>) => (path.length === 0 ? "body" : path.map(String).join("."))

/** A schema refusal of a body as its 422 envelope, naming the fields (at most ten). */
export const refusedBody = (issues: Schema.SchemaError | SchemaIssue.Issue) => {
  const described = issueLines(issues).slice(0, 10).map((i) =>
    // An excess property's line ("is unexpected, …") is said plainly.
    i.message.startsWith("is unexpected") ? `${pathOf(i.path)}: is not an accepted property` : `${pathOf(i.path)}: ${i.message}`
  )
  return invalidBody(`The request body is not valid: ${described.join("; ")}.`)
}

/** How a body is decoded: every issue, an unknown property refused, the rejected value quoted. */
export const bodyParseOptions = { errors: "all", onExcessProperty: "error", reportInput: true } as const

/**
 * Decodes a body read by `readDashboardBody` with the operation's schema (422 naming the fields):
 * the value decoded, and the value it was decoded from — the JSON value as sent, or the form
 * fields coerced (the JSON the same body would have been).
 */
const decodeBody = <A, I>(schema: Schema.Codec<A, I>, raw: RawBody): Effect.Effect<{ readonly sent: object; readonly decoded: A }, EnvelopeFailure> => {
  const value = raw.kind === "form" || raw.kind === "multipart"
    ? coerceFormFields(schema.ast, raw.value as Record<string, string | ReadonlyArray<string>>)
    : raw.value
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return Effect.fail(invalidBody("The body must be an object."))
  }
  const decoded = Schema.decodeUnknownResult(schema, bodyParseOptions)(value)
  return Result.isSuccess(decoded) ? Effect.succeed({ sent: value, decoded: decoded.success }) : Effect.fail(refusedBody(decoded.failure))
}

/** Decodes a body read by `readDashboardBody` with the operation's schema (422 naming the fields). */
export const decodeBodyAs = <A, I>(schema: Schema.Codec<A, I>, raw: RawBody): Effect.Effect<A, EnvelopeFailure> =>
  Effect.map(decodeBody(schema, raw), (b) => b.decoded)

/** Checks a body read by `readDashboardBody` against `schema`, answering the JSON value it decodes from. */
export const checkedBodyValue = (schema: Schema.Top, raw: RawBody): Effect.Effect<object, EnvelopeFailure> =>
  Effect.map(decodeBody(schema as Schema.Codec<unknown, unknown>, raw), (b) => b.sent)
