/**
 * Markdown as the documentation tests read it: prose without fenced code, and the anchors GitHub
 * gives a document's headings. One implementation for the README/docs link test
 * (test/docs/ReadmeFrontPage.test.ts) and the citation test (test/server/Citations.test.ts).
 */

/** Markdown without its fenced code blocks (links, citations and headings inside code are not). */
export const prose = (markdown: string): string => markdown.replace(/^[ \t]*(```|~~~)[^\n]*\n[\s\S]*?^[ \t]*\1[ \t]*$/gm, "")

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
export const slug = (heading: string): string =>
  heading
    .replace(/`/g, "")
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-")

/** Every anchor a Markdown document offers: its headings' slugs (repeats numbered) and explicit ids. */
export const headingAnchors = (markdown: string): Set<string> => {
  const seen = new Map<string, number>()
  const out = new Set<string>()
  for (const m of prose(markdown).matchAll(/^#{1,6}[ \t]+(.+?)[ \t#]*$/gm)) {
    const base = slug(m[1]!)
    const n = seen.get(base) ?? 0
    seen.set(base, n + 1)
    out.add(n === 0 ? base : `${base}-${n}`)
  }
  for (const m of markdown.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) out.add(m[1]!)
  return out
}
