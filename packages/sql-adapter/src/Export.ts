/**
 * Moving an embedded installation onto PostgreSQL (docs/operations.md, "Moving off the embedded
 * database"): every row of the PGlite data directory copied into an EMPTY PostgreSQL database at
 * the same schema version, in ONE transaction on the target — a failure at any point leaves it
 * as empty as it was.
 *
 * The target is migrated with the same migration list (so its schema is the one the server would
 * make), the rows the migrations seed are cleared, then every table is copied parents first (in the
 * order of its foreign keys), its user triggers disabled meanwhile (`events_seq` would renumber
 * the events, the record-change triggers would log the copy as changes); each value travels as
 * its PostgreSQL text form and is read back by the column type's input function, so bytea, jsonb,
 * timestamps (to the microsecond), arrays and numerics arrive exactly. Sequences are set to the
 * source's position (`setval`), and each table's row count is compared before the commit.
 */
import type { PGlite } from "@electric-sql/pglite"
import { SqlClient } from "effect/sql"
import { Data, Effect } from "effect"
import { EXPECTED_SCHEMA_VERSION, MIGRATIONS_TABLE, Migrations, withMigrationLock } from "./Migrations.js"
import { messagesOf } from "./shared/ErrorMessages.js"

/** The export was refused or failed; nothing was written to the target. */
export class ExportFailed extends Data.TaggedError("ExportFailed")<{ readonly message: string; readonly cause?: unknown }> {}

/** One copied table: its name (schema-qualified outside `public`) and its rows in the source and the target. */
export interface ExportedTable {
  readonly table: string
  readonly source: number
  readonly target: number
}

export interface ExportResult {
  readonly schemaVersion: number
  readonly tables: ReadonlyArray<ExportedTable>
  readonly sequences: number
}

export interface ExportOptions {
  /** The target as it may be shown in messages (its password masked). */
  readonly targetName: string
  /** Called with one line per table started and, in a large one, every `progressRows` rows. */
  readonly progress?: (line: string) => void
  /** Rows between progress lines within one table (default 10 000). */
  readonly progressRows?: number
}

interface Column {
  readonly name: string
  readonly type: string
}

interface Table {
  readonly schema: string
  readonly name: string
  readonly columns: ReadonlyArray<Column>
  readonly identityAlways: boolean
  readonly triggers: boolean
  readonly parents: ReadonlyArray<string>
}

const ident = (name: string) => `"${name.replace(/"/g, "\"\"")}"`
const qualified = (schema: string, name: string) => `${ident(schema)}.${ident(name)}`
const shownName = (schema: string, name: string) => (schema === "public" ? name : `${schema}.${name}`)

/** The user schemas (not PostgreSQL's own). */
const USER_SCHEMAS = `n.nspname not in ('pg_catalog', 'information_schema') and n.nspname not like 'pg\\_toast%' and n.nspname not like 'pg\\_temp%'`

/** What a database holds: its relations (tables, views, sequences, …) in user schemas. */
const RELATIONS = `select n.nspname as schema, c.relname as name, c.relkind::text as kind
  from pg_class c join pg_namespace n on n.oid = c.relnamespace
  where c.relkind in ('r', 'p', 'v', 'm', 'S', 'f') and ${USER_SCHEMAS} order by 1, 2`

const TABLES = `select n.nspname as schema, c.relname as name, c.oid::int8::text as oid
  from pg_class c join pg_namespace n on n.oid = c.relnamespace
  where c.relkind = 'r' and ${USER_SCHEMAS} order by 1, 2`

const COLUMNS = `select a.attname as name, format_type(a.atttypid, a.atttypmod) as type, a.attidentity::text as identity,
    a.attgenerated::text as generated
  from pg_attribute a where a.attrelid = $1::text::oid and a.attnum > 0 and not a.attisdropped order by a.attnum`

const PARENTS = `select distinct n.nspname as schema, c.relname as name from pg_constraint k
  join pg_class c on c.oid = k.confrelid join pg_namespace n on n.oid = c.relnamespace
  where k.contype = 'f' and k.conrelid = $1::text::oid and k.confrelid <> k.conrelid`

const TRIGGERS = `select count(*)::int as n from pg_trigger where tgrelid = $1::text::oid and not tgisinternal`

const SEQUENCES = `select n.nspname as schema, c.relname as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
  where c.relkind = 'S' and ${USER_SCHEMAS} order by 1, 2`

/** The source's tables, parents before children (foreign keys), the migrations table left out. */
const sourceTables = async (db: PGlite): Promise<ReadonlyArray<Table>> => {
  const found = (await db.query<{ schema: string; name: string; oid: string }>(TABLES)).rows
    .filter((t) => !(t.schema === "public" && t.name === MIGRATIONS_TABLE))
  const tables = new Map<string, Table>()
  for (const t of found) {
    const columns = (await db.query<{ name: string; type: string; identity: string; generated: string }>(COLUMNS, [t.oid])).rows
    const parents = (await db.query<{ schema: string; name: string }>(PARENTS, [t.oid])).rows.map((p) => shownName(p.schema, p.name))
    const triggers = (await db.query<{ n: number }>(TRIGGERS, [t.oid])).rows[0]!.n > 0
    tables.set(shownName(t.schema, t.name), {
      schema: t.schema,
      name: t.name,
      // Generated columns are computed by the target itself.
      columns: columns.filter((c) => c.generated === "").map((c) => ({ name: c.name, type: c.type })),
      identityAlways: columns.some((c) => c.identity === "a"),
      triggers,
      parents
    })
  }
  const ordered: Array<Table> = []
  const state = new Map<string, "visiting" | "done">()
  const visit = (key: string) => {
    const table = tables.get(key)
    if (table === undefined || state.get(key) === "done") return
    if (state.get(key) === "visiting") throw new Error(`the foreign keys of ${key} form a cycle: cannot order the copy`)
    state.set(key, "visiting")
    for (const parent of table.parents) visit(parent)
    state.set(key, "done")
    ordered.push(table)
  }
  for (const key of tables.keys()) visit(key)
  return ordered
}

const schemaVersionOf = async (db: PGlite): Promise<number | undefined> => {
  const table = (await db.query<{ found: boolean }>(`select to_regclass('${MIGRATIONS_TABLE}') is not null as found`)).rows[0]
  if (table?.found !== true) return undefined
  const rows = (await db.query<{ version: number | null }>(`select max(migration_id) as version from ${MIGRATIONS_TABLE}`)).rows
  return rows[0]?.version ?? 0
}

/** What a non-empty target holds, in one line ("12 relations (accounts, events, …) and a Switchboard schema at version 160"). */
const contentsOf = (relations: ReadonlyArray<{ schema: string; name: string }>, version: number | undefined) => {
  const names = relations.map((r) => shownName(r.schema, r.name))
  const list = names.length > 6 ? `${names.slice(0, 6).join(", ")}, …` : names.join(", ")
  const parts = [
    ...(names.length > 0 ? [`${names.length} relation${names.length === 1 ? "" : "s"} (${list})`] : []),
    ...(version !== undefined ? [`a Switchboard schema at version ${version}`] : [])
  ]
  return parts.join(" and ")
}

/** Rows of one INSERT: at most 1 000, at most ~30 000 parameters, at most ~4 MB of values. */
const MAX_ROWS = 1_000
const MAX_PARAMS = 30_000
const MAX_BYTES = 4 * 1024 * 1024

/**
 * Copies the embedded database `source` (opened and locked by the caller) into the empty
 * PostgreSQL database of the `SqlClient` (the target; its connection must not transform names).
 * Fails with `ExportFailed` — the target left as it was — when the source is not at this
 * package's schema version, the target is not empty, or any step fails.
 */
export const exportToPostgres = (source: PGlite, options: ExportOptions): Effect.Effect<ExportResult, ExportFailed, SqlClient.SqlClient> =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const say = options.progress ?? (() => {})
    const every = Math.max(1, options.progressRows ?? 10_000)
    const fromSource = <A>(what: string, f: () => Promise<A>) =>
      Effect.tryPromise({ try: f, catch: (cause) => new ExportFailed({ message: `${what}: ${messagesOf(cause)}`, cause }) })

    const sourceVersion = yield* fromSource("could not read the embedded database's schema version", () => schemaVersionOf(source))
    if (sourceVersion !== EXPECTED_SCHEMA_VERSION) {
      return yield* new ExportFailed({
        message: sourceVersion === undefined
          ? "the embedded database has no Switchboard schema: nothing to export"
          : sourceVersion < EXPECTED_SCHEMA_VERSION
          ? `the embedded database is at schema version ${sourceVersion}, this Switchboard is at ${EXPECTED_SCHEMA_VERSION}: ` +
            "migrate it first (start the server on it once with this version, stop it), then export"
          : `the embedded database is at schema version ${sourceVersion}, newer than this Switchboard (${EXPECTED_SCHEMA_VERSION}): ` +
            "export with the Switchboard version that last ran on it"
      })
    }

    const target = (what: string) => <A, E, R>(self: Effect.Effect<A, E, R>) =>
      Effect.mapError(self, (cause) => cause instanceof ExportFailed ? cause : new ExportFailed({ message: `${what}: ${messagesOf(cause)}`, cause }))

    // A snapshot of the source for the whole read (the caller holds the lock: nothing else writes).
    yield* fromSource("could not read the embedded database", () => source.exec("begin isolation level repeatable read read only"))
    const copy = Effect.gen(function*() {
      // Refuse a target that holds anything: relations in a user schema, or a schema version.
      const relations = yield* sql.unsafe<{ schema: string; name: string; kind: string }>(RELATIONS).withoutTransform.pipe(
        target(`could not read ${options.targetName}`)
      )
      const version = relations.some((r) => r.schema === "public" && r.name === MIGRATIONS_TABLE)
        ? (yield* sql.unsafe<{ version: number | null }>(`select max(migration_id) as version from ${MIGRATIONS_TABLE}`).withoutTransform.pipe(
          target(`could not read ${options.targetName}`)
        ))[0]?.version ?? 0
        : undefined
      if (relations.length > 0 || version !== undefined) {
        return yield* new ExportFailed({
          message: `the target ${options.targetName} is not empty: it holds ${contentsOf(relations, version)}. ` +
            "Export into a new, empty database (CREATE DATABASE …); nothing was written"
        })
      }

      say(`Migrating ${options.targetName} to schema version ${sourceVersion}…`)
      yield* withMigrationLock(Migrations).pipe(target("could not migrate the target"))
      const migrated = (yield* sql.unsafe<{ version: number | null }>(`select max(migration_id) as version from ${MIGRATIONS_TABLE}`).withoutTransform
        .pipe(target("could not read the target's schema version")))[0]?.version
      if (migrated !== sourceVersion) {
        return yield* new ExportFailed({ message: `the target was migrated to version ${migrated}, not ${sourceVersion}` })
      }

      const tables = yield* fromSource("could not list the embedded database's tables", () => sourceTables(source))
      // Rows the migrations seeded are in the source too (it ran the same migrations): the copy brings them.
      if (tables.length > 0) {
        yield* sql.unsafe(`truncate ${tables.map((t) => qualified(t.schema, t.name)).join(", ")}`).withoutTransform.pipe(
          target("could not clear the rows the migrations seeded")
        )
      }
      const counts: Array<ExportedTable> = []
      for (const table of tables) {
        const name = shownName(table.schema, table.name)
        const from = qualified(table.schema, table.name)
        const total = Number((yield* fromSource(`could not count ${name}`, () => source.query<{ n: string }>(`select count(*)::text as n from ${from}`))).rows[0]!.n)
        say(`  ${name}: ${total} row${total === 1 ? "" : "s"}`)
        if (table.triggers) yield* sql.unsafe(`alter table ${from} disable trigger user`).withoutTransform.pipe(target(`could not prepare ${name}`))
        const columns = table.columns
        const insertHead = `insert into ${from} (${columns.map((c) => ident(c.name)).join(", ")})${
          table.identityAlways ? " overriding system value" : ""
        } values `
        // At most `every` rows an INSERT, so a progress line comes every `every` rows.
        const rowsPerInsert = Math.max(1, Math.min(MAX_ROWS, every, Math.floor(MAX_PARAMS / Math.max(1, columns.length))))
        const flush = (batch: ReadonlyArray<ReadonlyArray<string | null>>) => {
          if (batch.length === 0) return Effect.void
          const params: Array<string | null> = []
          const tuples = batch.map((row) =>
            `(${row.map((value, i) => {
              params.push(value)
              return `$${params.length}::${columns[i]!.type}`
            }).join(", ")})`
          )
          return sql.unsafe(insertHead + tuples.join(", "), params).withoutTransform.pipe(Effect.asVoid, target(`could not copy ${name}`))
        }
        if (columns.length > 0 && total > 0) {
          const cursor = `sb_export_${counts.length}`
          yield* fromSource(`could not read ${name}`, () =>
            source.exec(`declare ${cursor} no scroll cursor for select ${columns.map((c) => `${ident(c.name)}::text`).join(", ")} from ${from}`))
          let copied = 0
          let nextReport = every
          let batch: Array<ReadonlyArray<string | null>> = []
          let bytes = 0
          while (true) {
            const rows = (yield* fromSource(`could not read ${name}`, () =>
              source.query<Array<string | null>>(`fetch ${rowsPerInsert} from ${cursor}`, [], { rowMode: "array" }))).rows
            if (rows.length === 0) break
            for (const row of rows) {
              batch.push(row)
              for (const v of row) bytes += v === null ? 0 : v.length
              if (batch.length >= rowsPerInsert || bytes >= MAX_BYTES) {
                yield* flush(batch)
                copied += batch.length
                batch = []
                bytes = 0
                if (copied >= nextReport && copied < total) {
                  say(`  ${name}: ${copied}/${total} rows`)
                  while (nextReport <= copied) nextReport += every
                }
              }
            }
          }
          yield* flush(batch)
          copied += batch.length
          yield* fromSource(`could not read ${name}`, () => source.exec(`close ${cursor}`))
        }
        if (table.triggers) yield* sql.unsafe(`alter table ${from} enable trigger user`).withoutTransform.pipe(target(`could not finish ${name}`))
        const copied = Number((yield* sql.unsafe<{ n: string }>(`select count(*)::text as n from ${from}`).withoutTransform.pipe(target(`could not count ${name}`)))[0]!.n)
        counts.push({ table: name, source: total, target: copied })
        if (copied !== total) {
          return yield* new ExportFailed({ message: `${name}: ${total} rows in the embedded database but ${copied} in the target` })
        }
      }

      // Sequences where the source left them, so new rows never collide with copied ones.
      const sequences = (yield* fromSource("could not list the sequences", () => source.query<{ schema: string; name: string }>(SEQUENCES))).rows
      for (const s of sequences) {
        const at = (yield* fromSource(`could not read the sequence ${s.name}`, () =>
          source.query<{ last: string; called: boolean }>(`select last_value::text as last, is_called as called from ${qualified(s.schema, s.name)}`))).rows[0]!
        yield* sql.unsafe(`select setval($1::text::regclass, $2::text::int8, $3::boolean)`, [qualified(s.schema, s.name), at.last, String(at.called)])
          .withoutTransform.pipe(target(`could not set the sequence ${s.name}`))
      }
      return { schemaVersion: sourceVersion, tables: counts, sequences: sequences.length }
    })
    return yield* sql.withTransaction(copy).pipe(
      Effect.mapError((e) => e instanceof ExportFailed ? e : new ExportFailed({ message: `the export failed: ${messagesOf(e)}`, cause: e })),
      Effect.ensuring(Effect.promise(() => source.exec("rollback").catch(() => undefined)))
    )
  })
