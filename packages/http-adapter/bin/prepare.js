#!/usr/bin/env node
// Run by `npm ci` / `npm install` (the root package's `prepare`): builds the CLI's cached bundle now,
// so the first `npm start` does not spend its first seconds compiling. It never fails the install:
// without a bundle the CLI builds one on first use (or runs the sources through tsx).
import { cliBundle } from "./bundle.js"

const started = Date.now()
try {
  const bundle = await cliBundle()
  console.log(bundle === undefined
    ? "switchboard: no CLI bundle (the CLI will run its sources through tsx)"
    : `switchboard: CLI bundle ready in ${Date.now() - started} ms`)
} catch (e) {
  console.log(`switchboard: CLI bundle not built now (${e instanceof Error ? e.message : String(e)}); the CLI builds it on first use`)
}
