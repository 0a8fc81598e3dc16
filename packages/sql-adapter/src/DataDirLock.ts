/**
 * The embedded database has one owner (docs/architecture.md): whoever opens a PGlite data
 * directory — the server or a CLI command — first takes its lock. A second process gets a clear
 * error naming the owner and what to do, and touches nothing. The lock is released when its owner
 * closes the database.
 *
 * The lock itself is one the kernel releases the moment its holder dies: on Linux, a listening
 * socket in the abstract namespace named after the data directory (no file; closed with the
 * process's descriptors, even before a killed process is reaped), so a restart right after
 * `kill -9` takes it at once. `<dataDir>.lock` beside it holds the owner's pid, host, start time and
 * command — information for the error message only. Elsewhere (no abstract sockets) the file is
 * the lock: created atomically, and taken over when its pid is not alive on this host.
 */
import { Data, Effect } from "effect"
import { createHash } from "node:crypto"
import { closeSync, openSync, readFileSync, realpathSync, unlinkSync, writeFileSync, writeSync } from "node:fs"
import { createServer, type Server } from "node:net"
import { dirname, basename, join } from "node:path"
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

/** The lock as a file only (no abstract sockets here): the pid decides whether it is stale. */
const takeFileLock = (dataDir: string, me: LockOwner): Effect.Effect<() => void, DataDirLocked> =>
  Effect.gen(function*() {
    const path = `${dataDir}.lock`
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

/** The abstract-namespace socket name of a data directory (one per directory, whatever path names it). */
const socketName = (dataDir: string) => {
  let real = dataDir
  try {
    real = join(realpathSync(dirname(dataDir)), basename(dataDir))
  } catch {
    // the parent does not exist yet: the path as given
  }
  return `\0switchboard-pglite-${createHash("sha256").update(real).digest("hex").slice(0, 40)}`
}

/** Listens on the directory's socket: the lock, or `"held"` when a live process has it. */
const listenLock = (name: string): Promise<Server | "held"> =>
  new Promise((resolve, reject) => {
    const server = createServer((socket) => socket.destroy())
    server.once("error", (e: NodeJS.ErrnoException) => (e.code === "EADDRINUSE" ? resolve("held") : reject(e)))
    server.listen({ path: name, exclusive: true }, () => {
      // The lock must not keep the process alive.
      server.unref()
      resolve(server)
    })
  })

const removeIfMine = (path: string, me: LockOwner) => {
  if (readOwner(path)?.pid === me.pid) {
    try {
      unlinkSync(path)
    } catch {
      // already gone
    }
  }
}

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
    if (process.platform !== "linux") return yield* takeFileLock(dataDir, me)
    // A holder that is being killed releases it within milliseconds (its last threads closing its
    // descriptors): a refusal waits that long first, so a restart right after `kill -9` takes it.
    const name = socketName(dataDir)
    let held: Server | "held" | "unavailable" = "held"
    for (let attempt = 0; attempt < 20 && held === "held"; attempt++) {
      if (attempt > 0) yield* Effect.sleep(25)
      held = yield* Effect.promise(() => listenLock(name).catch(() => "unavailable" as const))
    }
    if (held === "unavailable") return yield* takeFileLock(dataDir, me)
    if (held === "held") {
      const owner = readOwner(path) ?? { pid: 0, hostname: me.hostname, startedAt: "?", command: "?" }
      return yield* new DataDirLocked({ path, owner, message: lockedMessage(dataDir, owner) })
    }
    // Ours. A file left beside it names a process that is gone (a live one would hold the socket) —
    // unless it is another host's, which this host's socket cannot see: that one is honoured.
    const previous = readOwner(path)
    if (previous !== undefined && previous.hostname !== me.hostname) {
      held.close()
      return yield* new DataDirLocked({ path, owner: previous, message: lockedMessage(dataDir, previous) })
    }
    if (previous !== undefined) yield* Effect.logWarning(`taking over the stale lock ${path} of pid ${previous.pid}, which is gone`)
    writeFileSync(path, JSON.stringify(me), { mode: 0o600 })
    return () => {
      removeIfMine(path, me)
      held.close()
    }
  })
