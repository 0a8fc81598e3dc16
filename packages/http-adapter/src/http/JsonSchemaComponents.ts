/**
 * JSON Schemas for the OpenAPI documents the routes publish (the Dashboard API, the management
 * API, the bodies of the versioned API): one schema at a time, its named parts gathered into the
 * document's `components.schemas` and referred to there (`#/components/schemas/<Name>`). Bodies
 * are strict (unknown properties are refused), as their decoders are.
 *
 * These routes decode a parsed body with the schema itself and answer `JSON.stringify` of its
 * encoding, while Effect writes JSON Schema for the schema's JSON codec, which reads `null` for an
 * optional property's `undefined` and the strings `"NaN"`, `"Infinity"`, `"-Infinity"` for those
 * numbers. The schemas here say what the routes take and give: an optional property is absent or
 * a value (never null, unless the value itself may be null: `Schema.NullOr`), and a number is a
 * JSON number.
 */
import { makeAstRewrite } from "@switchboard/core/internal"
import { JsonSchema, Schema, SchemaAST } from "effect"

/** A function from a schema to its JSON Schema, whose named parts go into `definitions`. */
export const componentSchemas = (definitions: Record<string, unknown>) => (schema: Schema.Top): JsonSchema.JsonSchema => {
  const document = Schema.toJsonSchemaDocument(Schema.make(absentNotNull(schema.ast)), { onExcessProperty: "error" })
  const openapi = JsonSchema.toMultiDocumentOpenApi3_1({ dialect: "draft-2020-12", schemas: [document.schema], definitions: document.definitions })
  Object.assign(definitions, plainNumbers(openapi.definitions))
  return plainNumbers(openapi.schemas[0]!)
}

/** An optional property's type without its `undefined` member (`Schema.optional(X)` as `Schema.optionalKey(X)`). */
const optionalType = (type: SchemaAST.AST, rewrite: (ast: SchemaAST.AST) => SchemaAST.AST): SchemaAST.AST => {
  if (!SchemaAST.isOptional(type) || !SchemaAST.isUnion(type) || type.encoding !== undefined || type.checks !== undefined) {
    return rewrite(type)
  }
  const members = type.types.filter((member) => !SchemaAST.isUndefined(member))
  if (members.length === type.types.length || members.length === 0) return rewrite(type)
  const value = members.length === 1 ? members[0]! : new SchemaAST.Union(members, type.options)
  const member = Schema.make<Schema.Top>(rewrite(value))
  return Schema.optionalKey(type.annotations === undefined ? member : member.annotate(type.annotations)).ast
}

/** `ast` with every optional property in it taking no `undefined` (its objects, arrays, unions and their encodings). */
const absentNotNull = makeAstRewrite({ propertyType: optionalType })

const isPlainNumber = (o: Json): boolean => o?.type === "number" && Object.keys(o).length === 1

const isNonFiniteStrings = (o: Json): boolean =>
  o?.type === "string" && JSON.stringify([...(o.enum ?? [])].sort()) === JSON.stringify(["-Infinity", "Infinity", "NaN"])

/**
 * `value` with each JSON-codec number a plain number: the JSON codec writes a number as
 * `anyOf: [number, "NaN" | "Infinity" | "-Infinity"]`, or, inside a union, as those two members
 * among the others; the strings go.
 */
const plainNumbers = <A>(value: A): A => {
  if (typeof value !== "object" || value === null) return value
  if (Array.isArray(value)) return value.map(plainNumbers) as A
  const o = value as Json
  if (Array.isArray(o.anyOf) && o.anyOf.some(isPlainNumber) && o.anyOf.some(isNonFiniteStrings)) {
    const { anyOf, ...rest } = o
    const members = anyOf.filter((member: Json) => !isNonFiniteStrings(member))
    return plainNumbers((members.length === 1 ? { ...members[0], ...rest } : { anyOf: members, ...rest }) as A)
  }
  return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, plainNumbers(v)])) as A
}

type Json = Record<string, any>

const COMPONENTS = "#/components/schemas/"

/** Every `$ref` to a component named in `renames` pointed at its new name (in place). */
const renameRefs = (value: unknown, renames: ReadonlyMap<string, string>): void => {
  if (typeof value !== "object" || value === null) return
  if (Array.isArray(value)) return value.forEach((v) => renameRefs(v, renames))
  const o = value as Json
  if (typeof o.$ref === "string" && o.$ref.startsWith(COMPONENTS)) {
    const target = renames.get(o.$ref.slice(COMPONENTS.length))
    if (target !== undefined) o.$ref = COMPONENTS + target
  }
  for (const child of Object.values(o)) renameRefs(child, renames)
}

/**
 * A component per name. Effect names a component after its schema's identifier and, when two
 * schema objects carry the same identifier, calls the second `<Name>_1` — as with a schema and
 * its copy closed by `noExcessKeys` inside a strict body: one name, two objects. Where `<Name>_n`
 * reads exactly as `<Name>` it is that component: its references go to `<Name>` and it is dropped
 * (repeated, since merging one can make its referrers equal too). The document is changed in place.
 */
const withoutDuplicateComponents = <A extends Json>(document: A): A => {
  const schemas: Json | undefined = document.components?.schemas
  if (schemas === undefined) return document
  for (;;) {
    const renames = new Map<string, string>()
    for (const name of Object.keys(schemas)) {
      const base: string | undefined = /^(.+)_\d+$/.exec(name)?.[1]
      if (base !== undefined && base in schemas && JSON.stringify(schemas[name]) === JSON.stringify(schemas[base])) {
        renames.set(name, base)
      }
    }
    if (renames.size === 0) return document
    for (const name of renames.keys()) delete schemas[name]
    renameRefs(document, renames)
  }
}

/**
 * Object schemas with their `required` list before their `properties`, the order the documents
 * have always been written in (Effect writes `properties` first; the order means nothing to a
 * reader of JSON Schema, but keeps the published documents stable). Changed in place.
 */
const withRequiredFirst = <A>(document: A): A => {
  const visit = (value: unknown): void => {
    if (typeof value !== "object" || value === null) return
    if (Array.isArray(value)) return value.forEach(visit)
    const o = value as Json
    if (Array.isArray(o.required) && typeof o.properties === "object") {
      const { required } = o
      const entries = Object.entries(o).filter(([key]) => key !== "required")
      for (const [key] of entries) delete o[key]
      delete o.required
      for (const [key, v] of entries) {
        if (key === "properties") o.required = required
        o[key] = v
      }
    }
    for (const child of Object.values(o)) visit(child)
  }
  visit(document)
  return document
}

/** An OpenAPI document as published: one component per schema, object schemas in their usual order (changed in place). */
export const asPublished = <A extends Json>(document: A): A => withRequiredFirst(withoutDuplicateComponents(document))
