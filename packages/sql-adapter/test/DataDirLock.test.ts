/**
 * The embedded database's lock is one the kernel releases when its holder dies: a holder killed
 * with SIGKILL frees it at once (the next start waits at most half a second for a dying holder's
 * last threads) — even while the dead process is not yet reaped (a zombie, whose pid
 * still looks alive) — while a live holder keeps it, and its pid is named in the refusal.
 */
import { Effect, Exit } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { takeDataDirLock } from "../src/DataDirLock.js"

const root = mkdtempSync(join(tmpdir(), "switchboard-lock-"))
afterAll(() => rmSync(root, { recursive: true, force: true }))

const holderScript = join(import.meta.dirname, "fixtures", "LockHolder.ts")
const nodeArgs = ["--import", "tsx", "--conditions=@switchboard/source", holderScript]

/** Output lines of a child until one matches. */
const lineOf = (child: ChildProcess, pattern: RegExp) =>
  new Promise<string>((resolve, reject) => {
    let out = ""
    child.stdout!.on("data", (chunk: Buffer) => {
      out += chunk.toString()
      const line = out.split("\n").find((l) => pattern.test(l))
      if (line !== undefined) resolve(line)
    })
    child.stderr!.on("data", (chunk: Buffer) => (out += chunk.toString()))
    child.once("exit", (code) => reject(new Error(`exited ${code} before ${pattern}: ${out}`)))
  })

const take = (dataDir: string) => Effect.runPromiseExit(takeDataDirLock(dataDir))

/** A process state from /proc ("Z" a zombie: dead, not reaped). */
const stateOf = (pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.[0]
  } catch {
    return undefined
  }
}

const until = async (check: () => boolean) => {
  for (let i = 0; i < 500 && !check(); i++) await new Promise((r) => setTimeout(r, 10))
  expect(check()).toBe(true)
}

describe.runIf(process.platform === "linux")("data directory lock", () => {
  it("a live holder keeps it (named in the refusal); killed with SIGKILL it is free at once — 20 times", async () => {
    const dataDir = join(root, "restart")
    for (let round = 0; round < 20; round++) {
      const holder = spawn(process.execPath, [...nodeArgs, dataDir], { stdio: ["ignore", "pipe", "pipe"] })
      await lineOf(holder, /^locked \d+$/)
      const refused = await take(dataDir)
      expect(Exit.isFailure(refused)).toBe(true)
      expect(String(Exit.isFailure(refused) ? refused.cause : "")).toContain(`pid ${holder.pid}`)
      // Taken right after the signal, not after the holder is reaped.
      holder.kill("SIGKILL")
      const taken = await take(dataDir)
      expect([round, Exit.isSuccess(taken)]).toEqual([round, true])
      if (Exit.isSuccess(taken)) taken.value()
    }
  })

  it("a holder that died but is not reaped (a zombie with a live-looking pid) does not hold it", async () => {
    const dataDir = join(root, "zombie")
    // The holder's parent is `sleep`, which never reaps it: killed, it stays a zombie.
    const parent = spawn("sh", ["-c", `"${process.execPath}" ${nodeArgs.map((a) => `"${a}"`).join(" ")} "${dataDir}" & exec sleep 60`], {
      stdio: ["ignore", "pipe", "pipe"]
    })
    try {
      const pid = Number((await lineOf(parent, /^locked \d+$/)).split(" ")[1])
      process.kill(pid, "SIGKILL")
      await until(() => stateOf(pid) === "Z")
      // The pid still answers signal 0, as a live process would.
      expect(() => process.kill(pid, 0)).not.toThrow()
      const taken = await take(dataDir)
      expect(Exit.isSuccess(taken) ? "taken" : String(taken.cause)).toBe("taken")
      if (Exit.isSuccess(taken)) taken.value()
    } finally {
      parent.kill("SIGKILL")
    }
  })

  it("released by its owner, it is free again and its information file is gone", async () => {
    const dataDir = join(root, "release")
    const first = await take(dataDir)
    expect(Exit.isSuccess(first)).toBe(true)
    expect(JSON.parse(readFileSync(`${dataDir}.lock`, "utf8")).pid).toBe(process.pid)
    if (Exit.isSuccess(first)) first.value()
    expect(() => readFileSync(`${dataDir}.lock`)).toThrow()
    const second = await take(dataDir)
    expect(Exit.isSuccess(second)).toBe(true)
    if (Exit.isSuccess(second)) second.value()
  })
})
