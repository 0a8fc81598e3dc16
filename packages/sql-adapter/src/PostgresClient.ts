/**
 * Why this file is long: one client: the connection queue, transactions, prepared-statement names
 * and the `SqlClient`/`PgClient` faces share the state of one closure (`makePostgresClient`).
 *
 * The `effect/sql` client over a `pg` pool: the PostgreSQL compiler and transforms
 * (LeanStatements.ts), the `SqlClient` and our `PgClient` faces (PgClient.ts), at close to the
 * driver's own cost per statement.
 *
 * - A statement outside a transaction takes a pool connection for exactly its own round trip (no
 *   Effect scope: LeanStatements.ts).
 * - A transaction (or `reserve`) holds one pool connection; its statements are queued and sent one
 *   at a time, so statements issued concurrently inside one transaction neither interleave nor make
 *   `pg` queue them (its deprecated "already executing a query" path).
 * - Hot statements are named prepared statements: the second time a statement text with parameters
 *   is seen it gets a name, and each connection parses it once. The names are bounded; past the
 *   bound statements run unnamed. A plan invalidated by a schema change (0A000 "cached plan must
 *   not change result type") drops the name and, outside a transaction, runs the statement again.
 * - Errors are `SqlError`s whose reason's `cause` is the `pg` error (`code`, `constraint`, …). A
 *   connection that failed for any other reason than the server's answer (read timeout, reset, a
 *   failed COMMIT/ROLLBACK) is destroyed, not returned to the pool.
 * - An interrupted statement is cancelled on the server (a CancelRequest, best effort) without
 *   waiting; its connection returns to the pool once the server has answered.
 * - `listen` shares one dedicated connection (not from the pool; `listenConnection` when given)
 *   between all channels, and reconnects (then LISTENs again) when it is lost. Notifications sent meanwhile are lost: users
 *   bound staleness otherwise (credential caches expire).
 */
import * as Reactivity from "effect/reactivity/Reactivity"
import * as Client from "effect/sql/SqlClient"
import type { Connection } from "effect/sql/SqlConnection"
import { SqlError, UnknownError } from "effect/sql/SqlError"
import { Context, Effect, Layer, Queue, Redacted, Stream } from "effect"
import type { Scope } from "effect/Scope"
import Pg, { type Client as PgListenClient, type Notification, type Pool, type PoolClient, type QueryConfig, type QueryResult } from "pg"
import { isInvalidatedPlan, makeLeanClient, makePgCompiler, pgJson, preparedNames, rowTransform } from "./LeanStatements.js"
import { DatabaseTelemetry } from "./DatabaseTelemetry.js"
import { PgClient, type PgClientConfig } from "./PgClient.js"

/**
 * A node-postgres pool (`new Pg.Pool(config)` from `pg`), as the public signatures name it: only
 * the members every `Pool` has, so the published declarations need no `pg` types (`pg` ships none)
 * and a host passes its own pool as it is.
 */
export interface PostgresPool {
  readonly options: object
  readonly ending: boolean
}

export interface PostgresClientOptions {
  readonly transformQueryNames?: ((s: string) => string) | undefined
  readonly transformResultNames?: ((s: string) => string) | undefined
  readonly transformJson?: boolean | undefined
  /** How many statement texts may become named prepared statements (0: none). Default 500. */
  readonly preparedStatements?: number | undefined
  /**
   * The connection options of the LISTEN connection (a `pg` client config such as
   * `{ connectionString }`); default: the pool's own options. Behind a transaction pooler, LISTEN
   * needs a direct connection to the server: a pooled one forgets it between transactions.
   */
  readonly listenConnection?: object | undefined
  /**
   * The client cancels a statement that has run this long (a CancelRequest; the server answers
   * 57014 as for its own `statement_timeout`). For pools that cannot carry `statement_timeout` as a
   * connection parameter (a transaction pooler such as PgBouncer). Default: none.
   */
  readonly cancelAfterMs?: number | undefined
}

type Rows = ReadonlyArray<any>
type Transform = (<A extends object>(rows: ReadonlyArray<A>) => ReadonlyArray<A>) | undefined

const failure = (cause: unknown, message = "Failed to execute statement") =>
  new SqlError({ reason: new UnknownError({ cause, message }) })

/** The server answered (an SQL error): the connection itself is fine. Anything else may have broken it. */
const answeredByServer = (error: unknown): boolean =>
  typeof error === "object" && error !== null && "severity" in error && typeof (error as { code?: unknown }).code === "string"

const TRANSACTION_END = /^\s*(commit|rollback)\b/i

/** The rows of a result (several results for several statements sent as one text). */
const rowsOf = (result: QueryResult | ReadonlyArray<QueryResult>): Rows =>
  Array.isArray(result) ? result.map((r: QueryResult) => r.rows ?? []) : (result as QueryResult).rows ?? []

/** A statement runner: text, values, row mode, what to make of the result, whether it may be prepared. */
type Runner = <A>(
  text: string,
  values: ReadonlyArray<unknown>,
  rowMode: "array" | undefined,
  done: (result: any) => A,
  prepare?: boolean
) => Effect.Effect<A, SqlError>

/** The `effect/sql` connection over one runner (the pool, or one held connection). */
const connectionOver = (run: Runner): Connection => {
  const connection: Connection = {
    execute: (sql, params, transform: Transform) =>
      run(sql, params, undefined, (r) => transform === undefined ? rowsOf(r) : transform(rowsOf(r))),
    executeRaw: (sql, params) => run(sql, params, undefined, (r) => r),
    executeValues: (sql, params) => run(sql, params, "array", (r) => rowsOf(r)) as Effect.Effect<ReadonlyArray<ReadonlyArray<unknown>>, SqlError>,
    executeValuesUnprepared: (sql, params) =>
      run(sql, params, "array", (r) => rowsOf(r), false) as Effect.Effect<ReadonlyArray<ReadonlyArray<unknown>>, SqlError>,
    executeUnprepared: (sql, params, transform: Transform) =>
      run(sql, params, undefined, (r) => transform === undefined ? rowsOf(r) : transform(rowsOf(r)), false),
    executeStream: (sql, params, transform: Transform) =>
      Stream.fromIterableEffect(connection.execute(sql, params, transform)).pipe(Stream.rechunk(128))
  }
  return connection
}

/** The `SqlClient` (and `PgClient`) over `pool`. The pool's lifetime is the caller's. */
export const makePostgresClient = (postgresPool: PostgresPool, options: PostgresClientOptions) =>
  Effect.gen(function*() {
    const pool = postgresPool as Pool
    const compiler = makePgCompiler(options.transformQueryNames, options.transformJson)
    const transformRows = rowTransform(options)
    const prepared = preparedNames(options.preparedStatements ?? 500)
    const cancelAfterMs = options.cancelAfterMs
    /** Calls `cancel` once `cancelAfterMs` have passed (when set); yields the clearing of that timer. */
    const deadline = (cancel: () => void): () => void => {
      if (cancelAfterMs === undefined) return () => {}
      const timer = setTimeout(cancel, cancelAfterMs)
      return () => clearTimeout(timer)
    }

    /** `prepare`: may become a named prepared statement (never for `.unprepared`, nor without parameters). */
    const queryOf = (text: string, values: ReadonlyArray<unknown>, rowMode: "array" | undefined, prepare: boolean): QueryConfig => {
      const name = prepare && values.length > 0 ? prepared.nameOf(text) : undefined
      return { text, values: values as Array<unknown>, ...(name !== undefined ? { name } : {}), ...(rowMode ? { rowMode } : {}) }
    }

    /**
     * Best-effort cancel of what `client` runs now: PostgreSQL's CancelRequest on a connection of
     * its own (no pool connection needed, none taken from a full pool); settles within 5 s.
     */
    const cancelOn = (client: PoolClient): Promise<void> =>
      new Promise((resolve) => {
        const { host, port, processID, secretKey } = client
        if (typeof processID !== "number" || secretKey === null || secretKey === undefined || pool.ending) return resolve()
        const con = new Pg.Connection({})
        const done = () => {
          clearTimeout(timer)
          con.stream.destroy()
          resolve()
        }
        const timer = setTimeout(done, 5_000)
        con.on("connect", () => con.cancel(processID, secretKey))
        con.on("end", done)
        con.on("error", done)
        if (host.startsWith("/")) con.connect(`${host}/.s.PGSQL.${port}`)
        else con.connect(port, host)
      })

    // ---- Outside a transaction: one pool connection for one round trip.

    const onPool = <A>(
      text: string,
      values: ReadonlyArray<unknown>,
      rowMode: "array" | undefined,
      done: (result: any) => A,
      prepare = true
    ) =>
      Effect.callback<A, SqlError>((resume) => {
        // Measured only while an observer listens (DatabaseTelemetry.ts).
        const observe = DatabaseTelemetry.onStatement
        const startedMs = observe === undefined ? 0 : performance.now()
        let state: "acquiring" | "running" | "settled" | "interrupted" = "acquiring"
        let cancelled: Promise<void> | undefined
        let client: PoolClient | undefined
        const send = (query: QueryConfig, retried: boolean) => {
          const c = client!
          let broken: Error | undefined
          const onError = (e: Error) => {
            broken = e
          }
          c.once("error", onError)
          const clearDeadline = deadline(() => {
            cancelled ??= cancelOn(c)
          })
          const answered = (error: Error | null | undefined, result: QueryResult | undefined) => {
            clearDeadline()
            c.removeListener("error", onError)
            if (error !== null && error !== undefined && query.name !== undefined && isInvalidatedPlan(error)) {
              prepared.forget(query.text)
              if (!retried && state === "running") return send({ text: query.text, values: query.values, rowMode: query.rowMode } as QueryConfig, true)
            }
            const destroy = broken ?? (error && !answeredByServer(error) ? error : undefined)
            if (cancelled !== undefined) void cancelled.then(() => c.release(destroy))
            else c.release(destroy)
            if (state !== "running") return
            state = "settled"
            observe?.(performance.now() - startedMs, !!error)
            if (error) resume(Effect.fail(failure(error)))
            else {
              let out: A
              try {
                out = done(result)
              } catch (defect) {
                return resume(Effect.die(defect))
              }
              resume(Effect.succeed(out))
            }
          }
          try {
            c.query(query, answered)
          } catch (error) {
            answered(error as Error, undefined)
          }
        }
        pool.connect((error, c, release) => {
          if (error || c === undefined) {
            if (state === "acquiring") {
              state = "settled"
              resume(Effect.fail(failure(error ?? new Error("No client returned"), "Failed to acquire connection")))
            }
            return
          }
          if (state === "interrupted") return release()
          client = c
          state = "running"
          send(queryOf(text, values, rowMode, prepare), false)
        })
        return Effect.sync(() => {
          if (state === "running") cancelled = cancelOn(client!)
          state = "interrupted"
        })
      })

    const poolConnection = connectionOver(onPool)

    // ---- A held connection (transaction, reserve): statements queued, one at a time.

    interface Job {
      readonly query: QueryConfig
      readonly settle: (error: unknown, result: any) => void
      state: "queued" | "running" | "interrupted"
      /** Set while it runs: cancels it on the server. */
      interrupt?: () => void
    }

    const holdConnection = (client: PoolClient) => {
      const queue: Array<Job> = []
      let running: Job | undefined
      let broken: Error | undefined
      let onIdle: (() => void) | undefined
      let released = false
      const onError = (e: Error) => {
        broken = e
      }
      client.on("error", onError)

      const pump = (): void => {
        if (running !== undefined) return
        const job = queue.shift()
        if (job === undefined) {
          const idle = onIdle
          onIdle = undefined
          return idle?.()
        }
        running = job
        job.state = "running"
        const observe = DatabaseTelemetry.onStatement
        const startedMs = observe === undefined ? 0 : performance.now()
        let cancelled: Promise<void> | undefined
        job.interrupt = () => {
          cancelled ??= cancelOn(client)
        }
        const clearDeadline = deadline(job.interrupt)
        const answered = (error: Error | null | undefined, result: QueryResult | undefined) => {
          clearDeadline()
          observe?.(performance.now() - startedMs, !!error)
          if (error) {
            if (job.query.name !== undefined && isInvalidatedPlan(error)) prepared.forget(job.query.text)
            if (!answeredByServer(error) || TRANSACTION_END.test(job.query.text)) broken ??= error
          }
          const next = () => {
            running = undefined
            pump()
          }
          if (job.state !== "interrupted") job.settle(error, result)
          if (cancelled !== undefined) void cancelled.then(next)
          else next()
        }
        try {
          client.query(job.query, answered)
        } catch (error) {
          answered(error as Error, undefined)
        }
      }

      const run = <A>(
        text: string,
        values: ReadonlyArray<unknown>,
        rowMode: "array" | undefined,
        done: (result: any) => A,
        prepare = true
      ) =>
        Effect.callback<A, SqlError>((resume) => {
          if (released) return resume(Effect.fail(failure(new Error("The connection was released"))))
          const job: Job = {
            query: queryOf(text, values, rowMode, prepare),
            state: "queued",
            settle: (error, result) => {
              if (error) return resume(Effect.fail(failure(error)))
              let out: A
              try {
                out = done(result)
              } catch (defect) {
                return resume(Effect.die(defect))
              }
              resume(Effect.succeed(out))
            }
          }
          queue.push(job)
          pump()
          return Effect.sync(() => {
            if (job.state === "queued") {
              const i = queue.indexOf(job)
              if (i >= 0) queue.splice(i, 1)
            } else if (job.state === "running") {
              job.interrupt?.()
            }
            job.state = "interrupted"
          })
        })

      const connection = connectionOver(run)
      /** Back to the pool once nothing runs on it any more (destroyed if it broke). */
      const release = () => {
        released = true
        const give = () => {
          client.removeListener("error", onError)
          client.release(broken)
        }
        if (running === undefined && queue.length === 0) give()
        else onIdle = give
      }
      return { connection, release }
    }

    const reserve: Effect.Effect<Connection, SqlError, Scope> = Effect.map(
      Effect.acquireRelease(
        Effect.callback<ReturnType<typeof holdConnection>, SqlError>((resume) => {
          pool.connect((error, client) => {
            if (error || client === undefined) {
              resume(Effect.fail(failure(error ?? new Error("No client returned"), "Failed to acquire connection for transaction")))
            } else {
              resume(Effect.succeed(holdConnection(client)))
            }
          })
        }),
        (held) => Effect.sync(held.release)
      ),
      (held) => held.connection
    )

    // ---- LISTEN: one dedicated connection for every channel, reconnected when lost.

    const listener = makeListener(options.listenConnection ?? pool.options)
    // The pool's use, for the server's metrics (read on collection only).
    const poolStats = () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount, max: pool.options.max ?? 10 })
    DatabaseTelemetry.pools.add(poolStats)
    yield* Effect.addFinalizer(() => Effect.sync(() => DatabaseTelemetry.pools.delete(poolStats)))
    yield* Effect.addFinalizer(() => Effect.promise(listener.close).pipe(Effect.timeoutOption(1_000)))

    const client = yield* makeLeanClient({
      connection: poolConnection,
      transactionAcquirer: reserve,
      compiler,
      driver: "pg",
      spanAttributes: spanAttributesOf(pool),
      transformRows
    })
    const pg: PgClient = Object.assign(client, {
      config: configOf(pool),
      json: pgJson,
      listen: (channel: string) =>
        Stream.callback<string, SqlError>((queue) =>
          Effect.acquireRelease(
            Effect.tryPromise({
              try: () => listener.subscribe(channel, (payload) => void Queue.offerUnsafe(queue, payload)),
              catch: (cause) => failure(cause, "Failed to listen")
            }),
            (unsubscribe) => Effect.promise(unsubscribe)
          )),
      // Through pg_notify, as a statement: inside a transaction it is delivered on COMMIT.
      notify: (channel: string, payload: string) => Effect.asVoid(client`select pg_notify(${channel}, ${payload})`)
    })
    return pg
  })

/** What `PgClient.config` says about the pool (no password). */
const configOf = (pool: Pool): PgClientConfig => {
  const o = pool.options
  try {
    const u = new URL(o.connectionString ?? "")
    return {
      url: Redacted.make(o.connectionString!),
      host: u.hostname || undefined,
      port: u.port === "" ? undefined : Number(u.port),
      database: decodeURIComponent(u.pathname.slice(1)) || undefined,
      username: decodeURIComponent(u.username) || undefined,
      applicationName: o.application_name
    }
  } catch {
    return { applicationName: o.application_name }
  }
}

const spanAttributesOf = (pool: Pool): ReadonlyArray<readonly [string, unknown]> => {
  const c = configOf(pool)
  return [
    ["db.system.name", "postgresql"],
    ["db.namespace", c.database ?? c.username ?? "postgres"],
    ["server.address", c.host ?? "localhost"],
    ["server.port", c.port ?? 5432]
  ]
}

/**
 * The LISTEN connection: opened on the first subscription, LISTENs once per channel, ended with
 * the client. Lost (error or end), it is opened again after a growing pause (0.1 s … 5 s) and LISTENs
 * to every channel that still has subscribers.
 */
const makeListener = (connection: object) => {
  const channels = new Map<string, Set<(payload: string) => void>>()
  let client: PgListenClient | undefined
  let connecting: Promise<PgListenClient> | undefined
  let retryTimer: ReturnType<typeof setTimeout> | undefined
  let pause = 100
  let closed = false
  // One statement at a time on the connection: subscriptions arriving together would otherwise
  // queue LISTENs on a busy pg client (pg's "client.query() while already executing" deprecation).
  let queue: Promise<unknown> = Promise.resolve()
  const serial = (c: PgListenClient, text: string): Promise<void> => {
    const next = queue.then(() => c.query(text)).then(() => undefined)
    queue = next.catch(() => undefined)
    return next
  }

  const onNotification = (msg: Notification) => {
    if (!msg.payload) return
    const subscribers = channels.get(msg.channel)
    if (subscribers !== undefined) for (const emit of subscribers) emit(msg.payload)
  }

  const lost = (c: PgListenClient) => () => {
    if (client !== c) return
    client = undefined
    c.removeListener("notification", onNotification)
    void c.end().catch(() => {})
    if (!closed && channels.size > 0) scheduleReconnect()
  }

  const scheduleReconnect = () => {
    if (retryTimer !== undefined || closed) return
    retryTimer = setTimeout(() => {
      retryTimer = undefined
      void connect().then(() => {
        pause = 100
      }, () => {
        pause = Math.min(pause * 2, 5_000)
        scheduleReconnect()
      })
    }, pause)
    retryTimer.unref?.()
  }

  const connect = (): Promise<PgListenClient> => {
    if (client !== undefined) return Promise.resolve(client)
    if (connecting !== undefined) return connecting
    const c = new Pg.Client(connection)
    const onLost = lost(c)
    c.on("error", onLost)
    c.on("end", onLost)
    connecting = (async () => {
      try {
        await c.connect()
        for (const channel of channels.keys()) await c.query(`LISTEN ${Pg.escapeIdentifier(channel)}`)
        if (closed) throw new Error("the client is closed")
        c.on("notification", onNotification)
        client = c
        return c
      } catch (error) {
        c.removeListener("end", onLost)
        void c.end().catch(() => {})
        throw error
      } finally {
        connecting = undefined
      }
    })()
    return connecting
  }

  return {
    /** LISTENs to `channel` (once per channel); yields the unsubscription. */
    subscribe: async (channel: string, emit: (payload: string) => void): Promise<() => Promise<void>> => {
      const subscribers = channels.get(channel) ?? new Set()
      const first = subscribers.size === 0
      subscribers.add(emit)
      channels.set(channel, subscribers)
      try {
        const c = await connect()
        if (first) await serial(c, `LISTEN ${Pg.escapeIdentifier(channel)}`)
      } catch (error) {
        subscribers.delete(emit)
        if (subscribers.size === 0) channels.delete(channel)
        throw error
      }
      return async () => {
        subscribers.delete(emit)
        if (subscribers.size > 0 || channels.get(channel) !== subscribers) return
        channels.delete(channel)
        if (client !== undefined) await serial(client, `UNLISTEN ${Pg.escapeIdentifier(channel)}`).catch(() => {})
      }
    },
    close: async () => {
      closed = true
      if (retryTimer !== undefined) clearTimeout(retryTimer)
      const c = client ?? await connecting?.catch(() => undefined)
      client = undefined
      if (c !== undefined) {
        c.removeListener("notification", onNotification)
        await c.end().catch(() => {})
      }
    }
  }
}

/** The layer: `SqlClient` and `PgClient` over the pool `acquire` opens (closed with the layer). */
export const PostgresClientLayer = <E>(acquire: Effect.Effect<PostgresPool, E, Scope>, options: PostgresClientOptions) =>
  Layer.effectContext(Effect.gen(function*() {
    const client = yield* makePostgresClient(yield* acquire, options)
    return Context.make(PgClient, client).pipe(Context.add(Client.SqlClient, client))
  })).pipe(Layer.provide(Reactivity.layer))
