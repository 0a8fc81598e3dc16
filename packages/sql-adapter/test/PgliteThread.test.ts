/**
 * The embedded database on its own thread (PgliteThread.ts): statements, errors with PostgreSQL's
 * fields, LISTEN, and `interrupt` — the worker is replaced mid-statement, the data directory is
 * opened again with every committed row, the interrupted transaction is gone, LISTEN still
 * delivers; in memory, `interrupt` does nothing.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { initPgliteDataDir } from "../src/PgliteInit.js"
import { type EmbeddedDatabase, EmbeddedDatabaseError, startEmbeddedDatabase } from "../src/PgliteThread.js"

/** Shared by the test files that open a data directory: initdb runs once, later ones copy it. */
const templates = join(tmpdir(), "switchboard-test-pglite-templates")

const statement = (db: EmbeddedDatabase, sql: string, params: ReadonlyArray<unknown> = []) =>
  db.run({ sql, params, rowMode: "object", name: undefined, retry: true }).then((r) => r.rows)

describe("the embedded database on its own thread", () => {
  const dir = mkdtempSync(join(tmpdir(), "sb-thread-"))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it("runs statements, reports errors with their fields, and survives an interrupt mid-statement", async () => {
    await initPgliteDataDir(join(dir, "data"), templates)
    const db = await startEmbeddedDatabase({ dataDir: join(dir, "data") })
    try {
      await statement(db, "create table t (id int primary key, v text)")
      await statement(db, "insert into t values ($1, $2)", [1, "committed"])
      expect(await statement(db, "select v from t where id = $1", [1])).toEqual([{ v: "committed" }])
      const raw = await db.raw("select id, v from t", [])
      expect(raw.fields.map((f) => f.name)).toEqual(["id", "v"])

      const failed = await statement(db, "select * from missing_table where id = $1", [1]).catch((e: unknown) => e)
      expect(failed).toBeInstanceOf(EmbeddedDatabaseError)
      expect((failed as EmbeddedDatabaseError).code).toBe("42P01")

      const heard: Array<string> = []
      await db.listen("ping", (payload) => heard.push(payload))
      await statement(db, "select pg_notify('ping', 'before')")

      // A transaction left open and a statement that would run for a long time: both are lost.
      await statement(db, "begin")
      await statement(db, "insert into t values ($1, $2)", [2, "uncommitted"])
      const long = statement(db, "select count(*) from generate_series(1, 200000000)").catch((e: unknown) => e)
      await new Promise((r) => setTimeout(r, 300))
      expect(await db.interrupt()).toBe(true)
      expect(await long).toBeInstanceOf(EmbeddedDatabaseError)
      expect(db.restarts()).toBe(1)

      expect(await statement(db, "select id, v from t order by id")).toEqual([{ id: 1, v: "committed" }])
      await statement(db, "select pg_notify('ping', 'after')")
      await new Promise((r) => setTimeout(r, 100))
      expect(heard).toEqual(["before", "after"])
    } finally {
      await db.close()
    }
    // Closed cleanly: the directory opens again.
    const again = await startEmbeddedDatabase({ dataDir: join(dir, "data") })
    expect(await statement(again, "select count(*)::int as n from t")).toEqual([{ n: 1 }])
    await again.close()
  })

  it("in memory, interrupt does nothing", async () => {
    const db = await startEmbeddedDatabase({ dataDir: undefined })
    expect(await db.interrupt()).toBe(false)
    expect(await statement(db, "select 1 as one")).toEqual([{ one: 1 }])
    await db.close()
  })
})
