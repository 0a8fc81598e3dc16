/**
 * Citations a clone can follow: the sources, tests, scripts, examples, Markdown documents and
 * root configuration files cite documents of the repository (docs/…, bench/README.md) or state the
 * rule, never a working note that only the original authors had (the spec, API and design notes,
 * the research notes under `reference/`, with or without the folder) or a ticket number of an
 * issue tracker a clone does not have. The documents they cite exist, and so do the headings.
 *
 * The scanner is a pure function over a file's text; the first tests give it deliberate hits and
 * near misses, so a scanner that cannot fail is caught too.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs"
import { join, relative, resolve } from "node:path"
import { describe, expect, it } from "vitest"
import { headingAnchors } from "../support/Markdown.js"

const root = resolve(import.meta.dirname, "..", "..", "..", "..")

/**
 * What a clone cannot follow, case-insensitive. No pattern matches its own source text, so this
 * file holds no hit of its own. `(?<![\w-])` keeps the repository's own documents out of it
 * (`docs/api-notes/dashboard-api.md` ends in the same letters as the API notes' name).
 */
const forbidden: ReadonlyArray<RegExp> = [
  new RegExp(String.raw`(?<![\w-])(?:SPEC|API|DESIGN)\.md\b`, "i"),
  new RegExp(String.raw`\breference/[a-z0-9-]+\.md\b`, "i"),
  // The same research notes named without their folder (a `docs/…/billing.md` is ours, so a path
  // before the name is fine).
  new RegExp(String.raw`(?<![\w/-])(?:contract|calls|interfaces|http-conventions|effect[34])\.md\b|(?<![\w/-])(?:billing|oauth)\.md §`, "i"),
  new RegExp(String.raw`\b` + "issue" + String.raw` #?[0-9]+`, "i")
]

/** The lines of `text` that cite something a clone lacks, as `path:line: text`. */
export const findCitations = (path: string, text: string): Array<string> =>
  text.split("\n").flatMap((line, i) =>
    forbidden.some((pattern) => pattern.test(line)) ? [`${path}:${i + 1}: ${line.trim().slice(0, 160)}`] : []
  )

/**
 * The repository documents a line cites by path (`docs/….md`, with its `#anchor` if any). A path
 * inside a longer one (`../docs/x.md`, `packages/x/docs/y.md`) is a relative link, not this kind.
 */
export const citedDocuments = (text: string): Array<{ readonly path: string; readonly anchor: string | undefined }> =>
  [...text.matchAll(/(?<![\w/.-])(docs\/[\w./-]+\.md)(?:#([\w-]+))?/g)].map((m) => ({ path: m[1]!, anchor: m[2] }))

/** Files whose document paths are examples, not citations (a link checker's own test cases). */
const exampleLinks: ReadonlySet<string> = new Set(["packages/http-adapter/test/docs/ReadmeFrontPage.test.ts"])

/** Text files by extension; anything else (images, archives, PGlite data) is not read. */
const textFile = /\.(?:[cm]?[jt]sx?|json|md|sh|ya?ml|sql|html|css|txt)$/

/** Directories never scanned: installs, builds, caches and data directories. */
const skippedDirectory = (name: string): boolean =>
  name === "node_modules" || name === "dist" || name === "coverage" || name === "artifacts" || name.startsWith(".")

const walk = (dir: string): Array<string> => {
  if (!existsSync(dir)) return []
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return skippedDirectory(entry.name) ? [] : walk(path)
    return entry.isFile() && textFile.test(entry.name) ? [path] : []
  })
}

/** The repository's own configuration files at its root (lint, test, build, API reference). */
const rootConfig = /^(?:eslint\.config\.mjs|vitest\.config\.ts|tsconfig(?:\.[\w-]+)?\.json|typedoc\.json|redocly\.yaml)$/

/**
 * packages/*\/{src,test,bin}, bench, scripts, examples, README.md, CONTRIBUTING.md, docs/**\/*.md but
 * docs/api/, and the configuration files at the root.
 */
const scannedFiles = (): Array<string> => {
  const packages = readdirSync(join(root, "packages")).filter((p) => statSync(join(root, "packages", p)).isDirectory())
  const files = [
    ...packages.flatMap((p) => ["src", "test", "bin"].flatMap((d) => walk(join(root, "packages", p, d)))),
    ...["bench", "scripts", "examples"].flatMap((d) => walk(join(root, d))),
    ...["README.md", "CONTRIBUTING.md"].map((f) => join(root, f)).filter((f) => existsSync(f)),
    ...readdirSync(root).filter((f) => rootConfig.test(f)).map((f) => join(root, f)),
    ...walk(join(root, "docs")).filter((f) => f.endsWith(".md") && !relative(root, f).startsWith("docs/api/"))
  ]
  return files.map((f) => relative(root, f).split("\\").join("/"))
}

describe("the citation scanner", () => {
  it("finds each kind of citation a clone cannot follow, with its file and line", () => {
    const text = [
      "/** Fine: docs/api-notes/billing.md, docs/api-notes/dashboard-api.md, RFC 6749 §5.2. */",
      `// The rule (${"SPEC"}.md § Limits).`,
      `// Retries (${"api"}.md §4).`,
      `// Ports (${"DESIGN"}.md D4).`,
      `// The preview (${"reference"}/billing.md §3).`,
      `// Messages (${"Issue"} 15 §1).`,
      `// The shapes (${"contract"}.md §3.4), the table (${"calls"}.md §2), the rounding (${"billing"}.md §2.3).`,
      "// A known issue: none. The openapi.md page, docs/api/ and docs/api-notes/oauth.md §2 stay out of it."
    ].join("\n")
    expect(findCitations("x.ts", text)).toEqual([
      `x.ts:2: // The rule (${"SPEC"}.md § Limits).`,
      `x.ts:3: // Retries (${"api"}.md §4).`,
      `x.ts:4: // Ports (${"DESIGN"}.md D4).`,
      `x.ts:5: // The preview (${"reference"}/billing.md §3).`,
      `x.ts:6: // Messages (${"Issue"} 15 §1).`,
      `x.ts:7: // The shapes (${"contract"}.md §3.4), the table (${"calls"}.md §2), the rounding (${"billing"}.md §2.3).`
    ])
  })

  it("finds the documents a line cites and the anchors a document has", () => {
    const line = "(docs/architecture.md#d4-identifiers; docs/api-notes/billing.md), not [x](../docs/errors.md)"
    expect(citedDocuments(line)).toEqual([
      { path: "docs/architecture.md", anchor: "d4-identifiers" },
      { path: "docs/api-notes/billing.md", anchor: undefined }
    ])
    const markdown = "# Title\n\n## Decisions\n\n### D4 Identifiers\n\n```sh\n# not a heading\n```\n### A — b, c (d)\n"
    expect([...headingAnchors(markdown)]).toEqual(["title", "decisions", "d4-identifiers", "a--b-c-d"])
  })

  it("scans the sources, tests, scripts, examples and documents", () => {
    const files = scannedFiles()
    expect(files).toContain("README.md")
    expect(files).toContain("docs/architecture.md")
    expect(files).toContain("bench/README.md")
    expect(files).toContain("packages/core/src/index.ts")
    expect(files).toContain("packages/http-adapter/test/server/Citations.test.ts")
    expect(files).toContain("eslint.config.mjs")
    expect(files).toContain("tsconfig.json")
    expect(files.some((f) => f.startsWith("docs/api/") || f.includes("/node_modules/") || f.includes("/dist/"))).toBe(false)
  })
})

describe("citations in the repository", () => {
  it("cite only what a clone has", () => {
    const hits = scannedFiles()
      .flatMap((f) => findCitations(f, readFileSync(join(root, f), "utf8")))
    expect(hits).toEqual([])
  })

  it("cite documents that exist, and headings that exist in them", () => {
    const broken = scannedFiles()
      .filter((f) => !exampleLinks.has(f))
      .flatMap((f) =>
        readFileSync(join(root, f), "utf8").split("\n").flatMap((line, i) =>
          citedDocuments(line).flatMap(({ anchor, path }) => {
            if (!existsSync(join(root, path))) {
              return [`${f}:${i + 1}: ${path} (missing)`]
            }
            if (anchor === undefined || headingAnchors(readFileSync(join(root, path), "utf8")).has(anchor)) return []
            return [`${f}:${i + 1}: ${path}#${anchor} (no such heading)`]
          })
        )
      )
    expect(broken).toEqual([])
  })
})
