/**
 * Start-up failures as an operator meets them (`switchboard serve` in a child process): a bad
 * setting names the variable and its value before anything is built (exit 2); a port in use names
 * the port (EADDRINUSE); a PostgreSQL that cannot be reached names its host and the cause; never a
 * stack trace, never a secret — and a start that failed leaves the bootstrap to the next start.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { bootstrapOf, cliEnv, runCli, startServer, stopServer } from "../support/CliProcess.js"
import { freePort } from "../support/WebhookReceiver.js"

const dataDir = mkdtempSync(join(tmpdir(), "switchboard-startup-"))
afterAll(() => rmSync(dataDir, { recursive: true, force: true }))

const serve = (vars: Record<string, string | undefined>) => runCli(["serve"], cliEnv(dataDir, { PORT: undefined, ...vars }))
const noStack = (text: string) => expect(text).not.toMatch(/\n\s+at /)

describe("switchboard serve: start-up errors", { timeout: 180_000 }, () => {
  it("a bad setting names the variable and its value, exit 2, before anything is made", async () => {
    const cases: ReadonlyArray<readonly [Record<string, string>, string]> = [
      [{ PORT: "abc" }, "PORT=\"abc\": Expected a network port value"],
      [{ REQUEST_TIMEOUT_MS: "5" }, "REQUEST_TIMEOUT_MS=\"5\": must be between 100 and 600000"],
      [{ WEBHOOK_CONCURRENCY: "many" }, "WEBHOOK_CONCURRENCY=\"many\": Expected an integer value"],
      [{ ACCESS_LOG: "loud" }, "ACCESS_LOG=\"loud\": Expected one of (off, debug, info, warning)"],
      [{ LOG_LEVEL: "chatty" }, "LOG_LEVEL=\"chatty\": Expected one of (debug, info, warning, error)"],
      [{ DATABASE_URL: "mysql://root@db/x" }, "DATABASE_URL=\"mysql://root@db/x\": must be a postgres://"],
      // The password of a bad DATABASE_URL is not shown.
      [{ DATABASE_URL: "postgres://user:hunter22@/x" }, "DATABASE_URL=\"postgres://user:***@/x\": must be a postgres://"]
    ]
    for (const [vars, expected] of cases) {
      const r = await serve(vars)
      expect([vars, r.code]).toEqual([vars, 2])
      expect(r.stderr).toContain("switchboard: configuration error:")
      expect(r.stderr).toContain(expected)
      expect(r.stderr).not.toContain("hunter22")
      noStack(r.stderr)
    }
    // Nothing was made: no database, no certificate.
    expect(readdirSync(dataDir)).toEqual([])
  })

  it("a PostgreSQL that cannot be reached is named with the cause", async () => {
    const r = await serve({ DATABASE_URL: "postgres://postgres:hunter22@127.0.0.1:1/postgres", TLS_PORT: "0" })
    expect(r.code).toBe(1)
    expect(r.stderr).toContain("PostgreSQL at 127.0.0.1:1 cannot be reached")
    expect(r.stderr).toContain("ECONNREFUSED")
    expect(r.stderr + r.stdout).not.toContain("hunter22")
    noStack(r.stderr)
  })

  it("a port in use names the port, prints no secret, and the next start still bootstraps", async () => {
    const blocker = createServer()
    const port = await new Promise<number>((resolve) => blocker.listen(0, "127.0.0.1", () => resolve((blocker.address() as { port: number }).port)))
    try {
      const r = await serve({ PORT: String(port), TLS_PORT: "0" })
      expect(r.code).toBe(1)
      expect(r.stderr).toContain(`port ${port} on 127.0.0.1 is already in use (EADDRINUSE)`)
      noStack(r.stderr)
      expect(bootstrapOf(r.stdout)).toBeUndefined()
      expect(r.stdout).not.toContain("sb_ask_")
      expect(r.stdout).not.toContain("Bootstrap credentials")
      expect(existsSync(join(dataDir, "bootstrap.json"))).toBe(false)
      expect(readdirSync(dataDir).filter((f) => f.startsWith("bootstrap"))).toEqual([])
    } finally {
      await new Promise((resolve) => blocker.close(resolve))
    }
    // The failed start created no account: this one does, and shows its credentials once.
    const s = await startServer(cliEnv(dataDir, { TLS_PORT: "0" }))
    try {
      expect(bootstrapOf(s.output())?.serviceKey).toMatch(/^sb_ask_/)
      expect(JSON.parse(readFileSync(join(dataDir, "bootstrap.json"), "utf8")).serviceKey).toBe(bootstrapOf(s.output())?.serviceKey)
    } finally {
      expect(await stopServer(s)).toBe(0)
    }
  })

  it("a SECRET_KEY that does not open the database's sealed keys stops the start, naming SECRET_KEY", async () => {
    const dir = mkdtempSync(join(tmpdir(), "switchboard-secret-"))
    try {
      const first = await startServer(cliEnv(dir, { TLS_PORT: "0", SECRET_KEY: "the-first-secret-of-this-deployment-0123456789" }))
      expect(await stopServer(first)).toBe(0)
      const r = await runCli(["serve"], cliEnv(dir, { PORT: String(await freePort()), TLS_PORT: "0", SECRET_KEY: "another-secret-entirely-9876543210-abcdefghij" }))
      expect(r.code).toBe(1)
      expect(r.stderr).toContain("SECRET_KEY does not match this database")
      expect(r.stderr).not.toContain("the-first-secret")
      expect(r.stdout).not.toContain("Switchboard listening on")
      noStack(r.stderr)
      // The right secret still starts it.
      const again = await startServer(cliEnv(dir, { TLS_PORT: "0", SECRET_KEY: "the-first-secret-of-this-deployment-0123456789" }))
      expect(await stopServer(again)).toBe(0)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
