/**
 * What embedding the core costs a host (docs/embedding.md, "Runs in any JS runtime"):
 *
 * - the browser bundle of packages/http-adapter/test/bundle/CoreBrowserEntry.ts (the call state
 *   machine and a plan-change preview from `@switchboard/core`; esbuild, platform browser, ESM,
 *   minified), minified and gzip bytes; the same entry importing `@switchboard/core/billing` and
 *   `@switchboard/core/voice` instead of the root entry; and the same bundle of `effect` alone (the Schema and
 *   Result modules that entry uses, on a one-field schema) — what the core adds on top of Effect;
 * - the install size of examples/core-node-esm (the packed core and testkit, `effect` from the
 *   registry) in a temp dir outside the workspace, node_modules as `du` counts it;
 * - the cold `import("@switchboard/core")` in that install vs `import("effect")` alone: a fresh
 *   `node` per sample, BENCH_ROUNDS (default 7) alternating samples each, medians.
 *
 *   npm run build && npm run bench:bundle
 */
import { spawnSync } from "node:child_process"
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { gzipSync } from "node:zlib"
import { build } from "esbuild"

const root = fileURLToPath(new URL("..", import.meta.url))
const rounds = Number(process.env["BENCH_ROUNDS"] ?? 7)
const kib = (n: number) => `${(n / 1024).toFixed(1)} KiB`
const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

const bundle = async (entry: { path: string } | { contents: string }) => {
  const resolveDir = join(root, "packages/http-adapter/test/bundle")
  const result = await build({
    ...("path" in entry ? { entryPoints: [entry.path] } : { stdin: { contents: entry.contents, resolveDir, loader: "ts" as const } }),
    bundle: true, platform: "browser", format: "esm", minify: true, write: false,
    conditions: ["@switchboard/source"], logLevel: "silent"
  })
  const bytes = result.outputFiles[0]!.contents
  return { min: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length }
}

const entryPath = join(root, "packages/http-adapter/test/bundle/CoreBrowserEntry.ts")
const core = await bundle({ path: entryPath })
// The same entry importing the two contexts' subpaths instead of the root entry.
const rootImport = "import { Billing, Voice } from \"@switchboard/core\""
const entrySource = readFileSync(entryPath, "utf8")
if (!entrySource.includes(rootImport)) throw new Error(`${entryPath}: expected the line ${rootImport}`)
const subpaths = await bundle({
  contents: entrySource.replace(rootImport, "import * as Billing from \"@switchboard/core/billing\"\nimport * as Voice from \"@switchboard/core/voice\"")
})
const effectAlone = await bundle({
  contents: `import { Result, Schema } from "effect"
const decoded = Schema.decodeUnknownResult(Schema.Struct({ a: Schema.String }))({ a: "x" })
;(globalThis as any).out = Result.isSuccess(decoded)`
})
console.log("bundle: browser bundle (esbuild, platform browser, esm, minified)")
console.log(`  core entry (call machine + plan-change preview)  ${kib(core.min)} min, ${kib(core.gzip)} gzip`)
console.log(`  same, from the subpaths (/billing, /voice)       ${kib(subpaths.min)} min, ${kib(subpaths.gzip)} gzip`)
console.log(`  effect alone (Schema + Result)                   ${kib(effectAlone.min)} min, ${kib(effectAlone.gzip)} gzip`)
console.log(`  what the core adds                               ${kib(core.min - effectAlone.min)} min, ${kib(core.gzip - effectAlone.gzip)} gzip`)

// The install of example (a), outside the workspace.
for (const name of ["core", "testkit"]) {
  if (!existsSync(join(root, "packages", name, "dist", "index.js"))) {
    console.error(`bundle: packages/${name}/dist is missing — run \`npm run build\` first`)
    process.exit(1)
  }
}
const tmp = mkdtempSync(join(tmpdir(), "switchboard-bench-bundle-"))
try {
  const tarballs: Record<string, string> = {}
  for (const name of ["core", "testkit"]) {
    const out = spawnSync("npm", ["pack", "--json", "--ignore-scripts", "--pack-destination", tmp], { cwd: join(root, "packages", name), encoding: "utf8" })
    if (out.status !== 0) throw new Error(`npm pack of packages/${name} failed: ${out.stderr}`)
    tarballs[`@switchboard/${name}`] = `file:${join(tmp, (JSON.parse(out.stdout) as Array<{ filename: string }>)[0]!.filename)}`
  }
  const dir = join(tmp, "core-node-esm")
  cpSync(join(root, "examples", "core-node-esm"), dir, { recursive: true })
  const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"))
  Object.assign(pkg.dependencies, tarballs)
  pkg.overrides = tarballs
  writeFileSync(join(dir, "package.json"), JSON.stringify(pkg, null, 2))
  const install = spawnSync("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error"], { cwd: dir, encoding: "utf8" })
  if (install.status !== 0) throw new Error(`npm install of examples/core-node-esm failed: ${install.stderr}`)
  const du = (path: string) => Number(spawnSync("du", ["-sk", path], { encoding: "utf8" }).stdout.split("\t")[0]) * 1024
  console.log("bundle: install of examples/core-node-esm (packed core + testkit, effect from the registry)")
  console.log(`  node_modules          ${(du(join(dir, "node_modules")) / 1024 / 1024).toFixed(1)} MiB`)
  for (const p of ["effect", "@switchboard/core", "@switchboard/testkit", "jose"]) {
    console.log(`    ${p.padEnd(22)}${(du(join(dir, "node_modules", p)) / 1024 / 1024).toFixed(1)} MiB`)
  }

  const cold = (specifier: string) => {
    const r = spawnSync(process.execPath, ["--input-type=module", "-e",
      `const t = performance.now(); await import(${JSON.stringify(specifier)}); console.log(performance.now() - t)`], { cwd: dir, encoding: "utf8" })
    if (r.status !== 0) throw new Error(`import(${specifier}) failed: ${r.stderr}`)
    return Number(r.stdout.trim())
  }
  cold("@switchboard/core")
  cold("effect")
  const times: Record<string, Array<number>> = { "@switchboard/core": [], effect: [] }
  for (let i = 0; i < rounds; i++) {
    for (const s of Object.keys(times)) times[s]!.push(cold(s))
  }
  const c = median(times["@switchboard/core"]!)
  const e = median(times["effect"]!)
  console.log(`bundle: cold import in a fresh node (${rounds} samples each, median; node ${process.version})`)
  console.log(`  import("@switchboard/core")   ${c.toFixed(1)} ms`)
  console.log(`  import("effect")              ${e.toFixed(1)} ms`)
  console.log(`  ratio                         ${(c / e).toFixed(2)}×`)
} finally {
  rmSync(tmp, { recursive: true, force: true })
}
