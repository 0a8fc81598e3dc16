/**
 * Expand/contract (docs/operations.md, "Migrations and upgrades"): the previous release's server
 * must run on the schema the next release migrates to, so a rolling upgrade never stops the old
 * processes. Two halves make that hold without building an old release:
 * - every migration after `EXPAND_ONLY_AFTER` (the schema of the first release) only adds: no
 *   DROP (but DROP NOT NULL / DROP DEFAULT, which only relax), no RENAME, no column type change, no
 *   SET NOT NULL, no NOT NULL column without a default, no new constraint on existing rows — unless
 *   the file says `schema-contract:` with its reason (a contract step, for what an earlier release
 *   stopped using);
 * - this release's SQL runs on a schema expanded the way a later release may expand it (a nullable
 *   and a NOT NULL-with-default column on every table, a new table, a later migration recorded):
 *   the whole repository contract passes on it, and the start-up migration run accepts it.
 */
import { layer } from "@effect/vitest"
import { EXPECTED_SCHEMA_VERSION, MIGRATIONS_TABLE, runMigrations, testStore } from "@switchboard/sql-adapter"
import { repositoryContract } from "@switchboard/testkit/vitest"
import { SqlClient } from "effect/sql"
import { Effect, Layer } from "effect"
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"

/** The last migration of the first release's schema: every later one is expand-only. */
const EXPAND_ONLY_AFTER = 160

const migrationsDir = join(import.meta.dirname, "..", "src", "migrations")

/** The statements' text of a migration file: its source without comments, in lower case, spaces folded. */
const statementsOf = (source: string) =>
  source.replace(/\/\*[\s\S]*?\*\//g, " ").replace(/(^|[^:])\/\/.*$/gm, "$1 ").replace(/\s+/g, " ").toLowerCase()

const forbidden: ReadonlyArray<readonly [RegExp, string]> = [
  [/\bdrop (?!not null\b|default\b)(\w+)/, "drops something (contract: a later release)"],
  [/\brename\b/, "renames (the previous release still uses the old name)"],
  [/\balter column \w+ (set data )?type\b/, "changes a column's type"],
  [/\bset not null\b/, "makes a column NOT NULL (the previous release may still write NULL)"],
  [/\badd column (if not exists )?\w+ [^,;`]*\bnot null\b(?![^,;`]*\bdefault\b)/, "adds a NOT NULL column without a default (the previous release's INSERTs fail)"],
  [/\badd constraint\b(?![^;`]*\bnot valid\b)/, "adds a constraint checked on existing rows (add it NOT VALID)"],
  [/\btruncate\b/, "empties a table"]
]

/** Why `source` is not expand-only (none: it is, or it says `schema-contract:`). */
const contractSteps = (source: string): ReadonlyArray<string> => {
  if (/schema-contract:/.test(source)) return []
  const text = statementsOf(source)
  return forbidden.flatMap(([pattern, why]) => pattern.test(text) ? [why] : [])
}

const migrationFiles = () =>
  readdirSync(migrationsDir).filter((f) => /^\d+_.*\.ts$/.test(f)).map((f) => ({ id: Number(f.slice(0, f.indexOf("_"))), file: f }))

describe("migrations after the first release are expand-only", () => {
  it("the checker: what it refuses and what it lets through", () => {
    expect(contractSteps("sql`alter table t add column c text`")).toEqual([])
    expect(contractSteps("sql`alter table t add column c bigint not null default 0`")).toEqual([])
    expect(contractSteps("sql`create table n (id uuid primary key, at timestamptz not null)`")).toEqual([])
    expect(contractSteps("sql`alter table lines alter column phone_number drop not null`")).toEqual([])
    expect(contractSteps("sql`create index concurrently if not exists i on t (c)`")).toEqual([])
    expect(contractSteps("sql`alter table t add constraint c check (x > 0) not valid`")).toEqual([])
    expect(contractSteps("sql`drop table t`")).toHaveLength(1)
    expect(contractSteps("sql`alter table t drop column c`")).toHaveLength(1)
    expect(contractSteps("sql`alter table t rename column a to b`")).toHaveLength(1)
    expect(contractSteps("sql`alter table t alter column c type bigint`")).toHaveLength(1)
    expect(contractSteps("sql`alter table t alter column c set not null`")).toHaveLength(1)
    expect(contractSteps("sql`alter table t add column c text not null`")).toHaveLength(1)
    expect(contractSteps("sql`alter table t add constraint u unique (c)`")).toHaveLength(1)
    // Comments are not statements; a declared contract step passes.
    expect(contractSteps("// drop table t later\nsql`alter table t add column c text`")).toEqual([])
    expect(contractSteps("/** schema-contract: t unused since 0.2 */\nsql`drop table t`")).toEqual([])
  })

  it("finds the earlier contract steps too (0150 drops and rebuilds an index), so it reads the files it checks", () => {
    const files = migrationFiles()
    expect(files.map((f) => f.id)).toContain(EXPAND_ONLY_AFTER)
    expect(Math.max(...files.map((f) => f.id))).toBe(EXPECTED_SCHEMA_VERSION)
    const earlier = files.find((f) => f.id === 150)!
    expect(contractSteps(readFileSync(join(migrationsDir, earlier.file), "utf8"))).toEqual(["drops something (contract: a later release)"])
  })

  it("every migration after the first release's schema only adds", () => {
    const offending = migrationFiles()
      .filter((f) => f.id > EXPAND_ONLY_AFTER)
      .flatMap((f) => contractSteps(readFileSync(join(migrationsDir, f.file), "utf8")).map((why) => `${f.file}: ${why}`))
    expect(offending).toEqual([])
  })
})

/** A later release's expansion, as the policy allows it: new columns on every table, a new table, its migration recorded. */
const LATER = EXPECTED_SCHEMA_VERSION + 10
const expandLikeALaterRelease = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const tables = yield* sql<{ name: string }>`select table_name as name from information_schema.tables
    where table_schema = current_schema() and table_type = 'BASE TABLE' order by 1`
  for (const { name } of tables) {
    yield* sql.unsafe(`alter table "${name}" add column later_note text, add column later_flag boolean not null default false`)
  }
  yield* sql.unsafe("create table later_things (id uuid primary key, created_at timestamptz not null default now())")
  yield* sql.unsafe(`insert into ${MIGRATIONS_TABLE} (migration_id, name) values (${LATER}, 'laterRelease')`)
})

const expanded = () => Layer.effectDiscard(expandLikeALaterRelease).pipe(Layer.provideMerge(testStore("pglite")), Layer.orDie)

repositoryContract("pglite, schema expanded by a later release", expanded)

layer(expanded(), { excludeTestServices: true })("a later release's expanded schema", (it) => {
  it.effect("this release's start-up migration run accepts it: nothing to apply, the later version kept", () =>
    Effect.gen(function*() {
      const result = yield* runMigrations
      expect(result).toEqual({ applied: [], version: LATER })
    }))
})
