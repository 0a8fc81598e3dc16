/**
 * `switchboard --help`, `switchboard <command> --help` and `switchboard help <command>` for every
 * command: usage on stdout, exit 0, nothing started; an unknown command's help is refused (exit 2).
 */
import { mkdtempSync, readdirSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { cliEnv, runCli } from "../support/CliProcess.js"

const dataDir = mkdtempSync(join(tmpdir(), "switchboard-help-"))
afterAll(() => rmSync(dataDir, { recursive: true, force: true }))
const env = cliEnv(dataDir)

const cases: ReadonlyArray<readonly [ReadonlyArray<string>, string]> = [
  [["--help"], "switchboard <command> --help"],
  [["-h"], "switchboard <command> --help"],
  [["serve", "--help"], "Usage: switchboard serve"],
  [["help", "serve"], "Usage: switchboard serve"],
  [["admin", "--help"], "switchboard admin <command> --help"],
  [["admin", "create-account", "--help"], "Usage: switchboard admin create-account --email <email>"],
  [["admin", "create-account", "--email", "a@b.example", "--help"], "Usage: switchboard admin create-account --email <email>"],
  [["admin", "rotate-signing-key", "-h"], "Usage: switchboard admin rotate-signing-key [--json]"],
  [["help", "admin", "prepare-cache"], "Usage: switchboard admin prepare-cache"],
  [["admin", "export", "--help"], "Usage: switchboard admin export --to <postgres-url>"],
  [["admin", "backup", "out.backup", "--help"], "Usage: switchboard admin backup <file>"],
  [["help", "admin", "restore"], "Usage: switchboard admin restore <file>"]
]

describe("switchboard help", { timeout: 120_000 }, () => {
  it("prints each command's usage, exit 0, and starts nothing", async () => {
    for (const [args, expected] of cases) {
      const r = await runCli(args, env)
      expect([args, r.code, r.stderr]).toEqual([args, 0, ""])
      expect(r.stdout, args.join(" ")).toContain(expected)
    }
    // Neither help nor a create-account with --help touched the data directory.
    expect(readdirSync(dataDir)).toEqual([])
  })

  it("refuses help for an unknown command, naming it", async () => {
    const r = await runCli(["frobnicate", "--help"], env)
    expect(r.code).toBe(2)
    expect(r.stderr).toContain("unknown command \"frobnicate\"")
  })
})
