/**
 * The documents a clone has: every relative link in the README and the repository's
 * Markdown documents points at a file or folder inside the repository, so a reader following one
 * never lands on a document that lives elsewhere (`../shared/...`) or was renamed away.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"
import { describe, expect, it } from "vitest"

const root = resolve(import.meta.dirname, "..", "..", "..", "..")

/** README.md, CONTRIBUTING.md, docs/*.md, bench/README.md and each package's README, where present. */
const documents = (): Array<string> => [
  "README.md",
  "CONTRIBUTING.md",
  "bench/README.md",
  ...readdirSync(join(root, "docs")).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`),
  ...readdirSync(join(root, "packages")).map((p) => `packages/${p}/README.md`)
].filter((f) => existsSync(join(root, f)))

/** The targets of inline links `[text](target)` outside fenced code blocks, without their `#anchor`. */
const relativeLinks = (markdown: string): Array<string> =>
  [...markdown.replace(/```[\s\S]*?```/g, "").matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)]
    .map((m) => m[1]!)
    .filter((target) => !/^([a-z][a-z0-9+.-]*:|#)/i.test(target))
    .map((target) => target.split("#")[0]!)

describe("links in the repository's documents", () => {
  it("finds inline links, skipping code, external addresses and anchors", () => {
    const text = "See [a](docs/a.md#x), [b](https://example.com), [c](#here), [d](../e.md \"E\").\n```sh\n[x](nowhere.md)\n```\n"
    expect(relativeLinks(text)).toEqual(["docs/a.md", "../e.md"])
  })

  it("every relative link resolves to a file or folder inside the repository", () => {
    const files = documents()
    expect(files).toContain("README.md")
    const broken: Array<string> = []
    let checked = 0
    for (const file of files) {
      for (const target of relativeLinks(readFileSync(join(root, file), "utf8"))) {
        checked += 1
        const path = resolve(root, dirname(file), decodeURIComponent(target))
        const inside = !relative(root, path).startsWith("..")
        if (!inside || !existsSync(path)) broken.push(`${file} → ${target}${inside ? " (missing)" : " (outside the repository)"}`)
      }
    }
    expect(checked).toBeGreaterThan(5)
    expect(broken).toEqual([])
  })
})
