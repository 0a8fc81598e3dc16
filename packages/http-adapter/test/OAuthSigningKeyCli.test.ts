/**
 * `switchboard admin rotate-signing-key` as an operator runs it (the `switchboard` binary in child
 * processes on an embedded database in a temporary DATA_DIR, SECRET_KEY unset so the server secret
 * is generated into the data directory): the first start generates a current and a next key; a
 * rotation makes the next key (published all along) the signing one, keeps the old one published
 * (retired, until its last token has expired) and publishes a new next key.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"

const bin = join(import.meta.dirname, "..", "bin", "switchboard.js")
const dataDir = mkdtempSync(join(tmpdir(), "switchboard-keys-"))
afterAll(() => rmSync(dataDir, { recursive: true, force: true }))

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port
      s.close(() => resolve(port))
    })
  })

const env = (port?: number) => {
  const e: Record<string, string> = { ...process.env as Record<string, string>, DATA_DIR: dataDir, HOST: "127.0.0.1" }
  delete e.DATABASE_URL
  delete e.SECRET_KEY
  delete e.PORT
  if (port !== undefined) e.PORT = String(port)
  return e
}

const serve = async (): Promise<{ child: ChildProcess; baseUrl: string; exited: Promise<number | null> }> => {
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
  return { child, baseUrl: `http://127.0.0.1:${port}`, exited }
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

const kids = async (baseUrl: string) => {
  const res = await fetch(`${baseUrl}/api/auth/jwks`)
  expect(res.status).toBe(200)
  const { keys } = await res.json() as { keys: Array<{ kid: string; d?: string }> }
  for (const k of keys) expect(k.d).toBeUndefined()
  return keys.map((k) => k.kid)
}

describe("switchboard admin rotate-signing-key", { timeout: 240_000 }, () => {
  it("keys are generated on first start (sealed with the generated secret); a rotation publishes before it signs and keeps the old key", async () => {
    const first = await serve()
    const [current, next, ...rest] = await kids(first.baseUrl)
    expect(rest).toEqual([])
    expect(current).not.toBe(next)
    first.child.kill("SIGTERM")
    expect(await first.exited).toBe(0)
    // SECRET_KEY unset: the server secret was generated into the data directory, readable by its owner only.
    const secretFile = join(dataDir, "secret.key")
    expect(existsSync(secretFile)).toBe(true)
    expect(statSync(secretFile).mode & 0o077).toBe(0)

    const rotated = await runCli(["admin", "rotate-signing-key", "--json"])
    expect(rotated.code, rotated.stderr).toBe(0)
    const { rotated: r } = JSON.parse(rotated.stdout.trim().split("\n").at(-1)!) as { rotated: { current: string; next: string; retired: string } }
    // The key that now signs is the one published as next since the first start.
    expect(r.current).toBe(next)
    expect(r.retired).toBe(current)
    expect([current, next]).not.toContain(r.next)

    const second = await serve()
    // Current, next, then the retired key, still published for the tokens it signed.
    expect(await kids(second.baseUrl)).toEqual([next, r.next, current])
    second.child.kill("SIGTERM")
    expect(await second.exited).toBe(0)

    const human = await runCli(["admin", "rotate-signing-key"])
    expect(human.code, human.stderr).toBe(0)
    expect(human.stdout).toContain(`signing key ${r.next} now signs`)
    expect(human.stdout).toContain(`signing key ${next} retired`)
    const bad = await runCli(["admin", "rotate-signing-key", "--now"])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain("rotate-signing-key takes no --now")
  })
})
