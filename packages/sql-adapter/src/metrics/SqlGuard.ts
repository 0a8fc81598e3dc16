/**
 * Defence layer (a) of the SQL query operation (docs/sql-query.md): PostgreSQL's own parser
 * (libpg_query, the server's grammar compiled to WASM) reads the caller's SQL, and an allow-list
 * walk over its parse tree (SqlWalk.ts) accepts one `SELECT` (or `WITH … SELECT`) over
 * `message_events` / `call_events` and the functions, operators and casts of core's `SqlSurface`
 * — anything else is refused, named in SQL words (SqlWords.ts), at its position. Also the
 * parameter binding (`:name` → `$n`, found with the same library's scanner so that `:` inside
 * strings and comments is left alone).
 *
 * Positions are 1-based characters (code points) of the caller's `sql`, as PostgreSQL counts them.
 */
import { MetricsQueryInvalid } from "@switchboard/core/metrics"
import { Effect } from "effect"
import { checkStatement, type Node, Refused } from "./SqlWalk.js"

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
    // Without details the library's own message is about its internals (a JSON error, say), not the SQL.
    : new MetricsQueryInvalid({ message: "the SQL could not be read", construct: "syntax" })
}

/** `:name` → `$n` by the scanner's tokens; values in order of first use. */
export const bindParameters = (
  parser: PgParser,
  sql: string,
  parameters: Readonly<Record<string, string>>
): Effect.Effect<BoundQuery, MetricsQueryInvalid> =>
  Effect.suspend(() => {
    if (sql.trim() === "") return Effect.fail(new MetricsQueryInvalid({ message: "the SQL holds no statement", construct: "empty" }))
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
      return fail("multiple statements", "more than one statement is not allowed; send exactly one", tree.stmts[1]!.stmt_location ?? undefined)
    }
    let tokens: ReadonlyArray<ScanToken> | undefined
    /** For clauses the parser gives no location: the first of the keyword sequences at or after `from`. */
    const keyword = (sequences: ReadonlyArray<ReadonlyArray<string>>, from: number | undefined) => {
      try {
        tokens ??= parser.scanSync(bound.text).tokens
      } catch {
        return from
      }
      const found = tokens.findIndex((token, i) =>
        token.start >= (from ?? 0) && sequences.some((words) => words.every((w, j) => tokens![i + j]?.text.toLowerCase() === w))
      )
      return found < 0 ? from : tokens[found]!.start
    }
    try {
      checkStatement(tree.stmts[0]!.stmt, tree.stmts[0]!.stmt_location ?? 0, { relations: 0, params: bound.values.length, keyword })
      return Effect.void
    } catch (e) {
      if (e instanceof Refused) return fail(e.construct, e.message, e.location)
      throw e
    }
  })
