/**
 * What a database outage looks like from the drivers (shared/DatabaseOutage.ts), and where it
 * becomes core's `DatabaseUnavailable`: each pg code and driver message shape → its reason (an
 * unrelated error → none); the repository boundary (`orDie`, `die`, TransactorSql) raising it as a
 * defect; and the clients' own failures: the embedded database's worker gone (57P01), a PostgreSQL
 * server that refuses connections (ECONNREFUSED), and one whose statement timeout fires (57014,
 * with DATABASE_URL).
 */
import { SqlClient } from "effect/sql"
import { SqlError, UnknownError } from "effect/sql/SqlError"
import { databaseUnavailableOf, DatabaseUnavailable, Transactor } from "@switchboard/core/shared"
import {
  asDefect,
  databaseOutage,
  DatabaseClient,
  DatabaseConfig,
  PostgresClientLayer,
  TransactorSql
} from "@switchboard/sql-adapter"
import { outageEndsTransaction } from "../src/LeanStatements.js"
import { Cause, Effect, Exit, Layer, Redacted, Result } from "effect"
import Pg from "pg"
import { describe, expect, it } from "vitest"
import { useScratchPostgres } from "./ScratchPostgres.js"
import { PgliteClientLayer } from "../src/PgliteClient.js"
import { startEmbeddedDatabase } from "../src/PgliteThread.js"
import { die, orDie } from "../src/shared/Sql.js"

/** A pg-shaped error: what node-postgres (or the embedded database's thread) rejects with. */
const pgError = (fields: { code?: string; message?: string }) => Object.assign(new Error(fields.message ?? "failed"), fields)

/** As a statement's failure reaches a repository: a `SqlError` carrying the driver's error. */
const sqlError = (cause: unknown) => new SqlError({ reason: new UnknownError({ cause, message: "Failed to execute statement" }) })

/** The defect an effect died with (fails the test when it did not die). */
const defectOf = async <A>(effect: Effect.Effect<A, never>): Promise<unknown> => {
  const exit = await Effect.runPromiseExit(effect)
  if (Exit.isSuccess(exit)) throw new Error("expected a defect, got a success")
  const defect = Cause.findDefect(exit.cause)
  if (Result.isFailure(defect)) throw new Error(`expected a defect, got ${String(exit.cause)}`)
  return defect.success
}

describe("databaseOutage: each shape of a driver error → its reason", () => {
  const table: ReadonlyArray<readonly [string, unknown, "unavailable" | "timeout" | undefined]> = [
    // The server's statement_timeout, the client's query timeout.
    ["57014 (statement_timeout)", pgError({ code: "57014", message: "canceling statement due to statement timeout" }), "timeout"],
    ["57014 without a message", { code: "57014" }, "timeout"],
    ["'statement timeout' in the message", pgError({ message: "canceling statement due to statement timeout" }), "timeout"],
    ["node-postgres' query_timeout", pgError({ message: "Query read timeout" }), "timeout"],
    // Connections that fail.
    ["ECONNREFUSED", pgError({ code: "ECONNREFUSED", message: "connect ECONNREFUSED 127.0.0.1:5432" }), "unavailable"],
    ["ECONNRESET", pgError({ code: "ECONNRESET", message: "read ECONNRESET" }), "unavailable"],
    ["ETIMEDOUT", pgError({ code: "ETIMEDOUT", message: "connect ETIMEDOUT" }), "unavailable"],
    ["EPIPE", pgError({ code: "EPIPE", message: "write EPIPE" }), "unavailable"],
    ["57P01 (admin shutdown; the embedded database's worker gone)", pgError({ code: "57P01", message: "the embedded database stopped" }), "unavailable"],
    ["57P02 (crash shutdown)", pgError({ code: "57P02" }), "unavailable"],
    ["57P03 (cannot connect now)", pgError({ code: "57P03", message: "the database system is starting up" }), "unavailable"],
    ["08006 (connection failure)", pgError({ code: "08006" }), "unavailable"],
    ["08001 (cannot establish a connection)", pgError({ code: "08001" }), "unavailable"],
    ["'Connection terminated' in the message", pgError({ message: "Connection terminated unexpectedly" }), "unavailable"],
    ["'connect ECONNREFUSED' in the message", new Error("connect ECONNREFUSED ::1:5432"), "unavailable"],
    ["a pool out of connections in time", new Error("timeout exceeded when trying to connect"), "unavailable"],
    ["a node-postgres client whose connection broke before", new Error("Client has encountered a connection error and is not queryable"), "unavailable"],
    ["'Connection timed out' (the start-up check)", new Error("Connection timed out"), "unavailable"],
    ["already classified", new DatabaseUnavailable({ reason: "timeout", message: "x" }), "timeout"],
    ["a { _tag: DatabaseUnavailable } value", { _tag: "DatabaseUnavailable" }, "unavailable"],
    // Along the cause chain: the SqlError a repository sees, and deeper.
    ["a SqlError over 57014", sqlError(pgError({ code: "57014" })), "timeout"],
    ["a SqlError over ECONNREFUSED", sqlError(pgError({ code: "ECONNREFUSED" })), "unavailable"],
    ["two causes deep", { cause: sqlError(pgError({ message: "Connection terminated due to connection timeout" })) }, "unavailable"],
    // Not an outage.
    ["23505 (unique violation)", sqlError(pgError({ code: "23505", message: "duplicate key value violates unique constraint" })), undefined],
    ["42601 (syntax error)", sqlError(pgError({ code: "42601", message: "syntax error at or near \"selec\"" })), undefined],
    ["57P04 (database dropped)", sqlError(pgError({ code: "57P04" })), undefined],
    ["54000 (program limit)", pgError({ code: "54000" }), undefined],
    ["ENOENT", pgError({ code: "ENOENT", message: "no such file or directory" }), undefined],
    ["a plain Error", new Error("boom"), undefined],
    ["a string", "Connection terminated", undefined],
    ["null", null, undefined],
    ["undefined", undefined, undefined]
  ]
  for (const [name, error, reason] of table) {
    it(`${name} → ${reason ?? "none"}`, () => {
      expect(databaseOutage(error)).toBe(reason)
    })
  }

  it("a cause chain that loops ends (none)", () => {
    const a: { message: string; cause?: unknown } = { message: "a" }
    a.cause = { message: "b", cause: a }
    expect(databaseOutage(a)).toBeUndefined()
  })
})

describe("asDefect: an outage becomes DatabaseUnavailable, anything else stays as it is", () => {
  it("carries the reason, the message and the error it classified", () => {
    const error = sqlError(pgError({ code: "57P01", message: "terminating connection due to administrator command" }))
    const defect = asDefect(error)
    expect(defect).toBeInstanceOf(DatabaseUnavailable)
    expect(defect).toMatchObject({ _tag: "DatabaseUnavailable", reason: "unavailable", message: "Failed to execute statement", cause: error })
    expect(databaseUnavailableOf(defect)?.reason).toBe("unavailable")
    expect(asDefect(defect)).toBe(defect)
  })

  it("leaves an unrelated error as it is", () => {
    const error = sqlError(pgError({ code: "23505" }))
    expect(asDefect(error)).toBe(error)
    expect(databaseUnavailableOf(error)).toBeUndefined()
  })
})

describe("the repository boundary raises it as a defect", () => {
  const outage = sqlError(pgError({ code: "57014" }))
  const bug = sqlError(pgError({ code: "42601" }))

  it("orDie and die: an outage dies as DatabaseUnavailable; other failures die as they are", async () => {
    expect(await defectOf(orDie(Effect.fail(outage)))).toMatchObject({ _tag: "DatabaseUnavailable", reason: "timeout", cause: outage })
    expect(await defectOf(die(outage))).toMatchObject({ _tag: "DatabaseUnavailable", reason: "timeout" })
    expect(await defectOf(orDie(Effect.fail(bug)))).toBe(bug)
    expect(await defectOf(die(bug))).toBe(bug)
  })

  it("TransactorSql: a failing BEGIN/COMMIT on an unreachable database dies as DatabaseUnavailable", async () => {
    const failing = SqlClient.SqlClient.of({
      withTransaction: () => Effect.fail(sqlError(pgError({ code: "ECONNRESET" })))
    } as unknown as SqlClient.SqlClient)
    const program = Effect.flatMap(Transactor, (t) => t.withTransaction(Effect.void)).pipe(
      Effect.provide(TransactorSql.pipe(Layer.provide(Layer.succeed(SqlClient.SqlClient, failing))))
    )
    expect(await defectOf(program)).toMatchObject({ _tag: "DatabaseUnavailable", reason: "unavailable" })
  })
})

describe("a transaction the outage cut short dies as DatabaseUnavailable", () => {
  const lost = sqlError(pgError({ message: "Connection terminated unexpectedly" }))
  const rollback = sqlError(new Error("Client has encountered a connection error and is not queryable"))

  it("the body's failure and the ROLLBACK's defect on a dead connection → one DatabaseUnavailable", async () => {
    const exit = await Effect.runPromiseExit(outageEndsTransaction(Effect.failCause(Cause.combine(Cause.fail(lost), Cause.die(rollback)))))
    expect(Exit.isFailure(exit) && exit.cause.reasons.length).toBe(1)
    expect(await defectOf(Effect.orDie(outageEndsTransaction(Effect.failCause(Cause.combine(Cause.fail(lost), Cause.die(rollback)))))))
      .toMatchObject({ _tag: "DatabaseUnavailable", reason: "unavailable" })
    expect(await defectOf(outageEndsTransaction(Effect.die(rollback)))).toMatchObject({ _tag: "DatabaseUnavailable", reason: "unavailable" })
  })

  it("failures only, or defects that are not an outage, stay as they are", async () => {
    const failed = await Effect.runPromiseExit(outageEndsTransaction(Effect.fail(lost)))
    expect(Exit.isFailure(failed) && failed.cause.reasons.length).toBe(1)
    expect(Exit.isFailure(failed) && Cause.squash(failed.cause)).toBe(lost)
    const bug = new Error("boom")
    expect(await defectOf(outageEndsTransaction(Effect.die(bug)))).toBe(bug)
  })
})

describe("the clients' outages reach a repository as DatabaseUnavailable", () => {
  it("the embedded database: a statement after its worker is gone (57P01)", async () => {
    const db = await startEmbeddedDatabase({ dataDir: undefined })
    const program = Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      expect(yield* orDie(sql<{ n: number }>`select ${1}::int as n`)).toEqual([{ n: 1 }])
      yield* Effect.promise(() => db.close())
      return yield* orDie(sql`select 1`)
    }).pipe(Effect.provide(PgliteClientLayer(Effect.succeed(db), {})))
    expect(await defectOf(program)).toMatchObject({ _tag: "DatabaseUnavailable", reason: "unavailable" })
  }, 30_000)

  it("PostgreSQL that refuses connections (ECONNREFUSED)", async () => {
    // Port 1: nothing listens there, so the pool's connect is refused at once.
    const pool = Effect.acquireRelease(
      Effect.sync(() => new Pg.Pool({ connectionString: "postgres://postgres@127.0.0.1:1/postgres", connectionTimeoutMillis: 2_000 })),
      (p) => Effect.promise(() => p.end())
    )
    const program = Effect.flatMap(SqlClient.SqlClient, (sql) => orDie(sql`select 1`)).pipe(
      Effect.provide(PostgresClientLayer(pool, {}))
    )
    expect(await defectOf(program)).toMatchObject({ _tag: "DatabaseUnavailable", reason: "unavailable" })
  }, 30_000)

  describe.runIf(Boolean(process.env.DATABASE_URL))("on PostgreSQL (DATABASE_URL)", () => {
    const db = useScratchPostgres()

    it("a statement past the server's statement_timeout (57014) → timeout", async () => {
      const program = Effect.flatMap(SqlClient.SqlClient, (sql) => orDie(sql`select pg_sleep(5)`)).pipe(
        Effect.provide(DatabaseClient(DatabaseConfig.Postgres({ url: Redacted.make(db.url()), statementTimeoutMs: 300 }))),
        Effect.orDie
      )
      expect(await defectOf(program)).toMatchObject({ _tag: "DatabaseUnavailable", reason: "timeout" })
    }, 30_000)

    it("a connection lost inside a transaction: its ROLLBACK fails too, and the whole dies as DatabaseUnavailable", async () => {
      const program = Effect.flatMap(SqlClient.SqlClient, (sql) =>
        sql.withTransaction(Effect.andThen(sql`select pg_terminate_backend(pg_backend_pid())`, sql`select 1`))).pipe(
        Effect.provide(DatabaseClient(DatabaseConfig.Postgres({ url: Redacted.make(db.url()) })))
      )
      const exit = await Effect.runPromiseExit(program)
      expect(Exit.isFailure(exit)).toBe(true)
      if (Exit.isFailure(exit)) {
        // Not a raw SqlError defect (which the server answers with 500).
        expect(exit.cause.reasons.map((r) => (Cause.isDieReason(r) ? (r.defect as { _tag?: string })._tag : r._tag))).toEqual(["DatabaseUnavailable"])
      }
    }, 30_000)
  })
})
