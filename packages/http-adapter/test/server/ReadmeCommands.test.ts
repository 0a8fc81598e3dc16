/**
 * The README's quickstart, run as written against the real binary (issue 16): the server started
 * with the environment of the README's start line (on free ports: the README's `localhost:8080`,
 * `localhost:8443` and the receiver's `8090` are rewritten to them), the README's webhook receiver
 * running as its own process, and the remaining blocks run in order in one bash with
 * `set -euo pipefail` in a directory where `.data` is the server's data directory and
 * `switchboard.log` its output, as `npm start | tee switchboard.log` leaves them. The webhook must
 * reach the receiver, the delivery log must say so, and the console page the quickstart prints
 * must show it to the bootstrap account.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { bootstrapOf, cliEnv, type Running, startServer, stopServer } from "../support/CliProcess.js"
import { browser } from "../support/DashboardClient.js"
import type { TestServer } from "../support/TestServer.js"
import { freePort } from "../support/WebhookReceiver.js"

const readme = readFileSync(join(import.meta.dirname, "..", "..", "..", "..", "README.md"), "utf8")
const heading = "## Quickstart: from `npm start` to a received webhook"

/** The fenced `sh` blocks after `heading` up to the next heading. */
const shellBlocks = (title: string): Array<string> => {
  const start = readme.indexOf(title)
  expect(start).toBeGreaterThanOrEqual(0)
  const rest = readme.slice(start)
  const end = rest.slice(title.length).search(/\n#{1,3} /)
  const section = end < 0 ? rest : rest.slice(0, title.length + end)
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!)
}

describe("README quickstart", () => {
  let dir: string
  let server: Running
  let receiver: ChildProcess | undefined
  let received = ""
  let port = ""
  let tlsPort = ""
  let receiverPort = ""
  const blocks = shellBlocks(heading)

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "sb-readme-"))
    // The start line's settings, as a user's shell would pass them.
    const startLine = blocks[0]!.trim()
    expect(startLine).toMatch(/^([A-Z_]+=\S+ )*npm start \| tee switchboard\.log$/)
    const settings = Object.fromEntries([...startLine.matchAll(/([A-Z_]+)=(\S+) /g)].map((m) => [m[1]!, m[2]!]))
    tlsPort = String(await freePort())
    server = await startServer(cliEnv(join(dir, ".data"), { ...settings, TLS_PORT: tlsPort }), 120_000)
    port = new URL(server.baseUrl).port
    writeFileSync(join(dir, "switchboard.log"), server.output())
    receiverPort = String(await freePort())
  }, 180_000)
  afterAll(async () => {
    receiver?.kill()
    await stopServer(server)
    rmSync(dir, { recursive: true, force: true })
  })

  const local = (block: string) =>
    block.replaceAll("localhost:8080", `127.0.0.1:${port}`).replaceAll("localhost:8443", `localhost:${tlsPort}`).replaceAll("8090", receiverPort)

  it("every step from the start line to a received webhook, seen in the delivery log and the console", async () => {
    expect(blocks.length).toBeGreaterThanOrEqual(7)
    expect(blocks.join("\n")).not.toMatch(/\u2026|<[a-z_]+>/)
    // Step 2: the receiver, in its own process (its own terminal in the README).
    receiver = spawn("bash", ["-c", local(blocks[1]!)], { cwd: dir, stdio: ["ignore", "pipe", "pipe"] })
    receiver.stdout!.on("data", (d) => (received += d))
    receiver.stderr!.on("data", (d) => (received += d))
    while (!received.includes("listening on")) await new Promise((r) => setTimeout(r, 50))

    const script = `set -euo pipefail\n${blocks.slice(2).map(local).join("\n")}\necho "vars $PROJECT $DEST $SERVICE_KEY_ID"\n`
    const result = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile("bash", ["-c", script], { cwd: dir, timeout: 90_000 }, (error, stdout, stderr) =>
        resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : 1, stdout, stderr }))
    })
    expect(result.stderr).toBe("")
    expect(result.code, result.stdout).toBe(0)
    const [, project, dest, serviceKeyId] = /vars (\S+) (\S+) (\S+)/.exec(result.stdout) ?? []
    expect(project).toMatch(/^[0-9a-f-]{36}$/)
    expect(dest).toMatch(/^\w+_\w+$/)
    // The account, the management API with the new secret, and the delivery log saying delivered.
    expect(result.stdout).toContain("\"email\":\"admin@localhost\"")
    expect(result.stdout).toContain("\"succeed\":true")
    expect(result.stdout).toMatch(/"status":"delivered"/)
    expect(result.stdout).toContain(`console: http://127.0.0.1:${port}/console/projects/${project}/webhooks/destinations/${dest}`)
    // The receiver printed the signed test event.
    expect(received).toMatch(/POST \/webhooks sb_evt_\w+ \{.*"type":"webhook\.test"/)
    // The service key of the last block, created and revoked.
    expect(serviceKeyId).toMatch(/^sb_ask_\w+$/)
    expect(result.stdout).toMatch(new RegExp(`"serviceKeyId":"${serviceKeyId}".*"revokedAt":"\\d{4}-`))

    // The console page the quickstart points at, signed in as the bootstrap account.
    const admin = bootstrapOf(server.output())!
    const b = browser(() => ({ baseUrl: server.baseUrl }) as TestServer)
    const signIn = await b.fetch("/api/auth/sign-in/email", { method: "POST", json: { email: admin["email"], password: admin["password"] } })
    expect(signIn.res.status, signIn.text).toBe(200)
    const page = await b.fetch(`/console/projects/${project}/webhooks/destinations/${dest}`)
    expect(page.res.status).toBe(200)
    expect(page.text).toContain("webhook.test")
    expect(page.text).toContain("delivered")
  }, 180_000)
})
