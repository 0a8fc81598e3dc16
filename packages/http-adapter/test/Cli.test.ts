/**
 * The standalone server as an operator runs it: the `switchboard` binary in a child process on an
 * embedded database in a temporary DATA_DIR.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { request } from "node:http"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"

const bin = join(import.meta.dirname, "..", "bin", "switchboard.js")
const dataDir = mkdtempSync(join(tmpdir(), "switchboard-cli-"))
afterAll(() => rmSync(dataDir, { recursive: true, force: true }))

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port
      s.close(() => resolve(port))
    })
  })

interface Running {
  readonly child: ChildProcess
  readonly output: () => string
  readonly exited: Promise<number | null>
  readonly baseUrl: string
}

const env = (port?: number) => {
  const e: Record<string, string> = { ...process.env as Record<string, string>, DATA_DIR: dataDir, HOST: "127.0.0.1" }
  delete e.DATABASE_URL
  delete e.PORT
  if (port !== undefined) e.PORT = String(port)
  // The management API's HTTPS listener: a free port, so concurrent runs never collide on 8443.
  e.TLS_PORT = "0"
  return e
}

const start = async (): Promise<Running> => {
  const port = await freePort()
  const child = spawn(process.execPath, [bin, "serve"], { env: env(port), stdio: ["ignore", "pipe", "pipe"] })
  let out = ""
  child.stdout!.on("data", (d) => (out += d))
  child.stderr!.on("data", (d) => (out += d))
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)))
  const deadline = Date.now() + 60_000
  while (!out.includes("Switchboard listening on")) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`server did not start:\n${out}`)
    await new Promise((r) => setTimeout(r, 50))
  }
  return { child, output: () => out, exited, baseUrl: `http://127.0.0.1:${port}` }
}

const runCli = (args: ReadonlyArray<string>) =>
  new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], { env: env(), stdio: ["ignore", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (d) => (stdout += d))
    child.stderr.on("data", (d) => (stderr += d))
    child.on("exit", (code) => resolve({ code, stdout, stderr }))
  })

const bootstrapOf = (out: string) => {
  const line = out.split("\n").find((l) => l.startsWith("{\"bootstrap\""))
  return line === undefined ? undefined : (JSON.parse(line) as { bootstrap: Record<string, string> }).bootstrap
}

const account = (baseUrl: string, key: string) =>
  fetch(`${baseUrl}/v1/account`, { headers: { authorization: `Bearer ${key}` } })

// Each case starts real processes (PGlite initdb on the first): give them room on a busy machine.
describe("switchboard serve / admin", { timeout: 180_000 }, () => {
  let serviceKey = ""

  it("first start bootstraps once: one JSON line, then URLs; the key works; SIGTERM stops cleanly", async () => {
    const s = await start()
    const boot = bootstrapOf(s.output())
    expect(boot).toBeDefined()
    expect(Object.keys(boot!).sort()).toEqual(["accountId", "email", "password", "serviceKey"])
    expect(boot!.email).toBe("admin@localhost")
    expect(s.output().indexOf("{\"bootstrap\"")).toBeLessThan(s.output().indexOf("Switchboard listening on"))
    serviceKey = boot!.serviceKey!
    const me = await account(s.baseUrl, serviceKey)
    expect(me.status).toBe(200)
    expect((await me.json() as { email: string }).email).toBe("admin@localhost")
    const created = await fetch(`${s.baseUrl}/v1/account/service-keys`, {
      method: "POST",
      headers: { authorization: `Bearer ${serviceKey}`, "content-type": "application/json", "idempotency-key": "cli-1" },
      body: JSON.stringify({ name: "from cli test", expiresAt: null })
    })
    expect(created.status).toBe(201)
    s.child.kill("SIGTERM")
    expect(await s.exited).toBe(0)
    expect(s.output()).toContain("Stopped.")
  })

  it("a restart keeps the data and prints no secrets", async () => {
    const s = await start()
    expect(bootstrapOf(s.output())).toBeUndefined()
    expect(s.output()).not.toContain(serviceKey)
    const list = await fetch(`${s.baseUrl}/v1/account/service-keys`, { headers: { authorization: `Bearer ${serviceKey}` } })
    const names = ((await list.json()) as { serviceKeys: Array<{ name: string }> }).serviceKeys.map((k) => k.name)
    expect(names).toEqual(["from cli test", "bootstrap"])
    s.child.kill("SIGINT")
    expect(await s.exited).toBe(0)
  })

  it("finishes an in-flight request after SIGTERM before closing the database", async () => {
    const s = await start()
    const body = JSON.stringify({ name: "in flight", expiresAt: null })
    const url = new URL("/v1/account/service-keys", s.baseUrl)
    const response = new Promise<number>((resolve, reject) => {
      const req = request(url, {
        method: "POST",
        headers: {
          authorization: `Bearer ${serviceKey}`,
          "content-type": "application/json",
          "idempotency-key": "in-flight-1",
          "content-length": Buffer.byteLength(body)
        }
      }, (res) => {
        res.resume()
        res.on("end", () => resolve(res.statusCode ?? 0))
      })
      req.on("error", reject)
      // Half the body now, the rest after the signal: the request is in flight when shutdown starts.
      req.write(body.slice(0, 10))
      setTimeout(() => {
        s.child.kill("SIGTERM")
        setTimeout(() => req.end(body.slice(10)), 300)
      }, 300)
    })
    expect(await response).toBe(201)
    expect(await s.exited).toBe(0)
  })

  it("admin create-account --json prints the same JSON shape, and the key works", async () => {
    const r = await runCli(["admin", "create-account", "--email", "ops@example.com", "--password", "correct horse battery", "--json"])
    expect(r.code, r.stderr).toBe(0)
    const created = bootstrapOf(r.stdout)
    expect(created).toMatchObject({ email: "ops@example.com", password: "correct horse battery" })
    const dup = await runCli(["admin", "create-account", "--email", "OPS@example.com", "--json"])
    expect(dup.code).toBe(1)
    expect(dup.stderr).toContain("already exists")
    const bad = await runCli(["admin", "create-account", "--email", "not-an-email"])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain("not an email address")
    const s = await start()
    const me = await account(s.baseUrl, created!.serviceKey!)
    expect((await me.json() as { email: string }).email).toBe("ops@example.com")
    s.child.kill("SIGTERM")
    expect(await s.exited).toBe(0)
  })

  it("--version and unknown commands", async () => {
    const v = await runCli(["--version"])
    expect(v.stdout).toMatch(/^switchboard \d+\.\d+\.\d+/)
    const u = await runCli(["frobnicate"])
    expect(u.code).toBe(2)
    expect(u.stderr).toContain("unknown command")
  })
})
