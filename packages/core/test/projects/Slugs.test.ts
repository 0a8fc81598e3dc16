import { describe, expect, it } from "@effect/vitest"
import { Projects } from "@switchboard/core"
import {
  isReservedSlug,
  numberedCandidates,
  reservedSlugs,
  suggestionBase,
  unavailableReason,
  withSuffix
} from "@switchboard/core/projects"
import { Schema } from "effect"
import * as fc from "fast-check"

const isCreatable = Schema.is(Projects.ProjectSlug)

/** Any slug-shaped string of 1..63 characters (the availability query's domain). */
const anySlug = fc.array(fc.stringMatching(/^[a-z0-9]{1,12}$/), { minLength: 1, maxLength: 8 })
  .map((runs) => runs.join("-"))
  .filter((s) => s.length <= 63)

describe("project slugs", () => {
  it.each([
    ["foo", { base: "foo", next: 2 }],
    ["foo-2", { base: "foo", next: 3 }],
    ["example-project-9", { base: "example-project", next: 10 }],
    ["2024", { base: "2024", next: 2 }],
    ["a-b-1", { base: "a-b", next: 2 }],
    ["v-1234567", { base: "v-1234567", next: 2 }]
  ])("suggestionBase(%s)", (slug, expected) => {
    expect(suggestionBase(slug)).toEqual(expected)
  })

  it("numbered candidates are <base>-<n> from the first free number, skipping the slug itself", () => {
    expect(numberedCandidates("foo", 2, 3)).toEqual(["foo-2", "foo-3", "foo-4"])
    expect(numberedCandidates("foo-2", 3, 2)).toEqual(["foo-3", "foo-4"])
    expect(numberedCandidates("ab", 2, 1)).toEqual(["ab-2"])
    expect(numberedCandidates("a", 2, 1)).toEqual(["a-2"])
  })

  it("a long base is cut so the candidate stays within 63 characters, without a trailing hyphen", () => {
    const long = `${"a".repeat(59)}-bcd`
    expect(long).toHaveLength(63)
    expect(withSuffix(long, "2")).toBe(`${"a".repeat(59)}-b-2`)
    expect(withSuffix(`${"a".repeat(60)}-bc`, "10")).toBe(`${"a".repeat(60)}-10`)
    expect(withSuffix(long, "2")).toHaveLength(63)
  })

  it("every candidate is a creatable slug (3..63, the pattern), not reserved and not the slug asked for", () => {
    fc.assert(fc.property(anySlug, fc.integer({ min: 2, max: 999_999 }), (slug, from) => {
      for (const c of numberedCandidates(slug, from, 5)) {
        expect(isCreatable(c), c).toBe(true)
        expect(isReservedSlug(c)).toBe(false)
        expect(c).not.toBe(slug)
      }
    }))
  })

  it("reserved words include the service's own surfaces", () => {
    for (const word of ["api", "admin", "www", "app", "switchboard", "dashboard", "docs"]) expect(reservedSlugs.has(word)).toBe(true)
    expect(isReservedSlug("acme")).toBe(false)
  })

  it.each([
    ["ab", undefined, "too_short"],
    ["a", "active", "too_short"],
    ["api", undefined, "reserved"],
    ["acme", "retired", "retired"],
    ["acme", "active", "taken"],
    ["acme", undefined, undefined]
  ] as const)("unavailableReason(%s, %s) = %s", (slug, holder, reason) => {
    expect(unavailableReason(slug, holder)).toBe(reason)
  })
})
