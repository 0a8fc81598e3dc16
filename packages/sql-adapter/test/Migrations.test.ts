/** The migrations are one list in id order: the migrator runs only ids above the highest applied one. */
import { migrations } from "@switchboard/sql-adapter"
import { describe, expect, it } from "vitest"

describe("migrations", () => {
  // Each feature has its own block of ids, so gaps between blocks are expected.
  it("ids are unique, four digits, increasing, in the order they are listed", () => {
    const ids = Object.keys(migrations).map((k) => {
      const m = /^(\d{4})_[A-Za-z][A-Za-z0-9_]*$/.exec(k)
      expect(m, k).not.toBeNull()
      return Number(m![1])
    })
    expect(new Set(ids).size).toBe(ids.length)
    expect(ids[0]).toBe(1)
    ids.forEach((id, i) => i > 0 && expect(id).toBeGreaterThan(ids[i - 1]!))
  })
})
