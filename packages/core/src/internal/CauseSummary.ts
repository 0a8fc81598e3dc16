/**
 * A failure in one line, for logs: `_tag: code: message` of the squashed cause, whitespace folded,
 * at most 300 characters. Background loops log this at warning level and the full cause (with its
 * stack) only at debug level, so an outage leaves one readable line per failure and no stack traces.
 * A `DatabaseUnavailable` is described by the driver's error it carries: the line names what failed.
 */
import { Cause, Effect } from "effect"
import { DatabaseUnavailable } from "../shared/Infrastructure.js"

export const causeSummary = (cause: Cause.Cause<unknown>): string => {
  const squashed = Cause.squash(cause)
  const e = (squashed instanceof DatabaseUnavailable && squashed.cause !== undefined ? squashed.cause : squashed) as {
    _tag?: unknown
    code?: unknown
    message?: unknown
  }
  const text = typeof e === "object" && e !== null
    ? [typeof e._tag === "string" ? e._tag : undefined, typeof e.code === "string" ? e.code : undefined, typeof e.message === "string" ? e.message : undefined]
      .filter((x) => x !== undefined).join(": ")
    : String(e)
  return text.replace(/\s+/g, " ").slice(0, 300)
}

/** Logs `message` at warning level with the cause's one-line summary; the full cause at debug level. */
export const logCauseWarning = (message: string, cause: Cause.Cause<unknown>): Effect.Effect<void> =>
  Effect.andThen(
    Effect.annotateLogs(Effect.logWarning(message), { error: causeSummary(cause) }),
    Effect.logDebug(Cause.pretty(cause))
  )
