/**
 * The embedded database has one owner (issue 11 item 16): whoever opens a PGlite data directory —
 * the server or a CLI command — first takes `<dataDir>.lock`, created atomically, holding its pid,
 * host, start time and command. A second process gets a clear error naming the owner and what to
 * do, and touches nothing. A lock whose process is gone (same host, pid not alive) is taken over
 * with a warning. The lock is removed when its owner closes the database.
 */
import { Data, Effect } from "effect"
import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from "node:fs"
import { hostname } from "node:os"

export interface LockOwner {
  readonly pid: number
  readonly hostname: string
  readonly startedAt: string
  readonly command: string
}

export class DataDirLocked extends Data.TaggedError("DataDirLocked")<{
  readonly path: string
  readonly owner: LockOwner
  readonly message: string
}> {}

const readOwner = (path: string): LockOwner | undefined => {
  try {
    const parsed = JSON.parse(readFileSync(path, "utf8")) as Partial<LockOwner>
    return typeof parsed.pid === "number" && typeof parsed.hostname === "string"
      ? { pid: parsed.pid, hostname: parsed.hostname, startedAt: String(parsed.startedAt ?? "?"), command: String(parsed.command ?? "?") }
      : undefined
  } catch {
    return undefined
  }
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM"
  }
}

const lockedMessage = (dataDir: string, owner: LockOwner) =>
  `the embedded database in ${dataDir} is in use by another Switchboard process ` +
  `(pid ${owner.pid} on ${owner.hostname}, since ${owner.startedAt}: ${owner.command}). ` +
  `PGlite has one owner: stop that process first (then run this again), or run the server and ` +
  `its admin commands on PostgreSQL (DATABASE_URL), which any number of processes share.`

/** Takes the lock of `dataDir` (fails with `DataDirLocked`); returns how to release it. */
export const takeDataDirLock = (dataDir: string): Effect.Effect<() => void, DataDirLocked> =>
  Effect.gen(function*() {
    const path = `${dataDir}.lock`
    const me: LockOwner = {
      pid: process.pid,
      hostname: hostname(),
      startedAt: new Date().toISOString(),
      command: process.argv.slice(1).map((a) => a.replace(/^.*\/node_modules\//, "")).join(" ").slice(0, 200)
    }
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        const fd = openSync(path, "wx", 0o600)
        writeSync(fd, JSON.stringify(me))
        closeSync(fd)
        return () => {
          if (readOwner(path)?.pid === me.pid) {
            try {
              unlinkSync(path)
            } catch {
              // already gone
            }
          }
        }
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e
      }
      const owner = readOwner(path)
      // A lock of another host cannot be checked: it is honoured. So is one of a live process.
      if (owner !== undefined && (owner.hostname !== me.hostname || alive(owner.pid))) {
        return yield* new DataDirLocked({ path, owner, message: lockedMessage(dataDir, owner) })
      }
      // Stale (its process is gone) or unreadable (a crash while writing it): take it over.
      yield* Effect.logWarning(`taking over the stale lock ${path}${owner === undefined ? "" : ` of pid ${owner.pid}, which is gone`}`)
      try {
        unlinkSync(path)
      } catch {
        // another process took it over first: try again
      }
    }
    const owner = readOwner(path) ?? { pid: 0, hostname: "?", startedAt: "?", command: "?" }
    return yield* new DataDirLocked({ path, owner, message: lockedMessage(dataDir, owner) })
  })
