/**
 * The allow-list walk of SqlGuard.ts over PostgreSQL's raw parse tree (libpg-query's JSON): one
 * `SELECT` over `message_events` / `call_events` (and the statement's own CTEs) with the functions,
 * operators and casts of core's `SqlSurface`. Every node type and every node-valued field is named
 * here; anything else is refused. Refusals name the construct in SQL words (SqlWords.ts) at the
 * byte offset of the node the parser locates, or of the nearest enclosing one.
 *
 * What docs/sql-query.md lists is accepted: `SELECT DISTINCT` / `DISTINCT ON`, window functions
 * with `PARTITION BY`, `ORDER BY` and frames (`ROWS` / `RANGE` / `GROUPS`, offsets walked as
 * expressions), named windows (`WINDOW w AS (…)`, `OVER w`, `OVER (w …)`), aggregates with
 * `FILTER (WHERE …)`, `ORDER BY` inside and `WITHIN GROUP (ORDER BY …)`, named arguments
 * (`name => value`) of allowed functions.
 */
import {
  allowedCastTypes,
  allowedFunctions,
  allowedOperators,
  allowedSyntaxFunctions,
  sqlLimits
} from "@switchboard/core/metrics"
import * as Words from "./SqlWords.js"

export type Node = Record<string, any>

/** A refusal: `construct` and `message` in SQL words, `location` a byte offset of the walked text. */
export class Refused {
  constructor(readonly construct: string, readonly message: string, readonly location: number | undefined) {}
}

export interface WalkContext {
  /** Relation references seen so far (tables, CTE uses, subqueries in FROM). */
  relations: number
  /** How many `$n` the parameter binding made. */
  readonly params: number
  /**
   * The byte offset of the first of the keyword sequences (lowercase) at or after `from`: the
   * position of a clause the parser gives none (`FOR UPDATE`, `WITH RECURSIVE`, `INTO`).
   */
  readonly keyword: (sequences: ReadonlyArray<ReadonlyArray<string>>, from: number | undefined) => number | undefined
}

type Scopes = ReadonlyArray<ReadonlySet<string>>

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
const subLinkKinds = new Set(["EXISTS_SUBLINK", "ANY_SUBLINK", "ALL_SUBLINK", "EXPR_SUBLINK"])
/** Leaves: constants and names (their fields are values, not nodes). */
const leafNodes = new Set(["A_Const", "String", "Integer", "Float", "Boolean", "BitString", "A_Star"])
/** Node types with no behaviour of their own, and the fields holding their children (each walked as an expression). */
const plainNodes: Record<string, ReadonlyArray<string>> = {
  ResTarget: ["val"],
  ColumnRef: ["fields"],
  BoolExpr: ["args"],
  NullTest: ["arg"],
  BooleanTest: ["arg"],
  CaseExpr: ["arg", "args", "defresult"],
  CaseWhen: ["expr", "result"],
  CoalesceExpr: ["args"],
  MinMaxExpr: ["args"],
  List: ["items"],
  GroupingSet: ["content"]
}

const strings = (list: unknown): Array<string> =>
  Array.isArray(list) ? list.map((n: Node) => n?.String?.sval).filter((s): s is string => typeof s === "string") : []

const refuse = (construct: string, message: string, location: number | undefined): never => {
  throw new Refused(construct, message, location)
}

/** A construct that is not allowed, named: "COLLATE is not allowed". */
const notAllowed = (words: string, location: number | undefined): never => refuse(words, `${words} is not allowed`, location)

const locationOf = (node: Node | undefined, fallback: number | undefined): number | undefined =>
  typeof node?.location === "number" && node.location >= 0 ? node.location : fallback

const isNode = (value: unknown): value is Node => value !== null && typeof value === "object"
/** A list field's items (a single node read as a list of one). */
const items = (value: Node): ReadonlyArray<any> => (Array.isArray(value) ? value : [value])
const isEmpty = (value: unknown) => isNode(value) && !Array.isArray(value) && Object.keys(value).length === 0

const relationReference = (walk: WalkContext, where: number | undefined) => {
  if (++walk.relations > sqlLimits.maximumRelations) {
    refuse("too many relations", `at most ${sqlLimits.maximumRelations} relation references (tables, CTE uses, subqueries in FROM) per statement`, where)
  }
}

/** The one statement: a SELECT (or WITH … SELECT, VALUES), else refused by its command's name. */
export const checkStatement = (stmt: Node, location: number, walk: WalkContext): void => {
  const [type] = Object.keys(stmt)
  if (type !== "SelectStmt") {
    const command = Words.statement(type, stmt[type!])
    refuse(command, `${command} statements are not allowed; send one SELECT (or WITH … SELECT)`, location)
  }
  checkSelect(stmt.SelectStmt, [], walk, location)
}

const checkSelect = (select: Node, scopes: Scopes, walk: WalkContext, at: number | undefined): void => {
  let inner = scopes
  if (select.withClause) inner = checkWith(select.withClause, scopes, walk, at)
  for (const [key, value] of Object.entries(select)) {
    // Scalars (op, all, limitOption, groupDistinct) carry no nodes.
    if (key === "withClause" || !isNode(value)) continue
    switch (key) {
      case "intoClause":
        refuse("SELECT INTO", "SELECT INTO is not allowed: it creates a table; only reading is allowed", walk.keyword([["into"]], at))
        break
      case "lockingClause": {
        const words = Words.lockStrength(value[0]?.LockingClause?.strength)
        const where = walk.keyword([["for", "update"], ["for", "no", "key"], ["for", "share"], ["for", "key"]], at)
        refuse(words, `${words} is not allowed: it locks rows; only reading is allowed`, where)
        break
      }
      case "distinctClause":
        // SELECT DISTINCT is one empty node; DISTINCT ON (…) lists its expressions.
        for (const item of items(value)) if (!isEmpty(item)) checkExpr(item, inner, walk, at)
        break
      case "fromClause":
        for (const item of items(value)) checkFrom(item, inner, walk, at)
        break
      case "windowClause":
        for (const item of items(value)) {
          if (item?.WindowDef) checkWindow(item.WindowDef, inner, walk, at)
          else notAllowed(Words.node(Object.keys(item ?? {})[0]), at)
        }
        break
      case "larg":
      case "rarg":
        checkSelect(value, inner, walk, at)
        break
      case "targetList":
      case "whereClause":
      case "groupClause":
      case "havingClause":
      case "valuesLists":
      case "sortClause":
      case "limitOffset":
      case "limitCount":
        checkExpr(value, inner, walk, at)
        break
      default:
        notAllowed(Words.field(key), at)
    }
  }
}

/** WITH: not RECURSIVE, each CTE a SELECT without SEARCH/CYCLE; answers the scopes the body sees. */
const checkWith = (w: Node, scopes: Scopes, walk: WalkContext, at: number | undefined): Scopes => {
  if (w.recursive) {
    refuse("WITH RECURSIVE", "WITH RECURSIVE is not allowed", walk.keyword([["with", "recursive"]], locationOf(w, at)))
  }
  const visible = new Set<string>()
  for (const item of w.ctes ?? []) {
    const cte = item?.CommonTableExpr as Node | undefined
    if (!cte) return notAllowed(Words.node(Object.keys(item ?? {})[0]), at)
    const cteAt = locationOf(cte, at)
    for (const clause of ["search_clause", "cycle_clause"] as const) {
      if (cte[clause]) notAllowed(Words.field(clause), locationOf(cte[clause], cteAt))
    }
    onlyKnownFields("CommonTableExpr", cte, cteAt)
    const query = cte.ctequery as Node | undefined
    if (!query?.SelectStmt) {
      const [type] = Object.keys(query ?? {})
      const command = Words.statement(type, query?.[type!])
      const where = walk.keyword([["insert"], ["update"], ["delete"], ["merge"]], cteAt)
      refuse("data-modifying CTE", `${command} in WITH is not allowed: a CTE must be a SELECT`, where)
    }
    checkSelect(query!.SelectStmt, [...scopes, new Set(visible)], walk, cteAt)
    visible.add(cte.ctename)
  }
  return [...scopes, visible]
}

/** A window: inline (`OVER (…)`, a FuncCall's unwrapped WindowDef) or named (`WINDOW w AS (…)`). */
const checkWindow = (def: Node, scopes: Scopes, walk: WalkContext, at: number | undefined): void => {
  const where = locationOf(def, at)
  for (const [key, value] of Object.entries(def)) {
    // Scalars: name, refname (a window of this SELECT, which PostgreSQL resolves), frameOptions, location.
    if (!isNode(value)) continue
    if (key === "partitionClause" || key === "orderClause" || key === "startOffset" || key === "endOffset") {
      checkExpr(value, scopes, walk, where)
    } else {
      notAllowed(Words.field(key), where)
    }
  }
}

/** Node-valued fields of FROM items and CTEs that hold only names (aliases, column lists) or are walked by name. */
const knownFields: Record<string, ReadonlySet<string>> = {
  RangeVar: new Set(["alias"]),
  JoinExpr: new Set(["larg", "rarg", "quals", "usingClause", "alias", "join_using_alias"]),
  RangeSubselect: new Set(["subquery", "alias"]),
  CommonTableExpr: new Set(["aliascolnames", "ctequery"])
}

/** Refuses a node-valued field this walk does not know, so a parser version that adds one cannot slip it past. */
const onlyKnownFields = (type: string, body: Node, where: number | undefined) => {
  for (const [key, value] of Object.entries(body)) {
    if (isNode(value) && !knownFields[type]!.has(key)) notAllowed(Words.field(key), where)
  }
}

const checkFrom = (item: Node, scopes: Scopes, walk: WalkContext, at: number | undefined): void => {
  const [type] = Object.keys(item ?? {})
  const body = item?.[type!] as Node
  const where = locationOf(body, at)
  if (type !== undefined && knownFields[type] !== undefined) onlyKnownFields(type, body, where)
  switch (type) {
    case "RangeVar": {
      relationReference(walk, where)
      if (body.schemaname || body.catalogname) {
        const qualified = [body.catalogname, body.schemaname, body.relname].filter(Boolean).join(".")
        refuse("schema-qualified name", `${qualified}: only message_events and call_events, unqualified`, where)
      }
      const name = body.relname as string
      if (scopes.some((s) => s.has(name))) return
      if (!relations.has(name)) refuse("relation", `relation ${name} is not available; query message_events or call_events`, where)
      return
    }
    case "JoinExpr":
      // usingClause, alias and join_using_alias are names.
      checkFrom(body.larg, scopes, walk, where)
      checkFrom(body.rarg, scopes, walk, where)
      if (body.quals) checkExpr(body.quals, scopes, walk, where)
      return
    case "RangeSubselect": {
      // LATERAL or not: the subquery is walked like any other (alias is names).
      relationReference(walk, where)
      const subquery = body.subquery?.SelectStmt as Node | undefined
      if (!subquery) return notAllowed(Words.node(Object.keys(body.subquery ?? {})[0]), where)
      return checkSelect(subquery, scopes, walk, where)
    }
    case "RangeFunction": {
      // Set-returning functions (generate_series, …) could make rows without reading a relation.
      const call = body.functions?.[0]?.List?.items?.[0]?.FuncCall as Node | undefined
      const name = strings(call?.funcname).join(".")
      const what = body.is_rowsfrom ? "ROWS FROM (…) is" : body.lateral ? "LATERAL functions in FROM are" : "functions in FROM are"
      return refuse("function in FROM", `${what} not allowed${name ? ` (${name})` : ""}`, locationOf(call, where))
    }
    case "RangeTableSample":
      return notAllowed("TABLESAMPLE", walk.keyword([["tablesample"]], locationOf(body.relation?.RangeVar, where)))
    default:
      return notAllowed(`${Words.node(type)} in FROM`, where)
  }
}

const checkFunction = (call: Node, scopes: Scopes, walk: WalkContext, where: number | undefined): void => {
  const name = strings(call.funcname)
  if (name.length === 2 && name[0] === "pg_catalog" && call.funcformat === "COERCE_SQL_SYNTAX") {
    if (!syntaxFunctions.has(name[1]!)) notAllowed(Words.syntaxFunction(name[1]!), where)
  } else if (name.length === 2 && name[0] === "pg_catalog" && /^(like|similar_to)_escape$/.test(name[1]!)) {
    notAllowed(Words.syntaxFunction(name[1]!), where)
  } else if (name.length !== 1 || !functions.has(name[0]!)) {
    const qualified = name.length > 1 ? " (functions are called unqualified)" : ""
    refuse("function", `the function ${name.join(".")} is not allowed${qualified}`, where)
  }
  if (call.func_variadic) notAllowed("VARIADIC", where)
  for (const [key, value] of Object.entries(call)) {
    // Scalars: agg_star, agg_distinct, agg_within_group, funcformat, location.
    if (key === "funcname" || !isNode(value)) continue
    switch (key) {
      case "args":
        // Named arguments (name => value): the value is walked like any argument.
        for (const arg of items(value)) checkExpr(arg?.NamedArgExpr ? arg.NamedArgExpr.arg : arg, scopes, walk, locationOf(arg?.NamedArgExpr, where))
        break
      case "agg_order":
      case "agg_filter":
        checkExpr(value, scopes, walk, where)
        break
      case "over":
        checkWindow(value, scopes, walk, where)
        break
      default:
        notAllowed(Words.field(key), where)
    }
  }
}

const checkOperatorExpr = (body: Node, scopes: Scopes, walk: WalkContext, where: number | undefined): void => {
  if (!exprKinds.has(body.kind)) notAllowed(Words.exprKind(body.kind), where)
  const name = strings(body.name)
  const between = String(body.kind).includes("BETWEEN")
  if (name.length !== 1) {
    refuse("operator", `the schema-qualified operator OPERATOR(${name.join(".")}) is not allowed`, where)
  }
  if (!between && !operators.has(name[0]!)) refuse("operator", `the operator ${name[0]} is not allowed`, where)
  if (body.lexpr) checkExpr(body.lexpr, scopes, walk, where)
  if (body.rexpr) checkExpr(body.rexpr, scopes, walk, where)
}

const checkCast = (body: Node, scopes: Scopes, walk: WalkContext, where: number | undefined): void => {
  const typeName = body.typeName as Node
  const at = locationOf(typeName, where)
  const names = strings(typeName?.names)
  const last = names[names.length - 1]
  const ok = last !== undefined && castTypes.has(last) && (names.length === 1 || (names.length === 2 && names[0] === "pg_catalog"))
  const shown = names.filter((n, i) => !(i === 0 && n === "pg_catalog" && names.length === 2)).join(".")
  if (!ok) refuse("cast", `a cast to ${shown || "this type"} is not allowed`, at)
  if (typeName.arrayBounds) refuse("cast", `a cast to an array type (${shown}[]) is not allowed`, at)
  if (typeName.setof || typeName.pct_type) refuse("cast", `a cast to ${typeName.setof ? "SETOF" : "%TYPE"} is not allowed`, at)
  // Type modifiers (numeric(10, 2), interval '1' hour) are constants.
  for (const mod of typeName.typmods ?? []) if (!mod?.A_Const) notAllowed("a type modifier other than a constant", at)
  checkExpr(body.arg, scopes, walk, where)
}

const checkExpr = (value: unknown, scopes: Scopes, walk: WalkContext, at: number | undefined): void => {
  if (Array.isArray(value)) {
    for (const item of value) checkExpr(item, scopes, walk, at)
    return
  }
  if (!isNode(value)) return
  const [type] = Object.keys(value)
  if (type === undefined) return // an empty node holds nothing
  const body = value[type] as Node
  const where = locationOf(body, at)
  switch (type) {
    case "SelectStmt":
      return checkSelect(body, scopes, walk, where)
    case "FuncCall":
      return checkFunction(body, scopes, walk, where)
    case "A_Expr":
      return checkOperatorExpr(body, scopes, walk, where)
    case "TypeCast":
      return checkCast(body, scopes, walk, where)
    case "SubLink": {
      if (!subLinkKinds.has(body.subLinkType)) notAllowed(Words.subLinkKind(body.subLinkType), where)
      for (const op of strings(body.operName)) if (!operators.has(op)) refuse("operator", `the operator ${op} is not allowed`, where)
      if (body.testexpr) checkExpr(body.testexpr, scopes, walk, where)
      const subquery = body.subselect?.SelectStmt as Node | undefined
      if (!subquery) return notAllowed(Words.node(Object.keys(body.subselect ?? {})[0]), where)
      return checkSelect(subquery, scopes, walk, where)
    }
    case "SortBy": {
      for (const op of strings(body.useOp)) if (!operators.has(op)) refuse("operator", `ORDER BY … USING ${op} is not allowed`, where)
      return checkExpr(body.node, scopes, walk, where)
    }
    case "SQLValueFunction":
      if (!valueFunctions.has(body.op)) notAllowed(Words.valueFunction(body.op), where)
      return
    case "ParamRef":
      if (typeof body.number !== "number" || body.number < 1 || body.number > walk.params) {
        refuse("positional parameter", "positional parameters ($1) are not accepted; use :name", where)
      }
      return
  }
  if (leafNodes.has(type)) return
  const children = plainNodes[type]
  if (children === undefined) return notAllowed(Words.node(type), where)
  for (const [key, child] of Object.entries(body ?? {})) {
    if (!isNode(child)) continue
    if (children.includes(key)) checkExpr(child, scopes, walk, where)
    else notAllowed(Words.field(key), where)
  }
}
