// @ts-check
/**
 * The embedded database's own thread (PgliteThread.ts starts it): PGlite — PostgreSQL compiled to
 * WASM, synchronous inside a statement — runs here, so a long statement never stops the server's
 * event loop; requests that need no database keep being answered while it runs.
 *
 * Plain JavaScript on purpose: a worker thread is loaded by Node itself, outside the TypeScript
 * loader of the process that starts it (tsx, vitest or the CLI bundle).
 *
 * Messages in: `{ id, op: "run" | "raw" | "listen" | "unlisten" | "dump" | "close", … }`; out: `{ id, ok }`
 * or `{ id, error }` (the error's own fields: PostgreSQL's `code`, `position`, … survive), and
 * `{ notify: channel, payload }` for LISTEN. The session engine is what PgliteClient.ts describes:
 * a statement text seen twice becomes a named prepared statement (one Bind/Execute/Sync exchange
 * per execution); parameters arrive already prepared as node-postgres prepares them.
 */
import { parentPort, workerData } from "node:worker_threads"
import { parse, PGlite, protocol } from "@electric-sql/pglite"

const port = /** @type {import("node:worker_threads").MessagePort} */ (parentPort)
const INT8 = 20
const { serialize } = protocol

/** @param {unknown} error */
const errorOf = (error) => {
  if (error === null || typeof error !== "object") return { message: String(error) }
  /** @type {Record<string, unknown>} */
  const out = { message: String(/** @type {{ message?: unknown }} */ (error).message ?? error) }
  for (const [k, v] of Object.entries(error)) {
    if (v === null || ["string", "number", "boolean"].includes(typeof v)) out[k] = v
  }
  return out
}

/** @param {unknown} error */
const isInvalidatedPlan = (error) =>
  typeof error === "object" && error !== null && /** @type {{ code?: unknown }} */ (error).code === "0A000" &&
  /cached plan must not change result type/.test(String(/** @type {{ message?: unknown }} */ (error).message))

/** @param {ReadonlyArray<Uint8Array>} parts */
const concat = (parts) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0))
  let at = 0
  for (const p of parts) {
    out.set(p, at)
    at += p.length
  }
  return out
}

let db
try {
  // int8 as text, as node-postgres gives it (set once here: per-query parsers cost ~60 µs each).
  db = await PGlite.create(workerData.dataDir ?? undefined, {
    parsers: { [INT8]: (/** @type {string} */ value) => value },
    ...(workerData.sharedBuffersMb == null
      ? {}
      : { startParams: [...PGlite.defaultStartParams, "-c", `shared_buffers=${workerData.sharedBuffersMb}MB`] })
  })
} catch (error) {
  port.postMessage({ failed: errorOf(error) })
  process.exit(1)
}

/** Named prepared statements of the session: parameter types and result description. */
const described = new Map()

/** @param {unknown} value @param {number | undefined} oid */
const serializeParam = (value, oid) => {
  if (value === null || value === undefined) return null
  const serializer = oid === undefined ? undefined : db.serializers[oid]
  return serializer ? serializer(value) : String(value)
}

/** @param {string} name @param {string} sql @param {ReadonlyArray<unknown>} params @param {"object" | "array"} rowMode */
const runNamed = (name, sql, params, rowMode) =>
  db.runExclusive(async () => {
    let statement = described.get(name)
    if (statement === undefined) {
      const answer = await db.execProtocol(
        concat([serialize.parse({ name, text: sql }), serialize.describe({ type: "S", name }), serialize.sync()]),
        { syncToFs: false }
      )
      statement = {
        paramTypes: parse.parseDescribeStatementResults(answer.messages),
        rowDescription: answer.messages.find((m) => m.name === "rowDescription")
      }
      described.set(name, statement)
    }
    const values = params.map((p, i) => serializeParam(p, statement.paramTypes[i]))
    const answer = await db.execProtocol(concat([serialize.bind({ statement: name, values }), serialize.execute({}), serialize.sync()]))
    const messages = statement.rowDescription === undefined ? answer.messages : [statement.rowDescription, ...answer.messages]
    return parse.parseResults(messages, db.parsers, rowMode === "array" ? { rowMode } : undefined)[0].rows
  })

/**
 * One statement. Without parameters, several statements may be sent at once. `forgot`: the named
 * statement's plan was invalidated by a schema change (the caller names it afresh next time);
 * `retry`: then run it unnamed (outside a transaction only: inside, the error aborted it).
 */
const run = async ({ sql, params, rowMode, name, retry }) => {
  if (params.length === 0 && rowMode === "object") {
    const results = await db.exec(sql)
    return { rows: results.length === 1 ? results[0].rows : results.map((r) => r.rows), forgot: false }
  }
  let forgot = false
  if (name !== undefined) {
    try {
      return { rows: await runNamed(name, sql, params, rowMode), forgot }
    } catch (error) {
      if (!isInvalidatedPlan(error)) throw error
      described.delete(name)
      forgot = true
      if (!retry) throw Object.assign(error, { forgot })
    }
  }
  const result = await db.query(sql, params, rowMode === "array" ? { rowMode } : undefined)
  return { rows: result.rows, forgot }
}

/**
 * A copy of the data directory (a gzipped tar, PGlite's `dumpDataDir`), for a backup. The caller
 * holds the session, so no transaction is open; CHECKPOINT first writes every change to the data
 * files, and PGlite tars the directory under its query lock, between statements, so nothing
 * writes while it is read: the copy is the committed state at this moment.
 * @param {PGlite} pg
 */
const dumpDataDir = async (pg) => {
  await pg.exec("CHECKPOINT")
  return new Uint8Array(await (await pg.dumpDataDir("gzip")).arrayBuffer())
}

/** LISTEN registrations by channel (the main thread subscribes once per channel). */
const listening = new Map()

const handle = async (m) => {
  switch (m.op) {
    case "run":
      return run(m)
    case "raw": {
      const r = await db.query(m.sql, m.params)
      return { fields: r.fields, rows: r.rows, affectedRows: r.affectedRows }
    }
    case "listen":
      if (!listening.has(m.channel)) listening.set(m.channel, await db.listen(m.channel, (payload) => port.postMessage({ notify: m.channel, payload })))
      return null
    case "unlisten": {
      const unlisten = listening.get(m.channel)
      listening.delete(m.channel)
      if (unlisten !== undefined) await unlisten()
      return null
    }
    case "dump":
      return dumpDataDir(db)
    case "close":
      await db.close()
      return null
  }
  throw new Error(`unknown operation ${m.op}`)
}

port.on("message", (m) => {
  handle(m).then(
    // Bytes (a dump) are moved, not copied.
    (ok) => port.postMessage({ id: m.id, ok }, ok instanceof Uint8Array ? [ok.buffer] : []),
    (error) => port.postMessage({ id: m.id, error: errorOf(error) })
  ).finally(() => {
    if (m.op === "close") port.close()
  })
})
port.postMessage({ ready: true })
