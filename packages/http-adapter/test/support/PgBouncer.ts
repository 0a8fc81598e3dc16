/**
 * A PgBouncer a test owns, in transaction-pooling mode, in front of a PostgreSQL server (a cluster
 * of OwnPostgres.ts, or any `postgres://` URL with trust authentication): Debian's `pgbouncer`
 * (1.18: no prepared statements in transaction mode, and session state such as LISTEN or a session
 * advisory lock stays on whichever server connection served it). Every database name is passed
 * through (`* =`), so a test may create its own databases behind it. As root, it runs as the
 * `postgres` user (PgBouncer refuses to run as root).
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import { chownSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { connect } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { freePort } from "./WebhookReceiver.js"

/** The `pgbouncer` binary, if installed (`apt-get install -y pgbouncer`). */
export const pgbouncerBin = ["/usr/sbin/pgbouncer", "/usr/bin/pgbouncer"].find((p) => existsSync(p))

export interface PgBouncer {
  /** `url` with its host and port replaced by PgBouncer's. */
  readonly through: (url: string) => string
  readonly port: number
  /** `pgbouncer --version`'s first line (`PgBouncer 1.18.0`). */
  readonly version: string
  /** PgBouncer's log so far. */
  readonly log: () => string
  readonly stop: () => Promise<void>
}

export interface PgBouncerOptions {
  /** Server connections per database/user pair (`default_pool_size`). Default 4. */
  readonly poolSize?: number
}

const listening = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, "127.0.0.1")
    socket.once("connect", () => {
      socket.destroy()
      resolve(true)
    })
    socket.once("error", () => resolve(false))
  })

/** Starts PgBouncer in transaction mode in front of the server of `serverUrl`, once it accepts connections. */
export const startPgBouncer = async (serverUrl: string, options: PgBouncerOptions = {}): Promise<PgBouncer> => {
  if (pgbouncerBin === undefined) throw new Error("pgbouncer is not installed (apt-get install -y pgbouncer)")
  const server = new URL(serverUrl)
  const user = decodeURIComponent(server.username) || "postgres"
  const dir = mkdtempSync(join(tmpdir(), "switchboard-pgbouncer-"))
  const port = await freePort()
  writeFileSync(join(dir, "users.txt"), `"${user}" ""\n`)
  writeFileSync(
    join(dir, "pgbouncer.ini"),
    [
      "[databases]",
      `* = host=${server.hostname} port=${server.port === "" ? "5432" : server.port}`,
      "[pgbouncer]",
      "listen_addr = 127.0.0.1",
      `listen_port = ${port}`,
      `unix_socket_dir = ${dir}`,
      "auth_type = trust",
      `auth_file = ${join(dir, "users.txt")}`,
      "pool_mode = transaction",
      `default_pool_size = ${options.poolSize ?? 4}`,
      "max_client_conn = 500",
      // Statements bounded by the client (its CancelRequest), idle transactions by PgBouncer.
      "idle_transaction_timeout = 60",
      `logfile = ${join(dir, "pgbouncer.log")}`,
      `pidfile = ${join(dir, "pgbouncer.pid")}`,
      ""
    ].join("\n")
  )
  const asRoot = process.getuid?.() === 0
  let ids: { uid: number; gid: number } | undefined
  if (asRoot) {
    ids = {
      uid: Number(execFileSync("id", ["-u", "postgres"]).toString().trim()),
      gid: Number(execFileSync("id", ["-g", "postgres"]).toString().trim())
    }
    chownSync(dir, ids.uid, ids.gid)
  }
  const child: ChildProcess = spawn(pgbouncerBin, [join(dir, "pgbouncer.ini")], { stdio: ["ignore", "pipe", "pipe"], ...(ids ?? {}) })
  let out = ""
  child.stdout!.on("data", (d) => (out += d))
  child.stderr!.on("data", (d) => (out += d))
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()))
  const log = () => {
    const file = join(dir, "pgbouncer.log")
    return out + (existsSync(file) ? readFileSync(file, "utf8") : "")
  }
  const deadline = Date.now() + 30_000
  while (!(await listening(port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill("SIGKILL")
      throw new Error(`pgbouncer did not start:\n${log()}`)
    }
    await new Promise((r) => setTimeout(r, 50))
  }
  return {
    port,
    version: execFileSync(pgbouncerBin, ["--version"]).toString().split("\n")[0]!.trim(),
    through: (url: string) => {
      const u = new URL(url)
      u.hostname = "127.0.0.1"
      u.port = String(port)
      return u.toString()
    },
    log,
    stop: async () => {
      if (child.exitCode === null) {
        child.kill("SIGINT") // PgBouncer's immediate shutdown
        await exited
      }
      rmSync(dir, { recursive: true, force: true })
    }
  }
}
