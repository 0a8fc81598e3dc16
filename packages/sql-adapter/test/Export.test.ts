/**
 * `exportToPostgres` (Export.ts) on a migrated PGlite data directory into scratch PostgreSQL
 * databases: large values (a 3 MB bytea, a 1 MB jsonb, a 2 MB text, timestamps to the microsecond)
 * arrive exactly — every table's rows compared as text, source against target — the sequences
 * move, and a copy that fails part-way leaves the target empty (one transaction). Runs only with
 * DATABASE_URL (CI sets it).
 */
import { PGlite } from "@electric-sql/pglite"
import { DatabaseClient, DatabaseConfig, exportToPostgres, migrate, scratchPostgres } from "@switchboard/sql-adapter"
import { Effect, Exit, Redacted, Scope } from "effect"
import { randomBytes } from "node:crypto"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import Pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"

const root = mkdtempSync(join(tmpdir(), "switchboard-export-sql-"))
const scope = Effect.runSync(Scope.make())
afterAll(async () => {
  await Effect.runPromise(Scope.close(scope, Exit.void))
  rmSync(root, { recursive: true, force: true })
})

const query = async <A>(url: string, text: string): Promise<Array<A>> => {
  const client = new Pg.Client({ connectionString: url })
  await client.connect()
  try {
    return (await client.query(text)).rows as Array<A>
  } finally {
    await client.end()
  }
}

/** Every row of a table as its text form, in a fixed order: what "exactly the same" means. */
const DIGEST = (table: string) => `select count(*)::int as n, md5(coalesce(string_agg(t::text, E'\\n' order by t::text), '')) as digest from ${table} t`

const exportInto = (source: PGlite, url: string, progress?: (line: string) => void) =>
  Effect.runPromiseExit(
    exportToPostgres(source, { targetName: url, ...(progress === undefined ? {} : { progress }) }).pipe(
      Effect.provide(DatabaseClient(DatabaseConfig.Postgres({ url: Redacted.make(url), maxConnections: 1 })))
    )
  )

describe.runIf(Boolean(process.env.DATABASE_URL))("exportToPostgres", { timeout: 120_000 }, () => {
  const dataDir = join(root, "pglite")
  let source: PGlite
  const blob = randomBytes(3 * 1024 * 1024)
  const json = { list: Array.from({ length: 20_000 }, (_, i) => ({ i, s: `value ${i} \u00e9\u2603 "quoted" \\ back`, n: i / 7 })), nested: { deep: [[[1, 2, { x: null }]]] } }
  const text = "x".repeat(2 * 1024 * 1024) + "\n\ttail"

  beforeAll(async () => {
    await migrate({ config: DatabaseConfig.Pglite({ dataDir }) })
    source = await PGlite.create(dataDir)
    await source.query(
      `insert into signing_keys (kid, state, public_jwk, private_key_sealed, created_at) values ('big', 'next', $1::jsonb, $2, '2026-01-02 03:04:05.123456+00')`,
      [JSON.stringify(json), blob]
    )
    await source.query(
      `insert into idempotency_records (scope, key, fingerprint, created_at, locked_at, response_status, response_headers, response_body)
       values ('s', 'k', 'f', '2026-01-02 03:04:05.000001+00', '2026-01-02 03:04:05.999999+00', 201, $1::jsonb, $2)`,
      [JSON.stringify({ "content-type": "application/json", a: [1, 2, 3] }), text]
    )
    // Sequences away from their start, so setval is seen.
    for (const s of (await source.query<{ name: string }>(`select relname as name from pg_class where relkind = 'S' and relnamespace = 'public'::regnamespace`)).rows) {
      await source.query(`select setval('${s.name}', 4242)`)
    }
  })
  afterAll(async () => {
    await source?.close()
  })

  it("copies every table exactly (large bytea, jsonb, text, microseconds) and sets the sequences", async () => {
    const url = await Effect.runPromise(Scope.provide(scratchPostgres, scope))
    const lines: Array<string> = []
    const exit = await exportInto(source, url, (line) => lines.push(line))
    expect(Exit.isSuccess(exit), String(Exit.isFailure(exit) ? exit.cause : "")).toBe(true)
    const result = Exit.isSuccess(exit) ? exit.value : undefined
    expect(result!.tables.length).toBeGreaterThan(30)
    for (const t of result!.tables) expect(t.target, t.table).toBe(t.source)
    expect(lines).toContain("  signing_keys: 1 row")
    for (const { table } of result!.tables) {
      const [expected] = (await source.query<{ n: number; digest: string }>(DIGEST(table))).rows
      const [actual] = await query<{ n: number; digest: string }>(url, DIGEST(table))
      expect(actual, table).toEqual(expected)
    }
    const [key] = await query<{ private_key_sealed: Buffer; public_jwk: unknown; created_at: string }>(
      url,
      "select private_key_sealed, public_jwk, created_at::text from signing_keys where kid = 'big'"
    )
    expect(Buffer.compare(key!.private_key_sealed, blob)).toBe(0)
    expect(key!.public_jwk).toEqual(json)
    expect(key!.created_at).toBe("2026-01-02 03:04:05.123456+00")
    const [record] = await query<{ response_body: string }>(url, "select response_body from idempotency_records where key = 'k'")
    expect(record!.response_body).toBe(text)
    const sequences = await query<{ name: string; last: string }>(url, "select sequencename as name, last_value::text as last from pg_sequences where schemaname = 'public'")
    expect(sequences.length).toBe(result!.sequences)
    for (const s of sequences) expect(s.last, s.name).toBe("4242")
  })

  it("a copy that fails part-way leaves the target empty, migrations included", async () => {
    const url = await Effect.runPromise(Scope.provide(scratchPostgres, scope))
    // A source row the target's schema refuses (NULL in a NOT NULL column) fails the copy late.
    await source.exec("alter table idempotency_records alter column fingerprint drop not null")
    await source.exec("insert into idempotency_records (scope, key, fingerprint, created_at, locked_at) values ('s', 'null', null, now(), now())")
    try {
      const exit = await exportInto(source, url)
      expect(Exit.isFailure(exit)).toBe(true)
      expect(String(Exit.isFailure(exit) ? exit.cause : "")).toContain("could not copy idempotency_records")
    } finally {
      await source.exec("delete from idempotency_records where key = 'null'")
      await source.exec("alter table idempotency_records alter column fingerprint set not null")
    }
    expect(await query(url, "select count(*)::int as n from pg_class where relnamespace = 'public'::regnamespace")).toEqual([{ n: 0 }])
  })
})
