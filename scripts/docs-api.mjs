#!/usr/bin/env node
// `npm run docs:api`: the API reference (TypeDoc + typedoc-plugin-markdown, typedoc.json) of every
// package's public entry points, written to docs/api/ (committed). `--check` (CI) writes it to a
// temp dir instead and fails when it differs from docs/api/: a public signature or doc comment
// changed without `npm run docs:api`.
import { spawnSync } from "node:child_process"
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, relative } from "node:path"
import { root } from "./pack.mjs"

const check = process.argv.includes("--check")
const out = check ? mkdtempSync(join(tmpdir(), "switchboard-api-")) : join(root, "docs", "api")
const started = Date.now()
if (!check) rmSync(out, { recursive: true, force: true })
const r = spawnSync(process.execPath, [join(root, "node_modules", "typedoc", "bin", "typedoc"), "--options", join(root, "typedoc.json"), "--out", out], { cwd: root, stdio: "inherit" })
if (r.status !== 0) {
  console.error(`docs:api: TypeDoc failed (exit ${r.status ?? r.signal}; its errors above)`)
  process.exit(1)
}
const walk = (dir) => readdirSync(dir, { withFileTypes: true }).flatMap((e) => e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)])
const files = (dir) => new Map(walk(dir).map((f) => [relative(dir, f), readFileSync(f, "utf8")]))
if (check) {
  const fresh = files(out)
  const committed = files(join(root, "docs", "api"))
  const differing = [...new Set([...fresh.keys(), ...committed.keys()])].filter((f) => fresh.get(f) !== committed.get(f)).sort()
  rmSync(out, { recursive: true, force: true })
  if (differing.length > 0) {
    console.error(`docs:api: docs/api/ is out of date (${differing.length} files differ: ${differing.slice(0, 10).join(", ")}${differing.length > 10 ? ", …" : ""}) — run \`npm run docs:api\` and commit docs/api/`)
    process.exit(1)
  }
  console.log(`docs:api: docs/api/ is up to date (${fresh.size} files) in ${((Date.now() - started) / 1000).toFixed(1)} s`)
} else {
  console.log(`docs:api: wrote docs/api/ (${walk(out).length} files) in ${((Date.now() - started) / 1000).toFixed(1)} s`)
}
