/**
 * Request and response examples for the three OpenAPI documents, generated from the schemas that
 * decode the wire values (so a new field or a tighter bound changes the example with it). The
 * generator walks the encoded side of a schema and writes readable values (a property named
 * `email` gets an address, `webhookUrl` a URL, identifiers their own format); where a refinement
 * rejects that value it falls back to the schema's arbitrary (`Arbitrary.schema`) with a fixed seed
 * (deterministic). The
 * result is decoded with the schema before it is used: an example that does not decode is `undefined`
 * (and the documentation test fails on it).
 */
import { Arbitrary, Effect, Option, Schema, SchemaAST as AST } from "effect"

type Json = unknown

/** Strings a refined string is tried with before its arbitrary (formats the schemas use). */
const stringCandidates = [
  "2026-07-01",
  "2030-01-01T00:00:00.000Z",
  "ada@example.com",
  "https://example.com/webhooks",
  "sip:ada@example.com",
  "+14155550123",
  "example",
  "Example",
  "America/New_York",
  "usd",
  "mail.example.com",
  "otpauth://totp/Switchboard:ada%40example.com?secret=JBSWY3DPEHPK3PXP&issuer=Switchboard"
]

/** Numbers a refined number is tried with before its arbitrary. */
const numberCandidates = [1, 100, 2026, 12, 1000]

/**
 * One value of the schema's arbitrary, always the same (a fixed seed). A check the arbitrary cannot
 * build from gives up after its discards; a schema it cannot derive throws: no example from it.
 */
const fromArbitrary = (ast: AST.AST): Option.Option<Json> => {
  try {
    return Effect.runSync(Effect.match(Arbitrary.sampleEffect(Arbitrary.schema(Schema.make(ast)), { count: 1, seed: 7 }), {
      onFailure: () => Option.none(),
      onSuccess: (values) => values.length > 0 ? Option.some(values[0]) : Option.none()
    }))
  } catch {
    return Option.none()
  }
}

const valid = (ast: AST.AST, value: Json): boolean => Schema.is(Schema.make(ast))(value)

const stringFor = (key: string | undefined): string => {
  const k = (key ?? "").toLowerCase()
  if (k.includes("email")) return "ada@example.com"
  if (k.includes("url") || k.includes("uri")) return "https://example.com/webhooks"
  if (k.includes("phone")) return "+14155550123"
  if (k.includes("secret") || k.includes("token")) return "example-secret"
  if (k.includes("name")) return "Example"
  if (k.includes("slug")) return "example"
  if (k.includes("currency")) return "usd"
  return "example"
}

/** A value of `ast` without its checks (the refinement is handled by `generate`). */
const generateBase = (ast: AST.AST, key: string | undefined, depth: number, minimal: boolean): Option.Option<Json> => {
  switch (ast._tag) {
    case "Literal":
      return Option.some(ast.literal)
    case "Null":
      return Option.some(null)
    case "UniqueSymbol":
    case "Never":
    case "Symbol":
    case "BigInt":
    case "Void":
    case "Undefined":
      return Option.none()
    case "String":
      return Option.some(stringFor(key))
    case "Number":
      return Option.some(0)
    case "Boolean":
      return Option.some(false)
    case "Unknown":
    case "Any":
    case "ObjectKeyword":
      return Option.some({})
    case "Enum":
      return ast.enums.length > 0 ? Option.some(ast.enums[0]![1]) : Option.none()
    case "TemplateLiteral":
      return fromArbitrary(ast)
    case "Declaration":
      // A declaration that takes an empty object (`Schema.Unknown` as the JSON codec writes it, any
      // JSON value) gets one, as `Unknown` does; the others (classes, dates) their arbitrary.
      return valid(ast, {}) ? Option.some({}) : fromArbitrary(ast)
    case "Suspend":
      return generate(ast.thunk(), key, depth + 1, minimal)
    case "Union": {
      // Prefer a member that is not null (an example shows the value, not its absence).
      // (The minimal form prefers null.)
      const isNull = (t: AST.AST) => Number(AST.isNull(t))
      const members = [...ast.types].sort((a, b) => minimal ? isNull(b) - isNull(a) : isNull(a) - isNull(b))
      for (const member of members) {
        const value = generate(member, key, depth + 1, minimal)
        if (Option.isSome(value) && valid(member, value.value)) return value
      }
      return Option.none()
    }
    case "Arrays": {
      const out: Array<Json> = []
      for (const element of ast.elements) {
        const value = generate(element, key, depth + 1, minimal)
        if (Option.isSome(value)) out.push(value.value)
        else if (!AST.isOptional(element)) return Option.none()
      }
      if (ast.rest.length > 0) {
        const value = generate(ast.rest[0]!, key, depth + 1, minimal)
        if (Option.isSome(value)) out.push(value.value)
      }
      return Option.some(out)
    }
    case "Objects": {
      const out: Record<string, Json> = {}
      for (const ps of ast.propertySignatures) {
        const isOptional = AST.isOptional(ps.type)
        if (typeof ps.name !== "string" || (minimal && isOptional)) continue
        const value = generate(ps.type, ps.name, depth + 1, minimal)
        if (Option.isSome(value)) out[ps.name] = value.value
        else if (!isOptional) return Option.none()
      }
      return Option.some(out)
    }
  }
}

const generate = (ast: AST.AST, key: string | undefined, depth: number, minimal: boolean): Option.Option<Json> => {
  if (depth > 12) return Option.none()
  const examples = AST.resolve(ast)?.examples
  if (Array.isArray(examples) && examples.length > 0) return Option.some(examples[0])
  const value = generateBase(ast, key, depth, minimal)
  // A refined value: the plain one if it passes the checks, else a candidate that does, else the arbitrary.
  if (ast.checks === undefined || (Option.isSome(value) && valid(ast, value.value))) return value
  if (Option.isSome(value) && typeof value.value === "string") {
    const candidate = stringCandidates.find((c) => valid(ast, c))
    if (candidate !== undefined) return Option.some(candidate)
  }
  if (Option.isSome(value) && typeof value.value === "number") {
    const candidate = numberCandidates.find((c) => valid(ast, c))
    if (candidate !== undefined) return Option.some(candidate)
  }
  // A refined object or array that fails its checks: none here (the caller tries the least form,
  // then the whole schema's arbitrary).
  if (Option.isSome(value) && typeof value.value === "object" && value.value !== null) return Option.none()
  return fromArbitrary(ast)
}

/**
 * An example of the encoded (wire) form of `schema` that decodes with it, or `undefined` when none
 * could be made.
 */
export const exampleOf = (schema: Schema.Top): Json | undefined => {
  const encoded = AST.toEncoded(schema.ast)
  // The API's schemas decode without services.
  const decode = Schema.decodeUnknownOption(Schema.make<Schema.Codec<unknown, unknown>>(schema.ast))
  // Every optional member and no null first; then the least (no optional member, null where allowed).
  const candidates = [() => generate(encoded, undefined, 0, false), () => generate(encoded, undefined, 0, true), () => fromArbitrary(encoded)]
  for (const make of candidates) {
    const candidate = make()
    if (Option.isSome(candidate) && Option.isSome(decode(candidate.value))) return candidate.value
  }
  return undefined
}
