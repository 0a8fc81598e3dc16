/**
 * An `effect/sql` client over the embedded PGlite (PgliteThread.ts: its own worker thread): the
 * same SQL, the same PostgreSQL compiler as PostgresClient.ts (placeholders, identifiers,
 * snake/camel transforms), no socket in between. PGlite is one session, so every use of it is
 * serialized: a query outside a transaction holds the session for that statement; a transaction
 * holds it from BEGIN to COMMIT (nested transactions are savepoints on the same session, as in
 * `effect/sql`).
 *
 * Statements run as on PostgreSQL (PostgresClient.ts): lean (LeanStatements.ts: no scope or
 * acquirer per statement), and a hot statement (a text with parameters seen twice) becomes a
 * named prepared statement of the session: parsed and described once, then each execution is one
 * Bind/Execute/Sync exchange with the database instead of PGlite's six (Parse, Describe, Bind,
 * Describe, Execute, Sync), and is not planned again (the worker keeps the descriptions; this side
 * picks the names). A plan invalidated by a schema change (0A000) is
 * prepared again under a new name.
 *
 * Values behave as they do through node-postgres, so repositories cannot tell the backends apart:
 * parameters are prepared the way `pg` prepares them (dates as ISO text, arrays as array literals,
 * objects as JSON), and `int8` columns arrive as text.
 */
import * as Client from "effect/sql/SqlClient"
import type { Connection } from "effect/sql/SqlConnection"
import { SqlError, UnknownError } from "effect/sql/SqlError"
import * as Reactivity from "effect/reactivity/Reactivity"
import { Context, Effect, Layer, Queue, Semaphore, Stream } from "effect"
import type { Scope } from "effect/Scope"
import { DatabaseTelemetry } from "./DatabaseTelemetry.js"
import { makeLeanClient, makePgCompiler, pgJson, preparedNames, rowTransform } from "./LeanStatements.js"
import { PgClient } from "./PgClient.js"
import type { EmbeddedDatabase } from "./PgliteThread.js"

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

/** The `SqlClient` (and a `PgClient` with the same statements) over one PGlite instance. */
export const makePgliteClient = (db: EmbeddedDatabase, options: PgliteClientOptions) =>
  Effect.gen(function*() {
    const compiler = makePgCompiler(options.transformQueryNames, options.transformJson)
    const transformRows = rowTransform(options)
    const session = yield* Semaphore.make(1)
    const prepared = preparedNames(options.preparedStatements ?? 500)

    const failure = (cause: unknown) => new SqlError({ reason: new UnknownError({ cause, message: "Failed to execute statement" }) })

    /**
     * One statement on the session (the caller holds it). `retry`: outside a transaction, a
     * statement whose prepared plan a schema change invalidated runs again unnamed (inside one,
     * the error aborted the transaction: it fails); either way its text is named afresh next time.
     */
    const run = (sql: string, params: ReadonlyArray<unknown>, rowMode: "object" | "array", mayPrepare: boolean, retry: boolean) =>
      Effect.tryPromise({
        try: async (): Promise<ReadonlyArray<any>> => {
          const name = mayPrepare && params.length > 0 ? prepared.nameOf(sql) : undefined
          // Measured only while an observer listens (DatabaseTelemetry.ts); the session's queue included.
          const observe = DatabaseTelemetry.onStatement
          const startedMs = observe === undefined ? 0 : performance.now()
          try {
            const answer = await db.run({ sql, params: params.map(prepare), rowMode, name, retry })
            if (answer.forgot) prepared.forget(sql)
            observe?.(performance.now() - startedMs, false)
            return answer.rows
          } catch (error) {
            if ((error as { forgot?: unknown }).forgot === true) prepared.forget(sql)
            observe?.(performance.now() - startedMs, true)
            throw error
          }
        },
        catch: failure
      })

    const connection = (lock: <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>, retry: boolean): Connection => {
      const execute = (sql: string, params: ReadonlyArray<unknown>, transform: (<A extends object>(rows: ReadonlyArray<A>) => ReadonlyArray<A>) | undefined, mayPrepare = true) =>
        lock(transform === undefined ? run(sql, params, "object", mayPrepare, retry) : Effect.map(run(sql, params, "object", mayPrepare, retry), transform))
      return {
        execute: (sql, params, transform) => execute(sql, params, transform),
        executeRaw: (sql, params) => lock(Effect.tryPromise({ try: () => db.raw(sql, params.map(prepare)), catch: failure })),
        executeStream: (sql, params, transform) =>
          Stream.fromIterableEffect(execute(sql, params, transform)).pipe(Stream.rechunk(128)),
        executeValues: (sql, params) => lock(run(sql, params, "array", true, retry)) as Effect.Effect<ReadonlyArray<ReadonlyArray<unknown>>, SqlError>,
        executeValuesUnprepared: (sql, params) =>
          lock(run(sql, params, "array", false, retry)) as Effect.Effect<ReadonlyArray<ReadonlyArray<unknown>>, SqlError>,
        executeUnprepared: (sql, params, transform) => execute(sql, params, transform, false)
      }
    }

    // Outside a transaction: the session for one statement. Inside: held for the whole transaction.
    // While the server's metrics observe the database (DatabaseTelemetry.ts), the statements waiting
    // for the session and the one holding it are counted: the session is the pool of one.
    let waiting = 0
    let holding = 0
    const lockOne = session.withPermits(1)
    const lock = <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
      DatabaseTelemetry.onStatement === undefined ? lockOne(self) : Effect.suspend(() => {
        let state: "waiting" | "holding" | "done" = "waiting"
        waiting++
        const leave = Effect.sync(() => {
          if (state === "waiting") waiting--
          else if (state === "holding") holding--
          state = "done"
        })
        return Effect.ensuring(lockOne(Effect.suspend(() => {
          waiting--
          holding++
          state = "holding"
          return self
        })), leave)
      })
    const sessionStats = () => ({ total: 1, idle: holding === 0 ? 1 : 0, waiting, max: 1 })
    DatabaseTelemetry.pools.add(sessionStats)
    yield* Effect.addFinalizer(() => Effect.sync(() => DatabaseTelemetry.pools.delete(sessionStats)))
    const single = connection(lock, true)
    const held = connection((self) => self, false)
    const client = yield* makeLeanClient({
      connection: single,
      transactionAcquirer: Effect.as(Effect.acquireRelease(session.take(1), () => session.release(1)), held),
      compiler,
      driver: "pglite",
      spanAttributes: [["db.system.name", "postgresql"], ["server.address", "pglite"]],
      transformRows
    })
    // The `PgClient` face (LISTEN/NOTIFY through PGlite's own API, the same JSON fragment), and the
    // embedded database's `interrupt` (PgliteThread.ts) for a statement past its deadline.
    const pg: PgClient = Object.assign(client, {
      config: { database: "pglite" },
      json: pgJson,
      listen: (channel: string) =>
        Stream.callback<string, SqlError>((queue) =>
          Effect.acquireRelease(
            Effect.tryPromise({ try: () => db.listen(channel, (payload) => void Queue.offerUnsafe(queue, payload)), catch: failure }),
            (unlisten) => Effect.promise(() => unlisten()).pipe(Effect.ignore)
          )),
      notify: (channel: string, payload: string) =>
        Effect.asVoid(client`select pg_notify(${channel}, ${payload})`),
      [EmbeddedInterrupt]: Effect.promise(() => db.interrupt()),
      // On the session, like a statement: no transaction of the server is open while it runs.
      [EmbeddedDump]: session.withPermits(1)(Effect.tryPromise({ try: () => db.dump(), catch: failure }))
    })
    return pg
  })

/** The key under which the embedded client's `PgClient` carries its database's `interrupt`. */
export const EmbeddedInterrupt = Symbol.for("switchboard/EmbeddedInterrupt")

/**
 * Stops the statement the embedded database is running (the worker is replaced; see
 * PgliteThread.ts): true when it was stopped, false on PostgreSQL or a database in memory.
 */
export const interruptEmbedded = (client: PgClient): Effect.Effect<boolean> => {
  const interrupt = (client as Partial<Record<typeof EmbeddedInterrupt, Effect.Effect<boolean>>>)[EmbeddedInterrupt]
  return interrupt ?? Effect.succeed(false)
}

/** The key under which the embedded client's `PgClient` carries its database's `dump`. */
export const EmbeddedDump = Symbol.for("switchboard/EmbeddedDump")

/**
 * A consistent copy of the embedded database's data directory (a gzipped tar) taken between two
 * statements of the session, after a CHECKPOINT; none on PostgreSQL (its own tools back it up).
 */
export const dumpEmbedded = (client: PgClient): Effect.Effect<Uint8Array, SqlError> | undefined =>
  (client as Partial<Record<typeof EmbeddedDump, Effect.Effect<Uint8Array, SqlError>>>)[EmbeddedDump]

/** The layer: `SqlClient` and `PgClient` over the embedded database (opened by `open`, closed with the layer). */
export const PgliteClientLayer = <E>(open: Effect.Effect<EmbeddedDatabase, E, Scope>, options: PgliteClientOptions) =>
  Layer.effectContext(Effect.gen(function*() {
    const client = yield* makePgliteClient(yield* open, options)
    return Context.make(PgClient, client).pipe(Context.add(Client.SqlClient, client))
  })).pipe(Layer.provide(Reactivity.layer))
