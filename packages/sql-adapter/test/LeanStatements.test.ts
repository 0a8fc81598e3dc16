/**
 * Statements without a span each (LeanStatements.ts), on every backend: the same rows through every
 * execution mode, and the stock, traced path whenever someone looks — a tracer other than Effect's
 * built-in one (an exporter), or a statement transformer. JSON parameters (`PgClient.json`) bind as
 * JSON text whatever their top level: an array is not sent as a PostgreSQL array literal.
 */
import { SqlClient } from "@effect/sql"
import * as Statement from "@effect/sql/Statement"
import * as PgClient from "@effect/sql-pg/PgClient"
import { DatabaseClient, DatabaseConfig, scratchPostgres, testBackends } from "@switchboard/sql-adapter"
import { Effect, Layer, Redacted, Tracer } from "effect"
import { describe, expect, it } from "vitest"

const clientLayer = (backend: "pglite" | "postgres") =>
  backend === "pglite"
    ? DatabaseClient(DatabaseConfig.Pglite({ dataDir: undefined }))
    : Layer.unwrapScoped(Effect.map(scratchPostgres, (url) => DatabaseClient(DatabaseConfig.Postgres({ url: Redacted.make(url) }))))

/** A tracer that records the names of the spans it is asked for (delegating to the built-in one). */
const recordingTracer = (names: Array<string>) =>
  Effect.map(Effect.tracer, (native) =>
    Tracer.make({
      span: (name, parent, context, links, startTime, kind, options) => {
        names.push(name)
        return native.span(name, parent, context, links, startTime, kind, options)
      },
      context: (f, fiber) => native.context(f, fiber)
    }))

for (const backend of testBackends()) {
  describe(`lean statements (${backend})`, () => {
    it("the same rows in every mode; spans only for a tracer that exports, or with a transformer", async () => {
      await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
        const context = yield* Layer.build(clientLayer(backend))
        const sql = yield* Effect.provide(SqlClient.SqlClient, context)
        yield* sql`create table lean_rows (row_id int primary key, row_name text not null)`
        yield* sql`insert into lean_rows ${sql.insert([{ rowId: 1, rowName: "a" }, { rowId: 2, rowName: "b" }])}`
        const select = () => sql`select row_id, row_name from lean_rows where row_id >= ${1} order by row_id`
        const camel = [{ rowId: 1, rowName: "a" }, { rowId: 2, rowName: "b" }]
        const snake = [{ row_id: 1, row_name: "a" }, { row_id: 2, row_name: "b" }]
        const modes = Effect.all({
          commit: select(),
          unprepared: select().unprepared,
          values: select().values,
          withoutTransform: select().withoutTransform,
          unsafe: sql.unsafe("select row_id, row_name from lean_rows where row_id >= $1 order by row_id", [1]),
          inTransaction: sql.withTransaction(select())
        })
        const expected = { commit: camel, unprepared: camel, values: [[1, "a"], [2, "b"]], withoutTransform: snake, unsafe: camel, inTransaction: camel }

        const names: Array<string> = []
        const tracer = yield* recordingTracer(names)
        expect(yield* modes).toEqual(expected)
        expect(yield* Effect.withTracerEnabled(modes, false)).toEqual(expected)

        expect(yield* Effect.withTracer(modes, tracer)).toEqual(expected)
        expect(names.filter((n) => n === "sql.execute")).toHaveLength(6)

        names.length = 0
        const transformed: Array<string> = []
        const withTransformer = modes.pipe(Statement.withTransformer((statement, _sql, _refs, _span) =>
          Effect.sync(() => {
            transformed.push(statement.compile()[0])
            return statement
          })))
        expect(yield* withTransformer).toEqual(expected)
        expect(transformed).toHaveLength(6)
        expect(names).toEqual([])
      })))
    })
  })
}

for (const backend of testBackends()) {
  describe(`JSON parameters (${backend})`, () => {
    it("a JSON value binds as JSON whatever its top level (array, object, scalar), on every path", async () => {
      await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
        const context = yield* Layer.build(clientLayer(backend))
        const pg = yield* Effect.provide(PgClient.PgClient, context)
        yield* pg`create table lean_json (row_id int primary key, doc jsonb not null)`
        const values: ReadonlyArray<unknown> = [
          ["a", "b"],
          [1, [2, 3], { nested: ["x"] }],
          [],
          { list: [1, 2], text: "quo\"te" },
          "text",
          42,
          true
        ]
        const names: Array<string> = []
        const tracer = yield* recordingTracer(names)
        for (const [i, value] of values.entries()) {
          yield* pg`insert into lean_json (row_id, doc) values (${i}, ${pg.json(value)})`
          // Twice: the second run of a text is a named prepared statement.
          for (let n = 0; n < 2; n++) {
            const [row] = yield* pg<{ doc: unknown }>`select ${pg.json(value)}::jsonb as doc`
            expect(row!.doc).toEqual(value)
          }
          const [traced] = yield* Effect.withTracer(pg<{ doc: unknown }>`select ${pg.json(value)}::jsonb as doc`, tracer)
          expect(traced!.doc).toEqual(value)
          expect(yield* pg`select doc from lean_json where row_id = ${i}`.values).toEqual([[value]])
          expect(yield* pg`select row_id from lean_json where doc = ${pg.json(value)}`).toEqual([{ rowId: i }])
        }
        expect(names.filter((n) => n === "sql.execute")).toHaveLength(values.length)
      })))
    })
  })
}
