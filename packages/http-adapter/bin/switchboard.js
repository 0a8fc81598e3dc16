#!/usr/bin/env node
// `npm ci && npm start` needs no build step: the CLI's TypeScript is compiled on first use into a
// cached bundle (bundle.js), rebuilt whenever a source changes; without one, tsx runs the sources.
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { pathToFileURL } from "node:url"

const version = () => JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")).version

// `--version` answers from package.json without building or loading the server.
if (["--version", "-v", "version"].includes(process.argv[2] ?? "") && process.argv.length === 3) {
  process.stdout.write(`switchboard ${version()}\n`)
  process.exit(0)
}

// `serve` says it is starting before loading the server (which takes seconds): the storage it will
// open, as the environment names it (the server checks the configuration itself).
if (process.argv[2] === "serve" && process.argv.length === 3) {
  const storage = process.env.DATABASE_URL
    ? "PostgreSQL (DATABASE_URL)"
    : `embedded database in ${join(process.env.DATA_DIR ?? "./.data", "pglite")}`
  process.stdout.write(`Switchboard ${version()}: starting (${storage})\u2026\n`)
}

const { cacheDir, cliBundle, cliSource } = await import("./bundle.js")

// The server keeps the embedded database's template there too (SWITCHBOARD_CACHE_DIR).
if (!process.env.SWITCHBOARD_CACHE_DIR) {
  const dir = cacheDir()
  if (dir !== undefined) process.env.SWITCHBOARD_CACHE_DIR = dir
}

const bundle = await cliBundle()
if (bundle !== undefined) {
  await import(pathToFileURL(bundle).href)
} else {
  // The sources import each other's sources (the "@switchboard/source" export condition).
  const { registerHooks } = await import("node:module")
  registerHooks({
    resolve: (specifier, context, next) =>
      next(specifier, { ...context, conditions: ["@switchboard/source", ...context.conditions] })
  })
  const { register } = await import("tsx/esm/api")
  register()
  await import(pathToFileURL(cliSource).href)
}
