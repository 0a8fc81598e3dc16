/**
 * The README is a front page and the documents behind it hold together: the README stays short
 * (at most 200 lines) with exactly two commands in its "two commands" block; every relative link
 * in the README, CONTRIBUTING.md, docs/ (not the generated docs/api/) and bench/README.md resolves
 * to a file inside the repository, and every `#anchor` to a heading of its target. (That they cite no document a clone lacks is
 * test/server/Citations.test.ts, which scans these documents with the sources.)
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"
import { describe, expect, it } from "vitest"
import { headingAnchors as anchors, prose } from "../support/Markdown.js"

const root = resolve(import.meta.dirname, "..", "..", "..", "..")
const read = (file: string): string => readFileSync(join(root, file), "utf8")

/** Markdown files under `dir` (repository-relative), recursively, leaving out `docs/api/`. */
const markdownUnder = (dir: string): Array<string> =>
  readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`
    if (entry.isDirectory()) return path === "docs/api" ? [] : markdownUnder(path)
    return entry.name.endsWith(".md") ? [path] : []
  })

/** The documents this test holds to its rules: the repository's Markdown and each package's README. */
const documents = (): Array<string> => [
  "README.md",
  "CONTRIBUTING.md",
  "CHANGELOG.md",
  "bench/README.md",
  ...markdownUnder("docs"),
  ...readdirSync(join(root, "packages")).map((p) => `packages/${p}/README.md`).filter((f) => existsSync(join(root, f)))
]

/** The targets of inline links `[text](target)` and reference definitions `[id]: target` in prose. */
const linkTargets = (markdown: string): Array<string> => {
  const text = prose(markdown).replace(/`[^`\n]*`/g, "")
  return [
    ...[...text.matchAll(/\]\(<?([^)\s>]+)>?(?:\s+"[^"]*")?\)/g)].map((m) => m[1]!),
    ...[...text.matchAll(/^\s{0,3}\[[^\]]+\]:\s+<?(\S+?)>?(?:\s+"[^"]*")?\s*$/gm)].map((m) => m[1]!)
  ].filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target))
}

/** The broken links of one document: each as `file → target (why)`. */
const brokenLinks = (file: string, markdown: string, readTarget: (path: string) => string | undefined): Array<string> =>
  linkTargets(markdown).flatMap((target) => {
    const [pathPart, anchor] = target.split("#", 2) as [string, string | undefined]
    const path = pathPart === "" ? join(root, file) : resolve(root, dirname(file), decodeURIComponent(pathPart))
    if (relative(root, path).startsWith("..")) return [`${file} → ${target} (outside the repository)`]
    const text = pathPart === "" ? markdown : readTarget(path)
    if (text === undefined) return [`${file} → ${target} (missing)`]
    if (anchor === undefined || anchor === "") return []
    if (!path.endsWith(".md")) return [`${file} → ${target} (an anchor into a file that is not Markdown)`]
    return anchors(text).has(decodeURIComponent(anchor).toLowerCase()) ? [] : [`${file} → ${target} (no such heading)`]
  })

const readFromDisk = (path: string): string | undefined => {
  if (!existsSync(path)) return undefined
  return statSync(path).isDirectory() ? "" : readFileSync(path, "utf8")
}

/** The sh blocks of the README's section whose heading names "two commands". */
const twoCommandBlocks = (readme: string): Array<Array<string>> => {
  const lines = readme.split("\n")
  const start = lines.findIndex((l) => /^#{1,6}\s.*\btwo commands\b/i.test(l))
  if (start === -1) return []
  const level = lines[start]!.match(/^#+/)![0].length
  const section: Array<string> = []
  let fenced = false
  for (const line of lines.slice(start + 1)) {
    if (/^[ \t]*(```|~~~)/.test(line)) fenced = !fenced
    else if (!fenced && new RegExp(`^#{1,${level}}\\s`).test(line)) break
    section.push(line)
  }
  return [...section.join("\n").matchAll(/^```sh[ \t]*\n([\s\S]*?)^```[ \t]*$/gm)].map((m) =>
    m[1]!.split("\n").map((l) => l.trim()).filter((l) => l !== "" && !l.startsWith("#"))
  )
}

describe("the README as a front page", () => {
  const readme = read("README.md")

  it("has at most 200 lines", () => {
    expect(readme.trimEnd().split("\n").length).toBeLessThanOrEqual(200)
  })

  it("has one sh block under its \"two commands\" heading: npm start and npm test", () => {
    expect(twoCommandBlocks(readme)).toEqual([["npm start", "npm test"]])
  })

  it("links every document of docs/, the API notes, the TypeScript reference, the benchmarks, CONTRIBUTING and CHANGELOG", () => {
    const linked = new Set(linkTargets(readme).map((t) => t.split("#")[0]))
    const expected = [
      ...readdirSync(join(root, "docs")).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`),
      "docs/api-notes/README.md",
      "docs/api/README.md",
      "bench/README.md",
      "CONTRIBUTING.md",
      "CHANGELOG.md"
    ]
    expect(expected.filter((f) => !linked.has(f))).toEqual([])
  })
})

describe("the rules this test applies", () => {
  it("counts the commands of the two-commands block, and finds a third or a second block", () => {
    const block = (body: string) => `# X\n\n## The two commands\n\n\`\`\`sh\n${body}\`\`\`\n\n## Next\n\n\`\`\`sh\nnpm ci\n\`\`\`\n`
    expect(twoCommandBlocks(block("npm start   \n# a comment\nnpm test\n"))).toEqual([["npm start", "npm test"]])
    expect(twoCommandBlocks(block("npm ci\nnpm start\nnpm test\n"))).toEqual([["npm ci", "npm start", "npm test"]])
    expect(twoCommandBlocks(block("npm start\n```\n\n```sh\nnpm test\n"))).toEqual([["npm start"], ["npm test"]])
    expect(twoCommandBlocks("# X\n\n```sh\nnpm start\nnpm test\n```\n")).toEqual([])
  })

  it("makes GitHub's heading anchors", () => {
    const doc = "# Title\n\n## The organization's own subscription\n\n## `npm start` — first run\n\n## Notes\n\n## Notes\n\n```sh\n# not a heading\n```\n"
    expect([...anchors(doc)]).toEqual(["title", "the-organizations-own-subscription", "npm-start--first-run", "notes", "notes-1"])
  })

  it("finds a missing file, a missing heading and a link out of the repository, and skips code and external addresses", () => {
    const files: Record<string, string> = { [join(root, "docs", "b.md")]: "# B\n\n## Here\n", [join(root, "docs", "sub")]: "" }
    const doc = [
      "[ok](b.md#here) [ok2](sub/) [self](#top) [ext](https://example.com/x.md#nowhere) [mail](mailto:a@b.c)",
      "[gone](c.md) [nohead](b.md#there) [out](../../elsewhere.md) [selfbad](#nowhere)",
      "`[code](x.md)`",
      "```md\n[fenced](y.md)\n```",
      "# Top",
      "[ref]: gone-too.md"
    ].join("\n")
    expect(brokenLinks("docs/a.md", doc, (p) => files[p])).toEqual([
      "docs/a.md → c.md (missing)",
      "docs/a.md → b.md#there (no such heading)",
      "docs/a.md → ../../elsewhere.md (outside the repository)",
      "docs/a.md → #nowhere (no such heading)",
      "docs/a.md → gone-too.md (missing)"
    ])
  })

})

describe("the repository's documents", () => {
  const files = documents()

  it("are the README, CONTRIBUTING.md, the changelog, bench/README.md, docs/ without docs/api/, and the packages' READMEs", () => {
    expect(files).toEqual(expect.arrayContaining(["README.md", "CONTRIBUTING.md", "bench/README.md", "docs/api-notes/README.md", "docs/operations.md", "packages/core/README.md"]))
    expect(files.filter((f) => f.startsWith("docs/api/"))).toEqual([])
  })

  it("link only to files and headings inside the repository", () => {
    const broken = files.flatMap((file) => brokenLinks(file, read(file), readFromDisk))
    expect(files.reduce((n, file) => n + linkTargets(read(file)).length, 0)).toBeGreaterThan(50)
    expect(broken).toEqual([])
  })
})
