/**
 * The SQL words for what the allow-list walk (SqlWalk.ts) refuses: its refusals name the construct
 * as the caller wrote it (`FOR UPDATE`, `LATERAL`, `INSERT`, `COLLATE`), never by the parser's
 * node or field names (`LockingClause`, `NamedArgExpr`, `frameOptions`). A name missing from the
 * tables below still reads as words (`readable`): PascalCase, camelCase and snake_case are split
 * and lowercased, enum prefixes (`AEXPR_`, `SVFOP_`, …) dropped.
 */

type Node = Record<string, any>

/** `CreateTableSpaceStmt` → `create table space stmt`; `A_ArrayExpr` → `array expr`; `agg_filter` → `agg filter`. */
export const readable = (name: string | undefined): string => {
  if (name === undefined || name === "") return "this construct"
  const words = name
    .replace(/^A_/, "")
    .replace(/_/g, " ")
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .toLowerCase()
    .trim()
  return words === "" ? "this construct" : words
}

// ---------------------------------------------------------------------------------------------
// Statements other than SELECT

const statements: Record<string, string> = {
  InsertStmt: "INSERT",
  UpdateStmt: "UPDATE",
  DeleteStmt: "DELETE",
  MergeStmt: "MERGE",
  CopyStmt: "COPY",
  DoStmt: "DO",
  CallStmt: "CALL",
  ExplainStmt: "EXPLAIN",
  PrepareStmt: "PREPARE",
  ExecuteStmt: "EXECUTE",
  DeallocateStmt: "DEALLOCATE",
  VariableShowStmt: "SHOW",
  TruncateStmt: "TRUNCATE",
  LockStmt: "LOCK",
  ListenStmt: "LISTEN",
  UnlistenStmt: "UNLISTEN",
  NotifyStmt: "NOTIFY",
  LoadStmt: "LOAD",
  CheckPointStmt: "CHECKPOINT",
  DiscardStmt: "DISCARD",
  DeclareCursorStmt: "DECLARE CURSOR",
  ClosePortalStmt: "CLOSE",
  RefreshMatViewStmt: "REFRESH MATERIALIZED VIEW",
  ReindexStmt: "REINDEX",
  ClusterStmt: "CLUSTER",
  CommentStmt: "COMMENT",
  SecLabelStmt: "SECURITY LABEL",
  AlterSystemStmt: "ALTER SYSTEM",
  ConstraintsSetStmt: "SET CONSTRAINTS",
  CreateStmt: "CREATE TABLE",
  CreateTableAsStmt: "CREATE TABLE AS",
  ViewStmt: "CREATE VIEW",
  IndexStmt: "CREATE INDEX",
  CreateSeqStmt: "CREATE SEQUENCE",
  AlterSeqStmt: "ALTER SEQUENCE",
  CreatedbStmt: "CREATE DATABASE",
  DropdbStmt: "DROP DATABASE",
  CreateTrigStmt: "CREATE TRIGGER",
  CreatePLangStmt: "CREATE LANGUAGE",
  CreateFdwStmt: "CREATE FOREIGN DATA WRAPPER",
  DefineStmt: "CREATE",
  DropStmt: "DROP",
  DropOwnedStmt: "DROP OWNED",
  ReassignOwnedStmt: "REASSIGN OWNED",
  RenameStmt: "ALTER … RENAME",
  AlterOwnerStmt: "ALTER … OWNER",
  AlterObjectSchemaStmt: "ALTER … SET SCHEMA",
  RuleStmt: "CREATE RULE",
  ReturnStmt: "RETURN",
  PLAssignStmt: "an assignment"
}

const transactionKinds: Record<string, string> = {
  TRANS_STMT_BEGIN: "BEGIN",
  TRANS_STMT_START: "START TRANSACTION",
  TRANS_STMT_COMMIT: "COMMIT",
  TRANS_STMT_ROLLBACK: "ROLLBACK",
  TRANS_STMT_SAVEPOINT: "SAVEPOINT",
  TRANS_STMT_RELEASE: "RELEASE SAVEPOINT",
  TRANS_STMT_ROLLBACK_TO: "ROLLBACK TO SAVEPOINT",
  TRANS_STMT_PREPARE: "PREPARE TRANSACTION",
  TRANS_STMT_COMMIT_PREPARED: "COMMIT PREPARED",
  TRANS_STMT_ROLLBACK_PREPARED: "ROLLBACK PREPARED"
}

/** The SQL command a statement node is (`DeleteStmt` → `DELETE`); unknown ones from their node name (`AlterTableStmt` → `ALTER TABLE`). */
export const statement = (type: string | undefined, body: Node | undefined): string => {
  switch (type) {
    case "TransactionStmt":
      return transactionKinds[body?.kind] ?? "a transaction command"
    case "VariableSetStmt":
      return body?.kind === "VAR_RESET" || body?.kind === "VAR_RESET_ALL" ? "RESET" : "SET"
    case "VacuumStmt":
      return body?.is_vacuumcmd ? "VACUUM" : "ANALYZE"
    case "GrantStmt":
    case "GrantRoleStmt":
      return body?.is_grant ? "GRANT" : "REVOKE"
    case "FetchStmt":
      return body?.ismove ? "MOVE" : "FETCH"
  }
  if (type !== undefined && statements[type] !== undefined) return statements[type]
  return readable(type?.replace(/Stmt$/, "")).toUpperCase()
}

// ---------------------------------------------------------------------------------------------
// Expressions, FROM items and clauses

/** Node types the walk refuses wherever they stand, as SQL words (said with "is not allowed"). */
const nodes: Record<string, string> = {
  A_Indirection: "a subscript or field selection (x[1], (x).f)",
  A_Indices: "an array subscript",
  A_ArrayExpr: "ARRAY[…]",
  RowExpr: "a row constructor (ROW(…) or (a, b))",
  CollateClause: "COLLATE",
  GroupingFunc: "GROUPING(…)",
  MergeSupportFunc: "MERGE_ACTION()",
  SetToDefault: "DEFAULT",
  CurrentOfExpr: "WHERE CURRENT OF",
  MultiAssignRef: "a multiple-column assignment",
  XmlExpr: "an XML function",
  XmlSerialize: "XMLSERIALIZE",
  JsonIsPredicate: "IS JSON",
  JsonObjectConstructor: "JSON_OBJECT",
  JsonArrayConstructor: "JSON_ARRAY",
  JsonArrayQueryConstructor: "JSON_ARRAY(subquery)",
  JsonObjectAgg: "JSON_OBJECTAGG",
  JsonArrayAgg: "JSON_ARRAYAGG",
  JsonFuncExpr: "an SQL/JSON query function (JSON_VALUE, JSON_QUERY, JSON_EXISTS)",
  JsonParseExpr: "JSON(…)",
  JsonScalarExpr: "JSON_SCALAR",
  JsonSerializeExpr: "JSON_SERIALIZE",
  RangeFunction: "a function in FROM",
  RangeTableSample: "TABLESAMPLE",
  RangeTableFunc: "XMLTABLE",
  JsonTable: "JSON_TABLE",
  NamedArgExpr: "a named argument (name => value) outside a function call",
  TypeCast: "a cast",
  ParamRef: "a positional parameter ($1)"
}

/** A node type as SQL words. */
export const node = (type: string | undefined): string => (type !== undefined ? nodes[type] : undefined) ?? readable(type)

/** Fields of the parse tree the walk may refuse, as SQL words (said with "is not allowed"). */
const fields: Record<string, string> = {
  distinctClause: "DISTINCT",
  intoClause: "SELECT INTO",
  lockingClause: "FOR UPDATE/SHARE",
  windowClause: "WINDOW",
  partitionClause: "PARTITION BY",
  orderClause: "ORDER BY in a window",
  frameOptions: "a window frame",
  startOffset: "a window frame start",
  endOffset: "a window frame end",
  sortClause: "ORDER BY",
  groupClause: "GROUP BY",
  havingClause: "HAVING",
  whereClause: "WHERE",
  limitCount: "LIMIT",
  limitOffset: "OFFSET",
  valuesLists: "VALUES",
  withClause: "WITH",
  targetList: "the select list",
  fromClause: "FROM",
  agg_filter: "FILTER (WHERE …)",
  agg_order: "ORDER BY inside an aggregate",
  over: "OVER",
  indirection: "a subscript or field selection (x[1], (x).f)",
  arrayBounds: "an array type",
  search_clause: "SEARCH (in WITH)",
  cycle_clause: "CYCLE (in WITH)",
  returningList: "RETURNING",
  returningClause: "RETURNING",
  useOp: "ORDER BY … USING",
  typmods: "a type modifier",
  collClause: "COLLATE",
  lockedRels: "FOR UPDATE OF",
  coldeflist: "a column definition list",
  usingClause: "USING (…)"
}

/** A parse-tree field as SQL words. */
export const field = (name: string): string => fields[name] ?? readable(name)

const lockStrengths: Record<string, string> = {
  LCS_FORUPDATE: "FOR UPDATE",
  LCS_FORNOKEYUPDATE: "FOR NO KEY UPDATE",
  LCS_FORSHARE: "FOR SHARE",
  LCS_FORKEYSHARE: "FOR KEY SHARE"
}

/** A row-locking clause (`LockingClause.strength`) as SQL words. */
export const lockStrength = (strength: unknown): string =>
  lockStrengths[String(strength)] ?? "FOR UPDATE/SHARE"

const exprKinds: Record<string, string> = {
  AEXPR_OP_ANY: "ANY/SOME (array)",
  AEXPR_OP_ALL: "ALL (array)",
  AEXPR_SIMILAR: "SIMILAR TO",
  AEXPR_PAREN: "a parenthesized operator expression"
}

/** An operator expression's kind (`A_Expr.kind`) as SQL words. */
export const exprKind = (kind: unknown): string =>
  exprKinds[String(kind)] ?? readable(String(kind).replace(/^AEXPR_/, "").toLowerCase())

const subLinkKinds: Record<string, string> = {
  ARRAY_SUBLINK: "ARRAY(subquery)",
  ROWCOMPARE_SUBLINK: "a row comparison with a subquery",
  MULTIEXPR_SUBLINK: "a multiple-column subquery assignment",
  CTE_SUBLINK: "a subquery of this kind"
}

/** A subquery's kind (`SubLink.subLinkType`) as SQL words. */
export const subLinkKind = (kind: unknown): string =>
  subLinkKinds[String(kind)] ?? `${readable(String(kind).replace(/_SUBLINK$/, "").toLowerCase())} subquery`

/** `SQLValueFunction.op` as the keyword written (`SVFOP_CURRENT_USER` → `CURRENT_USER`). */
export const valueFunction = (op: unknown): string => {
  const keyword = String(op).replace(/^SVFOP_/, "").replace(/_N$/, "")
  return /^[A-Z_]+$/.test(keyword) ? keyword : "this value function"
}

const syntaxFunctions: Record<string, string> = {
  overlay: "OVERLAY(…)",
  normalize: "NORMALIZE(…)",
  is_normalized: "IS NORMALIZED",
  pg_collation_for: "COLLATION FOR (…)",
  system_user: "SYSTEM_USER",
  like_escape: "LIKE … ESCAPE",
  similar_to_escape: "SIMILAR TO … ESCAPE",
  xmlexists: "XMLEXISTS(…)",
  timezone: "AT TIME ZONE",
  extract: "EXTRACT(… FROM …)",
  substring: "SUBSTRING(…)",
  position: "POSITION(… IN …)",
  btrim: "TRIM(…)",
  ltrim: "TRIM(LEADING …)",
  rtrim: "TRIM(TRAILING …)"
}

/** A function call PostgreSQL's grammar wrote for an SQL-syntax form (`pg_catalog.overlay`), as that syntax. */
export const syntaxFunction = (name: string): string => syntaxFunctions[name] ?? `${name.toUpperCase()}(…)`
