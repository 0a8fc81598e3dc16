/**
 * Defence layer (a) of the SQL query operation: PostgreSQL's own parser (libpg_query, the server's
 * grammar compiled to WASM) reads the caller's SQL, and an allow-list walk over its parse tree
 * accepts one `SELECT` (or `WITH … SELECT`) over `message_events` / `call_events` and the
 * functions, operators and casts of core's `SqlSurface` — anything else is refused, named, at the
 * parser's position. Also the parameter binding (`:name` → `$n`, found with the same library's
 * scanner so that `:` inside strings and comments is left alone).
 *
 * Positions are 1-based characters (code points) of the caller's `sql`, as PostgreSQL counts them.
 */
import {
  allowedCastTypes,
  allowedFunctions,
  allowedOperators,
  allowedSyntaxFunctions,
  MetricsQueryInvalid,
  sqlLimits
} from "@switchboard/core/metrics"
import { Effect } from "effect"

interface ScanToken {
  readonly start: number
  readonly end: number
  readonly text: string
  readonly tokenName: string
}
export interface PgParser {
  readonly parseSync: (sql: string) => { readonly stmts: ReadonlyArray<{ readonly stmt: Node; readonly stmt_location?: number }> }
  readonly scanSync: (sql: string) => { readonly tokens: ReadonlyArray<ScanToken> }
}
type Node = Record<string, any>

let loaded: Promise<PgParser> | undefined
/** The parser, loaded once per process (the WASM ships inside the npm package: no download). */
export const loadParser: Effect.Effect<PgParser> = Effect.promise(() => {
  loaded ??= import("libpg-query").then(async (m) => {
    await m.loadModule()
    return { parseSync: m.parseSync as PgParser["parseSync"], scanSync: m.scanSync as PgParser["scanSync"] }
  })
  return loaded
})

// ---------------------------------------------------------------------------------------------
// Byte offsets (the parser's) ↔ character positions (the caller's)

const encoder = new TextEncoder()
const decoder = new TextDecoder()

/** 1-based code-point position of a byte offset in `bytes`. */
const charPosition = (bytes: Uint8Array, byteOffset: number): number => {
  let chars = 0
  for (let i = 0; i < Math.min(byteOffset, bytes.length); i++) if ((bytes[i]! & 0xc0) !== 0x80) chars++
  return chars + 1
}
/** Byte offset of a 1-based code-point position in `bytes`. */
const byteOffsetOf = (bytes: Uint8Array, position: number): number => {
  let chars = 0
  for (let i = 0; i < bytes.length; i++) {
    if ((bytes[i]! & 0xc0) !== 0x80) {
      if (chars === position - 1) return i
      chars++
    }
  }
  return bytes.length
}

// ---------------------------------------------------------------------------------------------
// Parameters

export interface BoundQuery {
  /** The SQL with each `:name` replaced by `$n`. */
  readonly text: string
  /** `$n`'s value at index n-1. */
  readonly values: ReadonlyArray<string>
  /** A byte offset in `text` → the 1-based character position in the caller's sql. */
  readonly positionOf: (textByteOffset: number) => number
}

const isName = (s: string) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(s)

/** The parser's error (libpg-query reports PostgreSQL's cursor 0-based, in characters) at the caller's position. */
const syntaxError = (e: unknown, bytes: Uint8Array, positionOf: (byteOffset: number) => number) => {
  const details = (e as { sqlDetails?: { message: string; cursorPosition: number } }).sqlDetails
  return details
    ? new MetricsQueryInvalid({
      message: details.message,
      position: positionOf(byteOffsetOf(bytes, Math.max(0, details.cursorPosition) + 1)),
      construct: "syntax"
    })
    : new MetricsQueryInvalid({ message: e instanceof Error ? e.message : "the SQL could not be read", construct: "syntax" })
}

/** `:name` → `$n` by the scanner's tokens; values in order of first use. */
export const bindParameters = (
  parser: PgParser,
  sql: string,
  parameters: Readonly<Record<string, string>>
): Effect.Effect<BoundQuery, MetricsQueryInvalid> =>
  Effect.suspend(() => {
    const bytes = encoder.encode(sql)
    let tokens: ReadonlyArray<ScanToken>
    try {
      tokens = parser.scanSync(sql).tokens
    } catch (e) {
      return Effect.fail(syntaxError(e, bytes, (b) => charPosition(bytes, b)))
    }
    const slots = new Map<string, number>()
    const values: Array<string> = []
    const edits: Array<{ at: number; from: number; to: number }> = [] // original byte offset, original length, new length
    const out: Array<Uint8Array> = []
    let cursor = 0
    for (let i = 0; i < tokens.length; i++) {
      const token = tokens[i]!
      if (token.tokenName === "PARAM") {
        return Effect.fail(new MetricsQueryInvalid({
          message: "positional parameters ($1) are not accepted; name them (:name) and send their values in parameters",
          position: charPosition(bytes, token.start),
          construct: "positional parameter"
        }))
      }
      const next = tokens[i + 1]
      if (token.text !== ":" || next === undefined || next.start !== token.end || !isName(next.text)) continue
      const name = next.text
      if (!Object.prototype.hasOwnProperty.call(parameters, name)) {
        return Effect.fail(new MetricsQueryInvalid({
          message: `no value for parameter :${name} (send it in parameters)`,
          position: charPosition(bytes, token.start),
          construct: "parameter"
        }))
      }
      let slot = slots.get(name)
      if (slot === undefined) {
        values.push(parameters[name]!)
        slot = values.length
        slots.set(name, slot)
      }
      const replacement = encoder.encode(`$${slot}`)
      out.push(bytes.subarray(cursor, token.start), replacement)
      edits.push({ at: token.start, from: next.end - token.start, to: replacement.length })
      cursor = next.end
      i++
    }
    out.push(bytes.subarray(cursor))
    const text = decoder.decode(Buffer.concat(out))
    const positionOf = (offset: number) => {
      let delta = 0
      for (const edit of edits) {
        const start = edit.at + delta
        if (offset < start) break
        if (offset < start + edit.to) return charPosition(bytes, edit.at)
        delta += edit.to - edit.from
      }
      return charPosition(bytes, offset - delta)
    }
    return Effect.succeed({ text, values, positionOf })
  })

// ---------------------------------------------------------------------------------------------
// The allow-list walk

const relations = new Set(["message_events", "call_events"])
const functions = new Set(allowedFunctions)
const syntaxFunctions = new Set(allowedSyntaxFunctions)
const operators = new Set(allowedOperators)
const castTypes = new Set(allowedCastTypes)
const valueFunctions = new Set([
  "SVFOP_CURRENT_DATE", "SVFOP_CURRENT_TIME", "SVFOP_CURRENT_TIME_N", "SVFOP_CURRENT_TIMESTAMP",
  "SVFOP_CURRENT_TIMESTAMP_N", "SVFOP_LOCALTIME", "SVFOP_LOCALTIME_N", "SVFOP_LOCALTIMESTAMP", "SVFOP_LOCALTIMESTAMP_N"
])
const exprKinds = new Set([
  "AEXPR_OP", "AEXPR_DISTINCT", "AEXPR_NOT_DISTINCT", "AEXPR_NULLIF", "AEXPR_IN", "AEXPR_LIKE", "AEXPR_ILIKE",
  "AEXPR_BETWEEN", "AEXPR_NOT_BETWEEN", "AEXPR_BETWEEN_SYM", "AEXPR_NOT_BETWEEN_SYM"
])
/** Node types that carry no behaviour of their own (their children are checked). */
/** Leaves: constants and names (their fields are values, not nodes). */
const leafNodes = new Set(["A_Const", "String", "Integer", "Float", "Boolean", "BitString", "A_Star"])
const plainNodes = new Set([
  "ResTarget", "ColumnRef", "BoolExpr", "NullTest", "BooleanTest", "CaseExpr", "CaseWhen", "CoalesceExpr",
  "MinMaxExpr", "SortBy", "WindowDef", "List", "Alias", "GroupingSet"
])
const subLinkKinds = new Set(["EXISTS_SUBLINK", "ANY_SUBLINK", "ALL_SUBLINK", "EXPR_SUBLINK"])

const strings = (list: unknown): Array<string> =>
  Array.isArray(list) ? list.map((n: Node) => n?.String?.sval).filter((s): s is string => typeof s === "string") : []

class Refused {
  constructor(readonly construct: string, readonly message: string, readonly location: number | undefined) {}
}

interface Walk {
  relations: number
  params: number
}

const refuse = (construct: string, message: string, location: number | undefined): never => {
  throw new Refused(construct, message, location)
}

const locationOf = (node: Node, fallback: number | undefined): number | undefined =>
  typeof node?.location === "number" && node.location >= 0 ? node.location : fallback

const checkSelect = (select: Node, scopes: ReadonlyArray<ReadonlySet<string>>, walk: Walk, at: number | undefined): void => {
  if (select.intoClause) refuse("SELECT INTO", "SELECT INTO writes a table; only reading is allowed", at)
  if (select.lockingClause) refuse("locking clause", "FOR UPDATE/SHARE locks rows; only reading is allowed", at)
  let inner = scopes
  if (select.withClause) {
    const w = select.withClause as Node
    if (w.recursive) refuse("WITH RECURSIVE", "recursive CTEs are not allowed", locationOf(w, at))
    const visible = new Set<string>()
    for (const item of w.ctes ?? []) {
      const cte = item.CommonTableExpr as Node
      const cteAt = locationOf(cte, at)
      if (cte.search_clause || cte.cycle_clause) refuse("CTE SEARCH/CYCLE", "SEARCH and CYCLE clauses are not allowed", cteAt)
      const query = cte.ctequery as Node
      if (!query?.SelectStmt) {
        refuse("data-modifying CTE", `a CTE must be a SELECT, not ${Object.keys(query ?? {})[0] ?? "empty"}`, cteAt)
      }
      checkSelect(query.SelectStmt, [...scopes, new Set(visible)], walk, cteAt)
      visible.add(cte.ctename)
    }
    inner = [...scopes, visible]
  }
  for (const [key, value] of Object.entries(select)) {
    if (key === "withClause" || value === null || typeof value !== "object") continue
    if (key === "larg" || key === "rarg") checkSelect(value, inner, walk, at)
    else if (key === "fromClause") for (const item of value) checkFrom(item, inner, walk, at)
    else checkExpr(value, inner, walk, at)
  }
}

const checkFrom = (node: Node, scopes: ReadonlyArray<ReadonlySet<string>>, walk: Walk, at: number | undefined): void => {
  const [type] = Object.keys(node)
  const body = node[type!] as Node
  const where = locationOf(body, at)
  switch (type) {
    case "RangeVar": {
      if (++walk.relations > sqlLimits.maximumRelations) {
        refuse("too many relations", `at most ${sqlLimits.maximumRelations} relation references per statement`, where)
      }
      if (body.schemaname || body.catalogname) {
        refuse("schema-qualified name", `${[body.catalogname, body.schemaname, body.relname].filter(Boolean).join(".")}: only message_events and call_events, unqualified`, where)
      }
      const name = body.relname as string
      if (scopes.some((s) => s.has(name))) return
      if (!relations.has(name)) refuse("relation", `relation ${name} is not available; query message_events or call_events`, where)
      return
    }
    case "JoinExpr":
      checkFrom(body.larg, scopes, walk, where)
      checkFrom(body.rarg, scopes, walk, where)
      if (body.quals) checkExpr(body.quals, scopes, walk, where)
      return
    case "RangeSubselect":
      if (++walk.relations > sqlLimits.maximumRelations) {
        refuse("too many relations", `at most ${sqlLimits.maximumRelations} relation references per statement`, where)
      }
      checkSelect(body.subquery.SelectStmt ?? refuse("subquery", "a subquery must be a SELECT", where), scopes, walk, where)
      return
    case "RangeFunction":
      return refuse("function in FROM", "functions in FROM (set-returning functions) are not allowed", where)
    default:
      return refuse(type ?? "FROM item", `${type} is not allowed in FROM`, where)
  }
}

const checkExpr = (value: unknown, scopes: ReadonlyArray<ReadonlySet<string>>, walk: Walk, at: number | undefined): void => {
  if (Array.isArray(value)) {
    for (const item of value) checkExpr(item, scopes, walk, at)
    return
  }
  if (value === null || typeof value !== "object") return
  const [type] = Object.keys(value)
  const body = (value as Node)[type!] as Node
  const where = locationOf(body, at)
  switch (type) {
    case "SelectStmt":
      return checkSelect(body, scopes, walk, where)
    case "FuncCall": {
      const name = strings(body.funcname)
      const ok = name.length === 1
        ? functions.has(name[0]!)
        : name.length === 2 && name[0] === "pg_catalog" && body.funcformat === "COERCE_SQL_SYNTAX" && syntaxFunctions.has(name[1]!)
      if (!ok) refuse("function", `function ${name.join(".")} is not allowed`, where)
      if (body.func_variadic) refuse("VARIADIC", "VARIADIC calls are not allowed", where)
      for (const key of ["args", "agg_order", "agg_filter", "over"]) if (body[key]) checkExpr(body[key], scopes, walk, where)
      return
    }
    case "A_Expr": {
      if (!exprKinds.has(body.kind)) refuse("operator", `${String(body.kind).replace("AEXPR_", "")} expressions are not allowed`, where)
      const name = strings(body.name)
      const between = String(body.kind).includes("BETWEEN")
      if (name.length !== 1 || !(between || operators.has(name[0]!))) {
        refuse("operator", `operator ${name.join(".")} is not allowed`, where)
      }
      if (body.lexpr) checkExpr(body.lexpr, scopes, walk, where)
      if (body.rexpr) checkExpr(body.rexpr, scopes, walk, where)
      return
    }
    case "TypeCast": {
      const typeName = body.typeName as Node
      const names = strings(typeName.names)
      const last = names[names.length - 1]
      const ok = last !== undefined && castTypes.has(last) && (names.length === 1 || (names.length === 2 && names[0] === "pg_catalog"))
      if (!ok || typeName.arrayBounds || typeName.setof || typeName.pct_type) {
        refuse("cast", `a cast to ${names.join(".")}${typeName.arrayBounds ? "[]" : ""} is not allowed`, locationOf(typeName, where))
      }
      checkExpr(body.arg, scopes, walk, where)
      return
    }
    case "SubLink": {
      if (!subLinkKinds.has(body.subLinkType)) refuse("subquery", `${body.subLinkType} subqueries are not allowed`, where)
      if (body.testexpr) checkExpr(body.testexpr, scopes, walk, where)
      if (body.operName && !strings(body.operName).every((o) => operators.has(o))) refuse("operator", "operator not allowed", where)
      checkSelect(body.subselect.SelectStmt ?? refuse("subquery", "a subquery must be a SELECT", where), scopes, walk, where)
      return
    }
    case "SQLValueFunction":
      if (!valueFunctions.has(body.op)) refuse("value function", `${String(body.op).replace("SVFOP_", "")} is not allowed`, where)
      return
    case "ParamRef":
      if (typeof body.number !== "number" || body.number < 1 || body.number > walk.params) {
        refuse("positional parameter", "positional parameters ($1) are not accepted; use :name", where)
      }
      return
    default:
      if (leafNodes.has(type!)) return
      if (!plainNodes.has(type!)) refuse(type ?? "expression", `${type} is not allowed`, where)
      for (const child of Object.values(body ?? {})) if (child !== null && typeof child === "object") checkExpr(child, scopes, walk, where)
  }
}

/** Layer (a): parse the bound text and walk its tree; fails with the refused construct, named, at its position. */
export const checkQuery = (parser: PgParser, bound: BoundQuery): Effect.Effect<void, MetricsQueryInvalid> =>
  Effect.suspend(() => {
    const bytes = encoder.encode(bound.text)
    let tree: ReturnType<PgParser["parseSync"]>
    try {
      tree = parser.parseSync(bound.text)
    } catch (e) {
      return Effect.fail(syntaxError(e, bytes, bound.positionOf))
    }
    const fail = (construct: string, message: string, location: number | undefined) =>
      Effect.fail(new MetricsQueryInvalid({
        message,
        construct,
        ...(location === undefined ? {} : { position: bound.positionOf(location) })
      }))
    if (tree.stmts.length === 0) return fail("empty", "the SQL holds no statement", undefined)
    if (tree.stmts.length > 1) {
      return fail("multiple statements", "send exactly one statement", tree.stmts[1]!.stmt_location ?? undefined)
    }
    const stmt = tree.stmts[0]!.stmt
    const [type] = Object.keys(stmt)
    if (type !== "SelectStmt") return fail(type ?? "statement", `only SELECT (or WITH … SELECT) is allowed, not ${type}`, tree.stmts[0]!.stmt_location ?? 0)
    try {
      checkSelect(stmt.SelectStmt, [], { relations: 0, params: bound.values.length }, 0)
      return Effect.void
    } catch (e) {
      if (e instanceof Refused) return fail(e.construct, e.message, e.location)
      throw e
    }
  })
