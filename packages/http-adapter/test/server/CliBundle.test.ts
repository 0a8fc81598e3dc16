/**
 * The CLI's cached bundle (bin/bundle.js): built once into the cache directory, reused while its
 * inputs are unchanged, rebuilt when one changed; the bundled CLI behaves as the sources run
 * through tsx (files read beside the sources through `import.meta.url` included). `--help` runs the
 * bundle (`--version` does not: it answers from package.json before the bundle is built or loaded).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { runCli } from "../support/CliProcess.js"

const cache = mkdtempSync(join(tmpdir(), "switchboard-bundle-"))
const dataDir = mkdtempSync(join(tmpdir(), "switchboard-bundle-data-"))
afterAll(() => {
  rmSync(cache, { recursive: true, force: true })
  rmSync(dataDir, { recursive: true, force: true })
})

const env = (vars: Record<string, string>) => {
  const e: Record<string, string> = { ...process.env as Record<string, string>, DATA_DIR: dataDir, ...vars }
  delete e.DATABASE_URL
  return e
}

interface Manifest {
  readonly bundle: string
  readonly builtAt: string
  readonly inputs: Array<[string, number, number]>
}
const manifest = () => JSON.parse(readFileSync(join(cache, "manifest.json"), "utf8")) as Manifest

describe("the CLI bundle", { timeout: 180_000 }, () => {
  it("is built once, reused, and prints what the sources print", async () => {
    const bundled = await runCli(["--help"], env({ SWITCHBOARD_CACHE_DIR: cache, SWITCHBOARD_BUNDLE: "1" }))
    expect(bundled.code, bundled.stderr).toBe(0)
    const built = manifest()
    expect(readdirSync(cache).filter((f) => f.endsWith(".mjs"))).toEqual([built.bundle])
    // Every source of the CLI is an input (so editing any of them rebuilds it).
    const inputs = built.inputs.map(([path]) => path)
    expect(inputs.some((p) => p.endsWith(join("packages", "http-adapter", "src", "server", "Cli.ts")))).toBe(true)
    expect(inputs.some((p) => p.endsWith(join("packages", "core", "src", "index.ts")))).toBe(true)
    expect(inputs.some((p) => p.endsWith(join("packages", "sql-adapter", "src", "Migrations.ts")))).toBe(true)
    // PGlite (WASM files beside its module) is left to Node, not bundled.
    expect(inputs.some((p) => p.includes("@electric-sql"))).toBe(false)

    const again = await runCli(["--help"], env({ SWITCHBOARD_CACHE_DIR: cache, SWITCHBOARD_BUNDLE: "1" }))
    expect(again.stdout).toBe(bundled.stdout)
    expect(manifest().builtAt).toBe(built.builtAt) // reused, not rebuilt

    const sources = await runCli(["--help"], env({ SWITCHBOARD_BUNDLE: "0" }))
    expect(sources.code, sources.stderr).toBe(0)
    expect(bundled.stdout).toBe(sources.stdout)
    // The help's first line has the version from package.json, read beside Cli.ts through import.meta.url.
    const pkg = JSON.parse(readFileSync(join(import.meta.dirname, "..", "..", "package.json"), "utf8")) as { version: string }
    expect(bundled.stdout.split("\n")[0]).toBe(`switchboard ${pkg.version}`)
    expect(bundled.stdout).toContain("switchboard admin create-account")

    const help = await runCli(["frobnicate"], env({ SWITCHBOARD_CACHE_DIR: cache, SWITCHBOARD_BUNDLE: "1" }))
    const helpSources = await runCli(["frobnicate"], env({ SWITCHBOARD_BUNDLE: "0" }))
    expect([help.code, help.stderr]).toEqual([helpSources.code, helpSources.stderr])
  })

  it("--version answers without building or loading the bundle", async () => {
    const empty = mkdtempSync(join(tmpdir(), "switchboard-bundle-none-"))
    try {
      // A bundle that would fail if it ran: --version must not get that far.
      const r = await runCli(["--version"], env({ SWITCHBOARD_CACHE_DIR: empty, SWITCHBOARD_BUNDLE: "1" }))
      const pkg = JSON.parse(readFileSync(join(import.meta.dirname, "..", "..", "package.json"), "utf8")) as { version: string }
      expect([r.code, r.stdout, r.stderr]).toEqual([0, `switchboard ${pkg.version}\n`, ""])
      expect(readdirSync(empty)).toEqual([]) // nothing built
    } finally {
      rmSync(empty, { recursive: true, force: true })
    }
  })

  it("is rebuilt when an input changed (or went away), and the old bundle removed", async () => {
    const before = manifest()
    const changed: Manifest = { ...before, inputs: before.inputs.map(([p, size, mtime], i) => [p, i === 0 ? size + 1 : size, mtime]) }
    writeFileSync(join(cache, "manifest.json"), JSON.stringify(changed))
    const r = await runCli(["--help"], env({ SWITCHBOARD_CACHE_DIR: cache, SWITCHBOARD_BUNDLE: "1" }))
    expect(r.code, r.stderr).toBe(0)
    const rebuilt = manifest()
    expect(rebuilt.builtAt).not.toBe(before.builtAt)
    expect(rebuilt.inputs).toEqual(before.inputs)

    const gone: Manifest = { ...rebuilt, inputs: [...rebuilt.inputs, [join(cache, "no-such-input.ts"), 1, 1]] }
    writeFileSync(join(cache, "manifest.json"), JSON.stringify(gone))
    // A different bundle file name than the current one: it must be replaced and removed.
    writeFileSync(join(cache, "cli-0000000000000000.mjs"), "throw new Error('stale bundle ran')\n")
    const r2 = await runCli(["--help"], env({ SWITCHBOARD_CACHE_DIR: cache, SWITCHBOARD_BUNDLE: "1" }))
    expect(r2.code, r2.stderr).toBe(0)
    expect(manifest().builtAt).not.toBe(rebuilt.builtAt)
    expect(readdirSync(cache).filter((f) => f.endsWith(".mjs"))).toEqual([manifest().bundle])
  })
})
