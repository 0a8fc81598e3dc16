/**
 * The `effect/sql` client our two PostgreSQL clients share: statements run
 * straight on a connection. A statement outside a transaction borrows the client's own connection
 * for its round trip (`SqlClient.make`'s `borrower`: no Effect scope, no acquirer in between);
 * inside `withTransaction` it runs on the transaction's connection.
 *
 * Everything else is `effect/sql`'s own: the statement API (helpers, fragments, compiler, spans,
 * `Statement.CurrentTransformer`), `withTransaction` (BEGIN, savepoints when nested, rollback on
 * failure, defect or interrupt), `reserve`, `reactive` — except that a transaction the database's
 * outage cut short dies as `DatabaseUnavailable` (see `outageEndsTransaction`).
 */
import type * as Reactivity from "effect/reactivity/Reactivity"
import * as Client from "effect/sql/SqlClient"
import type { Connection } from "effect/sql/SqlConnection"
import type { SqlError } from "effect/sql/SqlError"
import * as Statement from "effect/sql/Statement"
import { Cause, Effect } from "effect"
import type { Scope } from "effect/Scope"
import { asDefect, databaseOutage } from "./shared/DatabaseOutage.js"

/**
 * `transform` remembered per input (column names repeat on every row of every result). Bounded: past
 * `max` distinct names the memory is dropped and starts again.
 */
export const memoized = (transform: (s: string) => string, max = 4096): (s: string) => string => {
  let memory = new Map<string, string>()
  return (s) => {
    let out = memory.get(s)
    if (out === undefined) {
      out = transform(s)
      if (memory.size >= max) memory = new Map()
      memory.set(s, out)
    }
    return out
  }
}

/** The row transform of `effect/sql` (result names, and JSON values when `transformJson`), with memoised names. */
export const rowTransform = (options: {
  readonly transformResultNames?: ((s: string) => string) | undefined
  readonly transformJson?: boolean | undefined
}) =>
  options.transformResultNames
    ? Statement.defaultTransforms(memoized(options.transformResultNames), options.transformJson).array
    : undefined

export interface LeanClientOptions {
  /** Where a statement outside a transaction runs. */
  readonly connection: Connection
  /** A connection held for one transaction (or `reserve`), released when its scope closes. */
  readonly transactionAcquirer: Effect.Effect<Connection, SqlError, Scope>
  readonly compiler: Statement.Compiler
  /** `SqlClient.driver`. */
  readonly driver: string
  readonly spanAttributes: ReadonlyArray<readonly [string, unknown]>
  readonly transformRows: (<A extends object>(rows: ReadonlyArray<A>) => ReadonlyArray<A>) | undefined
}

/**
 * When the connection is lost inside a transaction, `effect/sql`'s ROLLBACK (or the cleanup of a
 * failed COMMIT) fails too, and it raises that as a defect: the raw `SqlError` of the dead
 * connection, beside the body's own failure. Such a cause — a defect, with an outage among its
 * failures or defects — dies as one `DatabaseUnavailable` (the request gets 503 with Retry-After,
 * never 500): the transaction is lost with its connection, whatever its body said. A cause with
 * failures only is left as it is (repositories map those themselves).
 */
export const outageEndsTransaction = <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.catchCause(self, (cause) => {
    if (!cause.reasons.some(Cause.isDieReason)) return Effect.failCause(cause)
    for (const r of cause.reasons) {
      const error = Cause.isDieReason(r) ? r.defect : Cause.isFailReason(r) ? r.error : undefined
      if (error !== undefined && databaseOutage(error) !== undefined) return Effect.die(asDefect(error))
    }
    return Effect.failCause(cause)
  })

/** The `SqlClient` whose statements outside a transaction borrow `options.connection`. */
export const makeLeanClient = (options: LeanClientOptions): Effect.Effect<Client.SqlClient, never, Reactivity.Reactivity> =>
  Effect.map(
    Client.make({
      acquirer: Effect.succeed(options.connection),
      borrower: (f) => f(options.connection),
      transactionAcquirer: options.transactionAcquirer,
      compiler: options.compiler,
      driver: options.driver,
      spanAttributes: options.spanAttributes,
      transformRows: options.transformRows
    }),
    (client) => {
      const withTransaction = client.withTransaction
      // `withoutTransforms()` copies the client's fields, this one included.
      ;(client as { withTransaction: Client.SqlClient["withTransaction"] }).withTransaction = (self) =>
        outageEndsTransaction(withTransaction(self))
      return client
    }
  )

/** `PgClient.json(value)`: the fragment the compiler below binds as JSON text. */
const PgJson = Statement.custom<Statement.Custom<"PgJson", unknown>>("PgJson")
export const pgJson = (value: unknown): Statement.Fragment => Statement.fragment([PgJson(value)])

const escapeIdentifier = Statement.defaultEscape("\"")

/**
 * The PostgreSQL compiler of `@effect/sql-pg` (placeholders `$n`, quoted identifiers,
 * `update … from (values …)`), except that a JSON parameter (`pgJson`) is bound as its JSON text:
 * that one binds a typed value of its own wire protocol, and the value itself, handed to our
 * drivers (node-postgres, and our PGlite client, which prepares values the same way), would go out
 * as a PostgreSQL array literal (`{"a","b"}`) for a JS array — "invalid input syntax for type
 * json" on both backends. A JSON `null` or `undefined` stays SQL NULL.
 */
export const makePgCompiler = (transform?: (s: string) => string, transformJson = true): Statement.Compiler => {
  const transformValue = transformJson && transform ? Statement.defaultTransforms(transform).value : undefined
  return Statement.makeCompiler<Statement.Custom<"PgJson", unknown>>({
    dialect: "pg",
    placeholder: (i) => `$${i}`,
    onIdentifier: transform
      ? (value, withoutTransform) => withoutTransform ? escapeIdentifier(value) : escapeIdentifier(transform(value))
      : escapeIdentifier,
    onRecordUpdate: (placeholders, valueAlias, valueColumns, values, returning) => [
      `(values ${placeholders}) AS ${valueAlias}${valueColumns}${returning ? ` RETURNING ${returning[0]}` : ""}`,
      returning ? values.flat().concat(returning[1]) : values.flat()
    ],
    onCustom: (type, placeholder, withoutTransform) => {
      const value = withoutTransform || transformValue === undefined ? type.paramA : transformValue(type.paramA)
      return [placeholder(undefined), [value === null || value === undefined ? null : JSON.stringify(value)]]
    }
  })
}

/**
 * Names for hot statement texts: a text is named the second time it is seen (one-off texts such
 * as DDL or variable-length batches never take a slot), at most `capacity` names in all.
 */
export const preparedNames = (capacity: number) => {
  const names = new Map<string, string>()
  let seenOnce = new Set<string>()
  let counter = 0
  return {
    nameOf: (text: string): string | undefined => {
      if (capacity <= 0) return undefined
      const name = names.get(text)
      if (name !== undefined || names.size >= capacity) return name
      if (!seenOnce.has(text)) {
        if (seenOnce.size >= 4 * capacity) seenOnce = new Set()
        seenOnce.add(text)
        return undefined
      }
      seenOnce.delete(text)
      const fresh = `sb_${(counter++).toString(36)}`
      names.set(text, fresh)
      return fresh
    },
    /** The server's plan of `text` no longer fits (schema change): the next use prepares it afresh. */
    forget: (text: string) => void names.delete(text)
  }
}

/** The server's plan of a named statement no longer fits its result (0A000, a schema change). */
export const isInvalidatedPlan = (error: unknown): boolean =>
  typeof error === "object" && error !== null && (error as { code?: unknown }).code === "0A000" &&
  /cached plan must not change result type/.test(String((error as { message?: unknown }).message))
