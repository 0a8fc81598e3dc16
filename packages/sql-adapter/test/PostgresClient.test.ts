/**
 * Our `effect/sql` client over a `pg` pool (PostgresClient.ts), on a scratch PostgreSQL database:
 * transactions (commit, rollback on failure, defect and interrupt, nested savepoints), statements
 * issued concurrently inside one transaction sent one at a time, named prepared statements giving
 * the same rows as unnamed ones (and surviving a schema change), errors carrying the `pg` error,
 * interrupted and timed-out statements, the transaction pool mode (unnamed statements, the
 * client's own statement timeout), LISTEN (also after its connection is killed), and what it
 * tells the server's metrics (DatabaseTelemetry.ts): its pool's use while open, each statement.
 */
import { SqlClient } from "effect/sql"
import type { SqlError } from "effect/sql/SqlError"
import { DatabaseClient, DatabaseConfig, DatabaseTelemetry, PgClient } from "@switchboard/sql-adapter"
import { Cause, Duration, Effect, Result, Exit, Fiber, Layer, Redacted, Schedule, Scope, Stream } from "effect"
import { describe, expect, it, vi } from "vitest"
import { useScratchPostgres } from "./ScratchPostgres.js"

type Client = PgClient

describe.runIf(Boolean(process.env.DATABASE_URL))("the PostgreSQL client (PostgresClient.ts)", () => {
  const db = useScratchPostgres()

  /** Runs `f` with a fresh client (its own pool) on the scratch database. */
  const withClient = <A, E>(
    f: (sql: Client) => Effect.Effect<A, E, Scope.Scope>,
    options: { maxConnections?: number; statementTimeoutMs?: number; poolMode?: "session" | "transaction"; listenUrl?: Redacted.Redacted<string> } = {}
  ): Promise<A> =>
    Effect.runPromise(Effect.scoped(Effect.gen(function*() {
      const context = yield* Layer.build(DatabaseClient(DatabaseConfig.Postgres({ url: Redacted.make(db.url()), ...options })))
      const sql = (yield* Effect.provide(PgClient, context)) as Client
      expect(yield* Effect.provide(SqlClient.SqlClient, context)).toBe(sql)
      return yield* f(sql)
    })) as Effect.Effect<A, never>)

  const pgCode = (e: SqlError) => (e.reason.cause as { code?: string }).code

  it("tells DatabaseTelemetry its pool's use while open and each statement's duration, in and out of transactions", async () => {
    const observed: Array<boolean> = []
    DatabaseTelemetry.onStatement = (ms, failed) => {
      expect(ms).toBeGreaterThanOrEqual(0)
      observed.push(failed)
    }
    const before = DatabaseTelemetry.pools.size
    try {
      await withClient((sql) =>
        Effect.gen(function*() {
          expect(DatabaseTelemetry.pools.size).toBe(before + 1)
          yield* sql`select 1`
          yield* Effect.ignore(sql`select * from no_such_table`)
          yield* sql.withTransaction(sql`select 2`)
          const stats = [...DatabaseTelemetry.pools].at(-1)!()
          expect(stats.max).toBe(3)
          expect(stats.total).toBeGreaterThanOrEqual(1)
          expect(stats.idle).toBeLessThanOrEqual(stats.total)
          expect(stats.waiting).toBe(0)
        }), { maxConnections: 3 })
    } finally {
      DatabaseTelemetry.onStatement = undefined
    }
    // select 1, the failed one, and BEGIN, select 2, COMMIT on the transaction's connection.
    expect(observed.filter((f) => f)).toEqual([true])
    expect(observed.length).toBeGreaterThanOrEqual(5)
    expect(DatabaseTelemetry.pools.size).toBe(before)
  })

  it("transactions commit; roll back on failure, defect and interrupt; nested ones are savepoints", async () => {
    await withClient((sql) =>
      Effect.gen(function*() {
        yield* sql`create table tx_rows (id int primary key, label text not null)`
        yield* sql.withTransaction(sql`insert into tx_rows ${sql.insert({ id: 1, label: "committed" })}`)
        const failed = yield* Effect.result(sql.withTransaction(Effect.andThen(
          sql`insert into tx_rows ${sql.insert({ id: 2, label: "failed" })}`,
          Effect.fail("boom" as const)
        )))
        expect(failed).toEqual(Result.fail("boom"))
        const died = yield* Effect.exit(sql.withTransaction(Effect.andThen(
          sql`insert into tx_rows ${sql.insert({ id: 3, label: "died" })}`,
          Effect.die("defect")
        )))
        expect(Exit.isFailure(died) && Cause.hasDies(died.cause)).toBe(true)
        // Interrupted while its second statement runs on the server.
        const fiber = yield* Effect.forkChild(sql.withTransaction(Effect.andThen(
          sql`insert into tx_rows ${sql.insert({ id: 4, label: "interrupted" })}`,
          sql`select pg_sleep(5)`
        )))
        yield* Effect.sleep(Duration.millis(300))
        const started = Date.now()
        yield* Fiber.interrupt(fiber)
        expect(Date.now() - started).toBeLessThan(4_000)
        // Nested: the inner failure rolls back to its savepoint only.
        yield* sql.withTransaction(Effect.gen(function*() {
          yield* sql`insert into tx_rows ${sql.insert({ id: 5, label: "outer" })}`
          const inner = yield* Effect.result(sql.withTransaction(Effect.andThen(
            sql`insert into tx_rows ${sql.insert({ id: 6, label: "inner" })}`,
            Effect.fail("inner" as const)
          )))
          expect(Result.isFailure(inner)).toBe(true)
          yield* sql.withTransaction(sql`insert into tx_rows ${sql.insert({ id: 7, label: "inner kept" })}`)
        }))
        const rows = yield* sql<{ id: number; label: string }>`select id, label from tx_rows order by id`
        expect(rows).toEqual([{ id: 1, label: "committed" }, { id: 5, label: "outer" }, { id: 7, label: "inner kept" }])
      }), { maxConnections: 2 })
  })

  it("statements issued at once inside one transaction are sent one at a time, each with its own result", async () => {
    const warnings: Array<string> = []
    const spy = vi.spyOn(process, "emitWarning").mockImplementation((warning: string | Error) => {
      warnings.push(String(warning))
    })
    try {
      await withClient((sql) =>
        Effect.gen(function*() {
          yield* sql`create table tx_concurrent (n int primary key)`
          const results = yield* sql.withTransaction(Effect.all(
            Array.from({ length: 40 }, (_, i) =>
              i % 2 === 0
                ? Effect.map(sql<{ n: number }>`select ${i}::int as n`, (rows) => rows[0]!.n === i)
                : Effect.map(sql`insert into tx_concurrent (n) values (${i}) returning n`, (rows) => rows[0]!.n === i)),
            { concurrency: "unbounded" }
          ))
          expect(results.every((ok) => ok)).toBe(true)
          expect((yield* sql<{ count: string }>`select count(*) from tx_concurrent`)[0]!.count).toBe("20")
        }))
    } finally {
      spy.mockRestore()
    }
    expect(warnings.filter((w) => /already executing a query/.test(w))).toEqual([])
  })

  it("a hot statement becomes a named prepared statement with the same rows, and survives a schema change", async () => {
    await withClient((sql) =>
      Effect.gen(function*() {
        yield* sql`create table prepared_rows (id int primary key, name text not null, at timestamptz not null, big int8 not null, doc jsonb not null)`
        yield* sql`insert into prepared_rows ${sql.insert([
          { id: 1, name: "one", at: new Date("2030-01-01T00:00:00.000Z"), big: "9007199254740993", doc: sql.json({ a_b: 1 }) },
          { id: 2, name: "two", at: new Date("2030-01-02T00:00:00.000Z"), big: "2", doc: sql.json({ c: [1, 2] }) }
        ])}`
        const byId = (id: number) => sql<Record<string, unknown>>`select * from prepared_rows where id >= ${id} order by id`
        const unnamed = yield* sql<Record<string, unknown>>`select * from prepared_rows where id >= ${1} order by id`.unprepared
        expect(unnamed).toEqual([
          { id: 1, name: "one", at: new Date("2030-01-01T00:00:00.000Z"), big: "9007199254740993", doc: { a_b: 1 } },
          { id: 2, name: "two", at: new Date("2030-01-02T00:00:00.000Z"), big: "2", doc: { c: [1, 2] } }
        ])
        // One connection (a transaction) so the server's list of prepared statements is this one's.
        yield* sql.withTransaction(Effect.gen(function*() {
          for (let i = 0; i < 4; i++) expect(yield* byId(1)).toEqual(unnamed)
          expect(yield* byId(2)).toEqual(unnamed.slice(1))
          const statements = yield* sql<{ statement: string }>`select statement from pg_prepared_statements`
          expect(statements.map((s) => s.statement)).toContain("select * from prepared_rows where id >= $1 order by id")
        }))
        expect(yield* byId(1).values).toEqual(unnamed.map((r) => Object.values(r)))
        // The result type changes under the prepared plan (0A000 on the server): prepared again.
        yield* sql`alter table prepared_rows add column extra text not null default 'x'`
        const afterChange = yield* Effect.all([byId(1), byId(1), byId(1)])
        for (const rows of afterChange) expect(rows).toEqual(unnamed.map((r) => ({ ...r, extra: "x" })))
      }), { maxConnections: 1 })
  })

  it("errors are SqlErrors carrying the pg error; the connection stays usable", async () => {
    await withClient((sql) =>
      Effect.gen(function*() {
        yield* sql`create table unique_rows (id int primary key)`
        yield* sql`insert into unique_rows (id) values (${1})`
        for (let i = 0; i < 3; i++) { // unnamed, then named
          const duplicate = yield* Effect.flip(sql`insert into unique_rows (id) values (${1})`)
          expect(duplicate._tag).toBe("SqlError")
          expect(pgCode(duplicate)).toBe("23505")
          expect((duplicate.reason.cause as { constraint?: string }).constraint).toBe("unique_rows_pkey")
        }
        const inTx = yield* Effect.flip(sql.withTransaction(sql`insert into unique_rows (id) values (${1})`))
        expect(pgCode(inTx)).toBe("23505")
        expect(pgCode(yield* Effect.flip(sql`selec 1`))).toBe("42601")
        expect(yield* sql`select count(*)::int as n from unique_rows`).toEqual([{ n: 1 }])
      }), { maxConnections: 1 })
  })

  it("an interrupted statement is cancelled and its connection serves the next one; a slow one times out (57014)", async () => {
    await withClient((sql) =>
      Effect.gen(function*() {
        const fiber = yield* Effect.forkChild(sql`select pg_sleep(30)`)
        yield* Effect.sleep(Duration.millis(200))
        yield* Fiber.interrupt(fiber)
        // One connection in the pool: it answers once the server has cancelled the sleep.
        const next = yield* sql<{ n: number }>`select ${7}::int as n`.pipe(Effect.timeout(Duration.seconds(10)))
        expect(next).toEqual([{ n: 7 }])
        const slow = yield* Effect.flip(sql`select pg_sleep(5)`)
        expect(pgCode(slow)).toBe("57014")
        expect(yield* sql<{ n: number }>`select ${8}::int as n`).toEqual([{ n: 8 }])
      }), { maxConnections: 1, statementTimeoutMs: 300 })
  })

  it("transaction pool mode: statements stay unnamed, statement_timeout is not a connection setting, the client cancels a slow statement (57014)", async () => {
    await withClient((sql) =>
      Effect.gen(function*() {
        const byId = (n: number) => sql<{ n: number }>`select ${n}::int + 1 as n`
        yield* sql.withTransaction(Effect.gen(function*() {
          for (let i = 0; i < 4; i++) expect(yield* byId(i)).toEqual([{ n: i + 1 }])
          expect(yield* sql`select statement from pg_prepared_statements`).toEqual([])
          // What a transaction pooler gets: no statement_timeout among the connection's parameters.
          expect(yield* sql`select current_setting('statement_timeout') as t`).toEqual([{ t: "0" }])
        }))
        const slow = yield* Effect.flip(sql`select pg_sleep(5)`)
        expect(pgCode(slow)).toBe("57014")
        const inTransaction = yield* Effect.flip(sql.withTransaction(sql`select pg_sleep(5)`))
        expect(pgCode(inTransaction)).toBe("57014")
        expect(yield* sql<{ n: number }>`select ${8}::int as n`).toEqual([{ n: 8 }])
      }), { maxConnections: 1, statementTimeoutMs: 300, poolMode: "transaction", listenUrl: Redacted.make(db.url()) })
  })

  it("listen receives notifications, also after its connection was killed", async () => {
    await withClient((sql) =>
      Effect.gen(function*() {
        const received: Array<string> = []
        yield* Effect.forkScoped(Stream.runForEach(sql.listen("pg_client_test"), (p) => Effect.sync(() => received.push(p))))
        const until = (payload: string) =>
          Effect.gen(function*() {
            yield* sql`select pg_notify('pg_client_test', ${payload})`
            if (!received.includes(payload)) return yield* Effect.fail("not yet")
          }).pipe(Effect.retry(Schedule.spaced("50 millis")), Effect.timeout(Duration.seconds(15)))
        yield* until("first")
        yield* sql.notify("pg_client_test", "second")
        yield* until("second")
        const killed = yield* sql<{ killed: boolean }>`
          select pg_terminate_backend(pid) as killed from pg_stat_activity
          where datname = current_database() and query like 'LISTEN%'`
        expect(killed.length).toBeGreaterThan(0)
        yield* until("after reconnect")
        const chunk = yield* Stream.runCollect(Stream.take(sql.listen("pg_client_test_2"), 1)).pipe(
          Effect.forkChild,
          Effect.tap(() => Effect.sleep(Duration.millis(200))),
          Effect.tap(() => sql`select pg_notify('pg_client_test_2', 'other')`),
          Effect.flatMap(Fiber.join)
        )
        expect(chunk).toEqual(["other"])
      }))
  })

  it("listening to many channels at once sends the LISTENs one at a time, and each channel receives", async () => {
    const warnings: Array<string> = []
    const spy = vi.spyOn(process, "emitWarning").mockImplementation((warning: string | Error) => {
      warnings.push(String(warning))
    })
    try {
      await withClient((sql) =>
        Effect.gen(function*() {
          const channels = Array.from({ length: 12 }, (_, i) => `pg_client_many_${i}`)
          const received = new Set<string>()
          yield* Effect.forEach(
            channels,
            (channel) => Effect.forkScoped(Stream.runForEach(sql.listen(channel), (p) => Effect.sync(() => received.add(p)))),
            { concurrency: "unbounded" }
          )
          yield* Effect.gen(function*() {
            for (const channel of channels) yield* sql`select pg_notify(${channel}, ${channel})`
            if (received.size < channels.length) return yield* Effect.fail("not yet")
          }).pipe(Effect.retry(Schedule.spaced("50 millis")), Effect.timeout(Duration.seconds(15)))
          expect([...received].sort()).toEqual([...channels].sort())
        }))
    } finally {
      spy.mockRestore()
    }
    expect(warnings.filter((w) => /already executing a query/.test(w))).toEqual([])
  })

  it("reserve, withoutTransforms and stream behave as effect/sql's", async () => {
    await withClient((sql) =>
      Effect.gen(function*() {
        yield* sql`create table shaped_rows (row_id int primary key, some_name text)`
        yield* sql`insert into shaped_rows ${sql.insert([{ rowId: 1, someName: "a" }, { rowId: 2, someName: "b" }])}`
        expect(yield* sql`select row_id, some_name from shaped_rows order by row_id`).toEqual([
          { rowId: 1, someName: "a" },
          { rowId: 2, someName: "b" }
        ])
        expect(yield* sql.withoutTransforms()`select row_id from shaped_rows order by row_id`).toEqual([{ row_id: 1 }, { row_id: 2 }])
        const streamed = yield* Stream.runCollect(sql`select row_id from shaped_rows order by row_id`.stream)
        expect(streamed).toEqual([{ rowId: 1 }, { rowId: 2 }])
        const reserved = yield* Effect.scoped(Effect.flatMap(sql.reserve, (c) => c.execute("select $1::int as n", [3], undefined)))
        expect(reserved).toEqual([{ n: 3 }])
      }))
  })
})
