#!/usr/bin/env node
// `npm run check:packages` (after `npm run build`): every package as npm would publish it.
//   1. `npm pack` each package into a temp dir;
//   2. publint on the tarball, strict: errors and warnings both fail;
//   3. attw (Are the Types Wrong?) on the tarball, profile `esm-only`: the packages are ESM only
//      ("type": "module", exports with `import` and no `require`), so the two resolution modes that
//      can only load CommonJS — node10 (no exports map at all) and node16 from a CommonJS file — are
//      not supported and not checked; every ESM mode (node16/nodenext from ESM, bundler) must be clean;
//   4. the declarations in a strict host outside the workspace: the tarballs installed in a temp
//      dir, and a module importing every entry point of every package compiled with `strict`,
//      `skipLibCheck: false`, `lib: ["ES2023"]`, `types: []` — so no declaration can lean on the
//      repository's dev `@types/*` or on a `.d.ts` that is not shipped.
import { spawnSync } from "node:child_process"
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { manifest, packAll, requireBuilt, root, run } from "./pack.mjs"

const script = "check:packages"
requireBuilt(script)
const started = Date.now()
const tmp = mkdtempSync(join(tmpdir(), "switchboard-packages-"))
const bin = (pkg, file) => join(root, "node_modules", pkg, file)
try {
  const tarballs = packAll(script, tmp)
  for (const t of tarballs) {
    const t0 = Date.now()
    run(script, `publint of ${t.name}`, process.execPath, [bin("publint", "src/cli.js"), "run", t.file, "--strict", "--level", "suggestion"])
    run(script, `attw of ${t.name}`, process.execPath, [bin("@arethetypeswrong/cli", "dist/index.js"), t.file, "--profile", "esm-only", "--format", "ascii", "--no-color"])
    console.log(`${script}: ${t.name} — publint and attw clean (${t.files} files, ${(t.size / 1024).toFixed(0)} KiB packed) in ${Date.now() - t0} ms`)
  }

  // 4. The strict hosts: one install, two programs. The web host imports what runs in any JS
  // runtime (core, the testkit's memory layers and simulated providers) with no Node types at all;
  // the Node host imports every entry point and gets Node's types only through the adapters'
  // `@types/node` peer dependency and their `/// <reference types="node" />`.
  const host = join(tmp, "host")
  mkdirSync(host)
  const wanted = {}
  for (const t of tarballs) {
    const m = manifest(t.dir)
    for (const [name, range] of Object.entries(m.peerDependencies ?? {})) {
      // Optional peers are a host's choice; the test runner ones are needed by the `./vitest` entry.
      const optional = m.peerDependenciesMeta?.[name]?.optional === true
      if (!name.startsWith("@switchboard/") && (!optional || name.includes("vitest"))) wanted[name] = range
    }
  }
  const dependencies = { ...wanted, ...Object.fromEntries(tarballs.map((t) => [t.name, `file:${t.file}`])) }
  writeFileSync(join(host, "package.json"), JSON.stringify({ name: "strict-host", private: true, type: "module", dependencies }, null, 2))
  const t1 = Date.now()
  run(script, "npm install in the strict host", "npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", "--ignore-scripts", "--loglevel=error"], { cwd: host })
  const entriesOf = (t) => Object.keys(manifest(t.dir).exports).filter((k) => k !== "./package.json").map((k) => t.name + k.slice(1))
  const all = tarballs.flatMap(entriesOf)
  const web = all.filter((e) => e.startsWith("@switchboard/core") || e === "@switchboard/testkit" || e === "@switchboard/testkit/simulated")
  // - es2023: exactly `lib: ["ES2023"]`, no DOM, no Node. `effect`'s own declarations need a few
  //   web globals (AbortSignal, URL, ReadableStream) that only DOM or Node types declare, so errors in
  //   node_modules/effect/ are counted, not failed; an error in any other file (ours, or jose's —
  //   core's declarations name no jose type) fails.
  // - browser: `lib: ["ES2023", "DOM"]`, no Node types: a web host; no error at all.
  // - node: every entry point, `lib: ["ES2023"]`, `types: []`: Node's types arrive only through the
  //   adapters' peer dependency. Errors inside @electric-sql/pglite are counted, not failed: its
  //   declarations name DOM (`IDBDatabase`) and Emscripten types it does not depend on — a host
  //   compiling the SQL adapter with `skipLibCheck: false` needs `@types/emscripten` and `lib` DOM
  //   (docs/embedding.md); any other error fails.
  const programs = [
    { program: "es2023", entries: web, lib: ["ES2023"], tolerated: "/node_modules/effect/" },
    { program: "browser", entries: web, lib: ["ES2023", "DOM"] },
    { program: "node", entries: all, lib: ["ES2023"], tolerated: "/node_modules/@electric-sql/pglite/" }
  ]
  for (const { entries, lib, program, tolerated } of programs) {
    writeFileSync(join(host, `${program}.ts`), entries.map((e, i) => `import * as m${i} from "${e}"\n`).join("") +
      `export const all = [${entries.map((_, i) => `m${i}`).join(", ")}]\n`)
    writeFileSync(join(host, `tsconfig.${program}.json`), JSON.stringify({
      compilerOptions: {
        target: "ES2022", lib, types: [], module: "NodeNext", moduleResolution: "NodeNext",
        strict: true, exactOptionalPropertyTypes: true, skipLibCheck: false, noEmit: true
      },
      files: [`${program}.ts`]
    }, null, 2))
    const r = spawnSync(process.execPath, [bin("typescript", "bin/tsc"), "-p", join(host, `tsconfig.${program}.json`), "--pretty", "false"], { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 })
    const errors = r.stdout.split("\n").filter((l) => / error TS\d+:/.test(l))
    const failing = errors.filter((l) => tolerated === undefined || !l.includes(tolerated))
    if (failing.length > 0 || (errors.length === 0 && r.status !== 0)) {
      console.error([...failing, r.stderr].join("\n"))
      console.error(`${script}: the ${program} host (lib ${lib.join("+")}, types [], skipLibCheck false) fails to type-check ` +
        `the published declarations of ${entries.length} entry points (${failing.length} errors above): a declaration names a type ` +
        "that is not shipped (a .d.ts tsc does not emit) or comes from a dev-only @types package")
      process.exit(1)
    }
    const note = errors.length > 0 ? ` (${errors.length} errors inside ${tolerated} tolerated: that package's own declarations)` : ""
    console.log(`${script}: ${program} host — ${entries.length} entry points type-check (strict, lib ${lib.join("+")}, types [], skipLibCheck false)${note}`)
  }
  console.log(`${script}: strict hosts installed and checked in ${Date.now() - t1} ms`)
  console.log(`${script}: ${tarballs.length} packages clean in ${((Date.now() - started) / 1000).toFixed(1)} s`)
} finally {
  rmSync(tmp, { recursive: true, force: true })
}
