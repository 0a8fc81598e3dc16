#!/usr/bin/env node
// `npm run build`: every package's published form in its dist/ — ESM JavaScript, declarations and
// source maps from `tsc -b tsconfig.build.json` — plus the files a package reads beside its
// modules (src/**/*.mjs and the like, copied as they are) and the repository's LICENSE.
// The repository's own tests and CLI need no build: they run the sources (docs/architecture.md).
import { spawnSync } from "node:child_process"
import { copyFileSync, mkdirSync, readdirSync, rmSync } from "node:fs"
import { dirname, join, relative } from "node:path"
import { fileURLToPath } from "node:url"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")
const packages = ["core", "testkit", "sql-adapter", "http-adapter"]
const started = Date.now()

// From scratch: `tsc -b` trusts its build info, not the outputs, so a removed dist/ would stay removed.
for (const name of packages) {
  rmSync(join(root, "packages", name, "dist"), { recursive: true, force: true })
  rmSync(join(root, ".tsbuild", `build-${name}.tsbuildinfo`), { force: true })
}
console.log("build: compiling packages/*/src to dist/ (tsc -b tsconfig.build.json)")
const tsc = spawnSync(process.execPath, [join(root, "node_modules", "typescript", "bin", "tsc"), "-b", join(root, "tsconfig.build.json")], { stdio: "inherit" })
if (tsc.status !== 0) {
  console.error("build: the TypeScript build failed (errors above); nothing else was done")
  process.exit(tsc.status ?? 1)
}

const walk = (dir) => readdirSync(dir, { withFileTypes: true }).flatMap((e) => e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)])
let assets = 0
for (const name of packages) {
  const pkg = join(root, "packages", name)
  for (const file of walk(join(pkg, "src"))) {
    if (file.endsWith(".ts")) continue
    const to = join(pkg, "dist", relative(join(pkg, "src"), file))
    mkdirSync(dirname(to), { recursive: true })
    copyFileSync(file, to)
    assets++
  }
  copyFileSync(join(root, "LICENSE"), join(pkg, "LICENSE"))
}
console.log(`build: ${packages.length} packages built (${assets} asset files copied) in ${((Date.now() - started) / 1000).toFixed(1)} s`)
