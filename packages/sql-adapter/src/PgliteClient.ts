/**
 * An `@effect/sql` client over PGlite's own API, in process (issue 12 goal 4): the same SQL, the
 * same compiler as `@effect/sql-pg` (placeholders, identifiers, snake/camel transforms), no socket
 * in between. PGlite is one session, so every use of it is serialized: a query outside a
 * transaction holds the session for that statement; a transaction holds it from BEGIN to COMMIT
 * (nested transactions are savepoints on the same session, as in `@effect/sql`).
 *
 * Statements run as on PostgreSQL (PostgresClient.ts): lean (LeanStatements.ts: no span, scope or
 * acquirer per statement unless a tracer exports), and a hot statement (a text with parameters
 * seen twice) becomes a named prepared statement of the session: parsed and described once, then
 * each execution is one Bind/Execute/Sync exchange with the database instead of PGlite's six
 * (Parse, Describe, Bind, Describe, Execute, Sync), and is not planned again. A plan invalidated
 * by a schema change (0A000) is prepared again under a new name.
 *
 * Values behave as they do through node-postgres, so repositories cannot tell the backends apart:
 * parameters are prepared the way `pg` prepares them (dates as ISO text, arrays as array literals,
 * objects as JSON), and `int8` columns arrive as text.
 */
import { parse, type PGlite, protocol } from "@electric-sql/pglite"
import * as Client from "@effect/sql/SqlClient"
import type { Connection } from "@effect/sql/SqlConnection"
import { SqlError } from "@effect/sql/SqlError"
import * as PgClient from "@effect/sql-pg/PgClient"
import * as Reactivity from "@effect/experimental/Reactivity"
import { Context, Effect, Layer, Stream } from "effect"
import { isInvalidatedPlan, makeLeanClient, makePgCompiler, pgJson, preparedNames, rowTransform } from "./LeanStatements.js"

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
  /** How many statement texts may become named prepared statements (0: none). Default 500. */
  readonly preparedStatements?: number
}

type Message = Awaited<ReturnType<PGlite["execProtocol"]>>["messages"][number]

/** A prepared statement of the session: its parameters' types and its result's description. */
interface Described {
  readonly paramTypes: ReadonlyArray<number>
  readonly rowDescription: Message | undefined
}

const concat = (parts: ReadonlyArray<Uint8Array>): Uint8Array => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0))
  let at = 0
  for (const p of parts) {
    out.set(p, at)
    at += p.length
  }
  return out
}

/** The `SqlClient` (and a `PgClient` with the same statements) over one PGlite instance. */
export const makePgliteClient = (db: PGlite, options: PgliteClientOptions) =>
  Effect.gen(function*() {
    const compiler = makePgCompiler(options.transformQueryNames, options.transformJson)
    const transformRows = rowTransform(options)
    const session = yield* Effect.makeSemaphore(1)
    const prepared = preparedNames(options.preparedStatements ?? 500)
    const described = new Map<string, Described>()
    const { serialize } = protocol

    const failure = (cause: unknown) => new SqlError({ cause, message: "Failed to execute statement" })

    /** A parameter as PGlite's `query` sends it for a parameter of type `oid`. */
    const serializeParam = (value: unknown, oid: number | undefined): string | null => {
      const v = prepare(value)
      if (v === null) return null
      const serializer = oid === undefined ? undefined : db.serializers[oid]
      return serializer ? serializer(v) : String(v)
    }

    /**
     * A hot statement on the session's named prepared statement `name` (prepared on first use):
     * one Bind/Execute/Sync exchange; the rows parsed with the description kept from preparing it.
     */
    const runNamed = (name: string, sql: string, params: ReadonlyArray<unknown>, rowMode: "object" | "array") =>
      db.runExclusive(async () => {
        let statement = described.get(name)
        if (statement === undefined) {
          const answer = await db.execProtocol(
            concat([serialize.parse({ name, text: sql }), serialize.describe({ type: "S", name }), serialize.sync()]),
            { syncToFs: false }
          )
          statement = {
            paramTypes: parse.parseDescribeStatementResults(answer.messages),
            rowDescription: answer.messages.find((m) => m.name === "rowDescription")
          }
          described.set(name, statement)
        }
        const values = params.map((p, i) => serializeParam(p, statement.paramTypes[i]))
        const answer = await db.execProtocol(concat([serialize.bind({ statement: name, values }), serialize.execute({}), serialize.sync()]))
        const messages = statement.rowDescription === undefined ? answer.messages : [statement.rowDescription, ...answer.messages]
        return parse.parseResults(messages, db.parsers, rowMode === "array" ? { rowMode } : undefined)[0]!.rows as ReadonlyArray<any>
      })

    /**
     * One statement on the session (the caller holds it). Without parameters, several statements
     * may be sent at once. `retry`: outside a transaction, a statement whose prepared plan a schema
     * change invalidated runs again (inside one, the error aborted the transaction: it fails).
     */
    const run = (sql: string, params: ReadonlyArray<unknown>, rowMode: "object" | "array", mayPrepare: boolean, retry: boolean) =>
      Effect.tryPromise({
        try: async (): Promise<ReadonlyArray<any>> => {
          if (params.length === 0 && rowMode === "object") {
            const results = await db.exec(sql)
            return results.length === 1 ? results[0]!.rows : results.map((r) => r.rows)
          }
          const name = mayPrepare && params.length > 0 ? prepared.nameOf(sql) : undefined
          if (name !== undefined) {
            try {
              return await runNamed(name, sql, params, rowMode)
            } catch (error) {
              if (!isInvalidatedPlan(error)) throw error
              prepared.forget(sql)
              described.delete(name)
              if (!retry) throw error
            }
          }
          const result = await db.query(sql, params.map(prepare), rowMode === "array" ? { rowMode } : undefined)
          return result.rows as ReadonlyArray<any>
        },
        catch: failure
      })

    const connection = (lock: <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>, retry: boolean): Connection => {
      const execute = (sql: string, params: ReadonlyArray<unknown>, transform: (<A extends object>(rows: ReadonlyArray<A>) => ReadonlyArray<A>) | undefined, mayPrepare = true) =>
        lock(transform === undefined ? run(sql, params, "object", mayPrepare, retry) : Effect.map(run(sql, params, "object", mayPrepare, retry), transform))
      return {
        execute: (sql, params, transform) => execute(sql, params, transform),
        executeRaw: (sql, params) => lock(Effect.tryPromise({ try: () => db.query(sql, params.map(prepare)), catch: failure })),
        executeStream: (sql, params, transform) =>
          Stream.fromIterableEffect(execute(sql, params, transform)).pipe(Stream.rechunk(128)),
        executeValues: (sql, params) => lock(run(sql, params, "array", true, retry)) as Effect.Effect<ReadonlyArray<ReadonlyArray<unknown>>, SqlError>,
        executeUnprepared: (sql, params, transform) => execute(sql, params, transform, false)
      }
    }

    // Outside a transaction: the session for one statement. Inside: held for the whole transaction.
    const single = connection(session.withPermits(1), true)
    const held = connection((self) => self, false)
    const client = yield* makeLeanClient({
      connection: single,
      transactionAcquirer: Effect.as(Effect.acquireRelease(session.take(1), () => session.release(1)), held),
      compiler,
      spanAttributes: [["db.system.name", "postgresql"], ["server.address", "pglite"]],
      transformRows
    })
    // The `PgClient` face (LISTEN/NOTIFY through PGlite's own API, the same JSON fragment).
    return Object.assign(client, {
      [PgClient.TypeId]: PgClient.TypeId,
      config: { database: "pglite" },
      json: pgJson,
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
