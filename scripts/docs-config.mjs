// `npm run docs:config`: writes docs/configuration.md, the configuration reference, from the setting
// declarations of packages/http-adapter/src/http/Settings.ts (run through tsx, as they are
// TypeScript). `--check` writes nothing and exits 1 when the committed file differs from what the
// declarations give; the test packages/http-adapter/test/http/ConfigurationDocs.test.ts checks the same.
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { renderConfigurationDocs } from "../packages/http-adapter/src/http/ConfigurationDocs.ts"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")
const file = join(root, "docs", "configuration.md")
const fresh = renderConfigurationDocs()

if (process.argv.includes("--check")) {
  const committed = existsSync(file) ? readFileSync(file, "utf8") : undefined
  if (committed !== fresh) {
    console.error(`docs:config: docs/configuration.md is ${committed === undefined ? "missing" : "out of date"} — run \`npm run docs:config\` and commit docs/configuration.md`)
    process.exit(1)
  }
  console.log("docs:config: docs/configuration.md is up to date")
} else {
  writeFileSync(file, fresh)
  console.log("docs:config: wrote docs/configuration.md")
}
