/**
 * What a database outage looks like from the drivers (node-postgres, the embedded PGlite thread),
 * and the typed fact it becomes: core's `DatabaseUnavailable`. Classified here, at the boundary
 * where a failed statement becomes a defect (`orDie`, `die` in Sql.ts; TransactorSql), so that the
 * rest of the system knows an outage by its type and no other package reads pg codes or driver
 * messages.
 *
 * - timeout: the server's `statement_timeout` (57014), the client's query timeout;
 * - unavailable: connection errors (refused, reset, timed out, broken pipe), the server shutting
 *   down or crashing (57P01–57P03; the embedded database's worker gone is 57P01 too), connection
 *   exceptions (class 08), a pool that could not hand out a connection in time, a node-postgres
 *   client whose connection broke earlier (`… is not queryable`: the ROLLBACK after it).
 */
import { DatabaseUnavailable, type DatabaseUnavailableReason } from "@switchboard/core/shared"

/** Whether `error` (or an error along its `cause` chain) is a database outage, and which kind. */
export const databaseOutage = (error: unknown): DatabaseUnavailableReason | undefined => {
  const seen = new Set<unknown>()
  let current: unknown = error
  while (typeof current === "object" && current !== null && !seen.has(current)) {
    seen.add(current)
    const c = current as { _tag?: unknown; code?: unknown; message?: unknown; reason?: unknown; cause?: unknown }
    if (c.code === "57014" || (typeof c.message === "string" && /Query read timeout|statement timeout/i.test(c.message))) return "timeout"
    if (typeof c.code === "string" && /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|57P0[1-3]|08\d{3})$/.test(c.code)) return "unavailable"
    if (c._tag === "DatabaseUnavailable") return c.reason === "timeout" ? "timeout" : "unavailable"
    if (typeof c.message === "string" && /Connection terminated|connect ECONNREFUSED|timeout exceeded when trying to connect|Connection timed out|is not queryable/i.test(c.message)) {
      return "unavailable"
    }
    current = c.cause
  }
  return undefined
}

/**
 * The defect a failure of the store becomes: a `DatabaseUnavailable` (carrying the error and its
 * message) when it is an outage, else the error itself, as before.
 */
export const asDefect = (error: unknown): unknown => {
  if (error instanceof DatabaseUnavailable) return error
  const reason = databaseOutage(error)
  if (reason === undefined) return error
  const message = typeof (error as { message?: unknown } | null)?.message === "string" ? (error as { message: string }).message : String(error)
  return new DatabaseUnavailable({ reason, message, cause: error })
}
