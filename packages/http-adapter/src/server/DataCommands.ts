/**
 * `switchboard admin export | backup | restore` (docs/operations.md, "Moving off the embedded
 * database" and "Backup and restore"): what they do, in functions that print through `out` and
 * answer with the exit code (0 done, 1 failed). Cli.ts parses their arguments.
 */
import {
  DatabaseClient,
  DatabaseConfig,
  dumpPglite,
  EXPECTED_SCHEMA_VERSION,
  exportToPostgres,
  needsInit,
  openPglite,
  PGLITE_SECTION,
  pgliteSchemaVersion,
  readBackupFile,
  restorePglite,
  SECRET_SECTION,
  takeDataDirLock,
  writeBackupFile
} from "@switchboard/sql-adapter"
import { Cause, Effect, Exit, Option, Redacted } from "effect"
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, rmSync, writeFileSync } from "node:fs"
import { connect } from "node:net"
import { join, resolve } from "node:path"
import type { ServerConfigShape } from "../http/ServerConfig.js"
import { adminSocketPath } from "./AdminSocket.js"

/** The sections of uploaded files (DATA_DIR/blobs): `blobs/<key>`. */
const BLOB_PREFIX = "blobs/"

export interface Output {
  readonly line: (text: string) => void
}

/** A connection URL as it may be shown: its password masked. */
export const maskedUrl = (url: string) => url.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/@]*:)[^@]*@/i, "$1***@")

const failureOf = (cause: Cause.Cause<unknown>) => {
  const e = Cause.squash(cause) as { message?: unknown }
  return typeof e?.message === "string" && e.message !== "" ? e.message : String(e).split("\n")[0]!
}

/** How the server secret moves with the data (it is not in the database), in one line for operators. */
const secretReminder = (config: ServerConfigShape, next: string) =>
  Option.isSome(config.secretKey)
    ? `The server secret is not in the database: ${next} and the same SECRET_KEY, or the sealed signing keys, TOTP seeds and stored secrets cannot be opened and page tokens stop working (the server refuses to start).`
    : `The server secret is not in the database: it is ${join(config.dataDir, "secret.key")}. ${next} and the same DATA_DIR (or SECRET_KEY set to that file's contents), or the sealed signing keys, TOTP seeds and stored secrets cannot be opened and page tokens stop working (the server refuses to start).`

/**
 * Copies DATA_DIR/pglite into the empty PostgreSQL database at `to` (Export.ts). Takes the data
 * directory's lock, as every command that opens the embedded database does: while the server runs,
 * it is refused with the lock's message — an export of a server that keeps writing would miss what
 * it writes afterwards, and the move needs the server stopped anyway.
 */
export const exportCommand = async (config: ServerConfigShape, to: string, progressRows: number, out: Output): Promise<number> => {
  const pgliteDir = join(config.dataDir, "pglite")
  const targetName = maskedUrl(to)
  if (needsInit(pgliteDir)) {
    out.line(`switchboard: no embedded database in ${pgliteDir} (DATA_DIR=${config.dataDir}): nothing to export`)
    return 1
  }
  const program = Effect.gen(function*() {
    const source = yield* openPglite(pgliteDir)
    return yield* exportToPostgres(source, { targetName, progressRows, progress: out.line }).pipe(
      Effect.provide(DatabaseClient(DatabaseConfig.Postgres({ url: Redacted.make(to), maxConnections: 1, statementTimeoutMs: 600_000 })))
    )
  }).pipe(Effect.scoped)
  const exit = await Effect.runPromiseExit(program)
  if (Exit.isFailure(exit)) {
    out.line(`switchboard: could not export to ${targetName}: ${failureOf(exit.cause)}`)
    return 1
  }
  const { schemaVersion, sequences, tables } = exit.value
  const width = Math.max(5, ...tables.map((t) => t.table.length))
  out.line("")
  out.line(`${"table".padEnd(width)}  ${"source".padStart(9)}  ${"target".padStart(9)}`)
  for (const t of tables) out.line(`${t.table.padEnd(width)}  ${String(t.source).padStart(9)}  ${String(t.target).padStart(9)}`)
  const rows = tables.reduce((n, t) => n + t.target, 0)
  out.line(`Exported ${tables.length} tables (${rows} rows) and ${sequences} sequences into ${targetName} at schema version ${schemaVersion}; the row counts match.`)
  out.line(secretReminder(config, `Start the server with DATABASE_URL=${targetName}`))
  return 0
}

/** The running server's answer on its admin socket: the dump, or why not; `undefined` when no server listens there. */
const backupThroughServer = (socketPath: string): Promise<{ schemaVersion: number; dump: Uint8Array } | { error: string } | undefined> =>
  new Promise((resolvePromise) => {
    if (!existsSync(socketPath)) return resolvePromise(undefined)
    const socket = connect(socketPath)
    const chunks: Array<Buffer> = []
    let connected = false
    socket.on("connect", () => {
      connected = true
      socket.write(`${JSON.stringify({ op: "backup" })}\n`)
    })
    socket.on("data", (chunk: Buffer) => chunks.push(chunk))
    socket.on("error", (e: NodeJS.ErrnoException) => {
      // A socket file with no server behind it (a crash's leftover): nobody holds the database.
      if (!connected) resolvePromise(undefined)
      else resolvePromise({ error: `the server closed the admin socket: ${e.message}` })
    })
    socket.on("end", () => {
      const all = Buffer.concat(chunks)
      const newline = all.indexOf(0x0a)
      if (newline < 0) return resolvePromise({ error: "the server gave no answer" })
      const head = JSON.parse(all.subarray(0, newline).toString("utf8")) as { ok?: { schemaVersion: number; bytes: number }; error?: string }
      if (head.ok === undefined) return resolvePromise({ error: head.error ?? "the server refused" })
      const dump = all.subarray(newline + 1)
      if (dump.length !== head.ok.bytes) return resolvePromise({ error: `the server sent ${dump.length} of ${head.ok.bytes} bytes` })
      resolvePromise({ schemaVersion: head.ok.schemaVersion, dump: new Uint8Array(dump) })
    })
  })

/**
 * Writes a backup of the embedded database to `file`: through the running server's admin socket
 * when one runs (AdminSocket.ts), else by opening the database itself (taking its lock).
 */
export const backupCommand = async (config: ServerConfigShape, file: string, version: string, out: Output): Promise<number> => {
  if (Option.isSome(config.databaseUrl)) {
    out.line("switchboard: admin backup copies the embedded database; this configuration is on PostgreSQL (DATABASE_URL): back that up with its own tools (pg_dump)")
    return 1
  }
  const pgliteDir = join(config.dataDir, "pglite")
  let taken = await backupThroughServer(adminSocketPath(config.dataDir))
  let how = "through the running server"
  if (taken === undefined) {
    how = "directly (no server running)"
    if (needsInit(pgliteDir)) {
      out.line(`switchboard: no embedded database in ${pgliteDir} (DATA_DIR=${config.dataDir}): nothing to back up`)
      return 1
    }
    const exit = await Effect.runPromiseExit(Effect.scoped(Effect.gen(function*() {
      const db = yield* openPglite(pgliteDir)
      return yield* Effect.promise(async () => ({ schemaVersion: await pgliteSchemaVersion(db), dump: await dumpPglite(db) }))
    })))
    taken = Exit.isSuccess(exit) ? exit.value : { error: failureOf(exit.cause) }
  }
  if ("error" in taken) {
    out.line(`switchboard: could not back up ${pgliteDir}: ${taken.error}`)
    return 1
  }
  const secretFile = join(config.dataDir, "secret.key")
  const withSecret = Option.isNone(config.secretKey) && existsSync(secretFile)
  // The uploaded files, read after the dump: a file written since is one no row names yet (harmless
  // in a restore); only a file deleted in between is missing, and its row was being deleted too.
  const blobsDir = join(config.dataDir, "blobs")
  const blobs = existsSync(blobsDir) ? readdirSync(blobsDir).filter((f) => !f.startsWith(".")) : []
  const sections = [
    { name: PGLITE_SECTION, data: taken.dump },
    ...(withSecret ? [{ name: SECRET_SECTION, data: new Uint8Array(readFileSync(secretFile)) }] : []),
    ...blobs.flatMap((f) => {
      try {
        return [{ name: `${BLOB_PREFIX}${f}`, data: new Uint8Array(readFileSync(join(blobsDir, f))) }]
      } catch {
        return [] // deleted meanwhile
      }
    })
  ]
  const target = resolve(file)
  try {
    const manifest = writeBackupFile(target, { switchboardVersion: version, schemaVersion: taken.schemaVersion }, sections)
    const bytes = manifest.sections.reduce((n, s) => n + s.bytes, 0)
    out.line(`Backed up ${pgliteDir} ${how} to ${target}: schema version ${manifest.schemaVersion}, ${blobs.length} uploaded file${blobs.length === 1 ? "" : "s"}, ${bytes} bytes, created ${manifest.createdAt}.`)
    out.line(withSecret
      ? "It holds the server secret (DATA_DIR/secret.key) too: keep it as private as the data directory (the file is mode 0600)."
      : "It holds no server secret (SECRET_KEY is set): a restored server needs the same SECRET_KEY.")
    return 0
  } catch (e) {
    out.line(`switchboard: could not write ${target}: ${(e as Error).message}`)
    return 1
  }
}

/**
 * Restores a backup into DATA_DIR, which must be missing or empty: every checksum verified first,
 * the data directory locked meanwhile; on any failure DATA_DIR is left as it was.
 */
export const restoreCommand = async (config: ServerConfigShape, file: string, out: Output): Promise<number> => {
  if (Option.isSome(config.databaseUrl)) {
    out.line("switchboard: admin restore makes an embedded database; this configuration is on PostgreSQL (DATABASE_URL): unset it to restore into DATA_DIR")
    return 1
  }
  let backup: ReturnType<typeof readBackupFile>
  try {
    backup = readBackupFile(resolve(file))
  } catch (e) {
    out.line(`switchboard: cannot restore: ${(e as Error).message}; nothing changed`)
    return 1
  }
  const { manifest, sections } = backup
  if (manifest.schemaVersion > EXPECTED_SCHEMA_VERSION) {
    out.line(`switchboard: cannot restore: the backup is at schema version ${manifest.schemaVersion}, newer than this Switchboard (${EXPECTED_SCHEMA_VERSION}); restore it with Switchboard ${manifest.switchboardVersion}; nothing changed`)
    return 1
  }
  const dataDir = config.dataDir
  const existed = existsSync(dataDir)
  const present = existed ? readdirSync(dataDir) : []
  if (present.length > 0) {
    const list = present.length > 5 ? `${present.slice(0, 5).join(", ")}, …` : present.join(", ")
    out.line(`switchboard: cannot restore: DATA_DIR ${dataDir} is not empty (it holds ${list}); restore into a new, empty data directory; nothing changed`)
    return 1
  }
  const pgliteDir = join(dataDir, "pglite")
  const secretFile = join(dataDir, "secret.key")
  const secret = sections.get(SECRET_SECTION)
  const blobs = [...sections].filter(([name]) => name.startsWith(BLOB_PREFIX)).map(([name, data]) => ({ key: name.slice(BLOB_PREFIX.length), data }))
  const unsafe = blobs.find(({ key }) => !/^[A-Za-z0-9_-][A-Za-z0-9._-]*$/.test(key))
  if (unsafe !== undefined) {
    out.line(`switchboard: cannot restore: ${file} names an uploaded file ${JSON.stringify(unsafe.key)} that is not a plain file name; nothing changed`)
    return 1
  }
  mkdirSync(dataDir, { recursive: true, mode: 0o700 })
  const locked = await Effect.runPromiseExit(takeDataDirLock(pgliteDir))
  if (Exit.isFailure(locked)) {
    if (!existed) rmSync(dataDir, { recursive: true, force: true })
    out.line(`switchboard: cannot restore: ${failureOf(locked.cause)}`)
    return 1
  }
  try {
    if (secret !== undefined) writeFileSync(secretFile, secret, { flag: "wx", mode: 0o600 })
    if (blobs.length > 0) mkdirSync(join(dataDir, "blobs"), { mode: 0o700 })
    for (const { data, key } of blobs) writeFileSync(join(dataDir, "blobs", key), data, { flag: "wx", mode: 0o600 })
    const version = await restorePglite(pgliteDir, sections.get(PGLITE_SECTION)!)
    out.line(`Restored ${file} (made ${manifest.createdAt} by Switchboard ${manifest.switchboardVersion}, schema version ${version}, ${blobs.length} uploaded file${blobs.length === 1 ? "" : "s"}) into ${dataDir}.`)
    out.line(secret !== undefined
      ? `The server secret came with it (${secretFile}). Start the server with DATA_DIR=${dataDir}.`
      : `The backup holds no server secret (it was made with SECRET_KEY set): start the server with DATA_DIR=${dataDir} and the same SECRET_KEY.`)
    return 0
  } catch (e) {
    rmSync(pgliteDir, { recursive: true, force: true })
    rmSync(join(dataDir, "blobs"), { recursive: true, force: true })
    if (secret !== undefined) rmSync(secretFile, { force: true })
    out.line(`switchboard: could not restore ${file}: ${(e as Error).message}; ${dataDir} left empty`)
    return 1
  } finally {
    locked.value()
    if (!existed) {
      try {
        rmdirSync(dataDir)
      } catch {
        // it holds the restored data: kept
      }
    }
  }
}
