/**
 * The embedded database on its own thread (PgliteWorker.mjs): PGlite executes a statement
 * synchronously, so in the server's thread one long statement would stop every request, even those
 * that need no database. Here each statement is a message to the worker and its answer a message
 * back (rows are structured-cloned). That costs CPU on every statement — bench/sql.ts, quiet
 * machine: 244 µs per primary-key SELECT through the client, against 102 µs with PGlite on the
 * server's thread — the price of a server that keeps answering whatever the database is doing.
 *
 * `interrupt` stops a statement that runs too long: the worker is terminated and the same data
 * directory opened again in a new one — PostgreSQL recovers from its write-ahead log as after a
 * crash, so everything committed is there and the interrupted transaction is rolled back. A
 * database in memory cannot be reopened: there `interrupt` does nothing and the statement runs to
 * its end (the thread still keeps the server answering). A worker that dies on its own is
 * replaced the same way on the next statement.
 */
import { Worker } from "node:worker_threads"

export interface EmbeddedDatabaseOptions {
  /** The data directory (locked by the caller), or undefined for a database in memory. */
  readonly dataDir: string | undefined
  readonly sharedBuffersMb?: number | undefined
}

export interface RawResult {
  readonly fields: ReadonlyArray<{ readonly name: string; readonly dataTypeID: number }>
  readonly rows: ReadonlyArray<Record<string, unknown>>
  readonly affectedRows?: number
}

export interface EmbeddedDatabase {
  /** One statement (see PgliteWorker.mjs `run`); `forgot`: the named statement's plan was invalidated. */
  readonly run: (args: {
    readonly sql: string
    readonly params: ReadonlyArray<unknown>
    readonly rowMode: "object" | "array"
    readonly name: string | undefined
    readonly retry: boolean
  }) => Promise<{ readonly rows: ReadonlyArray<any>; readonly forgot: boolean }>
  /** One statement with its result's field descriptions. */
  readonly raw: (sql: string, params: ReadonlyArray<unknown>) => Promise<RawResult>
  /** LISTEN on `channel` until the returned function is called. */
  readonly listen: (channel: string, onPayload: (payload: string) => void) => Promise<() => Promise<void>>
  /** A gzipped tar of the data directory after a CHECKPOINT (PgliteWorker.mjs `dumpDataDir`); the caller holds the session. */
  readonly dump: () => Promise<Uint8Array>
  /** Stops the statement running now by reopening the database in a new worker; false in memory. */
  readonly interrupt: () => Promise<boolean>
  /** How many times the worker was replaced (interrupted or died). */
  readonly restarts: () => number
  readonly close: () => Promise<void>
}

/** An error raised in the worker, with PostgreSQL's fields (`code`, `position`, …) as they were. */
export class EmbeddedDatabaseError extends Error {
  readonly code?: string
  readonly position?: string
  readonly forgot?: boolean
  constructor(fields: Record<string, unknown>) {
    super(String(fields.message ?? "the embedded database failed"))
    Object.assign(this, fields)
  }
}

const workerUrl = new URL("./PgliteWorker.mjs", import.meta.url)
/** How long `close` waits for a busy worker before stopping it. */
const CLOSE_WAIT_MS = 10_000

interface Pending {
  readonly resolve: (value: any) => void
  readonly reject: (error: unknown) => void
}

interface Running {
  readonly worker: Worker
  readonly pending: Map<number, Pending>
  exited: boolean
}

/** Starts the worker and waits until its database is open. */
const spawn = (options: EmbeddedDatabaseOptions, onNotify: (channel: string, payload: string) => void, onExit: (running: Running) => void) =>
  new Promise<Running>((resolve, reject) => {
    const worker = new Worker(workerUrl, {
      workerData: { dataDir: options.dataDir ?? null, sharedBuffersMb: options.sharedBuffersMb ?? null },
      // The worker needs no loader of the parent's (tsx, vitest): it is plain JavaScript.
      execArgv: [],
      stdout: false,
      stderr: false
    })
    const running: Running = { worker, pending: new Map(), exited: false }
    let ready = false
    worker.on("message", (m: any) => {
      if (m.ready === true) {
        ready = true
        worker.unref()
        return resolve(running)
      }
      if (m.failed !== undefined) return reject(new EmbeddedDatabaseError(m.failed))
      if (m.notify !== undefined) return onNotify(m.notify, m.payload)
      const p = running.pending.get(m.id)
      if (p === undefined) return
      running.pending.delete(m.id)
      if (running.pending.size === 0) worker.unref()
      if (m.error !== undefined) p.reject(new EmbeddedDatabaseError(m.error))
      else p.resolve(m.ok)
    })
    worker.on("error", (error) => {
      if (!ready) reject(error)
    })
    worker.on("exit", (code) => {
      running.exited = true
      const error = new EmbeddedDatabaseError({ message: `the embedded database stopped (worker exit ${code})`, code: "57P01" })
      for (const p of running.pending.values()) p.reject(error)
      running.pending.clear()
      if (!ready) reject(error)
      else onExit(running)
    })
  })

/** Opens the embedded database in a worker thread. */
export const startEmbeddedDatabase = async (options: EmbeddedDatabaseOptions): Promise<EmbeddedDatabase> => {
  const subscribers = new Map<string, Set<(payload: string) => void>>()
  const onNotify = (channel: string, payload: string) => {
    for (const f of subscribers.get(channel) ?? []) f(payload)
  }
  let closing = false
  let restarts = 0
  let nextId = 0
  /** The current worker, or the replacement being opened. */
  let current: Promise<Running>
  /** The current worker once open (a statement then goes straight to it); none while one opens. */
  let open: Running | undefined
  const onExit = (running: Running) => {
    // A worker that died (not one we stopped or closed) is replaced on the next statement.
    if (!closing && options.dataDir !== undefined) {
      void current.then((c) => {
        if (c === running) void replace().catch(() => {})
      })
    }
  }
  const replace = (): Promise<Running> => {
    restarts++
    open = undefined
    current = spawn(options, onNotify, onExit).then(async (running) => {
      for (const channel of subscribers.keys()) await send(running, { op: "listen", channel })
      open = running
      return running
    })
    return current
  }
  /** Posts `message` (a fresh object of the caller's, given its id here) and waits for its answer. */
  const send = (running: Running, message: Record<string, unknown>) =>
    new Promise<any>((resolve, reject) => {
      if (running.exited) return reject(new EmbeddedDatabaseError({ message: "the embedded database stopped", code: "57P01" }))
      const id = ++nextId
      message.id = id
      running.pending.set(id, { resolve, reject })
      running.worker.ref()
      running.worker.postMessage(message)
    })
  const call = (message: Record<string, unknown>) =>
    open !== undefined ? send(open, message) : current.then((running) => send(running, message))

  current = spawn(options, onNotify, onExit)
  open = await current

  return {
    run: ({ name, params, retry, rowMode, sql }) => call({ op: "run", sql, params, rowMode, name, retry }),
    raw: (sql, params) => call({ op: "raw", sql, params }),
    dump: () => call({ op: "dump" }),
    listen: async (channel, onPayload) => {
      let set = subscribers.get(channel)
      if (set === undefined) {
        set = new Set()
        subscribers.set(channel, set)
        await call({ op: "listen", channel })
      }
      set.add(onPayload)
      return async () => {
        const s = subscribers.get(channel)
        if (s === undefined || !s.delete(onPayload) || s.size > 0) return
        subscribers.delete(channel)
        if (!closing) await call({ op: "unlisten", channel }).catch(() => {})
      }
    },
    interrupt: async () => {
      if (options.dataDir === undefined || closing) return false
      const running = await current
      const stopped = running.worker.terminate()
      const next = replace()
      await stopped
      await next
      return true
    },
    restarts: () => restarts,
    close: async () => {
      if (closing) return
      closing = true
      const running = await current.catch(() => undefined)
      if (running === undefined) return
      const done = new Promise<void>((resolve) => running.worker.once("exit", () => resolve()))
      const timer = setTimeout(() => void running.worker.terminate(), CLOSE_WAIT_MS)
      await send(running, { op: "close" }).catch(() => {})
      await done
      clearTimeout(timer)
    }
  }
}
