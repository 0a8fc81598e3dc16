/**
 * The README's "Try it" commands, run as written (bash, `set -euo pipefail`) against the real
 * binary started by this test on a free port (the README's `localhost:8080` is rewritten to it),
 * with the server's output in `switchboard.log` as `npm start | tee switchboard.log` leaves it.
 */
import { execFile } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { cliEnv, type Running, startServer, stopServer } from "../support/CliProcess.js"

const readme = readFileSync(join(import.meta.dirname, "..", "..", "..", "..", "README.md"), "utf8")

/** The fenced `sh` blocks after `heading` up to the next heading. */
const shellBlocks = (heading: string): Array<string> => {
  const start = readme.indexOf(heading)
  expect(start).toBeGreaterThanOrEqual(0)
  const rest = readme.slice(start)
  const end = rest.slice(heading.length).search(/\n#{1,3} /)
  const section = end < 0 ? rest : rest.slice(0, heading.length + end)
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!)
}

describe("README commands", () => {
  let dir: string
  let server: Running
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "sb-readme-"))
    server = await startServer(cliEnv(join(dir, "data")))
  }, 120_000)
  afterAll(async () => {
    await stopServer(server)
    rmSync(dir, { recursive: true, force: true })
  })

  it("Try it: the bootstrap key from the log, the account, a service key created and revoked", async () => {
    writeFileSync(join(dir, "switchboard.log"), server.output())
    const blocks = shellBlocks("Try it (in another terminal")
    expect(blocks.length).toBe(1)
    expect(blocks[0]).not.toMatch(/\u2026/)
    const port = new URL(server.baseUrl).port
    const script = `set -euo pipefail\n${blocks[0]!.replaceAll("localhost:8080", `127.0.0.1:${port}`)}\necho "revoked $SERVICE_KEY_ID"\n`
    const result = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile("bash", ["-c", script], { cwd: dir, timeout: 60_000 }, (error, stdout, stderr) =>
        resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : 1, stdout, stderr }))
    })
    expect(result.stderr).toBe("")
    expect(result.code).toBe(0)
    expect(result.stdout).toContain("\"email\":\"admin@localhost\"")
    const id = /revoked (sb_ask_\w+)/.exec(result.stdout)?.[1]
    expect(id).toBeDefined()
    expect(result.stdout).toMatch(new RegExp(`"serviceKeyId":"${id}".*"revokedAt":"\\d{4}-`))
  }, 120_000)
})
