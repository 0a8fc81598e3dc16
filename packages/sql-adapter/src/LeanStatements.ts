/**
 * An `@effect/sql` client whose statements run straight on a connection (issue 12 goal 4). The
 * stock statement wraps every execution in a span (`sql.execute`), reads the statement transformer,
 * opens and closes an Effect scope around the connection it acquires, and only then runs; together
 * that cost more than the driver itself. Here a statement looks at its fiber once: inside
 * `withTransaction` it runs on the transaction's connection, otherwise on the client's own, with no
 * scope, no span and no acquirer in between.
 *
 * Observability is kept where someone looks: when the tracer is enabled AND is not Effect's
 * built-in in-memory one (an exporter is configured), or a statement transformer is set
 * (`Statement.withTransformer`), the statement takes the stock path, span and all.
 *
 * Everything else is `@effect/sql`'s own: the statement API (helpers, fragments, compiler),
 * `withTransaction` (BEGIN, savepoints when nested, rollback on failure, defect or interrupt),
 * `reserve`, `reactive`.
 */
import type * as Reactivity from "@effect/experimental/Reactivity"
import * as Client from "@effect/sql/SqlClient"
import type { Connection } from "@effect/sql/SqlConnection"
import type { SqlError } from "@effect/sql/SqlError"
import * as Statement from "@effect/sql/Statement"
import { Context, Effect, FiberRef, Option, Tracer } from "effect"
import type * as Fiber from "effect/Fiber"
import type { Scope } from "effect/Scope"

/** Effect's default tracer: spans that go nowhere (no exporter). */
const builtInTracer = Effect.runSync(Effect.tracer)

/** Whether a statement run by this fiber must take the stock, traced path. */
const stockPath = (fiber: Fiber.RuntimeFiber<unknown, unknown>): boolean =>
  (fiber.getFiberRef(FiberRef.currentTracerEnabled) &&
    Context.get(fiber.currentDefaultServices, Tracer.Tracer) !== builtInTracer) ||
  Option.isSome(fiber.getFiberRef(Statement.currentTransformer))

type Rows = ReadonlyArray<any>

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

/** The row transform of `@effect/sql` (result names, and JSON values when `transformJson`), with memoised names. */
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
  readonly spanAttributes: ReadonlyArray<readonly [string, unknown]>
  readonly transformRows: (<A extends object>(rows: ReadonlyArray<A>) => ReadonlyArray<A>) | undefined
}

/** The statement object `@effect/sql` builds, as far as this module uses it. */
interface Primitive {
  readonly segments: ReadonlyArray<Statement.Segment>
  readonly acquirer: Effect.Effect<Connection, SqlError, Scope>
  readonly compiler: Statement.Compiler
  readonly spanAttributes: ReadonlyArray<readonly [string, unknown]>
  readonly transformRows: (<A extends object>(rows: ReadonlyArray<A>) => ReadonlyArray<A>) | undefined
  compile(withoutTransform?: boolean): readonly [string, ReadonlyArray<unknown>]
  commit(): Effect.Effect<Rows, SqlError>
}

/**
 * The SqlClient: `@effect/sql`'s client (`Client.make`) whose statement constructor (the tagged
 * template and `unsafe`) builds lean statements instead.
 */
export const makeLeanClient = (options: LeanClientOptions): Effect.Effect<Client.SqlClient, never, Reactivity.Reactivity> =>
  Effect.gen(function*() {
    const stock = yield* Client.make({
      acquirer: Effect.succeed(options.connection),
      transactionAcquirer: options.transactionAcquirer,
      compiler: options.compiler,
      spanAttributes: options.spanAttributes,
      transformRows: options.transformRows
    })
    // The statement class of @effect/sql (not exported): taken from a statement it made.
    const StockStatement = Object.getPrototypeOf(stock.unsafe("select 1")).constructor as new(
      segments: Primitive["segments"],
      acquirer: Primitive["acquirer"],
      compiler: Primitive["compiler"],
      spanAttributes: Primitive["spanAttributes"],
      transformRows: Primitive["transformRows"]
    ) => Primitive
    const stockGetter = (name: "values" | "unprepared" | "raw" | "withoutTransform") =>
      Object.getOwnPropertyDescriptor(StockStatement.prototype, name)!.get!

    /** The connection a statement of this fiber runs on: the transaction's, or the client's. */
    const connectionOf = (fiber: Fiber.RuntimeFiber<unknown, unknown>): Connection => {
      const tx = Context.getOption(fiber.currentContext, Client.TransactionConnection)
      return tx._tag === "Some" ? tx.value[0] : options.connection
    }

    const lean = <A>(
      self: Primitive,
      stockRun: () => Effect.Effect<A, SqlError>,
      run: (connection: Connection, self: Primitive) => Effect.Effect<A, SqlError>
    ): Effect.Effect<A, SqlError> =>
      Effect.withFiberRuntime<A, SqlError>((fiber) => stockPath(fiber) ? stockRun() : run(connectionOf(fiber), self))

    class LeanStatement extends StockStatement {
      override commit(): Effect.Effect<Rows, SqlError> {
        return lean(this, () => super.commit(), (connection, self) => {
          const [sql, params] = self.compile()
          return connection.execute(sql, params, self.transformRows)
        })
      }
      get values(): Effect.Effect<ReadonlyArray<ReadonlyArray<unknown>>, SqlError> {
        return lean(this, () => stockGetter("values").call(this), (connection, self) => {
          const [sql, params] = self.compile()
          return connection.executeValues(sql, params)
        })
      }
      get unprepared(): Effect.Effect<Rows, SqlError> {
        return lean(this, () => stockGetter("unprepared").call(this), (connection, self) => {
          const [sql, params] = self.compile()
          return connection.executeUnprepared(sql, params, self.transformRows)
        })
      }
      get raw(): Effect.Effect<unknown, SqlError> {
        return lean(this, () => stockGetter("raw").call(this), (connection, self) => {
          const [sql, params] = self.compile(true)
          return connection.executeRaw(sql, params)
        })
      }
      get withoutTransform(): Effect.Effect<Rows, SqlError> {
        return lean(this, () => stockGetter("withoutTransform").call(this), (connection, self) => {
          const [sql, params] = self.compile(true)
          return connection.execute(sql, params, undefined)
        })
      }
    }

    /** A stock constructor's statements, made lean (identifiers and fragments pass through). */
    const leanConstructor = (base: Client.SqlClient) => {
      const toLean = (s: unknown) => {
        if (!(s instanceof StockStatement)) return s
        const p = s as Primitive
        return new LeanStatement(p.segments, p.acquirer, p.compiler, p.spanAttributes, p.transformRows)
      }
      const sql = function(this: unknown, strings: unknown, ...args: Array<unknown>) {
        return toLean((base as any)(strings, ...args))
      }
      return Object.assign(sql, base, {
        unsafe: (text: string, params?: ReadonlyArray<unknown>) => toLean(base.unsafe(text, params))
      }) as unknown as Client.SqlClient
    }

    const bare = leanConstructor(stock.withoutTransforms())
    Object.assign(bare, { safe: bare, withoutTransforms: () => bare })
    const client = leanConstructor(stock)
    Object.assign(client, { safe: client, withoutTransforms: () => options.transformRows === undefined ? client : bare })
    return client
  })

/** `PgClient.json(value)`: the fragment the compiler below binds as JSON text. */
const PgJson = Statement.custom<Statement.Custom<"PgJson", unknown>>("PgJson")
export const pgJson = (value: unknown): Statement.Fragment => PgJson(value, undefined, undefined)

const escapeIdentifier = Statement.defaultEscape("\"")

/**
 * `@effect/sql-pg`'s compiler (placeholders `$n`, quoted identifiers, `update … from (values …)`),
 * except that a JSON parameter (`pgJson`) is bound as its JSON text. The stock one hands the driver
 * the value itself, and the driver (node-postgres, and our PGlite client, which prepares values the
 * same way) sends a JS array as a PostgreSQL array literal (`{"a","b"}`): a JSON array (or string)
 * parameter failed with "invalid input syntax for type json" on both backends. A JSON `null` or
 * `undefined` stays SQL NULL, as before.
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
      const value = withoutTransform || transformValue === undefined ? type.i0 : transformValue(type.i0)
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
