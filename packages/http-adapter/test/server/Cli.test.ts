/**
 * The standalone server as an operator runs it: the `switchboard` binary in a child process on an
 * embedded database in a temporary DATA_DIR.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { request } from "node:http"
import { hostname, tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { pgliteTemplatePath } from "@switchboard/sql-adapter"
import { bootstrapOf, cliEnv, runCli as runIn, startServer, stopServer } from "../support/CliProcess.js"

const dataDir = mkdtempSync(join(tmpdir(), "switchboard-cli-"))
afterAll(() => rmSync(dataDir, { recursive: true, force: true }))

// The management API's HTTPS listener: a free port, so concurrent runs never collide on 8443.
const env = cliEnv(dataDir, { PORT: undefined, TLS_PORT: "0" })
const start = () => startServer(env)
const runCli = (args: ReadonlyArray<string>) => runIn(args, env)

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
    // The same credentials are kept in DATA_DIR/bootstrap.json, readable by the owner only.
    const file = join(dataDir, "bootstrap.json")
    expect(statSync(file).mode & 0o777).toBe(0o600)
    const kept = JSON.parse(readFileSync(file, "utf8")) as Record<string, string>
    expect(Object.keys(kept).sort()).toEqual(["accountId", "createdAt", "email", "password", "serviceKey"])
    expect(kept).toMatchObject(boot!)
    expect(new Date(kept["createdAt"]!).toISOString()).toBe(kept["createdAt"])
    expect(s.output()).toContain(`Bootstrap credentials written to ${file} (mode 0600;`)
    const me = await account(s.baseUrl, serviceKey)
    expect(me.status).toBe(200)
    expect((await me.json() as { email: string }).email).toBe("admin@localhost")
    const created = await fetch(`${s.baseUrl}/v1/account/service-keys`, {
      method: "POST",
      headers: { authorization: `Bearer ${serviceKey}`, "content-type": "application/json", "idempotency-key": "cli-1" },
      body: JSON.stringify({ name: "from cli test", expiresAt: null })
    })
    expect(created.status).toBe(201)
    expect(await stopServer(s)).toBe(0)
    expect(s.output()).toContain("Stopped.")
  })

  it("a restart keeps the data and prints no secrets, only where the bootstrap credentials are (the file is left as it was)", async () => {
    const file = join(dataDir, "bootstrap.json")
    const before = readFileSync(file, "utf8")
    const mtime = statSync(file).mtimeMs
    const s = await start()
    expect(bootstrapOf(s.output())).toBeUndefined()
    expect(s.output()).not.toContain(serviceKey)
    expect(s.output()).toContain(`Bootstrap credentials: ${file} (written at the first start; delete it once you have stored the key)\n`)
    expect(s.output()).not.toContain("No bootstrap credentials on file")
    expect(readFileSync(file, "utf8")).toBe(before)
    expect(statSync(file).mtimeMs).toBe(mtime)
    const list = await fetch(`${s.baseUrl}/v1/account/service-keys`, { headers: { authorization: `Bearer ${serviceKey}` } })
    const names = ((await list.json()) as { serviceKeys: Array<{ name: string }> }).serviceKeys.map((k) => k.name)
    expect(names).toEqual(["from cli test", "bootstrap"])
    expect(await stopServer(s, "SIGINT")).toBe(0)
  })

  it("a first start on another new data directory (a copy of the cluster template) bootstraps its own account, once", async () => {
    const other = mkdtempSync(join(tmpdir(), "switchboard-cli-"))
    try {
      const s = await startServer(cliEnv(other, { PORT: undefined, TLS_PORT: "0" }))
      const boot = bootstrapOf(s.output())
      expect(boot).toBeDefined()
      expect(s.output().split("\n").filter((l) => l.startsWith("{\"bootstrap\"")).length).toBe(1)
      expect(boot!.serviceKey).not.toBe(serviceKey)
      expect((await account(s.baseUrl, boot!.serviceKey!)).status).toBe(200)
      // Its own database: the first data directory's key is unknown here.
      expect((await account(s.baseUrl, serviceKey)).status).toBe(401)
      expect(await stopServer(s)).toBe(0)
      const cache = process.env.SWITCHBOARD_CACHE_DIR ?? join(import.meta.dirname, "..", "..", "..", "..", "node_modules", ".cache", "switchboard")
      expect(existsSync(join(pgliteTemplatePath(cache), "PG_VERSION"))).toBe(true)
      // The user stored the key and deleted the file: later starts say how to make an account, and write none.
      expect(JSON.parse(readFileSync(join(other, "bootstrap.json"), "utf8")).serviceKey).toBe(boot!.serviceKey)
      rmSync(join(other, "bootstrap.json"))
      const again = await startServer(cliEnv(other, { PORT: undefined, TLS_PORT: "0" }))
      expect(bootstrapOf(again.output())).toBeUndefined()
      expect(again.output()).toContain(
        "No bootstrap credentials on file; make an account with a service key: npx switchboard admin create-account --email you@example.com (with the server stopped when on the embedded database)\n"
      )
      expect(again.output()).not.toContain("Bootstrap credentials")
      expect(existsSync(join(other, "bootstrap.json"))).toBe(false)
      expect((await account(again.baseUrl, boot!.serviceKey!)).status).toBe(200)
      expect(await stopServer(again)).toBe(0)
    } finally {
      rmSync(other, { recursive: true, force: true })
    }
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
      // The signal waits until the server is serving it (readiness counts requests in flight, its
      // own included), so a slow machine cannot send SIGTERM before the request has arrived.
      req.write(body.slice(0, 10))
      const signalWhenServing = async () => {
        for (let i = 0; i < 600; i++) {
          const ready = (await (await fetch(`${s.baseUrl}/api/health/ready`)).json()) as { data: { requestsInFlight: number } }
          if (ready.data.requestsInFlight >= 2) break
          await new Promise((r) => setTimeout(r, 50))
        }
        s.child.kill("SIGTERM")
        setTimeout(() => req.end(body.slice(10)), 300)
      }
      signalWhenServing().catch(reject)
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
    expect(await stopServer(s)).toBe(0)
  })

  it("the data directory has one owner: admin commands against a running server's PGlite fail clearly and change nothing", async () => {
    const s = await start()
    try {
      const lock = JSON.parse(readFileSync(join(dataDir, "pglite.lock"), "utf8")) as { pid: number }
      expect(lock.pid).toBe(s.child.pid)
      const blocked = await runCli(["admin", "create-account", "--email", "ghost@example.com", "--json"])
      expect(blocked.code).toBe(1)
      expect(blocked.stderr).toContain(`pid ${s.child.pid}`)
      expect(blocked.stderr).toContain("stop that process first")
      expect(blocked.stdout).toBe("")
      const rotate = await runCli(["admin", "rotate-signing-key"])
      expect(rotate.code).toBe(1)
      expect(rotate.stderr).toContain(`pid ${s.child.pid}`)
      // A second server is refused the same way, and the first keeps serving.
      await expect(startServer(env, 30_000)).rejects.toThrow(/in use by another Switchboard process/)
      expect((await account(s.baseUrl, serviceKey)).status).toBe(200)
    } finally {
      expect(await stopServer(s)).toBe(0)
    }
    expect(existsSync(join(dataDir, "pglite.lock"))).toBe(false)
    // Nothing was created while the server ran; now the command works.
    const created = await runCli(["admin", "create-account", "--email", "ghost@example.com", "--json"])
    expect(created.code, created.stderr).toBe(0)
  })

  it("a stale lock (its process is gone) is taken over", async () => {
    writeFileSync(join(dataDir, "pglite.lock"), JSON.stringify({ pid: 2 ** 22 + 12345, hostname: hostname(), startedAt: "then", command: "crashed" }))
    const s = await start()
    expect(s.output()).toContain("taking over the stale lock")
    expect((await account(s.baseUrl, serviceKey)).status).toBe(200)
    expect(await stopServer(s)).toBe(0)
  })

  it("admin prepare-cache makes the embedded database's template in SWITCHBOARD_CACHE_DIR once (npm ci's prepare runs it)", async () => {
    const cache = mkdtempSync(join(tmpdir(), "switchboard-cache-"))
    try {
      const made = await runIn(["admin", "prepare-cache"], { ...env, SWITCHBOARD_CACHE_DIR: cache })
      expect([made.code, made.stdout]).toEqual([0, `embedded database template made in ${cache}\n`])
      expect(existsSync(join(pgliteTemplatePath(cache), "PG_VERSION"))).toBe(true)
      const again = await runIn(["admin", "prepare-cache"], { ...env, SWITCHBOARD_CACHE_DIR: cache })
      expect([again.code, again.stdout]).toEqual([0, `embedded database template already there in ${cache}\n`])
      const extra = await runIn(["admin", "prepare-cache", "now"], { ...env, SWITCHBOARD_CACHE_DIR: cache })
      expect([extra.code, extra.stderr]).toEqual([2, expect.stringContaining("prepare-cache takes no arguments")])
    } finally {
      rmSync(cache, { recursive: true, force: true })
    }
  })

  it("--version and unknown commands", async () => {
    const v = await runCli(["--version"])
    expect(v.stdout).toMatch(/^switchboard \d+\.\d+\.\d+/)
    const u = await runCli(["frobnicate"])
    expect(u.code).toBe(2)
    expect(u.stderr).toContain("unknown command")
  })
})
