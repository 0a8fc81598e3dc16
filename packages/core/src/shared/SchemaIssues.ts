/**
 * Schema failures as the wire shows them. The messages of Switchboard's validation errors
 * (`issues[].message`, the dashboard's and the management API's sentences, the plan-change
 * request error) are the ones Effect 3's `ArrayFormatter` and `TreeFormatter` wrote; clients match
 * on them, so they do not change with the schema library. `issueLines` and `issueTree` read an
 * Effect 4 `SchemaIssue.Issue` tree and write those same texts.
 *
 * Why this file is long: one formatter, two renderings (lines and tree) of the same rebuilt issue
 * tree, and the table of Effect 3's titles for each built-in check; split, each half would need
 * the other's walk.
 *
 * Decode with `{ reportInput: true }` (and `errors: "all"` where every failure is listed): the
 * "actual …" half of a message is the rejected value, which an issue carries only then.
 */
import { Formatter, Schema, SchemaAST, SchemaIssue } from "effect"

/** One failure: where (property keys and array indexes from the root) and what. */
export interface IssueLine {
  /**
   * What failed: `Missing` (a required key), `Unexpected` (a key the schema does not accept), `Type`
   * (the value is not of the type), `Refinement` (a check), `Transformation` (a decoding step),
   * `Forbidden` (a decode that cannot run here).
   */
  readonly _tag: "Missing" | "Unexpected" | "Type" | "Refinement" | "Transformation" | "Forbidden"
  readonly path: ReadonlyArray<PropertyKey>
  readonly message: string
}

/** The failures of a decode, one line each, in the order of the schema's fields. */
export const issueLines = (e: Schema.SchemaError | SchemaIssue.Issue): ReadonlyArray<IssueLine> =>
  lines(node(issueOf(e)), undefined, [])

/** The failures of a decode as an indented tree (the first line names the schema). */
export const issueTree = (e: Schema.SchemaError | SchemaIssue.Issue): string => drawTree(tree(node(issueOf(e))))

const issueOf = (e: Schema.SchemaError | SchemaIssue.Issue): SchemaIssue.Issue =>
  SchemaIssue.isIssue(e) ? e : e.issue

// ---------------------------------------------------------------------------------------------
// The failure model the texts are written from: each check of a schema is its own layer
// (`Refinement`), a decoding step is `Transformation`, a group of failures is `Composite`.
// ---------------------------------------------------------------------------------------------

// `title` names the schema of a layer; `annotated` is the `message` annotation of that schema or
// check; a `Type`'s `message` is the one its failure carried (a filter's or a transformation's).
type Node =
  | { readonly _tag: "Type"; readonly expected: string; readonly actual: Actual; readonly message?: string | undefined; readonly annotated?: string | undefined }
  | { readonly _tag: "Missing"; readonly message?: string | undefined }
  | { readonly _tag: "Unexpected"; readonly message: string }
  | { readonly _tag: "Forbidden"; readonly message: string }
  | { readonly _tag: "Pointer"; readonly path: ReadonlyArray<PropertyKey>; readonly issue: Node }
  | { readonly _tag: "Composite"; readonly title: string; readonly issues: ReadonlyArray<Node> }
  | { readonly _tag: "Refinement"; readonly title: string; readonly kind: "From" | "Predicate"; readonly issue: Node; readonly annotated?: string | undefined }
  | { readonly _tag: "Transformation"; readonly title: string; readonly kind: "Encoded" | "Transformation"; readonly issue: Node }

/** The rejected value, when the issue reported it. */
type Actual = { readonly reported: false } | { readonly reported: true; readonly value: unknown }

const actualOf = (issue: SchemaIssue.Issue): Actual =>
  SchemaIssue.hasInput(issue) ? { reported: true, value: issue.input } : { reported: false }

const typeMessage = (expected: string, actual: Actual) =>
  actual.reported ? `Expected ${expected}, actual ${Formatter.format(actual.value)}` : `Expected ${expected}`

const stringAnnotation = (annotations: Schema.Annotations.Annotations | undefined, key: string): string | undefined => {
  const value = annotations?.[key]
  return typeof value === "string" ? value : undefined
}

// ---------------------------------------------------------------------------------------------
// Checks: the description and title each built-in check had as an Effect 3 filter.
// ---------------------------------------------------------------------------------------------

type Check = SchemaAST.Check<unknown>
type FilterCheck = SchemaAST.Filter<unknown>

const flatChecks = (checks: ReadonlyArray<Check> | undefined): ReadonlyArray<FilterCheck> =>
  (checks ?? []).flatMap((c) => c._tag === "FilterGroup" ? flatChecks(c.checks) : [c])

interface BuiltIn {
  readonly title?: string
  readonly description?: string
}

const isJsonObject = (json: Schema.Json | undefined): json is Schema.JsonObject =>
  typeof json === "object" && json !== null && !Array.isArray(json)

const builtIn = (check: FilterCheck, ast: SchemaAST.AST, position: number): BuiltIn => {
  const representation = check.annotations?.representation
  const payload = representation?.payload
  const field = (key: string) => isJsonObject(payload) ? payload[key] : undefined
  const n = (key: string) => String(field(key))
  const isArray = ast._tag === "Arrays"
  switch (representation?.id) {
    case "effect/schema/isMaxLength":
      return isArray
        ? { title: `maxItems(${n("maxLength")})`, description: `an array of at most ${n("maxLength")} item(s)` }
        : { title: `maxLength(${n("maxLength")})`, description: `a string at most ${n("maxLength")} character(s) long` }
    case "effect/schema/isMinLength":
      return isArray
        ? { title: `minItems(${n("minLength")})`, description: `an array of at least ${n("minLength")} item(s)` }
        : { title: `minLength(${n("minLength")})`, description: `a string at least ${n("minLength")} character(s) long` }
    case "effect/schema/isBetweenLength":
      return {
        title: `length({ min: ${n("minimum")}, max: ${n("maximum")})`,
        description: `a string at least ${n("minimum")} character(s) and at most ${n("maximum")} character(s) long`
      }
    case "effect/schema/isPattern":
      return { description: `a string matching the pattern ${n("source")}` }
    case "effect/schema/isTrimmed":
      return { title: "trimmed", description: "a string with no leading or trailing whitespace" }
    case "effect/schema/isLowercased":
      return { title: "lowercased", description: "a lowercase string" }
    case "effect/schema/isUppercased":
      return { title: "uppercased", description: "an uppercase string" }
    case "effect/schema/isUUID":
      return { title: "UUID", description: "a Universally Unique Identifier" }
    case "effect/schema/isInt":
      // `Schema.Int` (an identifier of its own in Effect 3) when it is the first check on a number.
      return { title: position === 0 ? "Int" : "int", description: "an integer" }
    case "effect/schema/isFinite":
      return { title: "finite", description: "a finite number" }
    case "effect/schema/isGreaterThan":
      return {
        title: `greaterThan(${n("exclusiveMinimum")})`,
        description: field("exclusiveMinimum") === 0 ? "a positive number" : `a number greater than ${n("exclusiveMinimum")}`
      }
    case "effect/schema/isGreaterThanOrEqualTo":
      return {
        title: `greaterThanOrEqualTo(${n("minimum")})`,
        description: field("minimum") === 0 ? "a non-negative number" : `a number greater than or equal to ${n("minimum")}`
      }
    case "effect/schema/isLessThan":
      return {
        title: `lessThan(${n("exclusiveMaximum")})`,
        description: field("exclusiveMaximum") === 0 ? "a negative number" : `a number less than ${n("exclusiveMaximum")}`
      }
    case "effect/schema/isLessThanOrEqualTo":
      return {
        title: `lessThanOrEqualTo(${n("maximum")})`,
        description: field("maximum") === 0 ? "a non-positive number" : `a number less than or equal to ${n("maximum")}`
      }
    case "effect/schema/isBetween":
      return { title: `between(${n("minimum")}, ${n("maximum")})`, description: `a number between ${n("minimum")} and ${n("maximum")}` }
    case "effect/schema/isMultipleOf":
      return { title: `multipleOf(${n("divisor")})`, description: `a number divisible by ${n("divisor")}` }
    default:
      return {}
  }
}

/** The check's own annotations first, then what the built-in check was called. */
const checkText = (check: FilterCheck, ast: SchemaAST.AST, position: number) => {
  const known = builtIn(check, ast, position)
  return {
    identifier: stringAnnotation(check.annotations, "identifier"),
    title: stringAnnotation(check.annotations, "title") ?? known.title,
    description: stringAnnotation(check.annotations, "description") ?? known.description,
    message: stringAnnotation(check.annotations, "message")
  }
}

/** How the schema reads with its checks up to `upTo` (inclusive): `Int & between(1, 10)`. */
const refinedName = (ast: SchemaAST.AST, upTo: number): string => {
  const checks = flatChecks(ast.checks)
  let name = baseName(ast)
  for (const [i, check] of checks.entries()) {
    if (i > upTo) break
    const t = checkText(check, ast, i)
    const expected = t.title ?? t.description
    name = t.identifier ?? (expected === undefined ? `{ ${name} | filter }` : i > 0 ? `${name} & ${expected}` : expected)
  }
  return name
}

/** What a failing check expected: its description, title or identifier. */
const refinementExpected = (ast: SchemaAST.AST, check: FilterCheck, index: number): string => {
  const t = checkText(check, ast, index)
  return t.description ?? t.title ?? t.identifier ?? `{ ${index === 0 ? baseName(ast) : refinedName(ast, index - 1)} | filter }`
}

// ---------------------------------------------------------------------------------------------
// Type names, written as Effect 3 wrote a schema: `{ readonly a: string; readonly b?: number }`.
// ---------------------------------------------------------------------------------------------

/** Effect 4's string codecs, by what their encoded side expects, and their Effect 3 names. */
const builtInCodecs: Readonly<Record<string, string>> = {
  "a string that will be decoded as a number": "NumberFromString",
  "a string that will be decoded as a DateTime.Utc": "DateTimeUtc"
}

const typeName = (ast: SchemaAST.AST): string => ast.checks ? refinedName(ast, Number.MAX_SAFE_INTEGER) : baseName(ast)

/** The name of what a value must be before any check of `ast` runs. */
const baseName = (ast: SchemaAST.AST): string => {
  const named = stringAnnotation(ast.annotations, "identifier") ?? stringAnnotation(ast.annotations, "title") ??
    stringAnnotation(ast.annotations, "description")
  if (named !== undefined) return named
  if (ast.encoding) {
    const encoded = SchemaAST.toEncoded(ast)
    return builtInCodecs[stringAnnotation(encoded.annotations, "expected") ?? ""] ??
      `(${typeName(encoded)} <-> ${typeName(SchemaAST.toType(ast))})`
  }
  switch (ast._tag) {
    case "Literal":
      return Formatter.format(ast.literal)
    case "UniqueSymbol":
      return String(ast.symbol)
    case "ObjectKeyword":
      return "object"
    case "Declaration":
      return "<declaration schema>"
    case "Enum":
      return `<enum ${ast.enums.length} value(s): ${ast.enums.map(([, v]) => JSON.stringify(v)).join(" | ")}>`
    case "TemplateLiteral":
      return `\`${ast.parts.map((p) => p._tag === "Literal" ? String(p.literal) : `\${${typeName(p)}}`).join("")}\``
    case "Union":
      return ast.types.map(typeName).join(" | ")
    case "Suspend":
      return typeName(ast.thunk())
    case "Arrays":
      return arraysName(ast)
    case "Objects":
      return objectsName(ast)
    default:
      return ast._tag === "BigInt" ? "bigint" : ast._tag.toLowerCase()
  }
}

const isOptional = (ast: SchemaAST.AST) => ast.context?.isOptional === true

const arraysName = (ast: SchemaAST.Arrays): string => {
  const ro = ast.isMutable ? "" : "readonly "
  const elements = ast.elements.map((e) => typeName(e) + (isOptional(e) ? "?" : "")).join(", ")
  const [head, ...tail] = ast.rest
  if (head === undefined) return `${ro}[${elements}]`
  const h = typeName(head)
  const wrapped = h.includes(" | ") ? `(${h})` : h
  const rest = tail.map(typeName).join(", ")
  if (tail.length > 0) return `${ro}[${elements.length > 0 ? `${elements}, ` : ""}...${wrapped}[], ${rest}]`
  return ast.elements.length > 0 ? `${ro}[${elements}, ...${wrapped}[]]` : `${ast.isMutable ? "Array" : "ReadonlyArray"}<${h}>`
}

const objectsName = (ast: SchemaAST.Objects): string => {
  const ro = (t: SchemaAST.AST) => t.context?.isMutable === true ? "" : "readonly "
  const props = ast.propertySignatures.map((p) => `${ro(p.type)}${String(p.name)}${isOptional(p.type) ? "?" : ""}: ${typeName(p.type)}`)
  const indexes = ast.indexSignatures.map((s) => `readonly [x: ${typeName(s.parameter)}]: ${typeName(s.type)}`)
  const members = [...props, ...indexes]
  return members.length === 0 ? "{}" : `{ ${members.join("; ")} }`
}

/** The keys an object schema accepts, for `is unexpected, expected: "a" | "b"`. */
const expectedKeys = (ast: SchemaAST.AST): string => {
  if (ast._tag !== "Objects") return typeName(ast)
  return [
    ...ast.indexSignatures.map((s) => typeName(s.parameter)),
    ...ast.propertySignatures.map((p) => Formatter.format(p.name))
  ].join(" | ")
}

// ---------------------------------------------------------------------------------------------
// From an Effect 4 issue to the failure model.
// ---------------------------------------------------------------------------------------------

/** A value that failed one check of `ast`, wrapped in a `From` layer per check after it. */
const failedCheck = (ast: SchemaAST.AST, filter: SchemaIssue.Filter): Node => {
  const checks = flatChecks(ast.checks)
  const index = Math.max(0, checks.indexOf(filter.filter))
  const inner = filter.issue
  const message = checkText(filter.filter, ast, index).message
  const expected = refinementExpected(ast, filter.filter, index)
  const reason: Node = inner._tag === "InvalidValue"
    ? { _tag: "Type", expected, actual: actualOf(filter), message: stringAnnotation(inner.annotations, "message") }
    : inner._tag === "Pointer" && inner.issue._tag === "InvalidValue"
    ? {
      _tag: "Pointer",
      path: inner.path,
      issue: { _tag: "Type", expected, actual: actualOf(inner.issue), message: stringAnnotation(inner.issue.annotations, "message") }
    }
    : node(inner)
  return outerChecks(ast, index, { _tag: "Refinement", title: refinedName(ast, index), kind: "Predicate", issue: reason, annotated: message })
}

/** Wraps a failure at check `index` (or at the base type, -1) in a `From` layer per later check. */
const outerChecks = (ast: SchemaAST.AST, index: number, failure: Node): Node => {
  let out = failure
  for (const [i, check] of flatChecks(ast.checks).entries()) {
    if (i <= index) continue
    out = { _tag: "Refinement", title: refinedName(ast, i), kind: "From", issue: out, annotated: checkText(check, ast, i).message }
  }
  return out
}

const node = (issue: SchemaIssue.Issue): Node => {
  switch (issue._tag) {
    case "Pointer":
      return { _tag: "Pointer", path: issue.path, issue: node(issue.issue) }
    case "MissingKey":
      return { _tag: "Missing", message: stringAnnotation(issue.annotations, "messageMissingKey") }
    case "UnexpectedKey":
      return {
        _tag: "Unexpected",
        message: stringAnnotation(issue.ast.annotations, "messageUnexpectedKey") ?? `is unexpected, expected: ${expectedKeys(issue.ast)}`
      }
    case "InvalidType": {
      const type: Node = {
        _tag: "Type",
        expected: baseName(issue.ast),
        actual: actualOf(issue),
        annotated: stringAnnotation(issue.ast.annotations, "message")
      }
      return outerChecks(issue.ast, -1, type)
    }
    case "InvalidValue":
      return {
        _tag: "Type",
        expected: "a valid value",
        actual: actualOf(issue),
        message: stringAnnotation(issue.annotations, "message")
      }
    case "Forbidden":
      return { _tag: "Forbidden", message: stringAnnotation(issue.annotations, "message") ?? "is forbidden" }
    case "OneOf":
      return { _tag: "Type", expected: typeName(issue.ast), actual: actualOf(issue) }
    case "Filter":
      return failedCheck(SchemaAST.unknown, issue)
    case "Encoding":
      return encoding(issue)
    case "Composite":
      return composite(issue)
    case "AnyOf":
      return union(issue)
  }
}

const composite = (issue: SchemaIssue.Composite): Node => {
  const [first] = issue.issues
  // The checks of one schema: Effect 3 stopped at the first that failed.
  if (first._tag === "Filter" && issue.ast.checks) return failedCheck(issue.ast, first)
  // Elements or properties that failed: the checks of the schema never ran.
  return outerChecks(issue.ast, -1, { _tag: "Composite", title: baseName(issue.ast), issues: issue.issues.map(node) })
}

const encoding = (issue: SchemaIssue.Encoding): Node => {
  const inner = issue.issue
  // A transformation that refused the value reports an `InvalidValue` (or `Forbidden`) itself.
  if (inner._tag === "InvalidValue" || inner._tag === "Forbidden") {
    const title = typeName(issue.ast)
    const refused = node(inner)
    const unable = title === "DateTimeUtc" && refused._tag === "Type" && refused.message === undefined && refused.actual.reported
      ? { ...refused, message: `Unable to decode ${Formatter.format(refused.actual.value)} into a DateTime.Utc` }
      : refused
    return { _tag: "Transformation", title, kind: "Transformation", issue: unable }
  }
  // A `Schema.Class` decodes its fields first: Effect 3 named that side `K (Encoded side)`.
  const className = issue.ast._tag === "Declaration" ? stringAnnotation(issue.ast.annotations, "identifier") : undefined
  if (className === undefined) return { _tag: "Transformation", title: typeName(issue.ast), kind: "Encoded", issue: node(inner) }
  const encodedSide = `${className} (Encoded side)`
  const fields = node(inner)
  const renamed: Node = fields._tag === "Type" && inner._tag === "InvalidType"
    ? { ...fields, expected: encodedSide }
    : fields._tag === "Composite"
    ? { ...fields, title: encodedSide }
    : fields
  return { _tag: "Transformation", title: `(${encodedSide} <-> ${className})`, kind: "Encoded", issue: renamed }
}

/** Members with a required literal property: the discriminator Effect 3 dispatched on. */
const literalKeys = (member: SchemaAST.AST): ReadonlyArray<readonly [PropertyKey, SchemaAST.Literal]> => {
  const ast = member._tag === "Suspend" ? member.thunk() : member
  if (ast._tag !== "Objects") return []
  return ast.propertySignatures.flatMap((p) => {
    const t = SchemaAST.toEncoded(p.type)
    return t._tag === "Literal" && !isOptional(p.type) ? [[p.name, t] as const] : []
  })
}

interface Discriminator {
  readonly literals: Array<SchemaAST.Literal>
  readonly candidates: Array<SchemaAST.AST>
  readonly buckets: Map<string, Array<SchemaAST.AST>>
}

/**
 * A value no member accepted. Effect 3 reported every member it tried, after dispatching on the
 * literal properties of struct members (a wrong or missing discriminator is one failure at that
 * key); Effect 4 reports only the members it tried, so the others are restored here.
 */
const union = (issue: SchemaIssue.AnyOf): Node => {
  const types = issue.ast.types
  const actual = actualOf(issue)
  const tried = new Map<SchemaAST.AST, SchemaIssue.Issue>()
  for (const i of issue.issues) if ("ast" in i) tried.set(i.ast, i)
  // Effect 3's search: members grouped by the literal value of each discriminating key.
  const keys = new Map<PropertyKey, Discriminator>()
  const otherwise: Array<SchemaAST.AST> = []
  const discriminated: Array<SchemaAST.AST> = []
  for (const member of types) {
    const tags = literalKeys(member)
    if (tags.length === 0) {
      otherwise.push(member)
      continue
    }
    discriminated.push(member)
    for (const [j, [key, literal]] of tags.entries()) {
      const hash = String(literal.literal)
      const entry: Discriminator = keys.get(key) ?? { literals: [], candidates: [], buckets: new Map() }
      keys.set(key, entry)
      const bucket = entry.buckets.get(hash)
      if (bucket !== undefined) {
        if (j < tags.length - 1) continue
        bucket.push(member)
      } else {
        entry.buckets.set(hash, [member])
      }
      entry.literals.push(literal)
      entry.candidates.push(member)
      break
    }
  }
  const issues: Array<Node> = []
  let candidates: Array<SchemaAST.AST> = []
  const input = actual.reported ? actual.value : undefined
  if (keys.size > 0) {
    if (actual.reported && typeof input === "object" && input !== null) {
      for (const [key, entry] of keys) {
        const literalsName = entry.literals.map(typeName).join(" | ")
        const title = entry.candidates.length === types.length
          ? `{ readonly ${String(key)}: ${literalsName} }`
          : entry.candidates.map(typeName).join(" | ")
        if (Object.hasOwn(input, key)) {
          const value: unknown = Reflect.get(input, key)
          const bucket = entry.buckets.get(String(value))
          if (bucket !== undefined) candidates = candidates.concat(bucket)
          else {
            issues.push({
              _tag: "Composite",
              title,
              issues: [{ _tag: "Pointer", path: [key], issue: { _tag: "Type", expected: literalsName, actual: { reported: true, value } } }]
            })
          }
        } else {
          issues.push({ _tag: "Composite", title, issues: [{ _tag: "Pointer", path: [key], issue: { _tag: "Missing" } }] })
        }
      }
    } else {
      const expected = discriminated.length === types.length ? typeName(issue.ast) : discriminated.map(typeName).join(" | ")
      issues.push({ _tag: "Type", expected, actual })
    }
  }
  candidates = candidates.concat(otherwise)
  for (const member of candidates) {
    const failure = tried.get(member)
    issues.push(failure !== undefined ? node(failure) : { _tag: "Type", expected: typeName(member), actual })
  }
  const [only] = issues
  if (only === undefined) return { _tag: "Type", expected: typeName(issue.ast), actual }
  return issues.length === 1 && only._tag === "Type" ? only : { _tag: "Composite", title: typeName(issue.ast), issues }
}

// ---------------------------------------------------------------------------------------------
// The two formats.
// ---------------------------------------------------------------------------------------------

/** The message a layer's own `message` annotation gives, if it speaks for the whole failure. */
const messageOf = (n: Node): string | undefined => {
  switch (n._tag) {
    case "Composite":
      return undefined
    case "Refinement":
      if (n.annotated === undefined) return undefined
      return n.kind === "From" ? messageOf(n.issue) : n.annotated
    case "Type":
      return n.annotated
    default:
      return undefined
  }
}

const typeText = (n: Extract<Node, { _tag: "Type" }>) => n.annotated ?? n.message ?? typeMessage(n.expected, n.actual)

const lines = (n: Node, parentTag: IssueLine["_tag"] | undefined, path: ReadonlyArray<PropertyKey>): Array<IssueLine> => {
  switch (n._tag) {
    case "Type":
      return [{ _tag: parentTag ?? "Type", path, message: typeText(n) }]
    case "Missing":
      return [{ _tag: "Missing", path, message: n.message ?? "is missing" }]
    case "Unexpected":
      return [{ _tag: "Unexpected", path, message: n.message }]
    case "Forbidden":
      return [{ _tag: "Forbidden", path, message: n.message }]
    case "Pointer":
      return lines(n.issue, undefined, [...path, ...n.path])
    case "Composite":
      return n.issues.flatMap((i) => lines(i, undefined, path))
    case "Refinement": {
      const message = messageOf(n)
      if (message !== undefined) return [{ _tag: "Refinement", path, message }]
      return lines(n.issue, n.kind === "Predicate" ? "Refinement" : undefined, path)
    }
    case "Transformation":
      return lines(n.issue, n.kind === "Transformation" ? "Transformation" : undefined, path)
  }
}

interface Tree {
  readonly value: string
  readonly forest: ReadonlyArray<Tree>
}

const leaf = (value: string, forest: ReadonlyArray<Tree> = []): Tree => ({ value, forest })

const refinementKind = { From: "From side refinement failure", Predicate: "Predicate refinement failure" } as const
const transformationKind = {
  Encoded: "Encoded side transformation failure",
  Transformation: "Transformation process failure"
} as const

const tree = (n: Node): Tree => {
  switch (n._tag) {
    case "Type":
      return leaf(typeText(n))
    case "Missing":
      return leaf(n.message ?? "is missing")
    case "Unexpected":
      return leaf(n.message)
    case "Forbidden":
      return leaf(n.message)
    case "Pointer":
      return leaf(n.path.map((k) => `[${typeof k === "string" ? JSON.stringify(k) : String(k)}]`).join(""), [tree(n.issue)])
    case "Composite":
      return leaf(n.title, n.issues.map(tree))
    case "Refinement": {
      const message = messageOf(n)
      return message !== undefined ? leaf(message) : leaf(n.title, [leaf(refinementKind[n.kind], [tree(n.issue)])])
    }
    case "Transformation":
      return leaf(n.title, [leaf(transformationKind[n.kind], [tree(n.issue)])])
  }
}

const drawTree = (t: Tree): string => t.value + draw("\n", t.forest)

const draw = (indentation: string, forest: ReadonlyArray<Tree>): string => {
  let r = ""
  forest.forEach((t, i) => {
    const isLast = i === forest.length - 1
    r += indentation + (isLast ? "└" : "├") + "─ " + t.value
    r += draw(indentation + (forest.length > 1 && !isLast ? "│  " : "   "), t.forest)
  })
  return r
}
