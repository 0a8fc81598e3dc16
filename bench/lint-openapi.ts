/**
 * `npm run lint:openapi`: writes the three OpenAPI documents from the code (no server) to a temp
 * directory and runs `redocly lint` on them with `redocly.yaml` (the recommended rules). Offline:
 * Redocly's telemetry and update check are turned off.
 */
import { spawnSync } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { openApiDocuments } from "../packages/http-adapter/src/docs/Documents.js"

const dir = mkdtempSync(join(tmpdir(), "switchboard-openapi-"))
try {
  const files = Object.entries(openApiDocuments()).map(([name, doc]) => {
    const file = join(dir, `${name}.json`)
    writeFileSync(file, JSON.stringify(doc, null, 2))
    return file
  })
  const result = spawnSync("npx", ["--no-install", "redocly", "lint", "--config", "redocly.yaml", ...files], {
    stdio: "inherit",
    env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true", NO_UPDATE_NOTIFIER: "1" }
  })
  process.exitCode = result.status ?? 1
} finally {
  rmSync(dir, { recursive: true, force: true })
}
