/**
 * Statements borrowing the client's connection (LeanStatements.ts), on every backend: the same rows
 * through every execution mode, one statement span each for a tracer, and a statement transformer
 * applied. JSON parameters (`PgClient.json`) bind as JSON text whatever their top level: an array
 * is not sent as a PostgreSQL array literal.
 */
import { SqlClient } from "effect/sql"
import * as Statement from "effect/sql/Statement"
import { DatabaseClient, DatabaseConfig, PgClient, scratchPostgres, testBackends } from "@switchboard/sql-adapter"
import { Effect, Layer, Redacted, Tracer } from "effect"
import { describe, expect, it } from "vitest"

const clientLayer = (backend: "pglite" | "postgres") =>
  backend === "pglite"
    ? DatabaseClient(DatabaseConfig.Pglite({ dataDir: undefined }))
    : Layer.unwrap(Effect.map(scratchPostgres, (url) => DatabaseClient(DatabaseConfig.Postgres({ url: Redacted.make(url) }))))

/**
 * A tracer that records the kinds of the spans it is asked for (delegating to the built-in one): a
 * statement's span is a "client" span (named after the database, OpenTelemetry's convention).
 */
const recordingTracer = (kinds: Array<string>) =>
  Effect.map(Effect.tracer, (native) =>
    Tracer.make({
      span: (options) => {
        kinds.push(options.kind)
        return native.span(options)
      },
      ...(native.context === undefined ? {} : { context: native.context })
    }))

for (const backend of testBackends()) {
  describe(`lean statements (${backend})`, () => {
    it("the same rows in every mode; a span per statement for a tracer; a transformer sees every statement", async () => {
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

        const kinds: Array<string> = []
        const tracer = yield* recordingTracer(kinds)
        expect(yield* modes).toEqual(expected)
        expect(yield* Effect.withTracerEnabled(modes, false)).toEqual(expected)

        expect(yield* Effect.withTracer(modes, tracer)).toEqual(expected)
        expect(kinds.filter((k) => k === "client")).toHaveLength(6)

        kinds.length = 0
        const transformed: Array<string> = []
        const withTransformer = modes.pipe(Effect.provideService(Statement.CurrentTransformer, (statement, _sql, _fiber, _span) =>
          Effect.sync(() => {
            transformed.push(statement.compile()[0])
            return statement
          })))
        expect(yield* withTransformer).toEqual(expected)
        expect(transformed).toHaveLength(6)
        expect(kinds).toEqual([])
      })))
    })
  })
}

for (const backend of testBackends()) {
  describe(`JSON parameters (${backend})`, () => {
    it("a JSON value binds as JSON whatever its top level (array, object, scalar), on every path", async () => {
      await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
        const context = yield* Layer.build(clientLayer(backend))
        const pg = yield* Effect.provide(PgClient, context)
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
        const kinds: Array<string> = []
        const tracer = yield* recordingTracer(kinds)
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
        expect(kinds.filter((k) => k === "client")).toHaveLength(values.length)
      })))
    })
  })
}
