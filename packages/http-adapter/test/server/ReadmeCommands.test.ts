/**
 * The README's `## Quickstart` and the walk-through of docs/quickstart.md, run as written against
 * the real binary, twice: from a fresh clone (no `.data`) and on a data directory an earlier start
 * made (the README's `npm start`, stopped, then the whole walk-through, which restarts). Each
 * server is started as the docs say — `switchboard serve` in a temporary directory with the
 * settings of the docs' start line, `DATA_DIR` left at its default `./.data` — on free ports (the
 * docs' `localhost:8080`, `localhost:8443` and the receiver's `8090` are rewritten to them); the
 * receiver runs as its own process, and the remaining blocks run in order in one bash with
 * `set -euo pipefail` in that directory. The webhook must reach the receiver, the delivery log
 * must say so, the console page the walk-through prints must show it to the bootstrap account,
 * and the `json` helper must fail loudly on an error answer.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { bootstrapOf, cliEnv, type Running, startServer, stopServer } from "../support/CliProcess.js"
import { browser } from "../support/DashboardClient.js"
import type { TestServer } from "../support/TestServer.js"
import { freePort } from "../support/WebhookReceiver.js"

const root = join(import.meta.dirname, "..", "..", "..", "..")
const readme = readFileSync(join(root, "README.md"), "utf8")
const quickstart = readFileSync(join(root, "docs", "quickstart.md"), "utf8")

const shBlocks = (text: string): Array<string> => [...text.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!)

/** The fenced `sh` blocks of the section under the heading line `title`, up to the next heading of its level or above. */
const sectionBlocks = (text: string, title: string): Array<string> => {
  const start = text.indexOf(`\n${title}\n`)
  expect(start, title).toBeGreaterThanOrEqual(0)
  const rest = text.slice(start + title.length + 2)
  const end = rest.search(/\n#{1,2} /)
  return shBlocks(end < 0 ? rest : rest.slice(0, end))
}

const readmeBlocks = sectionBlocks(readme, "## Quickstart")
const docBlocks = shBlocks(quickstart)

/** The settings of a start line `VAR=value … npm start`, as a user's shell would pass them. */
const startSettings = (block: string) => {
  const line = block.trim()
  expect(line).toMatch(/^([A-Z_]+=\S+ )*npm start$/)
  return Object.fromEntries([...line.matchAll(/([A-Z_]+)=(\S+) /g)].map((m) => [m[1]!, m[2]!]))
}

/** One directory a user works in: the server started there as the docs say, and its ports. */
class Workspace {
  readonly dir = mkdtempSync(join(tmpdir(), "sb-quickstart-"))
  server: Running | undefined
  receiver: ChildProcess | undefined
  received = ""
  port = ""
  tlsPort = ""
  receiverPort = ""

  /** `npm start` with `settings` (DATA_DIR at its default: `./.data` of this directory). */
  async start(settings: Record<string, string>) {
    this.tlsPort = String(await freePort())
    this.server = await startServer(cliEnv("", { DATA_DIR: undefined, ...settings, TLS_PORT: this.tlsPort }), 110_000, this.dir)
    this.port = new URL(this.server.baseUrl).port
    return this.server
  }

  async stop() {
    const s = this.server
    this.server = undefined
    return s === undefined ? undefined : await stopServer(s)
  }

  local(block: string) {
    return block.replaceAll("localhost:8080", `127.0.0.1:${this.port}`).replaceAll("localhost:8443", `localhost:${this.tlsPort}`)
      .replaceAll("8090", this.receiverPort)
  }

  /** The docs' receiver block, in its own process (its own terminal in the docs). */
  async startReceiver(block: string) {
    this.receiverPort = String(await freePort())
    this.receiver = spawn("bash", ["-c", this.local(block)], { cwd: this.dir, stdio: ["ignore", "pipe", "pipe"] })
    this.receiver.stdout!.on("data", (d) => (this.received += d))
    this.receiver.stderr!.on("data", (d) => (this.received += d))
    const deadline = Date.now() + 30_000
    while (!this.received.includes("listening on")) {
      if (Date.now() > deadline || this.receiver.exitCode !== null) throw new Error(`receiver did not start:\n${this.received}`)
      await new Promise((r) => setTimeout(r, 50))
    }
  }

  /** `script` in one bash in this directory. */
  bash(script: string) {
    return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile("bash", ["-c", script], { cwd: this.dir, timeout: 50_000 }, (error, stdout, stderr) =>
        resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : 1, stdout, stderr }))
    })
  }

  bootstrapFile() {
    return JSON.parse(readFileSync(join(this.dir, ".data", "bootstrap.json"), "utf8")) as Record<string, string>
  }

  async dispose() {
    this.receiver?.kill()
    await this.stop()
    rmSync(this.dir, { recursive: true, force: true })
  }
}

/** docs/quickstart.md's step 3 onwards, in order, as one script; checks what each step shows. */
const walkThrough = async (w: Workspace) => {
  expect(docBlocks.length).toBeGreaterThanOrEqual(7)
  expect(docBlocks.join("\n")).not.toMatch(/\u2026|<[a-z_]+>/)
  const script = `set -euo pipefail\n${docBlocks.slice(2).map((b) => w.local(b)).join("\n")}\necho "vars $PROJECT $DEST $SERVICE_KEY_ID"\n`
  const result = await w.bash(script)
  expect(result.stderr).toBe("")
  expect(result.code, result.stdout).toBe(0)
  const [, project, dest, serviceKeyId] = /vars (\S+) (\S+) (\S+)/.exec(result.stdout) ?? []
  expect(project).toMatch(/^[0-9a-f-]{36}$/)
  expect(dest).toMatch(/^\w+_\w+$/)
  // The account, the management API with the new secret, and the delivery log saying delivered.
  expect(result.stdout).toContain("\"email\":\"admin@localhost\"")
  expect(result.stdout).toContain("\"succeed\":true")
  expect(result.stdout).toMatch(/"status":"delivered"/)
  expect(result.stdout).toContain(`console: http://127.0.0.1:${w.port}/console/projects/${project}/webhooks/destinations/${dest}`)
  expect(result.stdout).toContain(`password: ${w.bootstrapFile()["password"]}`)
  // The receiver printed the signed test event.
  expect(w.received).toMatch(/POST \/webhooks sb_evt_\w+ \{.*"type":"webhook\.test"/)
  // The service key of the last block, created and revoked.
  expect(serviceKeyId).toMatch(/^sb_ask_\w+$/)
  expect(result.stdout).toMatch(new RegExp(`"serviceKeyId":"${serviceKeyId}".*"revokedAt":"\\d{4}-`))
  return { project: project!, dest: dest! }
}

const pointerLine = "Bootstrap credentials: .data/bootstrap.json (written at the first start; delete it once you have stored the key)"

describe("docs/quickstart.md from a fresh clone (no .data)", () => {
  const w = new Workspace()
  let walked: { project: string; dest: string } | undefined

  beforeAll(async () => {
    await w.start(startSettings(docBlocks[0]!))
    await w.startReceiver(docBlocks[1]!)
  }, 120_000)
  afterAll(() => w.dispose())

  it("the first start prints the key once and keeps it in .data/bootstrap.json", () => {
    const out = w.server!.output()
    const printed = bootstrapOf(out)
    expect(printed?.serviceKey).toMatch(/^sb_ask_/)
    expect(w.bootstrapFile()).toMatchObject(printed!)
    expect(statSync(join(w.dir, ".data", "bootstrap.json")).mode & 0o777).toBe(0o600)
    expect(out).toContain("Bootstrap credentials written to .data/bootstrap.json (mode 0600;")
  })

  it("every step from the start line to a received webhook, seen in the delivery log", async () => {
    walked = await walkThrough(w)
  })

  it("the console page the walk-through prints shows the delivery to the bootstrap account", async () => {
    expect(walked).toBeDefined()
    const admin = w.bootstrapFile()
    const b = browser(() => ({ baseUrl: w.server!.baseUrl }) as TestServer)
    const signIn = await b.fetch("/api/auth/sign-in/email", { method: "POST", json: { email: admin["email"], password: admin["password"] } })
    expect(signIn.res.status, signIn.text).toBe(200)
    const page = await b.fetch(`/console/projects/${walked!.project}/webhooks/destinations/${walked!.dest}`)
    expect(page.res.status).toBe(200)
    expect(page.text).toContain("webhook.test")
    expect(page.text).toContain("delivered")
  })

  it("json fails loudly on an error answer (a 401) and on a missing field; need stops on the empty variable", async () => {
    const helpers = docBlocks.find((b) => b.includes("json() {"))
    expect(helpers).toBeDefined()
    const r = await w.bash(`${w.local(helpers!)}
curl -s localhost:8080/v1/account -H "authorization: Bearer sb_ask_not_a_key" | json email; echo "exit $?"
ORG=$(curl -s localhost:8080/v1/organizations -H "authorization: Bearer sb_ask_not_a_key" -H 'content-type: application/json' -d '{"name":"Acme"}' | json organizationId); echo "exit $? org [$ORG]"
need ORG; echo "need $?"
echo '{"accountId":"x"}' | json email; echo "exit $?"
`.replaceAll("localhost:8080", `127.0.0.1:${w.port}`))
    expect(r.stdout).toContain("\"email\":\"admin@localhost\"")
    expect(r.stdout).toMatch(/exit 1\nexit 1 org \[\]\nneed 1\nexit 1\n$/)
    const lines = r.stderr.trim().split("\n")
    expect(lines).toHaveLength(4)
    // The answer itself, a 401 problem, is on stderr with the field that was wanted.
    expect(lines[0]).toMatch(/^json: no "email" in this answer: \{.*"status":401/)
    expect(lines[1]).toMatch(/^json: no "organizationId" in this answer: \{.*"status":401/)
    expect(lines[2]).toBe("need: $ORG is empty (an earlier step failed: see its error above)")
    expect(lines[3]).toBe("json: no \"email\" in this answer: {\"accountId\":\"x\"}")
  })
})

describe("the README's Quickstart, then docs/quickstart.md on the data directory it made", () => {
  const w = new Workspace()

  beforeAll(async () => {
    expect(readmeBlocks).toEqual([
      "npm start\n",
      "KEY=$(node -p 'require(\"./.data/bootstrap.json\").serviceKey')\ncurl -s -w '\\n' localhost:8080/v1/account -H \"authorization: Bearer $KEY\"\n"
    ])
    await w.start(startSettings(readmeBlocks[0]!))
  }, 120_000)
  afterAll(() => w.dispose())

  it("npm start, then the key read from .data/bootstrap.json answers /v1/account", async () => {
    const printed = bootstrapOf(w.server!.output())
    expect(printed?.serviceKey).toMatch(/^sb_ask_/)
    const r = await w.bash(`set -euo pipefail\n${w.local(readmeBlocks[1]!)}`)
    expect([r.code, r.stderr]).toEqual([0, ""])
    expect(r.stdout).toContain(`"accountId":"${printed!.accountId}"`)
    expect(r.stdout).toContain("\"email\":\"admin@localhost\"")
    // The docs' step 1: a server already running is stopped first.
    expect(await w.stop()).toBe(0)
  })

  it("the walk-through restarts on it: the start points at the file and prints no key; the webhook arrives", async () => {
    const before = readFileSync(join(w.dir, ".data", "bootstrap.json"), "utf8")
    const s = await w.start(startSettings(docBlocks[0]!))
    expect(bootstrapOf(s.output())).toBeUndefined()
    expect(s.output()).not.toContain("sb_ask_")
    expect(s.output()).toContain(`${pointerLine}\n`)
    expect(readFileSync(join(w.dir, ".data", "bootstrap.json"), "utf8")).toBe(before)
    await w.startReceiver(docBlocks[1]!)
    await walkThrough(w)
  })
})
