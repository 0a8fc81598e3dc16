/**
 * The one-line summary of a failure for logs (internal/CauseSummary.ts): `_tag: code: message`,
 * whitespace folded, at most 300 characters; a `DatabaseUnavailable` is described by the driver's
 * error it carries, so an outage's line names what failed.
 */
import { causeSummary } from "@switchboard/core/internal"
import { DatabaseUnavailable } from "@switchboard/core/shared"
import { Cause } from "effect"
import { describe, expect, it } from "vitest"

describe("causeSummary", () => {
  it("tag, code and message of the squashed cause, on one line", () => {
    expect(causeSummary(Cause.die({ _tag: "SqlError", message: "Failed to\n  execute statement" }))).toBe("SqlError: Failed to execute statement")
    expect(causeSummary(Cause.fail({ code: "23505", message: "duplicate key" }))).toBe("23505: duplicate key")
    expect(causeSummary(Cause.die("plain"))).toBe("plain")
    expect(causeSummary(Cause.die({ message: "x".repeat(400) }))).toHaveLength(300)
  })

  it("a DatabaseUnavailable: the error it carries; without one, itself", () => {
    const driver = { _tag: "SqlError", message: "Failed to acquire connection" }
    expect(causeSummary(Cause.die(new DatabaseUnavailable({ reason: "unavailable", message: driver.message, cause: driver }))))
      .toBe("SqlError: Failed to acquire connection")
    expect(causeSummary(Cause.die(new DatabaseUnavailable({ reason: "timeout", message: "no answer" }))))
      .toBe("DatabaseUnavailable: no answer")
  })
})
