/**
 * Request and response examples for the three OpenAPI documents, generated from the schemas that
 * decode the wire values (so a new field or a tighter bound changes the example with it). The
 * generator walks the encoded side of a schema and writes readable values (a property named
 * `email` gets an address, `webhookUrl` a URL, identifiers their own format); where a refinement
 * rejects that value it falls back to the schema's arbitrary with a fixed seed (deterministic). The
 * result is decoded with the schema before it is used: an example that does not decode is `undefined`
 * (and the documentation test fails on it).
 */
import { Arbitrary, FastCheck, Option, Schema, SchemaAST as AST } from "effect"

type Json = unknown

/**
 * Whether the schema's arbitrary ends: a refinement that is only a predicate (no arbitrary of its
 * own and no bounds the arbitrary could build from) would make it filter random values forever.
 */
const arbitraryEnds = (ast: AST.AST, seen = new Set<AST.AST>()): boolean => {
  if (seen.has(ast)) return true
  seen.add(ast)
  switch (ast._tag) {
    case "Refinement": {
      if (ast.annotations[AST.ArbitraryAnnotationId] !== undefined) return true
      const json = AST.getJSONSchemaAnnotation(ast)
      const bounded = Option.isSome(json) && Object.keys(json.value).some((k) => k !== "format" && k !== "description")
      return bounded && arbitraryEnds(ast.from, seen)
    }
    case "Union":
      return ast.types.every((t) => arbitraryEnds(t, seen))
    case "TupleType":
      return ast.elements.every((e) => arbitraryEnds(e.type, seen)) && ast.rest.every((r) => arbitraryEnds(r.type, seen))
    case "TypeLiteral":
      return ast.propertySignatures.every((p) => arbitraryEnds(p.type, seen)) &&
        ast.indexSignatures.every((i) => arbitraryEnds(i.type, seen))
    case "Transformation":
      return arbitraryEnds(ast.from, seen) && arbitraryEnds(ast.to, seen)
    case "Suspend":
      return arbitraryEnds(ast.f(), seen)
    default:
      return true
  }
}

/** Strings a refined string is tried with before its arbitrary (formats the schemas use). */
const stringCandidates = [
  "2026-07-01",
  "2030-01-01T00:00:00.000Z",
  "ada@example.com",
  "https://example.com/webhooks",
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

const fromArbitrary = (ast: AST.AST): Option.Option<Json> => {
  if (!arbitraryEnds(ast)) return Option.none()
  try {
    const [value] = FastCheck.sample(Arbitrary.make(Schema.make(ast)), { seed: 7, numRuns: 1 })
    return Option.some(value)
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

const generate = (ast: AST.AST, key: string | undefined, depth: number, minimal: boolean): Option.Option<Json> => {
  if (depth > 12) return Option.none()
  const examples = AST.getExamplesAnnotation(ast)
  if (Option.isSome(examples) && examples.value.length > 0) return Option.some(examples.value[0])
  switch (ast._tag) {
    case "Literal":
      return Option.some(ast.literal)
    case "UniqueSymbol":
    case "NeverKeyword":
    case "SymbolKeyword":
    case "BigIntKeyword":
    case "VoidKeyword":
    case "UndefinedKeyword":
      return Option.none()
    case "StringKeyword":
      return Option.some(stringFor(key))
    case "NumberKeyword":
      return Option.some(0)
    case "BooleanKeyword":
      return Option.some(false)
    case "UnknownKeyword":
    case "AnyKeyword":
    case "ObjectKeyword":
      return Option.some({})
    case "Enums":
      return ast.enums.length > 0 ? Option.some(ast.enums[0]![1]) : Option.none()
    case "TemplateLiteral":
      return fromArbitrary(ast)
    case "Declaration":
      return fromArbitrary(ast)
    case "Suspend":
      return generate(ast.f(), key, depth + 1, minimal)
    case "Transformation":
      return generate(ast.from, key, depth + 1, minimal)
    case "Union": {
      // Prefer a member that is not null (an example shows the value, not its absence).
      // (The minimal form prefers null.)
      const isNull = (t: AST.AST) => Number(AST.isLiteral(t) && t.literal === null)
      const members = [...ast.types].sort((a, b) => minimal ? isNull(b) - isNull(a) : isNull(a) - isNull(b))
      for (const member of members) {
        const value = generate(member, key, depth + 1, minimal)
        if (Option.isSome(value) && valid(member, value.value)) return value
      }
      return Option.none()
    }
    case "TupleType": {
      const out: Array<Json> = []
      for (const element of ast.elements) {
        const value = generate(element.type, key, depth + 1, minimal)
        if (Option.isSome(value)) out.push(value.value)
        else if (!element.isOptional) return Option.none()
      }
      if (ast.rest.length > 0) {
        const value = generate(ast.rest[0]!.type, key, depth + 1, minimal)
        if (Option.isSome(value)) out.push(value.value)
      }
      return Option.some(out)
    }
    case "TypeLiteral": {
      const out: Record<string, Json> = {}
      for (const ps of ast.propertySignatures) {
        if (typeof ps.name !== "string" || (minimal && ps.isOptional)) continue
        const value = generate(ps.type, ps.name, depth + 1, minimal)
        if (Option.isSome(value)) out[ps.name] = value.value
        else if (!ps.isOptional) return Option.none()
      }
      return Option.some(out)
    }
    case "Refinement": {
      const value = generate(ast.from, key, depth + 1, minimal)
      if (Option.isSome(value) && valid(ast, value.value)) return value
      if (Option.isSome(value) && typeof value.value === "string") {
        const candidate = stringCandidates.find((c) => valid(ast, c))
        if (candidate !== undefined) return Option.some(candidate)
      }
      if (Option.isSome(value) && typeof value.value === "number") {
        const candidate = numberCandidates.find((c) => valid(ast, c))
        if (candidate !== undefined) return Option.some(candidate)
      }
      return fromArbitrary(ast)
    }
  }
}

/**
 * An example of the encoded (wire) form of `schema` that decodes with it, or `undefined` when none
 * could be made.
 */
export const exampleOf = (schema: Schema.Schema<any, any, never>): Json | undefined => {
  const encoded = Schema.encodedBoundSchema(schema)
  // Every optional member and no null first; then the least (no optional member, null where allowed).
  const candidates = [() => generate(encoded.ast, undefined, 0, false), () => generate(encoded.ast, undefined, 0, true), () => fromArbitrary(encoded.ast)]
  for (const make of candidates) {
    const candidate = make()
    if (Option.isSome(candidate) && Schema.decodeUnknownOption(schema)(candidate.value)._tag === "Some") return candidate.value
  }
  return undefined
}
