/**
 * A deep rewrite of a schema's AST: every object, array, union, lazy schema and encoding in it is
 * rebuilt around its rewritten parts (declarations, e.g. classes, are left as they are), each AST
 * once (the result is memoised per rewrite, so shared and recursive parts stay shared). What a
 * rewrite changes is said by its hooks: a property's type, and the checks of an object's input.
 */
import { SchemaAST } from "effect"

export interface AstRewriteHooks {
  /** A property's new type (by default its type, rewritten). */
  readonly propertyType?: (type: SchemaAST.AST, rewrite: (ast: SchemaAST.AST) => SchemaAST.AST) => SchemaAST.AST
  /** An object's new input checks, given the object and its rewritten encoding (by default its own). */
  readonly objectEncodingChecks?: (
    object: SchemaAST.Objects,
    encoding: SchemaAST.Encoding | undefined
  ) => SchemaAST.Checks | undefined
}

export const makeAstRewrite = (hooks: AstRewriteHooks): (ast: SchemaAST.AST) => SchemaAST.AST => {
  const rewritten = new WeakMap<SchemaAST.AST, SchemaAST.AST>()
  const rewrite = (ast: SchemaAST.AST): SchemaAST.AST => {
    const known = rewritten.get(ast)
    if (known !== undefined) return known
    const encoding = ast.encoding?.map((link) => new SchemaAST.Link(rewrite(link.to), link.transformation)) as
      | SchemaAST.Encoding
      | undefined
    let out: SchemaAST.AST
    switch (ast._tag) {
      case "Objects":
        out = new SchemaAST.Objects(
          ast.propertySignatures.map((p) =>
            new SchemaAST.PropertySignature(p.name, hooks.propertyType ? hooks.propertyType(p.type, rewrite) : rewrite(p.type))
          ),
          ast.indexSignatures.map((i) => new SchemaAST.IndexSignature(i.parameter, rewrite(i.type))),
          ast.annotations,
          ast.checks,
          encoding,
          ast.context,
          hooks.objectEncodingChecks ? hooks.objectEncodingChecks(ast, encoding) : ast.encodingChecks
        )
        break
      case "Arrays":
        out = new SchemaAST.Arrays(
          ast.isMutable, ast.elements.map(rewrite), ast.rest.map(rewrite), ast.annotations, ast.checks, encoding, ast.context, ast.encodingChecks
        )
        break
      case "Union":
        out = new SchemaAST.Union(ast.types.map(rewrite), ast.options, ast.annotations, ast.checks, encoding, ast.context, ast.encodingChecks)
        break
      case "Suspend": {
        const thunk = ast.thunk
        out = new SchemaAST.Suspend(() => rewrite(thunk()), ast.annotations, ast.checks, encoding, ast.context)
        break
      }
      default:
        out = ast
    }
    rewritten.set(ast, out)
    return out
  }
  return rewrite
}
