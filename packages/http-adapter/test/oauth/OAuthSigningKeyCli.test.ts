/**
 * `switchboard admin rotate-signing-key` as an operator runs it (the `switchboard` binary in child
 * processes on an embedded database in a temporary DATA_DIR, SECRET_KEY unset so the server secret
 * is generated into the data directory): the first start generates a current and a next key; a
 * rotation makes the next key (published all along) the signing one, keeps the old one published
 * (retired, until its last token has expired) and publishes a new next key.
 */
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { cliEnv, runCli as runIn, startServer, stopServer } from "../support/CliProcess.js"

const dataDir = mkdtempSync(join(tmpdir(), "switchboard-keys-"))
afterAll(() => rmSync(dataDir, { recursive: true, force: true }))

const env = cliEnv(dataDir, { SECRET_KEY: undefined, PORT: undefined })
const serve = () => startServer(env)
const runCli = (args: ReadonlyArray<string>) => runIn(args, env)

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
    expect(await stopServer(first)).toBe(0)
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
    expect(await stopServer(second)).toBe(0)

    const human = await runCli(["admin", "rotate-signing-key"])
    expect(human.code, human.stderr).toBe(0)
    expect(human.stdout).toContain(`signing key ${r.next} now signs`)
    expect(human.stdout).toContain(`signing key ${next} retired`)
    const bad = await runCli(["admin", "rotate-signing-key", "--now"])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain("rotate-signing-key takes no --now")
  })
})
