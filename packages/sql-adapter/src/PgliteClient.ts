/**
 * An `@effect/sql` client over PGlite's own API, in process (issue 12 goal 4): the same SQL, the
 * same compiler as `@effect/sql-pg` (placeholders, identifiers, snake/camel transforms), no socket
 * in between. PGlite is one session, so every use of it is serialized: a query outside a
 * transaction holds the session for that statement; a transaction holds it from BEGIN to COMMIT
 * (nested transactions are savepoints on the same session, as in `@effect/sql`).
 *
 * Values behave as they do through node-postgres, so repositories cannot tell the backends apart:
 * parameters are prepared the way `pg` prepares them (dates as ISO text, arrays as array literals,
 * objects as JSON), and `int8` columns arrive as text.
 */
import type { PGlite } from "@electric-sql/pglite"
import * as Client from "@effect/sql/SqlClient"
import type { Connection } from "@effect/sql/SqlConnection"
import { SqlError } from "@effect/sql/SqlError"
import * as Statement from "@effect/sql/Statement"
import * as PgClient from "@effect/sql-pg/PgClient"
import * as Reactivity from "@effect/experimental/Reactivity"
import { Context, Effect, Layer, Stream } from "effect"

const INT8 = 20
/**
 * node-postgres leaves int8 as text (it may not fit a double); so do we. Give these to
 * `PGlite.create` (per query they cost far more than the statement).
 */
export const pgliteParsers = { [INT8]: (value: string) => value }

/** A JS array as a PostgreSQL array literal (node-postgres' `arrayString`). */
const arrayLiteral = (values: ReadonlyArray<unknown>): string =>
  `{${values.map((v) => {
    if (v === null || v === undefined) return "NULL"
    if (Array.isArray(v)) return arrayLiteral(v)
    const text = v instanceof Date ? v.toISOString() : typeof v === "object" && !(v instanceof Uint8Array) ? JSON.stringify(v) : String(v)
    return `"${text.replace(/\\/g, "\\\\").replace(/"/g, "\\\"")}"`
  }).join(",")}}`

/** A parameter as node-postgres would send it (bytes stay bytes: PGlite encodes them). */
const prepare = (value: unknown): unknown => {
  if (value === null || value === undefined) return null
  if (value instanceof Uint8Array) return value
  if (value instanceof Date) return value.toISOString()
  if (Array.isArray(value)) return arrayLiteral(value)
  if (typeof value === "object") return JSON.stringify(value)
  if (typeof value === "bigint") return value.toString()
  return value
}

export interface PgliteClientOptions {
  readonly transformQueryNames?: (s: string) => string
  readonly transformResultNames?: (s: string) => string
  readonly transformJson?: boolean
}

/** The `SqlClient` (and a `PgClient` with the same statements) over one PGlite instance. */
export const makePgliteClient = (db: PGlite, options: PgliteClientOptions) =>
  Effect.gen(function*() {
    const compiler = PgClient.makeCompiler(options.transformQueryNames, options.transformJson)
    const transformRows = options.transformResultNames
      ? Statement.defaultTransforms(options.transformResultNames, options.transformJson).array
      : undefined
    const session = yield* Effect.makeSemaphore(1)

    const failure = (cause: unknown) => new SqlError({ cause, message: "Failed to execute statement" })

    /** One statement on the session (the caller holds it). Without parameters, several statements may be sent at once. */
    const run = (sql: string, params: ReadonlyArray<unknown>, rowMode: "object" | "array" = "object") =>
      Effect.tryPromise({
        try: async (): Promise<ReadonlyArray<any>> => {
          if (params.length === 0 && rowMode === "object") {
            const results = await db.exec(sql)
            return results.length === 1 ? results[0]!.rows : results.map((r) => r.rows)
          }
          const result = await db.query(sql, params.map(prepare), rowMode === "array" ? { rowMode } : undefined)
          return result.rows as ReadonlyArray<any>
        },
        catch: failure
      })

    const connection = (lock: <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>): Connection => {
      const execute = (sql: string, params: ReadonlyArray<unknown>, transform: (<A extends object>(rows: ReadonlyArray<A>) => ReadonlyArray<A>) | undefined) =>
        lock(transform === undefined ? run(sql, params) : Effect.map(run(sql, params), transform))
      return {
        execute,
        executeRaw: (sql, params) => lock(Effect.tryPromise({ try: () => db.query(sql, params.map(prepare)), catch: failure })),
        executeStream: (sql, params, transform) =>
          Stream.fromIterableEffect(execute(sql, params, transform)).pipe(Stream.rechunk(128)),
        executeValues: (sql, params) => lock(run(sql, params, "array")) as Effect.Effect<ReadonlyArray<ReadonlyArray<unknown>>, SqlError>,
        executeUnprepared: execute
      }
    }

    // Outside a transaction: the session for one statement. Inside: held for the whole transaction.
    const single = connection(session.withPermits(1))
    const held = connection((self) => self)
    const client = yield* Client.make({
      acquirer: Effect.succeed(single),
      transactionAcquirer: Effect.as(Effect.acquireRelease(session.take(1), () => session.release(1)), held),
      compiler,
      spanAttributes: [["db.system.name", "postgresql"], ["server.address", "pglite"]],
      transformRows
    })
    // The `PgClient` face (LISTEN/NOTIFY through PGlite's own API, the same JSON fragment).
    const pgJson = Statement.custom<any>("PgJson")
    return Object.assign(client, {
      [PgClient.TypeId]: PgClient.TypeId,
      config: { database: "pglite" },
      json: (value: unknown) => pgJson(value, undefined, undefined),
      listen: (channel: string) =>
        Stream.asyncPush<string, SqlError>((emit) =>
          Effect.acquireRelease(
            Effect.tryPromise({ try: () => db.listen(channel, (payload) => void emit.single(payload)), catch: failure }),
            (unlisten) => Effect.promise(() => unlisten()).pipe(Effect.ignore)
          )),
      notify: (channel: string, payload: string) =>
        Effect.asVoid(client`select pg_notify(${channel}, ${payload})`)
    }) as unknown as PgClient.PgClient
  })

/** The layer: `SqlClient` and `PgClient` over PGlite (opened by `open`, closed with the layer). */
export const PgliteClientLayer = <E>(open: Effect.Effect<PGlite, E, import("effect").Scope.Scope>, options: PgliteClientOptions) =>
  Layer.scopedContext(Effect.gen(function*() {
    const client = yield* makePgliteClient(yield* open, options)
    return Context.make(PgClient.PgClient, client).pipe(Context.add(Client.SqlClient, client))
  })).pipe(Layer.provide(Reactivity.layer))
