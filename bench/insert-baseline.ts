/**
 * The multi-row INSERT baseline of the ingestion benches (`calls.ts`, `messages.ts`): the rows a
 * batch writes, inserted with one multi-row INSERT per table in one transaction through the raw
 * driver (`pg` on PostgreSQL, in a scratch database of its own; PGlite's own API on PGlite) into
 * scratch tables, by `connections` concurrent loops.
 */
import { PGlite } from "@electric-sql/pglite"
import { performance } from "node:perf_hooks"
import Pg from "pg"
import { BenchFailure } from "./lib.js"

/** `INSERT INTO table (cols) VALUES ($1,…),(…)` for `rows` rows of `cols.length` values. */
export const multiRowInsert = (table: string, cols: ReadonlyArray<string>, rows: number) => {
  const values = Array.from({ length: rows }, (_, r) => `(${cols.map((_, c) => `$${r * cols.length + c + 1}`).join(",")})`)
  return `insert into ${table} (${cols.join(",")}) values ${values.join(",")}`
}

export interface Baseline {
  readonly run: (seconds: number) => Promise<{ batches: number; seconds: number }>
  readonly close: () => Promise<void>
}

/** One batch's statements: [sql, parameters] each, run in order in one transaction. */
export type BatchStatements = () => ReadonlyArray<readonly [string, Array<unknown>]>

/** `connections` loops, each inserting one batch's rows per transaction, for `seconds`. */
const loops = async (connections: number, seconds: number, insertBatch: () => Promise<void>) => {
  const deadline = performance.now() + seconds * 1000
  let batches = 0
  const t0 = performance.now()
  await Promise.all(Array.from({ length: connections }, async () => {
    while (performance.now() < deadline) {
      await insertBatch()
      batches++
    }
  }))
  return { batches, seconds: (performance.now() - t0) / 1000 }
}

const failed = (e: unknown) => new BenchFailure(`baseline: ${e instanceof Error ? e.message : String(e)}`)

const postgresBaseline = async (name: string, scratch: ReadonlyArray<string>, connections: number, batch: BatchStatements): Promise<Baseline> => {
  const url = process.env.DATABASE_URL!
  const database = `bench_${name}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`
  const admin = new Pg.Pool({ connectionString: url, max: 1 })
  await admin.query(`create database ${database}`)
  const u = new URL(url)
  u.pathname = `/${database}`
  // One single-connection pool per loop: its statements are one session's, BEGIN to COMMIT.
  const sessions = Array.from({ length: connections }, () => new Pg.Pool({ connectionString: u.toString(), max: 1 }))
  for (const s of scratch) await sessions[0]!.query(s)
  let next = 0
  const free = [...sessions]
  const insertBatch = async () => {
    const statements = batch()
    const session = free.pop() ?? sessions[next++ % sessions.length]!
    try {
      await session.query("begin")
      for (const [sql, params] of statements) await session.query(sql, params)
      await session.query("commit")
    } catch (e) {
      await session.query("rollback").catch(() => undefined)
      throw failed(e)
    } finally {
      free.push(session)
    }
  }
  return {
    run: (seconds) => loops(connections, seconds, insertBatch),
    close: async () => {
      await Promise.all(sessions.map((s) => s.end()))
      await admin.query(`drop database if exists ${database}`)
      await admin.end()
    }
  }
}

const pgliteBaseline = async (scratch: ReadonlyArray<string>, connections: number, batch: BatchStatements): Promise<Baseline> => {
  const db = await PGlite.create()
  for (const s of scratch) await db.exec(s)
  const insertBatch = async () => {
    const statements = batch()
    await db.transaction(async (tx) => {
      for (const [sql, params] of statements) await tx.query(sql, params)
    }).catch((e: unknown) => {
      throw failed(e)
    })
  }
  return { run: (seconds) => loops(connections, seconds, insertBatch), close: () => db.close() }
}

/** The baseline on `backend`: `scratch` creates its tables, `batch` gives each batch's INSERTs. */
export const insertBaseline = (options: {
  readonly backend: "pglite" | "postgres"
  readonly name: string
  readonly scratch: ReadonlyArray<string>
  readonly connections: number
  readonly batch: BatchStatements
}): Promise<Baseline> =>
  options.backend === "postgres"
    ? postgresBaseline(options.name, options.scratch, options.connections, options.batch)
    : pgliteBaseline(options.scratch, options.connections, options.batch)
