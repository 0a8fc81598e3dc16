/**
 * The SQL query operation on PostgreSQL and PGlite (docs/sql-query.md): defence in depth.
 *
 * (a) SqlGuard: PostgreSQL's parser and an allow-list walk (one SELECT over the two relations).
 * (b) The sandbox: the statement runs wrapped as a subquery (`select * from (…) limit n+1`, so it
 *     cannot be anything but a query expression), in a `READ ONLY` transaction, as the role
 *     `switchboard_metrics_reader`, which may read only the two views in `metrics_sandbox`, with
 *     `statement_timeout`, a row cap and a result-size cap; the transaction always rolls back.
 *     PGlite does not enforce `statement_timeout` (measured: pg_sleep(3) runs its 3 s), so the
 *     embedded database asks the planner first (EXPLAIN, as the same role) and refuses a plan over
 *     a cost cap or with a recursive union; a statement the estimate let through that still runs
 *     past the timeout is stopped from outside (its worker thread replaced) and answered 504. The estimate is only as good as the statistics (with
 *     none, a view restricted to one project is estimated at one row and a cross join of six
 *     looks free), so the embedded engine ANALYZEs the three base tables before a query when it
 *     has not in the last minute.
 * (c) The project: the views read it from `metrics_scope`, a row the owner inserts in the query's
 *     own transaction (never committed, invisible to other sessions, not writable by the role) —
 *     not from a setting the statement could change.
 *
 * `layers` turns one defence off for the hostile-SQL suite only (each layer disabled in turn must
 * leave the others refusing); the server always runs all three.
 */
import { SqlClient } from "effect/sql"
import type { SqlError } from "effect/sql/SqlError"
import { PgClient } from "../PgClient.js"
import {
  type MetricsQuery,
  MetricsQueryEngine,
  MetricsQueryInvalid,
  MetricsQueryResourceLimit,
  MetricsQueryTimeout,
  type QueryMessageMetricsResponse,
  sqlLimits
} from "@switchboard/core/metrics"
import type { ProjectId } from "@switchboard/core/shared"
import { Clock, Duration, Effect, Fiber, Layer, Ref } from "effect"
import { interruptEmbedded } from "../PgliteClient.js"
import { die, driverError, orDie } from "../shared/Sql.js"
import { bindParameters, checkQuery, loadParser } from "./SqlGuard.js"

export interface MetricsSandboxOptions {
  /** Test switch: a layer set to false is skipped. */
  readonly layers?: { readonly parser?: boolean; readonly role?: boolean; readonly scope?: boolean }
  readonly statementTimeoutMillis?: number
  readonly maximumRows?: number
  readonly maximumResultBytes?: number
  /** The embedded database's planner-cost cap (its stand-in for the statement timeout). */
  readonly maximumEmbeddedCost?: number
}

export const readerRole = "switchboard_metrics_reader"
const wrapPrefix = "select * from (\n"

const typeNames: Record<number, string> = {
  16: "boolean", 20: "bigint", 21: "smallint", 23: "integer", 25: "text", 700: "real", 701: "double precision",
  705: "text", 1042: "text", 1043: "text", 1082: "date", 1083: "time", 1114: "timestamp", 1184: "timestamptz",
  1186: "interval", 1700: "numeric", 114: "json", 3802: "jsonb", 2950: "uuid"
}

/** A cell as JSON: integers beyond ±2^53 and decimals a double cannot hold exactly stay strings. */
const cell = (value: unknown, type: number): null | boolean | number | string => {
  if (value === null || value === undefined) return null
  if (typeof value === "boolean") return value
  if (typeof value === "number") return Number.isFinite(value) ? value : String(value)
  if (typeof value === "bigint") return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString()
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) return String(value)
    return type === 1082 ? value.toISOString().slice(0, 10) : value.toISOString()
  }
  if (typeof value === "string") {
    if (type === 20 || type === 1700) {
      const n = Number(value)
      return Number.isFinite(n) && (Number.isSafeInteger(n) ? String(n) === value : String(n) === value) ? n : value
    }
    return value
  }
  if (typeof (value as { toPostgres?: unknown }).toPostgres === "function") return (value as { toPostgres: () => string }).toPostgres()
  return JSON.stringify(value)
}

interface RawResult {
  readonly fields: ReadonlyArray<{ readonly name: string; readonly dataTypeID: number }>
  readonly rows: ReadonlyArray<Record<string, unknown>>
}

class Rollback {
  constructor(readonly result: RawResult) {}
}

interface PgErrorLike {
  readonly code?: string
  readonly message?: string
  readonly position?: string | number
}

/** A plan node tree's worst offender for the embedded cost gate. */
const planViolation = (plan: any, maximumCost: number): string | undefined => {
  if (plan === null || typeof plan !== "object") return undefined
  if (plan["Node Type"] === "Recursive Union") return "a recursive query cannot be bounded here"
  if (typeof plan["Total Cost"] === "number" && plan["Total Cost"] > maximumCost) {
    return `the planner estimates cost ${Math.round(plan["Total Cost"])}, over the cap of ${maximumCost}`
  }
  for (const child of plan.Plans ?? []) {
    const found = planViolation(child, maximumCost)
    if (found !== undefined) return found
  }
  return undefined
}

export const makeMetricsQueryEngine = (options: MetricsSandboxOptions = {}) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const pg = yield* PgClient
    const embedded = pg.config.database === "pglite"
    const layers = { parser: true, role: true, scope: true, ...options.layers }
    const timeout = options.statementTimeoutMillis ?? sqlLimits.statementTimeoutMillis
    const maximumRows = options.maximumRows ?? sqlLimits.maximumRows
    const maximumResultBytes = options.maximumResultBytes ?? sqlLimits.maximumResultBytes
    const maximumCost = options.maximumEmbeddedCost ?? 2_000_000
    const analyzedAt = yield* Ref.make(Number.NEGATIVE_INFINITY)
    /** Embedded only: fresh statistics for the planner gate, at most once a minute. */
    const statistics = Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      if (now - (yield* Ref.get(analyzedAt)) < 60_000) return
      yield* sql.unsafe("analyze message_event_log, calls, call_signals").pipe(orDie)
      yield* Ref.set(analyzedAt, now)
    })

    const run = (query: MetricsQuery) =>
      Effect.gen(function*() {
        const started = yield* Clock.currentTimeMillis
        const parser = yield* loadParser
        const bound = yield* bindParameters(parser, query.sql, query.parameters)
        if (layers.parser) yield* checkQuery(parser, bound)
        const text = layers.role ? `${wrapPrefix}${bound.text}\n) as metrics_query limit ${maximumRows + 1}` : bound.text
        const shift = layers.role ? wrapPrefix.length : 0
        if (embedded) yield* statistics

        /** An error of the statement → the caller's problem (positions mapped back to their sql). */
        const fromSql = (e: SqlError): Effect.Effect<never, MetricsQueryInvalid | MetricsQueryTimeout | MetricsQueryResourceLimit> => {
          const cause = (driverError(e) ?? {}) as PgErrorLike
          const code = cause.code ?? ""
          if (code === "57014") return Effect.fail(new MetricsQueryTimeout({ timeoutMillis: timeout }))
          if (code.startsWith("54") || code.startsWith("53")) {
            return Effect.fail(new MetricsQueryResourceLimit({ limit: "cost", message: cause.message ?? "over a resource limit" }))
          }
          if (/^(08|57P|58|XX)/.test(code) || code === "") return die(e)
          const at = Number(cause.position)
          const position = Number.isInteger(at) && at > shift ? positionIn(bound.text, at - shift, bound.positionOf) : undefined
          return Effect.fail(new MetricsQueryInvalid({
            message: cause.message ?? "the statement failed",
            construct: code === "42501" ? "permission" : code === "25006" ? "write" : "statement",
            ...(position === undefined ? {} : { position })
          }))
        }

        const transaction = Effect.gen(function*() {
          yield* sql`insert into metrics_scope (project_id) values (${query.projectId})`
          // Test switch (c) off: the scope becomes writable by the query's role (rolled back with the rest).
          if (!layers.scope) yield* sql.unsafe(`grant select, insert, update, delete on metrics_scope to ${readerRole}`)
          const settings = [`set local statement_timeout = ${Math.max(1, Math.trunc(timeout))}`, "set local search_path = metrics_sandbox"]
          if (layers.role) settings.unshift("set transaction read only", `set local role ${readerRole}`)
          yield* sql.unsafe(settings.join("; "))
          if (embedded) {
            const explained = (yield* sql.unsafe(`explain (format json) ${text}`, [...bound.values]).raw) as RawResult
            const plan = explained.rows[0]?.["QUERY PLAN"]
            const root = (typeof plan === "string" ? JSON.parse(plan) : plan)?.[0]?.Plan
            const violation = planViolation(root, maximumCost)
            if (violation !== undefined) return yield* new MetricsQueryResourceLimit({ limit: "cost", message: violation })
          }
          const result = (yield* sql.unsafe(text, [...bound.values]).raw) as RawResult | ReadonlyArray<RawResult>
          return yield* Effect.fail(new Rollback(Array.isArray(result) ? result[result.length - 1]! : result as RawResult))
        })

        const inTransaction = sql.withTransaction(transaction).pipe(
          Effect.catchTag("SqlError", fromSql),
          Effect.catchIf((e): e is Rollback => e instanceof Rollback, (r) => Effect.succeed(r.result))
        ) as Effect.Effect<RawResult, MetricsQueryInvalid | MetricsQueryTimeout | MetricsQueryResourceLimit>
        // The embedded database enforces no statement_timeout: at the deadline the caller is
        // answered at once, and the statement is stopped from outside — its worker is replaced and
        // the database reopened (PgliteThread.ts) — while the abandoned transaction unwinds on its own.
        const raw = yield* embedded
          ? Effect.raceFirst(
            detached(inTransaction),
            Effect.sleep(Duration.millis(timeout)).pipe(
              Effect.andThen(Effect.forkDetach(interruptEmbedded(pg))),
              Effect.andThen(Effect.fail(new MetricsQueryTimeout({ timeoutMillis: timeout })))
            )
          )
          : inTransaction

        const fields = raw.fields ?? []
        const names = new Set<string>()
        for (const field of fields) {
          if (names.has(field.name)) {
            return yield* new MetricsQueryInvalid({
              message: `two result columns are named ${field.name}; name each column (AS …)`,
              construct: "duplicate column name"
            })
          }
          names.add(field.name)
        }
        const rowsIn = raw.rows ?? []
        if (rowsIn.length > maximumRows) {
          return yield* new MetricsQueryResourceLimit({ limit: "rows", message: `the result has more than ${maximumRows} rows; aggregate or add LIMIT` })
        }
        const rows = rowsIn.map((row) => fields.map((f) => cell(row[f.name], f.dataTypeID)))
        const bytes = Buffer.byteLength(JSON.stringify(rows))
        if (bytes > maximumResultBytes) {
          return yield* new MetricsQueryResourceLimit({
            limit: "resultBytes",
            message: `the result is ${bytes} bytes, over the cap of ${maximumResultBytes}; select fewer columns or rows`
          })
        }
        const finished = yield* Clock.currentTimeMillis
        const response: QueryMessageMetricsResponse = {
          columns: fields.map((f) => ({ name: f.name, type: typeNames[f.dataTypeID] ?? "unknown" })),
          rows,
          statistics: { bytesRead: bytes, elapsedSeconds: (finished - started) / 1000, rowsRead: rows.length }
        }
        return response
      })

    const counts = (projectId: ProjectId) =>
      sql<{ messageEvents: string; callEvents: string }>`
        select
          (select count(*) from message_event_log where project_id = ${projectId}) as message_events,
          (select count(*) from calls c join call_signals s on s.call_id = c.call_id where c.project_id = ${projectId}) as call_events
      `.pipe(
          Effect.map(([row]) => ({ messageEvents: Number(row?.messageEvents ?? 0), callEvents: Number(row?.callEvents ?? 0) })),
          orDie
        )

    return MetricsQueryEngine.of({ run, counts })
  })

/** `self` on a fiber of its own: interrupted, the caller goes on at once while `self` unwinds in the background. */
const detached = <A, E>(self: Effect.Effect<A, E>): Effect.Effect<A, E> =>
  Effect.flatMap(Effect.forkDetach(self), (fiber) =>
    Fiber.join(fiber).pipe(Effect.onInterrupt(() => Effect.asVoid(Effect.forkDetach(Fiber.interrupt(fiber))))))

/** A 1-based character position in `text` → the caller's position (through the parameter rewrite). */
const positionIn = (text: string, position: number, positionOf: (byteOffset: number) => number): number => {
  const prefix = [...text].slice(0, position - 1).join("")
  return positionOf(Buffer.byteLength(prefix))
}

export const MetricsQueryEngineSql = Layer.effect(MetricsQueryEngine, makeMetricsQueryEngine())
/** The engine with a defence layer off or other bounds: the hostile-SQL suite's switch. */
export const metricsQueryEngineWith = (options: MetricsSandboxOptions) => Layer.effect(MetricsQueryEngine, makeMetricsQueryEngine(options))

export const MetricsReposSql = MetricsQueryEngineSql
