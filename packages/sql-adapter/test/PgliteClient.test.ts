/**
 * Our `effect/sql` client over PGlite's own API (PgliteClient.ts): a hot statement becomes a named
 * prepared statement of the session, with the same rows and values as PGlite's `query` gives the
 * same text (every column type the repositories use, every parameter kind), in every execution
 * mode; it survives a schema change that alters its result; its errors are the database's.
 */
import { SqlClient } from "effect/sql"
import type { SqlError } from "effect/sql/SqlError"
import { DatabaseClient, DatabaseConfig, PgClient } from "@switchboard/sql-adapter"
import { Effect, Layer, Scope } from "effect"
import { describe, expect, it } from "vitest"

type Client = PgClient

const withClient = <A, E>(f: (sql: Client) => Effect.Effect<A, E, Scope.Scope>): Promise<A> =>
  Effect.runPromise(Effect.scoped(Effect.gen(function*() {
    const context = yield* Layer.build(DatabaseClient(DatabaseConfig.Pglite({ dataDir: undefined })))
    const sql = (yield* Effect.provide(PgClient, context)) as Client
    expect(yield* Effect.provide(SqlClient.SqlClient, context)).toBe(sql)
    return yield* f(sql)
  })) as Effect.Effect<A, never>)

const code = (e: SqlError) => (e.reason.cause as { code?: string }).code

describe("the PGlite client (PgliteClient.ts)", () => {
  it("a hot statement becomes a named prepared statement with the same rows and values, and survives a schema change", async () => {
    await withClient((sql) =>
      Effect.gen(function*() {
        yield* sql`create table prepared_rows (id int primary key, name text, at timestamptz not null, big int8 not null, doc jsonb not null, tags text[] not null, raw bytea, flag boolean not null)`
        const insert = (row: { id: number; name: string | null; at: Date; big: string; doc: unknown; tags: Array<string>; raw: Uint8Array | null; flag: boolean }) =>
          sql`insert into prepared_rows (id, name, at, big, doc, tags, raw, flag) values (${row.id}, ${row.name}, ${row.at}, ${row.big}, ${sql.json(row.doc)}, ${row.tags}, ${row.raw}, ${row.flag})`
        // The first row's insert is unnamed, the others go through the prepared statement.
        const rows = [
          { id: 1, name: "one", at: new Date("2030-01-01T00:00:00.000Z"), big: "9007199254740993", doc: { a_b: 1 }, tags: ["x", "y \"z\""], raw: new Uint8Array([0, 1, 255]), flag: true },
          { id: 2, name: null, at: new Date("2030-01-02T00:00:00.000Z"), big: "2", doc: { c: [1, 2] }, tags: [], raw: null, flag: false },
          { id: 3, name: "thrée", at: new Date("2030-01-03T00:00:00.000Z"), big: "-3", doc: { d: null, e: ["é"] }, tags: ["a,b"], raw: new Uint8Array([7]), flag: true }
        ]
        for (const row of rows) yield* insert(row)
        const byId = (id: number) => sql<Record<string, unknown>>`select * from prepared_rows where id >= ${id} order by id`
        const unnamed = yield* sql<Record<string, unknown>>`select * from prepared_rows where id >= ${1} order by id`.unprepared
        expect(unnamed.map((r) => ({ ...r, raw: r.raw === null ? null : [...(r.raw as Uint8Array)] }))).toEqual(rows.map((r) => ({
          ...r,
          raw: r.raw === null ? null : [...r.raw]
        })))
        for (let i = 0; i < 4; i++) expect(yield* byId(1)).toEqual(unnamed)
        expect(yield* byId(2)).toEqual(unnamed.slice(1))
        expect(yield* sql.withTransaction(byId(1))).toEqual(unnamed)
        const statements = yield* sql<{ statement: string }>`select statement from pg_prepared_statements`
        expect(statements.map((s) => s.statement)).toContain("select * from prepared_rows where id >= $1 order by id")
        expect(statements.map((s) => s.statement)).toContain(
          "insert into prepared_rows (id, name, at, big, doc, tags, raw, flag) values ($1, $2, $3, $4, $5, $6, $7, $8)"
        )
        for (let i = 0; i < 3; i++) expect(yield* byId(1).values).toEqual(unnamed.map((r) => Object.values(r)))
        // A statement without a result (an UPDATE) and one answering no row, prepared.
        for (let i = 0; i < 3; i++) {
          yield* sql`update prepared_rows set name = ${`n${i}`} where id = ${3}`
          expect(yield* sql`select id from prepared_rows where id = ${99 + i}`).toEqual([])
        }
        expect(yield* sql`select name from prepared_rows where id = ${3}`).toEqual([{ name: "n2" }])
        // The result type changes under the prepared plan (0A000): prepared again.
        yield* sql`alter table prepared_rows add column extra text not null default 'x'`
        const afterChange = yield* Effect.all([byId(1), byId(1), byId(1)])
        for (const rows of afterChange) expect(rows).toEqual(unnamed.map((r) => ({ ...r, name: r.id === 3 ? "n2" : r.name, extra: "x" })))
      }))
  })

  it("errors of prepared statements are SqlErrors carrying the database error; the session stays usable", async () => {
    await withClient((sql) =>
      Effect.gen(function*() {
        yield* sql`create table unique_rows (id int primary key)`
        yield* sql`insert into unique_rows (id) values (${1})`
        for (let i = 0; i < 3; i++) { // unnamed, then named
          const duplicate = yield* Effect.flip(sql`insert into unique_rows (id) values (${1})`)
          expect(duplicate._tag).toBe("SqlError")
          expect(code(duplicate)).toBe("23505")
          expect((duplicate.reason.cause as { constraint?: string }).constraint).toBe("unique_rows_pkey")
        }
        const inTx = yield* Effect.flip(sql.withTransaction(sql`insert into unique_rows (id) values (${1})`))
        expect(code(inTx)).toBe("23505")
        for (let i = 0; i < 3; i++) expect(code(yield* Effect.flip(sql`select ${"x"}::int as n`))).toBe("22P02")
        expect(yield* sql`select count(*)::int as n from unique_rows where id > ${0}`).toEqual([{ n: 1 }])
        expect(yield* sql`select count(*)::int as n from unique_rows where id > ${0}`).toEqual([{ n: 1 }])
      }))
  })
})
