/**
 * No god files: a source file (`packages/*\/src/**\/*.ts`) over 400 lines must
 * say why at its top — `Why this file is long: …` within its first 15 lines — or be split by use
 * case. Reads the sources with node:fs (tests may use Node; core's sources may not).
 */
import { describe, expect, it } from "@effect/vitest"
import { readdirSync, readFileSync } from "node:fs"
import { join, relative } from "node:path"
import { fileURLToPath } from "node:url"

const MAX_LINES = 400
const REASON = "Why this file is long:"
const REASON_WITHIN = 15

const root = fileURLToPath(new URL("../../..", import.meta.url))

const lineCount = (text: string) => text.split("\n").length - (text.endsWith("\n") ? 1 : 0)

/** The files over the limit whose top does not give a reason, with their line counts. */
export const oversizedWithoutReason = (files: ReadonlyArray<{ readonly path: string; readonly text: string }>) =>
  files.flatMap(({ path, text }) => {
    const lines = lineCount(text)
    if (lines <= MAX_LINES) return []
    const top = text.split("\n").slice(0, REASON_WITHIN).join("\n")
    return top.includes(REASON) ? [] : [`${path} (${lines} lines)`]
  })

const sourceFiles = () => {
  const packages = join(root, "packages")
  return readdirSync(packages).flatMap((pkg) => {
    const src = join(packages, pkg, "src")
    let entries: Array<string>
    try {
      entries = readdirSync(src, { recursive: true, encoding: "utf8" })
    } catch {
      return []
    }
    return entries.filter((f) => f.endsWith(".ts")).map((f) => {
      const path = join(src, f)
      return { path: relative(root, path), text: readFileSync(path, "utf8") }
    })
  })
}

describe("file size", () => {
  it(`every source file over ${MAX_LINES} lines says why at its top`, () => {
    const files = sourceFiles()
    expect(files.length).toBeGreaterThan(100)
    expect(oversizedWithoutReason(files)).toEqual([])
  })

  it("the rule catches a long file without a reason, and accepts one with a reason at its top", () => {
    const long = (top: string) => top + "\n" + "const x = 1\n".repeat(MAX_LINES + 5)
    expect(oversizedWithoutReason([{ path: "a.ts", text: long("/** A service. */") }])).toEqual([`a.ts (${MAX_LINES + 6} lines)`])
    expect(oversizedWithoutReason([{ path: "b.ts", text: long(`/**\n * ${REASON} one state machine's table.\n */`) }])).toEqual([])
    expect(oversizedWithoutReason([{ path: "c.ts", text: "\n".repeat(REASON_WITHIN) + long(`// ${REASON} too late`) }]))
      .toHaveLength(1)
    expect(oversizedWithoutReason([{ path: "d.ts", text: "const x = 1\n".repeat(MAX_LINES) }])).toEqual([])
  })
})
