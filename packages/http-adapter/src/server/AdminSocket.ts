/**
 * The running server's admin socket (docs/operations.md, "Backup and restore"): on the embedded
 * database, a Unix-domain socket `DATA_DIR/admin.sock`, mode 0600, through which
 * `switchboard admin backup` asks the process that holds the database for a consistent copy of it.
 * The embedded database has one owner, so a backup while the server runs must be taken by the
 * server; a socket in the data directory is reachable only by whoever may read the data directory
 * anyway (its mode, and the file system's permissions), needs no port, token or TLS, and vanishes
 * with the process (a stale file is removed at the next start, by the lock's new holder).
 *
 * One request per connection: the client writes one line of JSON, `{"op":"backup"}`; the server
 * answers one line — `{"ok":{"schemaVersion":N,"bytes":M}}` followed by the M bytes of the dump, or
 * `{"error":"…"}` — and closes.
 */
import { dumpEmbedded, PgClient, schemaVersion } from "@switchboard/sql-adapter"
import { SqlClient } from "effect/sql"
import { Effect, Layer } from "effect"
import { chmodSync, unlinkSync } from "node:fs"
import { createServer, type Server, type Socket } from "node:net"
import { join } from "node:path"

/** Where the admin socket of a data directory is. */
export const adminSocketPath = (dataDir: string) => join(dataDir, "admin.sock")

/** The longest Unix-domain socket path Linux accepts (sun_path holds 108 bytes with its NUL). */
const MAX_SOCKET_PATH = 107

const removeStale = (path: string) => {
  try {
    unlinkSync(path)
  } catch {
    // not there
  }
}

const answer = (socket: Socket, head: Record<string, unknown>, body?: Uint8Array) => {
  socket.write(`${JSON.stringify(head)}\n`)
  if (body !== undefined) socket.write(body)
  socket.end()
}

/**
 * Serves the admin socket for the life of the layer when the store is the embedded database
 * (nothing on PostgreSQL, whose own tools back it up). The caller holds the data directory's lock,
 * so a socket file already there is a crash's leftover.
 */
export const AdminSocketLive = (dataDir: string) =>
  Layer.effectDiscard(Effect.gen(function*() {
    const pg = yield* PgClient
    const dump = dumpEmbedded(pg)
    if (dump === undefined) return
    const path = adminSocketPath(dataDir)
    if (Buffer.byteLength(path) > MAX_SOCKET_PATH) {
      return yield* Effect.logWarning(`no admin socket: ${path} is longer than ${MAX_SOCKET_PATH} bytes; admin backup needs the server stopped`)
    }
    const backup = Effect.gen(function*() {
      const version = yield* Effect.provideService(schemaVersion, SqlClient.SqlClient, pg)
      const bytes = yield* dump
      return { schemaVersion: version ?? 0, bytes }
    })
    const onConnection = (socket: Socket) => {
      let line = ""
      socket.setEncoding("utf8")
      socket.on("error", () => socket.destroy())
      socket.on("data", (chunk: string) => {
        if (line.includes("\n")) return
        line += chunk
        if (line.length > 4096) return answer(socket, { error: "request too long" })
        const newline = line.indexOf("\n")
        if (newline < 0) return
        let op: unknown
        try {
          op = (JSON.parse(line.slice(0, newline)) as { op?: unknown }).op
        } catch {
          op = undefined
        }
        if (op !== "backup") return answer(socket, { error: `unknown request ${JSON.stringify(line.slice(0, Math.min(newline, 80)))}` })
        Effect.runPromise(backup).then(
          ({ bytes, schemaVersion }) => answer(socket, { ok: { schemaVersion, bytes: bytes.length } }, bytes),
          (e: unknown) => answer(socket, { error: `the backup failed: ${e instanceof Error ? e.message : String(e)}` })
        )
      })
    }
    yield* Effect.acquireRelease(
      Effect.callback<Server, Error>((resume) => {
        removeStale(path)
        const server = createServer(onConnection)
        server.once("error", (e) => resume(Effect.fail(e)))
        // Created with no permission for anyone but the owner (umask), then made 0600 explicitly.
        const umask = process.umask(0o177)
        try {
          server.listen(path, () => {
            chmodSync(path, 0o600)
            server.unref()
            resume(Effect.succeed(server))
          })
        } finally {
          process.umask(umask)
        }
      }),
      (server) =>
        Effect.callback<void>((resume) => {
          server.close(() => resume(Effect.void))
          removeStale(path)
        })
    ).pipe(Effect.catch((e) => Effect.logWarning(`no admin socket at ${path}: ${e.message}; admin backup needs the server stopped`)))
  }))
