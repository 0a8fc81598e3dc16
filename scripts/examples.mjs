#!/usr/bin/env node
// `npm run examples [-- --no-build] [-- <name>…]`: every examples/<name>/ run as an outsider would run it.
// Builds the packages (unless --no-build), packs each (`npm pack`), then for each example copies it
// to a temp dir outside the workspace, points its @switchboard/* dependencies at the tarballs
// (everything else, `effect` included, comes from the registry), runs `npm install` and its
// `npm test`. First it checks that the ```js block of docs/embedding.md's "The core on the memory
// layers" is the region of examples/core-node-esm/embed.mjs between its markers, so the two cannot drift.
//
// Adding an example: a directory examples/<name>/ with a package.json whose dependencies name
// @switchboard/* packages by version ("0.1.0") and whose `test` script exits non-zero on failure.
// Nothing here lists the examples; every directory with a package.json runs.
import { spawnSync } from "node:child_process"
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { packAll, requireBuilt, root } from "./pack.mjs"

const script = "examples"
const args = process.argv.slice(2)
const only = args.filter((a) => !a.startsWith("--"))
const started = Date.now()

// The documented block and the example's region: equal, or stop here.
const docBlock = () => {
  const doc = readFileSync(join(root, "docs", "embedding.md"), "utf8")
  const section = doc.split(/^## /m).find((s) => s.startsWith("The core on the memory layers"))
  const block = section?.match(/```js\n([\s\S]*?)```/)?.[1]
  if (block === undefined) throw new Error("docs/embedding.md: the \"## The core on the memory layers\" section has no ```js block")
  return block
}
const exampleRegion = () => {
  const source = readFileSync(join(root, "examples", "core-node-esm", "embed.mjs"), "utf8")
  const region = source.match(/\/\/ --- embedding example start ---\n([\s\S]*?)\/\/ --- embedding example end ---\n/)?.[1]
  if (region === undefined) throw new Error("examples/core-node-esm/embed.mjs: no \"// --- embedding example start/end ---\" markers")
  return region
}
if (docBlock() !== exampleRegion()) {
  console.error(`${script}: docs/embedding.md's "The core on the memory layers" block differs from the marked region of examples/core-node-esm/embed.mjs — ` +
    "copy the region into docs/embedding.md (or the block into the example) so they are equal")
  process.exit(1)
}
console.log(`${script}: docs/embedding.md "The core on the memory layers" block = examples/core-node-esm/embed.mjs (marked region)`)

if (!args.includes("--no-build")) {
  const build = spawnSync(process.execPath, [join(root, "scripts", "build.mjs")], { stdio: "inherit" })
  if (build.status !== 0) process.exit(build.status ?? 1)
}
requireBuilt(script)

const examples = readdirSync(join(root, "examples"), { withFileTypes: true })
  .filter((e) => e.isDirectory() && existsSync(join(root, "examples", e.name, "package.json")))
  .map((e) => e.name)
  .filter((name) => only.length === 0 || only.includes(name))
  .sort()
if (examples.length === 0) {
  console.error(`${script}: no example to run (examples/<name>/package.json${only.length > 0 ? ` for ${only.join(", ")}` : ""})`)
  process.exit(1)
}

const tmp = mkdtempSync(join(tmpdir(), "switchboard-examples-"))
let failed = 0
try {
  const tarballs = packAll(script, tmp)
  const fileOf = Object.fromEntries(tarballs.map((t) => [t.name, `file:${t.file}`]))
  for (const name of examples) {
    const t0 = Date.now()
    const dir = join(tmp, name)
    cpSync(join(root, "examples", name), dir, { recursive: true, filter: (src) => !/[/\\](node_modules|dist)$/.test(src) })
    const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"))
    for (const field of ["dependencies", "devDependencies"]) {
      for (const dep of Object.keys(pkg[field] ?? {})) {
        if (dep.startsWith("@switchboard/")) {
          if (fileOf[dep] === undefined) throw new Error(`examples/${name}/package.json: ${dep} is not a workspace package`)
          pkg[field][dep] = fileOf[dep]
        }
      }
    }
    // The packages' own dependencies on each other resolve to the tarballs too, never the registry.
    pkg.overrides = { ...pkg.overrides, ...fileOf }
    writeFileSync(join(dir, "package.json"), JSON.stringify(pkg, null, 2))
    const steps = [
      ["npm install", ["install", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error"]],
      ["npm test", ["test"]]
    ]
    let output = ""
    let ok = true
    for (const [label, npmArgs] of steps) {
      const r = spawnSync("npm", npmArgs, { cwd: dir, encoding: "utf8", maxBuffer: 64 * 1024 * 1024, env: { ...process.env, CI: "true" } })
      output += `$ ${label}\n${r.stdout}${r.stderr}`
      if (r.status !== 0) {
        ok = false
        console.error(output)
        console.error(`${script}: ${name} — ${label} failed (exit ${r.status ?? r.signal}) in ${dir}`)
        break
      }
    }
    if (ok) console.log(`${script}: ${name} ok in ${((Date.now() - t0) / 1000).toFixed(1)} s`)
    else failed++
  }
} finally {
  if (failed === 0) rmSync(tmp, { recursive: true, force: true })
}
if (failed > 0) {
  console.error(`${script}: ${failed} of ${examples.length} examples failed (their output above; kept in ${tmp})`)
  process.exit(1)
}
console.log(`${script}: ${examples.length} examples passed in ${((Date.now() - started) / 1000).toFixed(1)} s`)
