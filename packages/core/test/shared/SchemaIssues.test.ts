/**
 * `issueLines` and `issueTree` write what Effect 3's `ArrayFormatter` and `TreeFormatter` wrote for
 * the same schema and input. Every expected line and tree below was printed by effect 3.22.4 for the
 * Effect 3 form of the schema (e.g. `Schema.String.pipe(Schema.maxLength(3))` for
 * `Schema.String.check(Schema.isMaxLength(3))`), decoded with `errors: "all"`; `treeFirst` is the
 * tree of the default first-error decode where it differs.
 */
import { describe, expect, it } from "@effect/vitest"
import { issueLines, issueTree } from "@switchboard/core/shared"
import { Effect, Formatter, Result, Schema, SchemaAST, SchemaGetter, SchemaIssue } from "effect"
import * as fc from "fast-check"

interface Expected {
  readonly lines: ReadonlyArray<{ readonly _tag: string; readonly path: ReadonlyArray<PropertyKey>; readonly message: string }>
  /** Absent where the tree cannot match (see the case). */
  readonly tree?: string
  readonly treeFirst?: string
}

type Row = readonly [name: string, expected: Expected, schema: Schema.ConstraintDecoder<unknown>, input: unknown, options: SchemaAST.ParseOptions | undefined]

const rows: Array<Row> = []
const row = (name: string, schema: Schema.ConstraintDecoder<unknown>, input: unknown, ...rest: [options: Row[4], expected: Expected] | [expected: Expected]) => {
  const [options, expected] = rest.length === 2 ? rest : [undefined, rest[0]]
  rows.push([name, expected, schema, input, options])
}
const line = (_tag: string, path: ReadonlyArray<PropertyKey>, message: string) => ({ _tag, path, message })
const tree = (...lines: ReadonlyArray<string>) => lines.join("\n")

const failure = (schema: Schema.ConstraintDecoder<unknown>, input: unknown, options: SchemaAST.ParseOptions) => {
  const result = Schema.decodeUnknownResult(schema)(input, { reportInput: true, ...options })
  if (Result.isSuccess(result)) throw new Error("expected the decode to fail")
  return result.failure
}

const S = Schema.Struct({ name: Schema.String, age: Schema.optionalKey(Schema.Number), tag: Schema.optional(Schema.String) })
const Custom = Schema.String.pipe(Schema.decodeTo(Schema.Number, { decode: SchemaGetter.transformEffect((s: string) => Effect.fail(new SchemaIssue.InvalidValue({ message: "not a custom number" }, s))), encode: SchemaGetter.transform((n: number) => String(n)) }))
class K extends Schema.Class<K>("K")({ a: Schema.String }) {}
const U = Schema.Union([Schema.Struct({ kind: Schema.Literal("a"), x: Schema.String }), Schema.Struct({ kind: Schema.Literal("b"), y: Schema.Number })])
const TU = Schema.Union([Schema.TaggedStruct("A", { x: Schema.String }), Schema.TaggedStruct("B", { y: Schema.Number })])
const Nested = Schema.Struct({ items: Schema.Array(Schema.Struct({ id: Schema.String.check(Schema.isPattern(/^i/, { message: "must be an id" })), n: Schema.Int })) })
// An empty string against `minLength(1)` (`Schema.NonEmptyString` is `isMinLength(1)` in Effect 4).
row("minLength(1)", Schema.String.check(Schema.isMinLength(1)), "", {
  lines: [line("Refinement", [], "Expected a string at least 1 character(s) long, actual \"\"")],
  tree: tree(
    "minLength(1)",
    "└─ Predicate refinement failure",
    "   └─ Expected a string at least 1 character(s) long, actual \"\""
  )
})
row("struct-missing", S, {}, {
  lines: [line("Missing", ["name"], "is missing")],
  tree: tree(
    "{ readonly name: string; readonly age?: number; readonly tag?: string | undefined }",
    "└─ [\"name\"]",
    "   └─ is missing"
  )
})
row("struct-wrongtypes", S, { name: 5, age: "x", tag: 3 }, {
  lines: [
    line("Type", ["name"], "Expected string, actual 5"),
    line("Type", ["age"], "Expected number, actual \"x\""),
    line("Type", ["tag"], "Expected string, actual 3"),
    line("Type", ["tag"], "Expected undefined, actual 3")
  ],
  tree: tree(
    "{ readonly name: string; readonly age?: number; readonly tag?: string | undefined }",
    "├─ [\"name\"]",
    "│  └─ Expected string, actual 5",
    "├─ [\"age\"]",
    "│  └─ Expected number, actual \"x\"",
    "└─ [\"tag\"]",
    "   └─ string | undefined",
    "      ├─ Expected string, actual 3",
    "      └─ Expected undefined, actual 3"
  ),
  treeFirst: tree(
    "{ readonly name: string; readonly age?: number; readonly tag?: string | undefined }",
    "└─ [\"name\"]",
    "   └─ Expected string, actual 5"
  )
})
row("struct-notobj", S, 5, {
  lines: [line("Type", [], "Expected { readonly name: string; readonly age?: number; readonly tag?: string | undefined }, actual 5")],
  tree: "Expected { readonly name: string; readonly age?: number; readonly tag?: string | undefined }, actual 5"
})
row("struct-null", S, null, {
  lines: [line("Type", [], "Expected { readonly name: string; readonly age?: number; readonly tag?: string | undefined }, actual null")],
  tree: "Expected { readonly name: string; readonly age?: number; readonly tag?: string | undefined }, actual null"
})
row("struct-excess", S, { name: "a", extra: 1, other: 2 }, { onExcessProperty: "error" }, {
  lines: [
    line("Unexpected", ["extra"], "is unexpected, expected: \"name\" | \"age\" | \"tag\""),
    line("Unexpected", ["other"], "is unexpected, expected: \"name\" | \"age\" | \"tag\"")
  ],
  tree: tree(
    "{ readonly name: string; readonly age?: number; readonly tag?: string | undefined }",
    "├─ [\"extra\"]",
    "│  └─ is unexpected, expected: \"name\" | \"age\" | \"tag\"",
    "└─ [\"other\"]",
    "   └─ is unexpected, expected: \"name\" | \"age\" | \"tag\""
  ),
  treeFirst: tree(
    "{ readonly name: string; readonly age?: number; readonly tag?: string | undefined }",
    "└─ [\"extra\"]",
    "   └─ is unexpected, expected: \"name\" | \"age\" | \"tag\""
  )
})
row("lit", Schema.Literals(["a", "b"]), "c", {
  lines: [
    line("Type", [], "Expected \"a\", actual \"c\""),
    line("Type", [], "Expected \"b\", actual \"c\"")
  ],
  tree: tree(
    "\"a\" | \"b\"",
    "├─ Expected \"a\", actual \"c\"",
    "└─ Expected \"b\", actual \"c\""
  )
})
row("lit1", Schema.Literal("a"), "c", {
  lines: [line("Type", [], "Expected \"a\", actual \"c\"")],
  tree: "Expected \"a\", actual \"c\""
})
row("litnum", Schema.Literals([1, 2]), "c", {
  lines: [
    line("Type", [], "Expected 1, actual \"c\""),
    line("Type", [], "Expected 2, actual \"c\"")
  ],
  tree: tree(
    "1 | 2",
    "├─ Expected 1, actual \"c\"",
    "└─ Expected 2, actual \"c\""
  )
})
row("litnull", Schema.NullOr(Schema.String), 5, {
  lines: [
    line("Type", [], "Expected string, actual 5"),
    line("Type", [], "Expected null, actual 5")
  ],
  tree: tree(
    "string | null",
    "├─ Expected string, actual 5",
    "└─ Expected null, actual 5"
  )
})
row("maxlen", Schema.String.check(Schema.isMaxLength(3)), "abcd", {
  lines: [line("Refinement", [], "Expected a string at most 3 character(s) long, actual \"abcd\"")],
  tree: tree(
    "maxLength(3)",
    "└─ Predicate refinement failure",
    "   └─ Expected a string at most 3 character(s) long, actual \"abcd\""
  )
})
row("minlen", Schema.String.check(Schema.isMinLength(2)), "a", {
  lines: [line("Refinement", [], "Expected a string at least 2 character(s) long, actual \"a\"")],
  tree: tree(
    "minLength(2)",
    "└─ Predicate refinement failure",
    "   └─ Expected a string at least 2 character(s) long, actual \"a\""
  )
})
row("pattern", Schema.String.check(Schema.isPattern(/^a+$/)), "b", {
  lines: [line("Refinement", [], "Expected a string matching the pattern ^a+$, actual \"b\"")],
  tree: tree(
    "a string matching the pattern ^a+$",
    "└─ Predicate refinement failure",
    "   └─ Expected a string matching the pattern ^a+$, actual \"b\""
  )
})
row("patternMsg", Schema.String.check(Schema.isPattern(/^a+$/, { message: "must be a's" })), "b", {
  lines: [line("Refinement", [], "must be a's")],
  tree: "must be a's"
})
row("patternMsgNotStr", Schema.String.check(Schema.isPattern(/^a+$/, { message: "must be a's" })), 5, {
  lines: [line("Type", [], "Expected string, actual 5")],
  tree: tree(
    "a string matching the pattern ^a+$",
    "└─ From side refinement failure",
    "   └─ Expected string, actual 5"
  )
})
row("chainMsgFirstFails", Schema.String.check(Schema.isMinLength(2), Schema.isMaxLength(3)).annotate({ message: "bad" }), "a", {
  lines: [line("Refinement", [], "Expected a string at least 2 character(s) long, actual \"a\"")],
  tree: tree(
    "minLength(2) & maxLength(3)",
    "└─ From side refinement failure",
    "   └─ minLength(2)",
    "      └─ Predicate refinement failure",
    "         └─ Expected a string at least 2 character(s) long, actual \"a\""
  )
})
row("chainMsgLastFails", Schema.String.check(Schema.isMinLength(2), Schema.isMaxLength(3)).annotate({ message: "bad" }), "abcd", {
  lines: [line("Refinement", [], "bad")],
  tree: "bad"
})
row("chainNoMsg", Schema.String.check(Schema.isMinLength(2), Schema.isMaxLength(3)), "abcd", {
  lines: [line("Refinement", [], "Expected a string at most 3 character(s) long, actual \"abcd\"")],
  tree: tree(
    "minLength(2) & maxLength(3)",
    "└─ Predicate refinement failure",
    "   └─ Expected a string at most 3 character(s) long, actual \"abcd\""
  )
})
row("int", Schema.Int, 1.5, {
  lines: [line("Refinement", [], "Expected an integer, actual 1.5")],
  tree: tree(
    "Int",
    "└─ Predicate refinement failure",
    "   └─ Expected an integer, actual 1.5"
  )
})
row("intS", Schema.Int, "x", {
  lines: [line("Type", [], "Expected number, actual \"x\"")],
  tree: tree(
    "Int",
    "└─ From side refinement failure",
    "   └─ Expected number, actual \"x\""
  )
})
row("between", Schema.Number.check(Schema.isBetween({ minimum: 1, maximum: 10 })), 11, {
  lines: [line("Refinement", [], "Expected a number between 1 and 10, actual 11")],
  tree: tree(
    "between(1, 10)",
    "└─ Predicate refinement failure",
    "   └─ Expected a number between 1 and 10, actual 11"
  )
})
row("intbetween", Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 10 })), 11, {
  lines: [line("Refinement", [], "Expected a number between 1 and 10, actual 11")],
  tree: tree(
    "Int & between(1, 10)",
    "└─ Predicate refinement failure",
    "   └─ Expected a number between 1 and 10, actual 11"
  )
})
row("gt", Schema.Number.check(Schema.isGreaterThan(0)), 0, {
  lines: [line("Refinement", [], "Expected a positive number, actual 0")],
  tree: tree(
    "greaterThan(0)",
    "└─ Predicate refinement failure",
    "   └─ Expected a positive number, actual 0"
  )
})
row("gte", Schema.Number.check(Schema.isGreaterThanOrEqualTo(0)), -1, {
  lines: [line("Refinement", [], "Expected a non-negative number, actual -1")],
  tree: tree(
    "greaterThanOrEqualTo(0)",
    "└─ Predicate refinement failure",
    "   └─ Expected a non-negative number, actual -1"
  )
})
row("lte", Schema.Number.check(Schema.isLessThanOrEqualTo(5)), 6, {
  lines: [line("Refinement", [], "Expected a number less than or equal to 5, actual 6")],
  tree: tree(
    "lessThanOrEqualTo(5)",
    "└─ Predicate refinement failure",
    "   └─ Expected a number less than or equal to 5, actual 6"
  )
})
row("maxItems", Schema.Array(Schema.String).check(Schema.isMaxLength(1)), ["a", "b"], {
  lines: [line("Refinement", [], "Expected an array of at most 1 item(s), actual [\"a\",\"b\"]")],
  tree: tree(
    "maxItems(1)",
    "└─ Predicate refinement failure",
    "   └─ Expected an array of at most 1 item(s), actual [\"a\",\"b\"]"
  )
})
row("minItems", Schema.Array(Schema.String).check(Schema.isMinLength(1)), [], {
  lines: [line("Refinement", [], "Expected an array of at least 1 item(s), actual []")],
  tree: tree(
    "minItems(1)",
    "└─ Predicate refinement failure",
    "   └─ Expected an array of at least 1 item(s), actual []"
  )
})
row("arrayElem", Schema.Array(Schema.String), ["a", 1, 2], {
  lines: [
    line("Type", [1], "Expected string, actual 1"),
    line("Type", [2], "Expected string, actual 2")
  ],
  tree: tree(
    "ReadonlyArray<string>",
    "├─ [1]",
    "│  └─ Expected string, actual 1",
    "└─ [2]",
    "   └─ Expected string, actual 2"
  ),
  treeFirst: tree(
    "ReadonlyArray<string>",
    "└─ [1]",
    "   └─ Expected string, actual 1"
  )
})
row("arrayNotArr", Schema.Array(Schema.String), "x", {
  lines: [line("Type", [], "Expected ReadonlyArray<string>, actual \"x\"")],
  tree: "Expected ReadonlyArray<string>, actual \"x\""
})
row("record", Schema.Record(Schema.String, Schema.Number), { a: "x", b: 1 }, {
  lines: [line("Type", ["a"], "Expected number, actual \"x\"")],
  tree: tree(
    "{ readonly [x: string]: number }",
    "└─ [\"a\"]",
    "   └─ Expected number, actual \"x\""
  )
})
row("recordNot", Schema.Record(Schema.String, Schema.Number), 5, {
  lines: [line("Type", [], "Expected { readonly [x: string]: number }, actual 5")],
  tree: "Expected { readonly [x: string]: number }, actual 5"
})
// Effect 4 keeps no brand in the AST: the tree title would lack ` & Brand<"Id">`; the lines match.
row("brandP", Schema.String.check(Schema.isPattern(/^x/)).pipe(Schema.brand("Id")), "y", {
  lines: [line("Refinement", [], "Expected a string matching the pattern ^x, actual \"y\"")]
})
row("brandPMsg", Schema.String.check(Schema.isPattern(/^x/, { message: "must be x" })).pipe(Schema.brand("Id")), "y", {
  lines: [line("Refinement", [], "must be x")],
  tree: "must be x"
})
row("nfsNum", Schema.NumberFromString, 5, {
  lines: [line("Type", [], "Expected string, actual 5")],
  tree: tree(
    "NumberFromString",
    "└─ Encoded side transformation failure",
    "   └─ Expected string, actual 5"
  )
})
row("dtu", Schema.DateTimeUtcFromString, "nope", {
  lines: [line("Transformation", [], "Unable to decode \"nope\" into a DateTime.Utc")],
  tree: tree(
    "DateTimeUtc",
    "└─ Transformation process failure",
    "   └─ Unable to decode \"nope\" into a DateTime.Utc"
  )
})
row("dtuNum", Schema.DateTimeUtcFromString, 5, {
  lines: [line("Type", [], "Expected string, actual 5")],
  tree: tree(
    "DateTimeUtc",
    "└─ Encoded side transformation failure",
    "   └─ Expected string, actual 5"
  )
})
row("transformOrFail", Custom, "x", {
  lines: [line("Transformation", [], "not a custom number")],
  tree: tree(
    "(string <-> number)",
    "└─ Transformation process failure",
    "   └─ not a custom number"
  )
})
row("class", K, { a: 1 }, {
  lines: [line("Type", ["a"], "Expected string, actual 1")],
  tree: tree(
    "(K (Encoded side) <-> K)",
    "└─ Encoded side transformation failure",
    "   └─ K (Encoded side)",
    "      └─ [\"a\"]",
    "         └─ Expected string, actual 1"
  )
})
row("classNot", K, 5, {
  lines: [line("Type", [], "Expected K (Encoded side), actual 5")],
  tree: tree(
    "(K (Encoded side) <-> K)",
    "└─ Encoded side transformation failure",
    "   └─ Expected K (Encoded side), actual 5"
  )
})
row("filterMsg", Schema.String.check(Schema.makeFilter((s) => s.length > 3, { message: "too short" })), "ab", {
  lines: [line("Refinement", [], "too short")],
  tree: "too short"
})
row("filterNoMsg", Schema.String.check(Schema.makeFilter((s) => s.length > 3)), "ab", {
  lines: [line("Refinement", [], "Expected { string | filter }, actual \"ab\"")],
  tree: tree(
    "{ string | filter }",
    "└─ Predicate refinement failure",
    "   └─ Expected { string | filter }, actual \"ab\""
  )
})
row("filterRetStr", Schema.String.check(Schema.makeFilter((s) => s.length > 3 || "returned message")), "ab", {
  lines: [line("Refinement", [], "returned message")],
  tree: tree(
    "{ string | filter }",
    "└─ Predicate refinement failure",
    "   └─ returned message"
  )
})
row("filterDesc", Schema.String.check(Schema.makeFilter((s) => s.length > 3, { description: "a long string" })), "ab", {
  lines: [line("Refinement", [], "Expected a long string, actual \"ab\"")],
  tree: tree(
    "a long string",
    "└─ Predicate refinement failure",
    "   └─ Expected a long string, actual \"ab\""
  )
})
row("filterIdent", Schema.String.check(Schema.makeFilter((s) => s.length > 3, { identifier: "Long" })), "ab", {
  lines: [line("Refinement", [], "Expected Long, actual \"ab\"")],
  tree: tree(
    "Long",
    "└─ Predicate refinement failure",
    "   └─ Expected Long, actual \"ab\""
  )
})
row("filterTitle", Schema.String.check(Schema.makeFilter((s) => s.length > 3, { title: "LongT" })), "ab", {
  lines: [line("Refinement", [], "Expected LongT, actual \"ab\"")],
  tree: tree(
    "LongT",
    "└─ Predicate refinement failure",
    "   └─ Expected LongT, actual \"ab\""
  )
})
row("tagged-badtag", U, { kind: "c" }, {
  lines: [line("Type", ["kind"], "Expected \"a\" | \"b\", actual \"c\"")],
  tree: tree(
    "{ readonly kind: \"a\"; readonly x: string } | { readonly kind: \"b\"; readonly y: number }",
    "└─ { readonly kind: \"a\" | \"b\" }",
    "   └─ [\"kind\"]",
    "      └─ Expected \"a\" | \"b\", actual \"c\""
  )
})
row("tagged-badfield", U, { kind: "b", y: "s" }, {
  lines: [line("Type", ["y"], "Expected number, actual \"s\"")],
  tree: tree(
    "{ readonly kind: \"a\"; readonly x: string } | { readonly kind: \"b\"; readonly y: number }",
    "└─ { readonly kind: \"b\"; readonly y: number }",
    "   └─ [\"y\"]",
    "      └─ Expected number, actual \"s\""
  )
})
row("tagged-notobj", U, 5, {
  lines: [line("Type", [], "Expected { readonly kind: \"a\"; readonly x: string } | { readonly kind: \"b\"; readonly y: number }, actual 5")],
  tree: "Expected { readonly kind: \"a\"; readonly x: string } | { readonly kind: \"b\"; readonly y: number }, actual 5"
})
row("taggedstruct", TU, { _tag: "C" }, {
  lines: [line("Type", ["_tag"], "Expected \"A\" | \"B\", actual \"C\"")],
  tree: tree(
    "{ readonly _tag: \"A\"; readonly x: string } | { readonly _tag: \"B\"; readonly y: number }",
    "└─ { readonly _tag: \"A\" | \"B\" }",
    "   └─ [\"_tag\"]",
    "      └─ Expected \"A\" | \"B\", actual \"C\""
  )
})
row("union-prim", Schema.Union([Schema.String, Schema.Number]), true, {
  lines: [
    line("Type", [], "Expected string, actual true"),
    line("Type", [], "Expected number, actual true")
  ],
  tree: tree(
    "string | number",
    "├─ Expected string, actual true",
    "└─ Expected number, actual true"
  )
})
row("union-structs-nodisc", Schema.Union([Schema.Struct({ a: Schema.String }), Schema.Struct({ b: Schema.Number })]), { c: 1 }, {
  lines: [
    line("Missing", ["a"], "is missing"),
    line("Missing", ["b"], "is missing")
  ],
  tree: tree(
    "{ readonly a: string } | { readonly b: number }",
    "├─ { readonly a: string }",
    "│  └─ [\"a\"]",
    "│     └─ is missing",
    "└─ { readonly b: number }",
    "   └─ [\"b\"]",
    "      └─ is missing"
  )
})
row("nested", Nested, { items: [{ id: "i1", n: 1 }, { id: "x", n: 1.5 }, { n: 2 }] }, {
  lines: [
    line("Refinement", ["items", 1, "id"], "must be an id"),
    line("Refinement", ["items", 1, "n"], "Expected an integer, actual 1.5"),
    line("Missing", ["items", 2, "id"], "is missing")
  ],
  tree: tree(
    "{ readonly items: ReadonlyArray<{ readonly id: a string matching the pattern ^i; readonly n: Int }> }",
    "└─ [\"items\"]",
    "   └─ ReadonlyArray<{ readonly id: a string matching the pattern ^i; readonly n: Int }>",
    "      ├─ [1]",
    "      │  └─ { readonly id: a string matching the pattern ^i; readonly n: Int }",
    "      │     ├─ [\"id\"]",
    "      │     │  └─ must be an id",
    "      │     └─ [\"n\"]",
    "      │        └─ Int",
    "      │           └─ Predicate refinement failure",
    "      │              └─ Expected an integer, actual 1.5",
    "      └─ [2]",
    "         └─ { readonly id: a string matching the pattern ^i; readonly n: Int }",
    "            └─ [\"id\"]",
    "               └─ is missing"
  ),
  treeFirst: tree(
    "{ readonly items: ReadonlyArray<{ readonly id: a string matching the pattern ^i; readonly n: Int }> }",
    "└─ [\"items\"]",
    "   └─ ReadonlyArray<{ readonly id: a string matching the pattern ^i; readonly n: Int }>",
    "      └─ [1]",
    "         └─ { readonly id: a string matching the pattern ^i; readonly n: Int }",
    "            └─ [\"id\"]",
    "               └─ must be an id"
  )
})
row("ident", Schema.String.annotate({ identifier: "MyStr" }), 5, {
  lines: [line("Type", [], "Expected MyStr, actual 5")],
  tree: "Expected MyStr, actual 5"
})
row("identStruct", Schema.Struct({ a: Schema.String }).annotate({ identifier: "Obj" }), 5, {
  lines: [line("Type", [], "Expected Obj, actual 5")],
  tree: "Expected Obj, actual 5"
})
row("structMsg", Schema.Struct({ a: Schema.String }).annotate({ message: "bad obj" }), { a: 1 }, {
  lines: [line("Type", ["a"], "Expected string, actual 1")],
  tree: tree(
    "{ readonly a: string }",
    "└─ [\"a\"]",
    "   └─ Expected string, actual 1"
  )
})
row("structNested", Schema.Struct({ a: Schema.Struct({ b: Schema.Array(Schema.Number), c: Schema.optional(Schema.NullOr(Schema.Literals(["x", "y"]))) }) }), 1, {
  lines: [line("Type", [], "Expected { readonly a: { readonly b: ReadonlyArray<number>; readonly c?: \"x\" | \"y\" | null | undefined } }, actual 1")],
  tree: "Expected { readonly a: { readonly b: ReadonlyArray<number>; readonly c?: \"x\" | \"y\" | null | undefined } }, actual 1"
})
row("tuple", Schema.Tuple([Schema.String, Schema.Number]), ["a"], {
  lines: [line("Missing", [1], "is missing")],
  tree: tree(
    "readonly [string, number]",
    "└─ [1]",
    "   └─ is missing"
  )
})
row("bool", Schema.Boolean, "x", {
  lines: [line("Type", [], "Expected boolean, actual \"x\"")],
  tree: "Expected boolean, actual \"x\""
})
row("optNull", Schema.Struct({ a: Schema.optionalKey(Schema.NullOr(Schema.String)) }), { a: 1 }, {
  lines: [
    line("Type", ["a"], "Expected string, actual 1"),
    line("Type", ["a"], "Expected null, actual 1")
  ],
  tree: tree(
    "{ readonly a?: string | null }",
    "└─ [\"a\"]",
    "   └─ string | null",
    "      ├─ Expected string, actual 1",
    "      └─ Expected null, actual 1"
  )
})
row("longStrActual", Schema.Number, "a\"b\nc", {
  lines: [line("Type", [], "Expected number, actual \"a\\\"b\\nc\"")],
  tree: "Expected number, actual \"a\\\"b\\nc\""
})
row("objActual", Schema.String, { a: 1, b: [1, "x"] }, {
  lines: [line("Type", [], "Expected string, actual {\"a\":1,\"b\":[1,\"x\"]}")],
  tree: "Expected string, actual {\"a\":1,\"b\":[1,\"x\"]}"
})
row("arrActual", Schema.String, [1, 2], {
  lines: [line("Type", [], "Expected string, actual [1,2]")],
  tree: "Expected string, actual [1,2]"
})
row("undefActual", Schema.String, undefined, {
  lines: [line("Type", [], "Expected string, actual undefined")],
  tree: "Expected string, actual undefined"
})
row("nullOrStruct", Schema.NullOr(Schema.Struct({ a: Schema.String })), { a: 1 }, {
  lines: [
    line("Type", ["a"], "Expected string, actual 1"),
    line("Type", [], "Expected null, actual {\"a\":1}")
  ],
  tree: tree(
    "{ readonly a: string } | null",
    "├─ { readonly a: string }",
    "│  └─ [\"a\"]",
    "│     └─ Expected string, actual 1",
    "└─ Expected null, actual {\"a\":1}"
  )
})
row("recordKeyPattern", Schema.Record(Schema.String.check(Schema.isPattern(/^[a-z]+$/)), Schema.Number), { A: 1 }, { onExcessProperty: "error" }, {
  lines: [line("Unexpected", ["A"], "is unexpected, expected: a string matching the pattern ^[a-z]+$")],
  tree: tree(
    "{ readonly [x: a string matching the pattern ^[a-z]+$]: number }",
    "└─ [\"A\"]",
    "   └─ is unexpected, expected: a string matching the pattern ^[a-z]+$"
  )
})
row("enumsLit", Schema.Struct({ role: Schema.Literals(["owner", "admin", "member"]) }), { role: "x" }, {
  lines: [
    line("Type", ["role"], "Expected \"owner\", actual \"x\""),
    line("Type", ["role"], "Expected \"admin\", actual \"x\""),
    line("Type", ["role"], "Expected \"member\", actual \"x\"")
  ],
  tree: tree(
    "{ readonly role: \"owner\" | \"admin\" | \"member\" }",
    "└─ [\"role\"]",
    "   └─ \"owner\" | \"admin\" | \"member\"",
    "      ├─ Expected \"owner\", actual \"x\"",
    "      ├─ Expected \"admin\", actual \"x\"",
    "      └─ Expected \"member\", actual \"x\""
  )
})

describe("issueLines / issueTree", () => {
  for (const [name, expected, schema, input, options] of rows) {
    it(name, () => {
      const all = failure(schema, input, { errors: "all", ...options })
      expect(issueLines(all)).toEqual(expected.lines)
      expect(issueLines(all.issue)).toEqual(expected.lines)
      if (expected.tree !== undefined) {
        expect(issueTree(all)).toBe(expected.tree)
        expect(issueTree(failure(schema, input, { ...options }))).toBe(expected.treeFirst ?? expected.tree)
      }
    })
  }

  it("without reported input a message has no \"actual\" half", () => {
    const result = Schema.decodeUnknownResult(Schema.Struct({ name: Schema.String }))({ name: 5 })
    if (Result.isSuccess(result)) throw new Error("expected the decode to fail")
    expect(issueLines(result.failure)).toEqual([{ _tag: "Type", path: ["name"], message: "Expected string" }])
  })
})

// The plan-change request of docs/api-notes/billing.md as `previewPlanChange` reads it (first
// error, excess properties refused), trees printed by effect 3.22.4 for the Effect 3 schemas of
// packages/core.
const BoundedString = (min: number, max: number) =>
  Schema.String.check(
    Schema.isMinLength(min),
    Schema.isMaxLength(max),
    Schema.makeFilter((s: string) => !s.includes("\u0000"), { message: "must not contain U+0000 or a lone UTF-16 surrogate" })
  )
const FixedChargeAddition = Schema.Struct({
  fixedChargeCode: BoundedString(1, 64).annotate({ identifier: "FixedChargeCode" }),
  quantity: Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER })).annotate({ identifier: "PositiveSafeInt" })
}).annotate({ identifier: "FixedChargeAddition" })
const PreviewPlanChangeRequest = Schema.Struct({
  category: Schema.String.check(Schema.isPattern(/^[a-z][a-z0-9_]{0,63}$/, { message: "must be a category slug like messaging" }))
    .annotate({ identifier: "CategorySlug" }),
  planCode: BoundedString(1, 64).annotate({ identifier: "PlanCode" }),
  additions: Schema.optionalKey(
    Schema.Array(FixedChargeAddition).check(
      Schema.isMaxLength(10),
      Schema.makeFilter((xs) => new Set(xs.map((x) => x.fixedChargeCode)).size === xs.length || "each fixed charge may be named once in additions")
    ).annotate({ identifier: "FixedChargeAdditions" })
  )
}).annotate({ identifier: "PreviewPlanChangeRequest" })
const ten = Array.from({ length: 10 }, (_, i) => ({ fixedChargeCode: `c${i}`, quantity: 1 }))
const planChangeInputs: Record<string, unknown> = {
  excess: { category: "messaging", planCode: "p", extra: 1 },
  slug: { category: "X", planCode: "" },
  qty0: { category: "messaging", planCode: "p", additions: [{ fixedChargeCode: "seats", quantity: 0 }] },
  frac: { category: "messaging", planCode: "p", additions: [{ fixedChargeCode: "seats", quantity: 1.5 }] },
  dup: { category: "messaging", planCode: "p", additions: [{ fixedChargeCode: "seats", quantity: 1 }, { fixedChargeCode: "seats", quantity: 2 }] },
  eleven: { category: "messaging", planCode: "p", additions: [...ten, { fixedChargeCode: "c11", quantity: 1 }] },
  emptyCode: { category: "messaging", planCode: "p", additions: [{ fixedChargeCode: "", quantity: 1 }] },
  notObj: "x",
  missing: {}
}

describe("issueTree of the plan-change request", () => {
  it.each([
    ["excess", "PreviewPlanChangeRequest\n└─ [\"extra\"]\n   └─ is unexpected, expected: \"category\" | \"planCode\" | \"additions\""],
    ["slug", "PreviewPlanChangeRequest\n└─ [\"category\"]\n   └─ must be a category slug like messaging"],
    ["qty0", "PreviewPlanChangeRequest\n└─ [\"additions\"]\n   └─ FixedChargeAdditions\n      └─ From side refinement failure\n         └─ maxItems(10)\n            └─ From side refinement failure\n               └─ ReadonlyArray<FixedChargeAddition>\n                  └─ [0]\n                     └─ FixedChargeAddition\n                        └─ [\"quantity\"]\n                           └─ PositiveSafeInt\n                              └─ Predicate refinement failure\n                                 └─ Expected a number between 1 and 9007199254740991, actual 0"],
    ["frac", "PreviewPlanChangeRequest\n└─ [\"additions\"]\n   └─ FixedChargeAdditions\n      └─ From side refinement failure\n         └─ maxItems(10)\n            └─ From side refinement failure\n               └─ ReadonlyArray<FixedChargeAddition>\n                  └─ [0]\n                     └─ FixedChargeAddition\n                        └─ [\"quantity\"]\n                           └─ PositiveSafeInt\n                              └─ From side refinement failure\n                                 └─ Int\n                                    └─ Predicate refinement failure\n                                       └─ Expected an integer, actual 1.5"],
    ["dup", "PreviewPlanChangeRequest\n└─ [\"additions\"]\n   └─ FixedChargeAdditions\n      └─ Predicate refinement failure\n         └─ each fixed charge may be named once in additions"],
    ["eleven", "PreviewPlanChangeRequest\n└─ [\"additions\"]\n   └─ FixedChargeAdditions\n      └─ From side refinement failure\n         └─ maxItems(10)\n            └─ Predicate refinement failure\n               └─ Expected an array of at most 10 item(s), actual [{\"fixedChargeCode\":\"c0\",\"quantity\":1},{\"fixedChargeCode\":\"c1\",\"quantity\":1},{\"fixedChargeCode\":\"c2\",\"quantity\":1},{\"fixedChargeCode\":\"c3\",\"quantity\":1},{\"fixedChargeCode\":\"c4\",\"quantity\":1},{\"fixedChargeCode\":\"c5\",\"quantity\":1},{\"fixedChargeCode\":\"c6\",\"quantity\":1},{\"fixedChargeCode\":\"c7\",\"quantity\":1},{\"fixedChargeCode\":\"c8\",\"quantity\":1},{\"fixedChargeCode\":\"c9\",\"quantity\":1},{\"fixedChargeCode\":\"c11\",\"quantity\":1}]"],
    ["emptyCode", "PreviewPlanChangeRequest\n└─ [\"additions\"]\n   └─ FixedChargeAdditions\n      └─ From side refinement failure\n         └─ maxItems(10)\n            └─ From side refinement failure\n               └─ ReadonlyArray<FixedChargeAddition>\n                  └─ [0]\n                     └─ FixedChargeAddition\n                        └─ [\"fixedChargeCode\"]\n                           └─ FixedChargeCode\n                              └─ From side refinement failure\n                                 └─ minLength(1) & maxLength(64)\n                                    └─ From side refinement failure\n                                       └─ minLength(1)\n                                          └─ Predicate refinement failure\n                                             └─ Expected a string at least 1 character(s) long, actual \"\""],
    ["notObj", "Expected PreviewPlanChangeRequest, actual \"x\""],
    ["missing", "PreviewPlanChangeRequest\n└─ [\"category\"]\n   └─ is missing"]
  ])("%s", (name, tree) => {
    expect(issueTree(failure(PreviewPlanChangeRequest, planChangeInputs[name], { onExcessProperty: "error" }))).toBe(tree)
  })
})

// A struct of the kinds the request schemas use, and inputs that mix right and wrong values.
const Body = Schema.Struct({
  name: Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(8)),
  count: Schema.optionalKey(Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 9 }))),
  role: Schema.Literals(["owner", "member"]),
  tags: Schema.Array(Schema.String.check(Schema.isPattern(/^[a-z]+$/, { message: "must be lower-case letters" }))),
  note: Schema.optional(Schema.NullOr(Schema.String))
})
const value = fc.oneof(
  fc.string({ maxLength: 10 }),
  fc.integer({ min: -3, max: 12 }),
  fc.double({ noNaN: true, min: -2, max: 12 }),
  fc.boolean(),
  fc.constant(null),
  fc.constantFrom("owner", "member", "abc"),
  fc.array(fc.oneof(fc.constantFrom("ab", "Ab", ""), fc.integer()), { maxLength: 3 })
)
const bodyInput = fc.dictionary(fc.constantFrom("name", "count", "role", "tags", "note", "extra"), value, { maxKeys: 6 })

const at = (input: unknown, path: ReadonlyArray<PropertyKey>): { readonly found: boolean; readonly value?: unknown } => {
  let current: unknown = input
  for (const key of path) {
    if (typeof current !== "object" || current === null || !Object.hasOwn(current, key)) return { found: false }
    current = Reflect.get(current, key)
  }
  return { found: true, value: current }
}

describe("issueLines of generated bodies", () => {
  it("name paths of the input: a missing key under a present parent, anything else present, a type failure's actual value the value there", () =>
    fc.assert(
      fc.property(bodyInput, (input) => {
        const result = Schema.decodeUnknownResult(Body)(input, { errors: "all", onExcessProperty: "error", reportInput: true })
        if (Result.isSuccess(result)) return
        const lines = issueLines(result.failure)
        expect(lines.length).toBeGreaterThanOrEqual(1)
        for (const line of lines) {
          const here = at(input, line.path)
          if (line._tag === "Missing") {
            expect(here.found).toBe(false)
            expect(at(input, line.path.slice(0, -1)).found).toBe(true)
          } else {
            expect(here.found).toBe(true)
          }
          if (line._tag === "Type") expect(line.message.endsWith(`, actual ${Formatter.format(here.value)}`)).toBe(true)
        }
      }),
      { numRuns: 300, seed: 20261202 }
    ))
})
