/**
 * Objects that refuse properties they do not declare, however they are decoded: what Effect 3's
 * `parseOptions: { onExcessProperty: "error" }` annotation did (Effect 4 has no per-schema parse
 * options). Like that annotation it holds for the whole schema — every object inside it, in
 * fields, array items, union members and record values. Each object gets a check of its input (an
 * encoding-side check, run once its properties decoded) that answers with the `UnexpectedKey`
 * issues decoding with `onExcessProperty: "error"` gives; that is how the HTTP adapter decodes
 * request bodies, so there the decoder reports them first, in its own order.
 */
import { Schema, SchemaAST, SchemaIssue } from "effect"
import { makeAstRewrite } from "./AstRewrite.js"

/** Whether a key is one of the object's: a declared property, or a key one of its index signatures takes. */
const keysOf = (ast: SchemaAST.Objects) => {
  const declared = new Set<PropertyKey>(ast.propertySignatures.map((p) => p.name))
  const indexes = ast.indexSignatures.map((i) => Schema.is(Schema.make(SchemaAST.toEncoded(i.parameter))))
  return (key: PropertyKey) => declared.has(key) || indexes.some((takes) => takes(key))
}

const excessKeys = (ast: SchemaAST.Objects) => {
  const isKey = keysOf(ast)
  return Schema.makeFilter((input: unknown) => {
    if (typeof input !== "object" || input === null) return true
    const record = input as Record<PropertyKey, unknown>
    const issues = Reflect.ownKeys(record)
      .filter((key) => !isKey(key) && Object.prototype.propertyIsEnumerable.call(record, key))
      .map((key) => ({ path: [key], issue: new SchemaIssue.UnexpectedKey(ast, record[key]) }))
    return issues.length === 0 ? true : issues
  })
}

const withCheck = (checks: SchemaAST.Checks | undefined, check: SchemaAST.Check<unknown>): SchemaAST.Checks =>
  checks === undefined ? [check] : [...checks, check]

/** `ast` with every object in it closed (declarations, e.g. classes, are left as they are). */
const close = makeAstRewrite({
  // With an encoding the input is the encoded side's (closed itself). An object that declares
  // nothing (`Schema.Struct({})`) takes anything but null and undefined, as in Effect 3.
  objectEncodingChecks: (ast, encoding) =>
    encoding === undefined && (ast.propertySignatures.length > 0 || ast.indexSignatures.length > 0)
      ? withCheck(ast.encodingChecks, excessKeys(ast))
      : ast.encodingChecks
})

/** `schema` with every object in it refusing undeclared properties (a struct keeps its `fields`). */
export const noExcessKeys = <S extends Schema.Top>(schema: S): S["Rebuild"] => schema.rebuild(close(schema.ast))
