#!/usr/bin/env node
// `npm ci && npm start` needs no build step: the CLI's TypeScript is compiled on first use into a
// cached bundle (bundle.js), rebuilt whenever a source changes; without one, tsx runs the sources.
import { pathToFileURL } from "node:url"
import { cacheDir, cliBundle, cliSource } from "./bundle.js"

// The server keeps the embedded database's template there too (SWITCHBOARD_CACHE_DIR).
if (!process.env.SWITCHBOARD_CACHE_DIR) {
  const dir = cacheDir()
  if (dir !== undefined) process.env.SWITCHBOARD_CACHE_DIR = dir
}

const bundle = await cliBundle()
if (bundle !== undefined) {
  await import(pathToFileURL(bundle).href)
} else {
  const { register } = await import("tsx/esm/api")
  register()
  await import(pathToFileURL(cliSource).href)
}
