/**
 * The code a declared error schema stands for: its `code` property's literal, when that is one of
 * `codes`. An endpoint holds its error schemas as their JSON codecs, so the schema is not the one
 * the declaration helper made; the literal is what survives (v1/Declare.ts `problems`,
 * management/ManagementDeclare.ts `envelopeErrors`).
 */
import { type Schema, SchemaAST } from "effect"

export const declaredCode = <C extends string>(schema: Schema.Top, codes: Readonly<Record<C, unknown>>): C | undefined => {
  const ast = SchemaAST.toType(schema.ast)
  if (ast._tag !== "Objects") return undefined
  const type = ast.propertySignatures.find((p) => p.name === "code")?.type
  return type?._tag === "Literal" && typeof type.literal === "string" && type.literal in codes
    ? type.literal as C
    : undefined
}
