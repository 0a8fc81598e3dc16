/**
 * The envelope of the Dashboard API and the management API (docs/errors.md). Success is
 * `{succeed: true, data}`, failure is `{succeed: false, message, code?}`. The HTTP status is
 * authoritative; the envelope only carries the body. `code` (e.g. `HTTPS_REQUIRED`) stays optional:
 * clients that know only `message` keep working.
 */
import { Option, Schema, SchemaAST } from "effect"

/** The identifier of a data schema, for naming its envelope (`Webhook` → `WebhookSuccessEnvelope`). */
const dataName = (ast: SchemaAST.AST): Option.Option<string> => {
  const own = SchemaAST.resolveIdentifier(ast)
  if (own !== undefined) return Option.some(own)
  // `Schema.Array(X)` of an identified X: `XList`.
  if (SchemaAST.isArrays(ast) && ast.elements.length === 0 && ast.rest.length === 1) {
    const rest = ast.rest[0]
    return rest === undefined ? Option.none() : Option.map(dataName(rest), (name) => `${name}List`)
  }
  return Option.none()
}

/**
 * `{succeed: true, data}` for a data schema. The identifier is derived from the data schema's own
 * (`<Data>SuccessEnvelope`); pass one when the data schema has none, so that two envelopes never
 * share a name in the generated OpenAPI document.
 */
export const SuccessEnvelope = <A, I, R>(data: Schema.Codec<A, I, R>, identifier?: string) =>
  Schema.Struct({ succeed: Schema.Literal(true), data }).annotate({
    identifier: identifier ?? Option.match(dataName(data.ast), {
      onNone: () => "SuccessEnvelope",
      onSome: (name) => `${name}SuccessEnvelope`
    })
  })
export type SuccessEnvelope<A> = { readonly succeed: true; readonly data: A }

/** `{succeed: false, message, code?}`: `code`, when present, is a non-empty machine-readable string. */
export const ErrorEnvelope = Schema.Struct({
  succeed: Schema.Literal(false),
  message: Schema.String,
  code: Schema.optionalKey(Schema.String.pipe(Schema.check(Schema.isMinLength(1))))
}).annotate({ identifier: "ErrorEnvelope" })
export type ErrorEnvelope = typeof ErrorEnvelope.Type

/** Either envelope: what a client of these surfaces decodes before branching on `succeed`. */
export const Envelope = <A, I, R>(data: Schema.Codec<A, I, R>, identifier?: string) => {
  const success = SuccessEnvelope(data, identifier)
  const name = SchemaAST.resolveIdentifier(success.ast) ?? "SuccessEnvelope"
  const union = name.endsWith("SuccessEnvelope") ? name.replace(/SuccessEnvelope$/, "Envelope") : `${name}OrError`
  return Schema.Union([success, ErrorEnvelope]).annotate({ identifier: union })
}
export type Envelope<A> = SuccessEnvelope<A> | ErrorEnvelope

/** Builds a success body. */
export const successEnvelope = <A>(data: A): SuccessEnvelope<A> => ({ succeed: true, data })

/** Builds an error body; `code` is left out when not given. */
export const errorEnvelope = (message: string, code?: string): ErrorEnvelope =>
  code === undefined ? { succeed: false, message } : { succeed: false, message, code }
