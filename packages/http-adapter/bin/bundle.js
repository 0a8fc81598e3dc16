/**
 * The CLI's compiled form, cached. Loading the TypeScript sources through tsx's
 * loader costs seconds at every start: each of ~1 200 modules (our sources and the Effect packages)
 * goes through the loader's hooks thread one message at a time, and ours are transpiled. Instead
 * the CLI entry is bundled once with esbuild (tsx's own compiler) into one ES module — our
 * sources and the pure-ESM Effect packages; everything else (PGlite with its WASM files, pg,
 * CommonJS packages, node:*) stays an import of the installed file, resolved to its absolute path —
 * and the bundle is reused while none of its inputs changed.
 *
 * The cache lives in `node_modules/.cache/switchboard/` of the installation (what it was built
 * from), one manifest naming the bundle and every input with its size and mtime. Anything stale
 * (an input edited, added to the graph, or removed; another Node or esbuild version; this file
 * changed) rebuilds it. Writes go through a temporary file and a rename, so concurrent starts
 * never read half a bundle. `SWITCHBOARD_BUNDLE=0` (or any failure to build) runs the sources
 * through tsx as before.
 *
 * `import.meta.url` of each source file is replaced by that file's own URL, so files read next to
 * the sources (package.json, plans/sample.json) are the same ones. Run with
 * `--enable-source-maps` to see source positions in stack traces (a linked map is written).
 */
import { createHash } from "node:crypto"
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"

const here = dirname(fileURLToPath(import.meta.url))
export const cliSource = join(here, "..", "src", "server", "Cli.ts")

/** Bundled (not left to Node): our sources and the pure-ESM packages of the Effect ecosystem. */
const bundled = /^(?:(?:effect|find-my-way-ts|multipasta|fast-check|pure-rand|jose)(?:\/|$)|@effect\/|@switchboard\/)/

/** The installation's node_modules (the one holding tsx, which holds esbuild). */
const nodeModulesOf = (from) => {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, "node_modules", "tsx", "package.json"))) return join(dir, "node_modules")
    if (dirname(dir) === dir) return undefined
  }
}

export const cacheDir = () => {
  if (process.env.SWITCHBOARD_CACHE_DIR) return process.env.SWITCHBOARD_CACHE_DIR
  const nm = nodeModulesOf(here)
  return nm === undefined ? undefined : join(nm, ".cache", "switchboard")
}

const loadEsbuild = () => {
  // esbuild is tsx's compiler: resolve it from tsx, whose dependency it is.
  const fromTsx = createRequire(createRequire(import.meta.url).resolve("tsx/package.json"))
  return fromTsx("esbuild")
}

/** What a bundle depends on besides its inputs: a different one needs a new bundle. */
const keyOf = (esbuildVersion) =>
  createHash("sha256").update(JSON.stringify([process.version, process.arch, esbuildVersion, readFileSync(fileURLToPath(import.meta.url), "utf8")]))
    .digest("hex").slice(0, 16)

const fingerprint = (path) => {
  const s = statSync(path)
  return [s.size, s.mtimeMs]
}

/** The bundle named by the manifest if it is up to date, else undefined. */
const cached = (dir, key) => {
  let manifest
  try {
    manifest = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8"))
  } catch {
    return undefined
  }
  if (manifest.key !== key || manifest.entry !== cliSource || typeof manifest.bundle !== "string") return undefined
  const bundle = join(dir, manifest.bundle)
  if (!existsSync(bundle)) return undefined
  for (const [path, size, mtimeMs] of manifest.inputs) {
    try {
      const [s, m] = fingerprint(path)
      if (s !== size || m !== mtimeMs) return undefined
    } catch {
      return undefined
    }
  }
  return bundle
}

const writeAtomically = (path, data) => {
  const tmp = `${path}.${process.pid}.tmp`
  writeFileSync(tmp, data)
  renameSync(tmp, path)
}

/** Bundles the CLI into `dir`; returns the bundle's path. */
export const buildBundle = async (dir, key) => {
  const esbuild = loadEsbuild()
  const plugin = {
    name: "switchboard-cli",
    setup(build) {
      build.onResolve({ filter: /^[^./]/ }, async (args) => {
        if (args.pluginData === "resolving" || bundled.test(args.path)) return undefined
        if (args.path.startsWith("node:")) return { path: args.path, external: true }
        // Left to Node, by the absolute path Node itself would load (the same module instance).
        const r = await build.resolve(args.path, { kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, pluginData: "resolving" })
        if (r.errors.length > 0) return { errors: r.errors }
        return { path: r.path, external: true }
      })
      build.onLoad({ filter: /\.ts$/ }, (args) => {
        const text = readFileSync(args.path, "utf8")
        const url = pathToFileURL(args.path).href
        return {
          contents: text
            .replaceAll("import.meta.url", JSON.stringify(url))
            .replaceAll("import.meta.dirname", JSON.stringify(dirname(args.path)))
            .replaceAll("import.meta.filename", JSON.stringify(args.path)),
          loader: "ts"
        }
      })
    }
  }
  const result = await esbuild.build({
    entryPoints: [cliSource],
    bundle: true,
    write: false,
    format: "esm",
    platform: "node",
    // The workspace packages' TypeScript sources, as in the repository's tests (docs/architecture.md).
    conditions: ["@switchboard/source", "module"],
    target: `node${process.versions.node}`,
    outfile: join(dir, "cli.mjs"),
    sourcemap: "linked",
    metafile: true,
    logLevel: "silent",
    plugins: [plugin]
  })
  const js = result.outputFiles.find((f) => f.path.endsWith(".mjs"))
  const map = result.outputFiles.find((f) => f.path.endsWith(".map"))
  const hash = createHash("sha256").update(js.contents).digest("hex").slice(0, 16)
  const name = `cli-${hash}.mjs`
  const inputs = Object.keys(result.metafile.inputs).map((p) => {
    const path = resolve(process.cwd(), p)
    return [path, ...fingerprint(path)]
  })
  mkdirSync(dir, { recursive: true })
  const text = Buffer.from(js.contents).toString("utf8").replace(/\/\/# sourceMappingURL=cli\.mjs\.map\s*$/, `//# sourceMappingURL=${name}.map\n`)
  if (map !== undefined) writeAtomically(join(dir, `${name}.map`), map.contents)
  writeAtomically(join(dir, name), text)
  writeAtomically(join(dir, "manifest.json"), JSON.stringify({ key, entry: cliSource, bundle: name, builtAt: new Date().toISOString(), inputs }))
  // Older bundles are of no use any more (a process still starting from one has read it already).
  for (const f of readdirSync(dir)) {
    if (/^cli-[0-9a-f]+\.mjs(\.map)?$/.test(f) && !f.startsWith(name)) {
      try {
        unlinkSync(join(dir, f))
      } catch {
        // another process removed it first
      }
    }
  }
  return join(dir, name)
}

/** The path of an up-to-date bundle of the CLI (built now if needed), or undefined to run the sources through tsx. */
export const cliBundle = async () => {
  if (process.env.SWITCHBOARD_BUNDLE === "0") return undefined
  const dir = cacheDir()
  if (dir === undefined) return undefined
  try {
    const key = keyOf(loadEsbuild().version)
    return cached(dir, key) ?? (await buildBundle(dir, key))
  } catch (e) {
    if (process.env.SWITCHBOARD_BUNDLE === "1") throw e
    return undefined
  }
}
