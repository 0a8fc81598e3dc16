/**
 * The database: a PostgreSQL server when `DATABASE_URL` is set (a `pg` pool driven
 * by our own `effect/sql` client, PostgresClient.ts) or over a host's own `pg` pool, otherwise the
 * embedded PGlite (Postgres compiled to WASM) with its data directory on disk, on its own worker
 * thread (PgliteThread.ts) and driven through PGlite's own API by an `effect/sql` client with the
 * same PostgreSQL compiler (PgliteClient.ts) — one dialect, one set of migrations and
 * repositories.
 */
import type { SqlClient, SqlError } from "effect/sql"
import { PGlite } from "@electric-sql/pglite"
import { PGLiteSocketServer } from "@electric-sql/pglite-socket"
import { ConnectionError, SqlError as SqlFailure } from "effect/sql/SqlError"
import { Data, Duration, Effect, Layer, Redacted, String as Str } from "effect"
import { mkdirSync } from "node:fs"
import { dirname } from "node:path"
import { takeDataDirLock } from "./DataDirLock.js"
import Pg, { type Pool } from "pg"
import { checkSchemaVersion, runMigrations } from "./Migrations.js"
import type { PgClient } from "./PgClient.js"
import { PgliteClientLayer, pgliteParsers } from "./PgliteClient.js"
import { initPgliteDataDir, needsInit } from "./PgliteInit.js"
import { startEmbeddedDatabase } from "./PgliteThread.js"
import { PostgresClientLayer, type PostgresPool } from "./PostgresClient.js"

export type DatabaseConfig = Data.TaggedEnum<{
  /**
   * A PostgreSQL server. Every wait is bounded: `statementTimeoutMs` (the server cancels a longer
   * statement; the client gives up 1 s later if the server does not answer at all) and
   * `connectTimeoutMs` (opening a connection, or waiting for a free one in the pool).
   *
   * `poolMode` says what `url` reaches: `"session"` (the default: the server itself, or a pooler
   * that gives each client a server connection for its whole session) or `"transaction"` (a
   * transaction pooler such as PgBouncer's `pool_mode = transaction`, whose server connections
   * change between transactions). In transaction mode no statement is a named prepared
   * statement, `statement_timeout` is not sent as a connection parameter (the client cancels a
   * statement that runs longer instead), and LISTEN needs `listenUrl`, a direct connection to the
   * server: without it the store refuses to start. `listenUrl` may be given in session mode too.
   */
  Postgres: {
    readonly url: Redacted.Redacted<string>
    readonly maxConnections?: number
    readonly statementTimeoutMs?: number
    readonly connectTimeoutMs?: number
    readonly poolMode?: PoolMode | undefined
    readonly listenUrl?: Redacted.Redacted<string> | undefined
  }
  /**
   * The embedded PGlite; `dataDir` undefined keeps it in memory (tests). Always one connection.
   * A new data directory is made from the cluster template in `templateDir` when there is one,
   * else by initdb in a child process, then saved there as the template (PgliteInit.ts).
   * `sharedBuffersMb`: PostgreSQL's `shared_buffers` (PGlite's default, 128 MB, is all resident
   * once the server has started: PostgreSQL initialises its buffer pool).
   */
  Pglite: { readonly dataDir: string | undefined; readonly templateDir?: string | undefined; readonly sharedBuffersMb?: number | undefined }
  /**
   * The host's own `pg` pool (node-postgres `Pool`). The host owns it: Switchboard never ends it
   * (end it yourself after the store's scope has closed). Its settings are the host's, and the
   * store relies on them: a `statement_timeout` / `query_timeout` bounds each statement (without
   * one a stuck statement waits forever), `connectionTimeoutMillis` bounds the wait for a free
   * connection (pg's default, 0, waits forever), and an `"error"` listener on the pool (pg throws
   * an idle connection's error otherwise). LISTEN opens one more connection of its own, outside the
   * pool, with the pool's connection options. See docs/embedding.md, "Storage on your PostgreSQL".
   */
  PostgresPool: { readonly pool: PostgresPool }
}>
export const DatabaseConfig = Data.taggedEnum<DatabaseConfig>()

/** What a PostgreSQL URL reaches: the server or a session pooler (`session`), or a transaction pooler (`transaction`). */
export type PoolMode = "session" | "transaction"

export class DatabaseError extends Data.TaggedError("DatabaseError")<{ readonly message: string; readonly cause?: unknown }> {}

/** Client options shared by both kinds: snake_case columns ↔ camelCase rows; JSON keys left as they are. */
const clientOptions = {
  transformQueryNames: Str.camelToSnake,
  transformResultNames: Str.snakeToCamel,
  transformJson: false
} as const

/** The data directory's lock (DataDirLock.ts) for the life of the scope; nothing for a database in memory. */
const lockDataDir = (dataDir: string | undefined) =>
  dataDir === undefined
    ? Effect.void
    : Effect.acquireRelease(
      Effect.suspend(() => {
        mkdirSync(dirname(dataDir), { recursive: true })
        return takeDataDirLock(dataDir)
      }).pipe(Effect.mapError((e) => new DatabaseError({ message: e.message, cause: e }))),
      (release) => Effect.sync(release)
    )

/**
 * Opens PGlite in this thread (in `dataDir`, or in memory) for the life of the scope, for the
 * loopback socket of external tools. A data directory is locked first (DataDirLock.ts): a second
 * process fails with a clear message and opens nothing.
 */
export const openPglite = (dataDir: string | undefined, options: PgliteOpenOptions = {}) =>
  Effect.andThen(lockDataDir(dataDir), openPgliteUnlocked(dataDir, options))

/**
 * Opens the embedded database on its own thread (PgliteThread.ts) for the life of the scope: the
 * server's way. Locked first, like `openPglite`.
 */
export const openEmbeddedDatabase = (dataDir: string | undefined, options: PgliteOpenOptions = {}) =>
  Effect.andThen(
    lockDataDir(dataDir),
    openInitialized(dataDir, options, () => startEmbeddedDatabase({ dataDir, sharedBuffersMb: options.sharedBuffersMb }))
  )

export interface PgliteOpenOptions {
  readonly templateDir?: string | undefined
  readonly sharedBuffersMb?: number | undefined
}

/**
 * `open` once `dataDir` (when there is one) holds a cluster — made from the template or by initdb
 * (PgliteInit.ts) — and closed with the scope.
 */
const openInitialized = <D extends { readonly close: () => Promise<void> }>(
  dataDir: string | undefined,
  options: PgliteOpenOptions,
  open: () => Promise<D>
) =>
  Effect.acquireRelease(
    Effect.tryPromise({
      try: async () => {
        if (dataDir !== undefined) {
          mkdirSync(dirname(dataDir), { recursive: true })
          if (needsInit(dataDir)) await initPgliteDataDir(dataDir, options.templateDir)
        }
        return await open()
      },
      catch: (cause) => new DatabaseError({ message: `could not open the embedded database at ${dataDir ?? "memory"}`, cause })
    }),
    (db) => Effect.promise(() => db.close()).pipe(Effect.ignore)
  )

const openPgliteUnlocked = (dataDir: string | undefined, options: PgliteOpenOptions) =>
  openInitialized(dataDir, options, () =>
    // int8 as text, as node-postgres gives it (set once here: per-query parsers cost ~60 µs each).
    PGlite.create(dataDir === undefined ? undefined : dataDir, {
      parsers: pgliteParsers,
      ...(options.sharedBuffersMb === undefined
        ? {}
        : { startParams: [...PGlite.defaultStartParams, "-c", `shared_buffers=${options.sharedBuffersMb}MB`] })
    }))

/**
 * Starts PGlite and a loopback socket to it for the life of the scope; yields the port. The server
 * does not use it (it talks to PGlite in process); it is for external tools such as `psql`.
 */
export const startPglite = (dataDir: string | undefined, maxConnections: number) =>
  Effect.gen(function*() {
    const db = yield* openPglite(dataDir)
    const server = yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: async () => {
          const s = new PGLiteSocketServer({ db, host: "127.0.0.1", port: 0, maxConnections })
          await s.start()
          return s
        },
        catch: (cause) => new DatabaseError({ message: "could not start the embedded database socket", cause })
      }),
      (s) => Effect.promise(() => s.stop()).pipe(Effect.ignore)
    )
    const address = server.getServerConn()
    return Number(address.slice(address.lastIndexOf(":") + 1))
  })

/** Default bounds of the PostgreSQL client (the server's settings override them). */
export const DEFAULT_STATEMENT_TIMEOUT_MS = 10_000
export const DEFAULT_CONNECT_TIMEOUT_MS = 5_000

/** `host:port` of a connection URL (never its credentials), for messages. */
const serverOf = (url: string) => {
  try {
    const u = new URL(url)
    return `${u.hostname}:${u.port === "" ? "5432" : u.port}`
  } catch {
    return "the configured DATABASE_URL"
  }
}

/** Why a connection failed, in one line: the error code (ECONNREFUSED, 28P01, …) and its message. */
const causeOf = (cause: unknown) => {
  const e = cause as { code?: unknown; message?: unknown; errors?: ReadonlyArray<{ code?: unknown; message?: unknown }> }
  // A host with several addresses fails with an AggregateError of one error per address.
  const first = Array.isArray(e?.errors) && e.errors.length > 0 ? e.errors[0]! : e
  const code = typeof first?.code === "string" ? first.code : undefined
  const message = typeof first?.message === "string" && first.message !== "" ? first.message : String(cause)
  return code === undefined || message.includes(code) ? message : `${code} ${message}`
}

/** Node's certificate verification failures (`ERR_TLS_CERT_ALTNAME_INVALID`, `UNABLE_TO_VERIFY_LEAF_SIGNATURE`, …). */
const TLS_VERIFICATION = /^(ERR_TLS_|UNABLE_TO_|SELF_SIGNED_CERT|DEPTH_ZERO_SELF_SIGNED|CERT_|HOSTNAME_MISMATCH)/

/**
 * Why a connection to `where` failed, in one line: the server's certificate failed verification
 * (sslmode=verify-full/verify-ca), a TLS file named in the URL could not be read (sslrootcert,
 * sslcert, sslkey: read when connecting), or the server cannot be reached.
 */
const connectProblem = (where: string, cause: unknown) => {
  const code = (cause as { code?: unknown })?.code
  if (typeof code === "string" && TLS_VERIFICATION.test(code)) return `PostgreSQL at ${where}: its TLS certificate failed verification: ${causeOf(cause)}`
  if (typeof code === "string" && (cause as { syscall?: unknown }).syscall === "open") {
    return `PostgreSQL at ${where}: a TLS file the URL names (sslrootcert, sslcert or sslkey) cannot be read: ${causeOf(cause)}`
  }
  return `PostgreSQL at ${where} cannot be reached: ${causeOf(cause)}`
}

/** The server could not be reached: a `SqlError` whose reason's `cause` is the driver's error. */
const unreachable = (cause: unknown, message: string) => new SqlFailure({ reason: new ConnectionError({ cause, message, operation: "connect" }) })

/**
 * The `pg` pool of a PostgreSQL server with bounded waits, checked with one `SELECT 1` (start-up
 * fails clearly when the server cannot be reached), ended with the scope.
 */
const postgresPool = (o: Extract<DatabaseConfig, { _tag: "Postgres" }>) => {
  const statementTimeoutMs = o.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS
  const connectTimeoutMs = o.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS
  const where = serverOf(Redacted.value(o.url))
  return Effect.acquireRelease(
    Effect.sync(() => {
      const pool = new Pg.Pool({
        ...connectionOptions(Redacted.value(o.url), statementTimeoutMs, connectTimeoutMs, o.poolMode ?? "session"),
        max: o.maxConnections ?? 10,
        idleTimeoutMillis: 30_000
      })
      pool.on("error", () => {})
      return pool
    }),
    (pool) => Effect.promise(() => pool.end()).pipe(Effect.interruptible, Effect.timeoutOption(1000))
  ).pipe(
    Effect.tap((pool) =>
      Effect.tryPromise({
        try: () => pool.query("SELECT 1"),
        catch: (cause) => unreachable(cause, connectProblem(where, cause))
      }).pipe(Effect.timeoutOrElse({
        duration: Duration.millis(connectTimeoutMs),
        orElse: () =>
          Effect.fail(unreachable(new Error("Connection timed out"), `PostgreSQL at ${where} cannot be reached: no answer within ${connectTimeoutMs} ms`))
      }))
    )
  )
}

/**
 * The `pg` connection options of `url`. The server cancels a statement that runs too long (57014);
 * if the server is frozen and answers nothing, the client stops waiting a second later. A
 * transaction pooler (PgBouncer) refuses `statement_timeout` and
 * `idle_in_transaction_session_timeout` as connection parameters (and would lose them between
 * transactions anyway): there, the client cancels a long statement itself (`cancelAfterMs`), and
 * the pooler's own `idle_transaction_timeout` bounds an idle transaction. `application_name` is
 * one of the parameters PgBouncer carries over to each server connection it lends.
 */
const connectionOptions = (url: string, statementTimeoutMs: number, connectTimeoutMs: number, mode: PoolMode) => ({
  connectionString: url,
  connectionTimeoutMillis: connectTimeoutMs,
  query_timeout: statementTimeoutMs + 1_000,
  keepAlive: true,
  application_name: "switchboard",
  ...(mode === "session" ? { statement_timeout: statementTimeoutMs, idle_in_transaction_session_timeout: statementTimeoutMs * 2 } : {})
})

/** The client options of a PostgreSQL config: its pool mode's statements, its LISTEN connection. */
const postgresClientOptions = (o: Extract<DatabaseConfig, { _tag: "Postgres" }>) => {
  const statementTimeoutMs = o.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS
  const connectTimeoutMs = o.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS
  const transaction = o.poolMode === "transaction"
  return {
    ...clientOptions,
    // Named statements live on one server connection: a transaction pooler would send the next
    // use to another, where the name is unknown (26000) or means another statement.
    ...(transaction ? { preparedStatements: 0, cancelAfterMs: statementTimeoutMs } : {}),
    ...(o.listenUrl === undefined
      ? {}
      : { listenConnection: connectionOptions(Redacted.value(o.listenUrl), statementTimeoutMs, connectTimeoutMs, "session") })
  }
}

/**
 * Transaction pooling without a direct LISTEN connection: refused. LISTEN on a pooled connection
 * registers on whichever server connection it lands on, which then serves others: notifications
 * (credential revocations, record changes, rate-limit sync) would silently never arrive.
 */
const checkPoolMode = (o: Extract<DatabaseConfig, { _tag: "Postgres" }>) =>
  o.poolMode === "transaction" && o.listenUrl === undefined
    ? Effect.fail(
      new DatabaseError({
        message:
          "DATABASE_POOL_MODE=transaction needs DATABASE_LISTEN_URL: a direct connection to PostgreSQL (not through the transaction pooler) for LISTEN"
      })
    )
    : Effect.void

/** Where a host's pool connects (never its credentials), for messages. */
const serverOfPool = (pool: PostgresPool) => {
  const o = pool.options as { connectionString?: string; host?: unknown; port?: unknown }
  if (typeof o.connectionString === "string") return serverOf(o.connectionString)
  return `${typeof o.host === "string" ? o.host : "localhost"}:${typeof o.port === "number" || typeof o.port === "string" ? o.port : "5432"}`
}

/**
 * The host's pool, checked with one `SELECT 1` (start-up fails clearly when its server cannot be
 * reached). Not ended with the scope: the host owns it.
 */
const hostPool = (pool: PostgresPool) =>
  Effect.tryPromise({
    try: () => (pool as unknown as Pool).query("SELECT 1"),
    catch: (cause) => unreachable(cause, `PostgreSQL at ${serverOfPool(pool)} (the host's pool) cannot be reached: ${causeOf(cause)}`)
  }).pipe(Effect.as(pool))

/** A `PgClient` (and `SqlClient`) for the configured database, without migrations. */
export const DatabaseClient = (config: DatabaseConfig): Layer.Layer<PgClient | SqlClient.SqlClient, DatabaseError> =>
  DatabaseConfig.$match(config, {
    // Over the pool directly (PostgresClient.ts): no scope or acquirer per statement; hot statements prepared.
    Postgres: (o) => PostgresClientLayer(Effect.andThen(checkPoolMode(o), Effect.mapError(postgresPool(o), connectFailure)), postgresClientOptions(o)),
    // On its own thread, over PGlite's own API (PgliteThread.ts, PgliteClient.ts): one session, serialized.
    Pglite: ({ dataDir, sharedBuffersMb, templateDir }) =>
      PgliteClientLayer(Effect.mapError(openEmbeddedDatabase(dataDir, { templateDir, sharedBuffersMb }), connectFailure), clientOptions),
    // The host's pool, as it is: its timeouts, its size, its lifetime.
    PostgresPool: ({ pool }) => PostgresClientLayer(Effect.mapError(hostPool(pool), connectFailure), clientOptions)
  })

const connectFailure = (e: SqlError.SqlError | DatabaseError): DatabaseError =>
  e instanceof DatabaseError ? e : new DatabaseError({ message: `could not connect to the database: ${e.message}`, cause: e })

/** How `DatabaseLive` (and `StoreSql`) treats the schema at start-up. */
export interface DatabaseLiveOptions {
  /**
   * `true` (the default): apply the pending migrations (`runMigrations`, under the migration lock).
   * `false`: the host migrates (`migrate()`, e.g. in a deploy step); start-up only checks that the
   * schema is exactly the version this package needs and fails with `SchemaVersionMismatch`
   * otherwise.
   */
  readonly migrate?: boolean | undefined
}

/**
 * The database ready for the store: connects, then brings the schema up to date (or, with
 * `migrate: false`, checks its version) before anything uses it.
 */
export const DatabaseLive = (config: DatabaseConfig, options: DatabaseLiveOptions = {}) =>
  Layer.effectDiscard(
    options.migrate === false
      ? checkSchemaVersion.pipe(
        Effect.catchTag("SqlError", (e) => Effect.fail(new DatabaseError({ message: `could not read the schema version: ${e.message}`, cause: e })))
      )
      : runMigrations.pipe(Effect.mapError((e) => new DatabaseError({ message: e.message, cause: e })))
  ).pipe(Layer.provideMerge(DatabaseClient(config)))
