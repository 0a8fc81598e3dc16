/**
 * Facts about the infrastructure a port stands on, with domain meaning and no protocol in them.
 *
 * `DatabaseUnavailable`: the store cannot be reached (`"unavailable"`) or did not answer in time
 * (`"timeout"`). A store adapter raises it as a defect — the caller cannot act on it, so no port's
 * signature names it — and whoever answers a request (the HTTP adapter) tells it apart from a bug:
 * retry later, not an internal error. The store adapter decides what an outage looks like for its
 * driver (sql-adapter: `shared/DatabaseOutage.ts`).
 */
import { Data } from "effect"

export type DatabaseUnavailableReason = "unavailable" | "timeout"

export class DatabaseUnavailable extends Data.TaggedError("DatabaseUnavailable")<{
  readonly reason: DatabaseUnavailableReason
  /** The driver's own message (what the logs showed before it was classified). */
  readonly message: string
  /** The driver's error, as it was. */
  readonly cause?: unknown
}> {}

/**
 * The `DatabaseUnavailable` a defect is or carries (along its `cause` chain), if any. Recognised by
 * its tag too, so that one raised without this class (a `{ _tag: "DatabaseUnavailable" }` value)
 * still counts — as `"unavailable"` when it names no reason.
 */
export const databaseUnavailableOf = (defect: unknown): { readonly reason: DatabaseUnavailableReason } | undefined => {
  const seen = new Set<unknown>()
  let current: unknown = defect
  while (typeof current === "object" && current !== null && !seen.has(current)) {
    seen.add(current)
    if (current instanceof DatabaseUnavailable) return current
    const c = current as { _tag?: unknown; reason?: unknown; cause?: unknown }
    if (c._tag === "DatabaseUnavailable") return { reason: c.reason === "timeout" ? "timeout" : "unavailable" }
    current = c.cause
  }
  return undefined
}
