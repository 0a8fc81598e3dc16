/**
 * The database (DESIGN.md D2): a PostgreSQL server when `DATABASE_URL` is set, otherwise the
 * embedded PGlite (Postgres compiled to WASM) with its data directory on disk, served on a loopback
 * socket by pglite-socket and driven by the same `@effect/sql-pg` client — one dialect, one set of
 * migrations and repositories.
 */
import { PgClient } from "@effect/sql-pg"
import type { SqlClient, SqlError } from "@effect/sql"
import { PGlite } from "@electric-sql/pglite"
import { PGLiteSocketServer } from "@electric-sql/pglite-socket"
import { Data, Effect, Layer, type Redacted, String as Str } from "effect"
import { mkdirSync } from "node:fs"
import { Migrations } from "./Migrations.js"

export type DatabaseConfig = Data.TaggedEnum<{
  /** A PostgreSQL server. */
  Postgres: { readonly url: Redacted.Redacted<string>; readonly maxConnections?: number }
  /** The embedded PGlite; `dataDir` undefined keeps it in memory (tests). Always one connection. */
  Pglite: { readonly dataDir: string | undefined }
}>
export const DatabaseConfig = Data.taggedEnum<DatabaseConfig>()

export class DatabaseError extends Data.TaggedError("DatabaseError")<{ readonly message: string; readonly cause?: unknown }> {}

/** Client options shared by both kinds: snake_case columns ↔ camelCase rows; JSON keys left as they are. */
const clientOptions = {
  transformQueryNames: Str.camelToSnake,
  transformResultNames: Str.snakeToCamel,
  transformJson: false
} as const

/** Starts PGlite and its loopback socket for the life of the scope; yields the port. */
export const startPglite = (dataDir: string | undefined, maxConnections: number) =>
  Effect.gen(function*() {
    const db = yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: async () => {
          if (dataDir !== undefined) mkdirSync(dataDir, { recursive: true })
          return await PGlite.create(dataDir === undefined ? undefined : dataDir)
        },
        catch: (cause) => new DatabaseError({ message: `could not open the embedded database at ${dataDir ?? "memory"}`, cause })
      }),
      (db) => Effect.promise(() => db.close()).pipe(Effect.ignore)
    )
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

/** A `PgClient` (and `SqlClient`) for the configured database, without migrations. */
export const DatabaseClient = (config: DatabaseConfig): Layer.Layer<PgClient.PgClient | SqlClient.SqlClient, DatabaseError> =>
  DatabaseConfig.$match(config, {
    Postgres: ({ maxConnections, url }) =>
      PgClient.layer({ url, maxConnections: maxConnections ?? 10, ...clientOptions }),
    // One connection: PGlite is a single session, and pglite-socket's multiplexer keeps only whole
    // transactions together — concurrent extended-protocol queries from several connections
    // interleave and read each other's results (seen under load: rows of another statement).
    Pglite: ({ dataDir }) =>
      Layer.unwrapScoped(Effect.map(startPglite(dataDir, 1), (port) =>
        PgClient.layer({
          host: "127.0.0.1",
          port,
          database: "postgres",
          username: "postgres",
          maxConnections: 1,
          ...clientOptions
        })))
  }).pipe(Layer.mapError((e: SqlError.SqlError | DatabaseError) =>
    e instanceof DatabaseError ? e : new DatabaseError({ message: `could not connect to the database: ${e.message}`, cause: e })
  ))

/** The migrated database: connects, then brings the schema up to date before anything uses it. */
export const DatabaseLive = (config: DatabaseConfig) =>
  Layer.effectDiscard(Migrations.pipe(Effect.mapError((e) => new DatabaseError({ message: `migration failed: ${String(e)}`, cause: e })))).pipe(
    Layer.provideMerge(DatabaseClient(config))
  )
