/**
 * New PGlite data directories (PgliteInit.ts): the first is made by initdb in a child process and
 * saved as the template; the next is a copy of the template. Both must be the same database as
 * PGlite's own initdb makes, and work as a data directory: opened, migrated, written, reopened.
 */
import { PGlite } from "@electric-sql/pglite"
import { SqlClient } from "effect/sql"
import { DatabaseClient, DatabaseConfig, initPgliteDataDir, Migrations, needsInit, pgliteTemplatePath } from "@switchboard/sql-adapter"
import { Effect, Layer } from "effect"
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"

const root = mkdtempSync(join(tmpdir(), "switchboard-pglite-init-"))
afterAll(() => rmSync(root, { recursive: true, force: true }))

/** What tells two clusters apart: databases, roles, catalog relations, settings that initdb fixes. */
const catalogOf = async (dataDir: string) => {
  const db = await PGlite.create(dataDir)
  try {
    const q = async (sql: string) => (await db.query(sql)).rows
    return {
      databases: await q("select datname, datistemplate, datallowconn, encoding, datcollate from pg_database order by datname"),
      roles: await q("select rolname, rolsuper from pg_roles order by rolname"),
      relations: await q("select c.relname, c.relkind, n.nspname from pg_class c join pg_namespace n on n.oid = c.relnamespace order by 3, 1, 2"),
      settings: await q("select name, setting from pg_settings where name in ('server_encoding', 'lc_collate', 'lc_ctype', 'data_checksums', 'server_version') order by name")
    }
  } finally {
    await db.close()
  }
}

const systemIdOf = async (dataDir: string) => {
  const db = await PGlite.create(dataDir)
  try {
    return String((await db.query<{ id: string }>("select system_identifier::text as id from pg_control_system()")).rows[0]!.id)
  } finally {
    await db.close()
  }
}

/** The migrated schema, through the server's own client (as the server opens it). */
const schemaOf = (dataDir: string, templateDir: string) =>
  Effect.gen(function*() {
    yield* Migrations
    const sql = yield* SqlClient.SqlClient
    yield* sql`create table probe (n int primary key)`
    yield* sql`insert into probe values (1), (2)`
    return yield* sql<{ tableName: string; columnName: string; dataType: string }>`
      select table_name, column_name, data_type from information_schema.columns
      where table_schema = 'public' order by table_name, ordinal_position`
  }).pipe(Effect.provide(Layer.fresh(DatabaseClient(DatabaseConfig.Pglite({ dataDir, templateDir, sharedBuffersMb: 16 })))), Effect.scoped, Effect.runPromise)

describe("PGlite data directories from a template", { timeout: 300_000 }, () => {
  const templates = join(root, "cache")

  it("initdb in a child, saved as the template; the next is a copy: the same database as PGlite's own initdb", async () => {
    // PGlite's own initdb, in this process: the reference.
    const reference = join(root, "reference")
    await (await PGlite.create(reference)).close()

    const first = join(root, "first", "pglite")
    mkdirSync(join(root, "first"))
    expect(needsInit(first)).toBe(true)
    expect(await initPgliteDataDir(first, templates)).toBe("initdb")
    expect(existsSync(join(pgliteTemplatePath(templates), "PG_VERSION"))).toBe(true)

    const second = join(root, "second", "pglite")
    mkdirSync(second, { recursive: true }) // an empty directory is new too
    expect(needsInit(second)).toBe(true)
    expect(await initPgliteDataDir(second, templates)).toBe("template")
    expect(needsInit(second)).toBe(false)
    // No staging directory is left beside them.
    expect(readdirSync(join(root, "second"))).toEqual(["pglite"])

    // A copy, not a new initdb: the cluster's identifier (random per initdb) is the template's.
    expect(existsSync(join(second, "PG_VERSION"))).toBe(true)
    const ids = await Promise.all([first, second, reference].map(systemIdOf))
    expect(ids[1]).toBe(ids[0])
    expect(ids[2]).not.toBe(ids[0])

    const expected = await catalogOf(reference)
    expect(expected.databases.map((d) => (d as { datname: string }).datname)).toEqual(["postgres", "template0", "template1"])
    expect(await catalogOf(first)).toEqual(expected)
    expect(await catalogOf(second)).toEqual(expected)
  })

  it("a directory from the template opens, migrates, keeps its rows and reopens like one from initdb", async () => {
    const a = join(root, "a", "pglite")
    const b = join(root, "b", "pglite")
    const schemaA = await schemaOf(a, join(root, "other-cache")) // no template there yet: initdb
    const schemaB = await schemaOf(b, templates) // the template of the first case
    expect(schemaB).toEqual(schemaA)
    expect(schemaA.some((c) => c.tableName === "probe")).toBe(true)
    // Reopened: the rows are there; the directory is not made again.
    const rows = await Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      return yield* sql<{ n: number }>`select n from probe order by n`
    }).pipe(Effect.provide(Layer.fresh(DatabaseClient(DatabaseConfig.Pglite({ dataDir: b, templateDir: templates })))), Effect.scoped, Effect.runPromise)
    expect(rows.map((r) => r.n)).toEqual([1, 2])
  })

  it("shared_buffers is what was asked for", async () => {
    const dir = join(root, "buffers", "pglite")
    const setting = await Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      return (yield* sql<{ sharedBuffers: string }>`show shared_buffers`)[0]!.sharedBuffers
    }).pipe(Effect.provide(Layer.fresh(DatabaseClient(DatabaseConfig.Pglite({ dataDir: dir, templateDir: templates, sharedBuffersMb: 24 })))), Effect.scoped, Effect.runPromise)
    expect(setting).toBe("24MB")
  })

  it("a non-empty directory without a cluster is left to PGlite; a crash's staging directory is removed", async () => {
    const dir = join(root, "odd", "pglite")
    mkdirSync(dir, { recursive: true })
    writeFileSync(join(dir, "note.txt"), "not a cluster")
    expect(needsInit(dir)).toBe(false)
    const fresh = join(root, "crashed", "pglite")
    mkdirSync(`${fresh}.init-999999`, { recursive: true })
    writeFileSync(join(`${fresh}.init-999999`, "PG_VERSION"), "17")
    expect(await initPgliteDataDir(fresh, templates)).toBe("template")
    expect(readdirSync(join(root, "crashed"))).toEqual(["pglite"])
  })
})
