#!/usr/bin/env node
// Run by `npm ci` / `npm install` (the root package's `prepare`): builds the CLI's cached bundle and
// the embedded database's cluster template now, so the first `npm start` does neither. It never
// fails the install: whatever is not made here, the first start makes.
import { spawnSync } from "node:child_process"
import { fileURLToPath } from "node:url"
import { cacheDir, cliBundle } from "./bundle.js"

const started = Date.now()
try {
  const bundle = await cliBundle()
  console.log(bundle === undefined
    ? "switchboard: no CLI bundle (the CLI will run its sources through tsx)"
    : `switchboard: CLI bundle ready in ${Date.now() - started} ms`)
  const dir = cacheDir()
  if (dir !== undefined) {
    const t = Date.now()
    const bin = fileURLToPath(new URL("./switchboard.js", import.meta.url))
    const made = spawnSync(process.execPath, [bin, "admin", "prepare-cache"], {
      env: { ...process.env, SWITCHBOARD_CACHE_DIR: dir },
      encoding: "utf8"
    })
    console.log(made.status === 0
      ? `switchboard: ${made.stdout.trim()} (${Date.now() - t} ms)`
      : `switchboard: cache not prepared now (${(made.stderr || made.stdout).trim()}); the first start prepares it`)
  }
} catch (e) {
  console.log(`switchboard: not prepared now (${e instanceof Error ? e.message : String(e)}); the first start prepares what is missing`)
}
